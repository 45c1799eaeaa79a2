"""The near side of a remote project (issue 29): where it is (`RemoteSpec`, from scp's
`HOST:PATH` or `ssh://[user@]host[:port]/path`), the command that reaches its far side
(`ssh HOST ocr-tui agent --stdio PATH`, or `--via CMD`), and one connection to it
(`RemoteLink`): the hello checked first, then the far side's lines, and requests answered by
id. Format-neutral: the lines are the far side's protocol (docs/remote.md), decoded as JSON
objects; what they mean is the caller's.

A far side that is missing, too old or too new, slow to say hello, or that sends garbage, lies
about lengths or floods, is one plain line (`RemoteError`), never a hang.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from queue import Empty, Full, Queue

PROTOCOL = 1  # what this side speaks
HELLO_TIMEOUT_S = 15.0
MAX_LINE = 64 * 1024 * 1024  # one line of the far side's (a snapshot of a big session)
DEFAULT_AGENT = "ocr-tui"
QUEUED = 50_000  # the far side's lines held at most, not taken yet

_SCP = re.compile(r"([A-Za-z0-9_.@\[\]:-]{1,255}?):(.*)")
_URL = re.compile(r"ssh://(?:([^@/]{1,64})@)?([^:/]{1,255})(?::(\d{1,5}))?(/.*)?")


class RemoteError(Exception):
    """One plain line saying what is wrong with the far side or the way to it."""


@dataclass(frozen=True)
class RemoteSpec:
    host: str  # as ssh takes it: `devbox`, `ana@devbox`
    path: str  # on the far side, as given (`~` left to the far side's shell)
    port: int | None = None
    via: tuple[str, ...] = ()  # a command that reaches a shell where ocr-tui lives
    agent: str = DEFAULT_AGENT  # the far side's command (`uvx ocr-tui`, a path)
    ssh_options: tuple[str, ...] = field(default=())
    # `e` on one of its findings: the user's editor's remote mode, `{host}` `{path}` `{line}`
    # filled in (`code --remote ssh-remote+{host} -g {path}:{line}`); None: shown read-only
    editor: str | None = None

    @property
    def place(self) -> tuple[str, str, int | None]:
        """What names the project: two specs of one place are one project."""
        return (self.host, self.path, self.port)

    @property
    def label(self) -> str:
        """`devbox:api`: the host and the path's last part (the Project column)."""
        name = self.path.rstrip("/").rsplit("/", 1)[-1] or self.path
        host = self.host.split("@", 1)[-1]
        return f"{host}:{name}"

    def command(self) -> list[str]:
        """The argv that starts the far side."""
        far = [*shlex.split(self.agent), "agent", "--stdio", self.path]
        if self.via:
            return [*self.via, *far]
        # $OCR_TUI_SSH: the ssh command's words (`ssh -F ~/.ssh/other_config`), else ssh
        ssh = [*(shlex.split(os.environ.get("OCR_TUI_SSH", "")) or ["ssh"]), "-T", "-o",
               "BatchMode=yes", *self.ssh_options]  # fmt: skip
        if self.port is not None:
            ssh += ["-p", str(self.port)]
        # ssh joins the remote words with spaces for the far side's shell: quote each
        return [*ssh, self.host, "--", shlex.join(far)]


def remote_names(specs: list[RemoteSpec], taken: set[str] = frozenset()) -> list[str]:
    """Each remote project's name (the Project column, its sessions' ids): `devbox:api`; two
    that would read the same take more of their paths (`devbox:a/api`), then a number."""
    names: list[str] = []
    used = set(taken)
    for spec in specs:
        host = spec.host.split("@", 1)[-1]
        parts = [p for p in spec.path.rstrip("/").split("/") if p] or [spec.path or "."]
        name = f"{host}:{parts[-1]}"
        depth = 1
        while name in used and depth < len(parts):
            depth += 1
            name = f"{host}:{'/'.join(parts[-depth:])}"
        base, n = name, 2
        while name in used:
            name, n = f"{base}#{n}", n + 1
        used.add(name)
        names.append(name)
    return names


def parse_remote(text: str) -> RemoteSpec | None:
    """`HOST:PATH` (scp's form: a colon before any slash) or `ssh://[user@]host[:port]/path`;
    None for a local path (`./a:b`, `/x:y`, `C:` has no path after it… is local too)."""
    m = _URL.fullmatch(text)
    if m:
        user, host, port, path = m.groups()
        p = int(port) if port else None
        if p is not None and not 0 < p < 65536:
            return None
        host = f"{user}@{host}" if user else host
        return RemoteSpec(host=host, path=(path or "/")[1:] or ".", port=p)
    if text.startswith(("/", ".", "~")) or "/" in text.split(":", 1)[0]:
        return None
    m = _SCP.fullmatch(text)
    if m is None or not m.group(1) or m.group(1).startswith("-"):
        return None
    return RemoteSpec(host=m.group(1), path=m.group(2) or ".")


