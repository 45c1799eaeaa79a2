"""The app in a real terminal: a private tmux server, read through one tmux control-mode client
(a `capture-pane` costs ~0.1 ms that way, against ~4 ms for a `tmux` subprocess, so polling
does not steal the CPU the app needs), and the app's CPU and memory from /proc."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

WIDTH, HEIGHT = 120, 40
TICKS = os.sysconf("SC_CLK_TCK")
EXE = str(Path(sys.executable).with_name("ocr-tui"))
ENV = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "TMUX")}
ENV |= {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC"}


class Pane:
    """`command` running in a detached 120x40 tmux session on a private socket."""

    def __init__(self, command: list[str], env: dict[str, str] | None = None) -> None:
        self.socket = f"ocr-bench-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        env_args = [a for k, v in (env or {}).items() for a in ("-e", f"{k}={v}")]
        self.started = time.perf_counter()
        self.tmux(
            "new-session",
            "-d",
            "-s",
            "b",
            "-x",
            str(WIDTH),
            "-y",
            str(HEIGHT),
            *env_args,
            "exec " + shlex.join(command),
        )
        self.socket_path = self.tmux("display", "-p", "-t", "b", "#{socket_path}").strip()
        self.pid = int(self.tmux("display", "-p", "-t", "b", "#{pane_pid}"))
        self._ctl = subprocess.Popen(
            [
                "tmux",
                "-L",
                self.socket,
                "-C",
                "attach-session",
                "-t",
                "b",
                "-f",
                "no-output,ignore-size",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            bufsize=0,
            env=ENV,
        )
        self._buf = b""
        self._command("")  # the attach's own (empty) reply

    def tmux(self, *args: str) -> str:
        out = subprocess.run(
            ["tmux", "-L", self.socket, "-f", os.devnull, *args],
            capture_output=True,
            text=True,
            timeout=10,
            env=ENV,
        )
        if out.returncode != 0:
            raise RuntimeError(f"tmux {args[0]}: {out.stderr.strip()}")
        return out.stdout

    def _line(self) -> bytes:
        while b"\n" not in self._buf:
            chunk = os.read(self._ctl.stdout.fileno(), 1 << 16)  # type: ignore[union-attr]
            if not chunk:
                raise RuntimeError("the tmux control client ended")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return line

    def _command(self, command: str) -> str:
        if command:
            self._ctl.stdin.write(command.encode() + b"\n")  # type: ignore[union-attr]
        out: list[bytes] = []
        inside = False
        while True:
            line = self._line()
            if line.startswith(b"%begin"):
                inside, out = True, []
            elif inside and line.startswith((b"%end", b"%error")):
                return b"\n".join(out).decode("utf-8", "replace")
            elif inside:
                out.append(line)

    def capture(self) -> str:
        return self._command("capture-pane -p -t b")

    def keys(self, *keys: str) -> float:
        """Send keys; returns the time just before they were sent."""
        t0 = time.perf_counter()
        self._command("send-keys -t b " + " ".join(shlex.quote(k) for k in keys))
        return t0

    def wait(
        self, cond: Callable[[str], bool], timeout: float = 30.0, interval: float = 0.001
    ) -> tuple[float, str] | None:
        """Poll until cond(screen); returns (perf_counter when seen, screen) or None."""
        deadline = time.perf_counter() + timeout
        while True:
            screen = self.capture()
            now = time.perf_counter()
            if cond(screen):
                return now, screen
            if now > deadline:
                return None
            time.sleep(interval)

    def close(self) -> None:
        try:
            self._ctl.stdin.close()  # type: ignore[union-attr]
            self._ctl.wait(2)
        except (OSError, subprocess.TimeoutExpired):
            self._ctl.kill()
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, check=False)
        Path(self.socket_path).unlink(missing_ok=True)

    def __enter__(self) -> Pane:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def app_pane(path: Path, *extra: str, cache_dir: str = "off") -> Pane:
    """The dashboard on `path` in tmux (the venv's console script)."""
    env = {"OCR_TUI_CACHE_DIR": cache_dir, "TERM": "tmux-256color", "COLORTERM": "truecolor"}
    env |= {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC"}
    return Pane([EXE, str(path), *extra], env)


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, in seconds (/proc/<pid>/stat fields 14 and 15)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def memory_mb(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM (peak RSS) in MB."""
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":")
                out[key] = int(value.split()[0]) / 1024
    return out


def _id_cell_matches(cell: str, sid: str) -> bool:
    """The id, or the id as the list draws it: without its date when short of room
    (`display.id_core`), or cut in its middle (`elide_id`)."""
    from ocr_tui.core.display import id_core
    from ocr_tui.ui.screens.sessions.cells import elide_id

    if cell in (sid, id_core(sid)):
        return True
    return len(cell) > 8 and cell in (elide_id(sid, len(cell)), elide_id(id_core(sid), len(cell)))


def row_of(screen: str, sid: str) -> str:
    """The session list's row for `sid`: a line (outside the boxes below the list) with a cell
    (cells are separated by 2+ spaces) that is the id as the list draws it."""
    for line in screen.splitlines():
        if "│" in line:
            continue
        if any(_id_cell_matches(cell, sid) for cell in re.split(r"\s{2,}", line.strip())):
            return line
    return ""


_BG = re.compile(r"48;2;\d+;\d+;\d+|48;5;\d+")
_SGR = re.compile(r"\x1b\[[0-9;]*m")
# A list row starts with its session's state glyph (core/states.py).
_LIST_ROW = re.compile(r"^ ?[●◐✓⚠◆!✗…⊘] ")


def highlighted_row(pane: Pane) -> str:
    """The text of the session list's cursor row: the one row whose background colour no
    other row has (read from `capture-pane -e`, so toasts over the detail pane do not matter)."""
    lines = [
        ln
        for ln in pane._command("capture-pane -p -e -t b").splitlines()
        if _LIST_ROW.match(_SGR.sub("", ln)) and "│" not in _SGR.sub("", ln)
    ]
    if len(lines) < 2:
        return ""
    codes = [set(_BG.findall(ln)) for ln in lines]
    for i, mine in enumerate(codes):
        others = set().union(*(c for j, c in enumerate(codes) if j != i))
        if mine - others:
            return _SGR.sub("", lines[i]).strip()
    return ""