class RemoteLink:
    """One connection to a far side: `open()` starts it and checks its hello (RemoteError when
    it cannot); `lines()` yields its stream's objects; `request(op, **args)` sends a request
    and returns its reply's result (RemoteError with the far side's error); `close()` ends
    the far side and reaps it."""

    def __init__(self, spec: RemoteSpec, *, hello_timeout: float = HELLO_TIMEOUT_S) -> None:
        self.spec = spec
        self.hello: dict | None = None
        self._timeout = hello_timeout
        self._proc: subprocess.Popen | None = None
        # the far side's lines not taken yet: bounded, so a far side faster than its reader
        # waits (ssh's pipe fills) instead of filling this process's memory
        self._events: Queue = Queue(maxsize=QUEUED)
        self._replies: dict[object, Queue] = {}
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()  # requests come from several worker threads
        self._next = 0
        self._stderr: list[str] = []
        self._closed = False  # close() was called (perhaps while open() was starting it)
        self._ended = False  # the far side's stream ended: no reply will come

    # -- starting -----------------------------------------------------------------------------

    def open(self) -> dict:
        try:
            self._proc = subprocess.Popen(
                self.spec.command(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            raise RemoteError(f"{self.spec.label}: cannot start {self.spec.command()[0]}: "
                              f"{exc.strerror or exc}") from None  # fmt: skip
        if self._closed:  # closed while it was being started: end it now
            self.close(graceful=False)
            raise RemoteError(f"{self.spec.label}: closed")
        threading.Thread(target=self._read, name="remote-out", daemon=True).start()
        threading.Thread(target=self._read_err, name="remote-err", daemon=True).start()
        try:
            first = self._events.get(timeout=self._timeout)
        except Empty:
            self.close(graceful=False)
            raise RemoteError(f"{self.spec.label}: no answer from ocr-tui on {self.spec.host}"
                              f" within {self._timeout:.0f}s") from None  # fmt: skip
        if isinstance(first, _Ended):
            self.close(graceful=False)
            raise RemoteError(self._why_ended(first))
        if not isinstance(first, dict) or first.get("type") != "hello":
            self.close(graceful=False)
            raise RemoteError(f"{self.spec.label}: the far side is not ocr-tui's agent "
                              "(its first line is no hello)")  # fmt: skip
        low, high = first.get("min_protocol"), first.get("protocol")
        version = str(first.get("version", "?"))[:40]
        if not isinstance(low, int) or not isinstance(high, int) or not low <= PROTOCOL <= high:
            self.close(graceful=False)
            older = isinstance(high, int) and high < PROTOCOL
            raise RemoteError(
                f"ocr-tui {version} on {self.spec.host} is {'older' if older else 'newer'} than"
                f" this one (protocol {low}..{high}, here {PROTOCOL}): "
                + ("upgrade it there (pipx upgrade ocr-tui)" if older else "upgrade this one")
            )
        self.hello = first
        return first

    def why_ended(self) -> str:
        """Why the far side's stream ended (its exit and what it said on stderr)."""
        return self._why_ended(_Ended(None))

    def _why_ended(self, ended: _Ended) -> str:
        try:
            code = self._proc.wait(timeout=2) if self._proc else None
        except subprocess.TimeoutExpired:
            code = None
        err = " ".join(" ".join(self._stderr).split())[:300]
        program = (shlex.split(self.spec.agent) or ["ocr-tui"])[0]
        missing = "not found" in err or (program in err and "No such file or directory" in err)
        if code == 127 or missing:  # (ssh may say 255 for a far command that is not there)
            return (
                f"ocr-tui is not installed on {self.spec.host}: install it there (pipx "
                f"install ocr-tui), or set the agent command ({err or code})"
            )
        if ended.reason:
            return f"{self.spec.label}: {ended.reason}"
        return f"{self.spec.label}: the far side ended (exit {code}){': ' + err if err else ''}"

    # -- reading --------------------------------------------------------------------------------

    def _read(self) -> None:
        reason = None
        try:
            reason = self._read_lines()
        except Exception as exc:  # (nested past the parser's depth, a bug): cut off all the same
            reason = f"the far side sent what cannot be read ({type(exc).__name__}): cut off"
        finally:  # whatever ended it, the reader and every request waiting hear of it
            with self._lock:
                self._ended = True
                boxes = list(self._replies.values())
            for box in boxes:
                box.put(_Ended(reason))
            self._put(_Ended(reason))
            if reason:
                self.close(graceful=False)

    def _read_lines(self) -> str | None:
        """Read the far side's lines until it ends (None) or sends what is cut off (why)."""
        out = self._proc.stdout
        while True:
            raw = out.readline(MAX_LINE + 1)
            if not raw:
                return None
            if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                return f"the far side sent a line over {MAX_LINE // (1024 * 1024)} MiB: cut off"
            try:
                obj = json.loads(raw)
            except ValueError:
                return "the far side sent a line that is not JSON: cut off"
            if not isinstance(obj, dict):
                return "the far side sent a line that is not an object: cut off"
            if obj.get("type") == "reply":
                rid = obj.get("id")
                if isinstance(rid, int) and not isinstance(rid, bool):  # (ours are ints)
                    with self._lock:
                        box = self._replies.get(rid)
                    if box is not None:
                        box.put(obj)
                continue
            self._put(obj)

    def _put(self, obj: object) -> None:
        """Queue a line for the reader, waiting while the queue is full (not once closed)."""
        while True:
            try:
                self._events.put(obj, timeout=0.5)
                return
            except Full:
                if self._closed:
                    return

    def _read_err(self) -> None:
        for raw in self._proc.stderr:
            if len(self._stderr) < 20:
                self._stderr.append(raw.decode("utf-8", "replace")[:300])

    def lines(self, timeout: float | None = None) -> Iterator[dict]:
        """The far side's lines after its hello, until it ends (RemoteError if it was cut
        off for what it sent)."""
        while True:
            try:
                got = self._events.get(timeout=timeout)
            except Empty:
                return
            if isinstance(got, _Ended):
                if got.reason:
                    raise RemoteError(f"{self.spec.label}: {got.reason}")
                return
            yield got

    def batch(self, timeout: float, most: int = 10_000) -> list[dict] | None:
        """The lines that came, waiting up to `timeout` for the first, then those already
        here (at most `most`); None once the far side ended (RemoteError if it was cut off
        for what it sent). Lines after the end are left for the next call."""
        out: list[dict] = []
        try:
            got = self._events.get(timeout=timeout)
        except Empty:
            return out
        while True:
            if isinstance(got, _Ended):
                if out:
                    self._events.put_nowait(got)  # (the next call says it; room: one taken)
                    return out
                if got.reason:
                    raise RemoteError(f"{self.spec.label}: {got.reason}")
                return None
            out.append(got)
            if len(out) >= most:
                return out
            try:
                got = self._events.get_nowait()
            except Empty:
                return out

    @property
    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def request(self, op: str, timeout: float = 30.0, **args: object) -> object:
        with self._lock:
            if self._ended:
                raise RemoteError(f"{self.spec.label}: the connection ended")
            self._next += 1
            rid = self._next
            box: Queue = Queue()
            self._replies[rid] = box
        line = json.dumps({"type": "request", "id": rid, "op": op, **args}) + "\n"
        try:
            with self._write_lock:
                self._proc.stdin.write(line.encode())
                self._proc.stdin.flush()
            reply = box.get(timeout=timeout)
        except (OSError, ValueError, AttributeError):
            raise RemoteError(f"{self.spec.label}: the connection is closed") from None
        except Empty:
            raise RemoteError(f"{self.spec.label}: no reply to {op} in {timeout:.0f}s") from None
        finally:
            with self._lock:
                self._replies.pop(rid, None)
        if isinstance(reply, _Ended):
            raise RemoteError(f"{self.spec.label}: the connection ended")
        if "error" in reply:
            raise RemoteError(f"{self.spec.label}: {str(reply['error'])[:300]}")
        return reply.get("result")

    def close(self, graceful: bool = True) -> None:
        """End the far side (stdin closed: it ends itself; then SIGTERM, SIGKILL) and reap it:
        no ssh process is left behind. Not `graceful` (a far side that misbehaved): SIGTERM at
        once."""
        self._closed = True
        p = self._proc
        if p is None:
            return
        if not graceful and p.poll() is None:
            # first: a request's write blocked on a far side that stopped reading holds the
            # pipe's lock, and closing stdin would wait for it; once the far side is gone the
            # write fails and lets go
            try:
                os.killpg(p.pid, 15)
            except OSError:
                pass
        try:
            if p.stdin and not p.stdin.closed:
                p.stdin.close()
        except (OSError, ValueError):
            pass
        try:
            p.wait(timeout=2 if graceful else 0.05)
        except subprocess.TimeoutExpired:
            for sig in (15, 9):
                try:
                    os.killpg(p.pid, sig)
                except OSError:
                    pass
                try:
                    p.wait(timeout=2)
                    break
                except subprocess.TimeoutExpired:
                    continue


@dataclass(frozen=True)
class _Ended:
    reason: str | None = None
