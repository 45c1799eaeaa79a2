"""Shared tools for the robustness suite: write OCR files the way agents and people do, run the
watcher in a background thread and keep the live model its events describe, compare it with a
fresh scan once quiet, and check every readable output for raw terminal control sequences."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import re
import select
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import find_project
from ocr_tui.core.view import SessionView

# A fixed "now", an hour after the wall clock at import: file times written by the tests are in
# the past, and every elapsed value compares equal between the live model and a fresh scan.
NOW = datetime.now(UTC).replace(microsecond=0) + timedelta(hours=1)


def clock() -> datetime:
    return NOW


# --- writing ---------------------------------------------------------------------------------


def put(path: Path, data: str | bytes, *, atomic: bool = True) -> None:
    """Write a file as an agent does: a temp file renamed into place (or, `atomic=False`, in
    place in two chunks, so a watcher can catch it half-written)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode() if isinstance(data, str) else data
    if atomic:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_bytes(raw)
        os.replace(tmp, path)
        return
    half = len(raw) // 2
    with open(path, "wb") as fh:
        fh.write(raw[:half])
        fh.flush()
        fh.write(raw[half:])


def state_json(**fields) -> str:
    return json.dumps({k: v for k, v in fields.items() if v is not None})


def reviewer_md(name: str, severities: list[str]) -> str:
    out = [f"# {name} review", "", "## Findings", ""]
    for i, sev in enumerate(severities, start=1):
        out += [f"### Finding {i}: something", f"- **Severity**: {sev}", "", "Text.", ""]
    return "\n".join(out)


def final_md(verdict: str, blockers: int = 0) -> str:
    return f"# Final\n\n## Verdict\n\n**{verdict}**\n\n**Blockers**: {blockers}\n"


DB_SCHEMA = """
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, branch TEXT NOT NULL, status TEXT, workflow_type TEXT,
  current_phase TEXT, phase_number INTEGER, current_round INTEGER, current_map_run INTEGER,
  started_at TEXT, updated_at TEXT, session_dir TEXT);
CREATE TABLE orchestration_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, event_type TEXT NOT NULL,
  phase TEXT, phase_number INTEGER, round INTEGER, metadata TEXT, created_at TEXT);
"""


def db_bytes(rows: dict[str, dict], *, schema: str = DB_SCHEMA) -> bytes:
    """An ocr.db image holding these session rows (id -> columns), built in memory."""
    con = sqlite3.connect(":memory:")
    try:
        con.executescript(schema)
        for sid, cols in rows.items():
            row = {"id": sid, "branch": "b", "session_dir": sid, **cols}
            names = ", ".join(row)
            marks = ", ".join("?" for _ in row)
            con.execute(f"INSERT INTO sessions ({names}) VALUES ({marks})", list(row.values()))
        con.commit()
        return con.serialize()
    finally:
        con.close()


def write_db(path: Path, data: bytes, *, atomic: bool = True) -> None:
    """Like upstream's sql.js writer: `ocr.db.<pid>.tmp` renamed over ocr.db."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if atomic:
        tmp = path.with_name(f"ocr.db.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    else:
        put(path, data, atomic=False)


def set_mtimes(top: Path, when: datetime) -> None:
    t = when.timestamp()
    for dirpath, dirnames, filenames in os.walk(top):
        for name in dirnames + filenames:
            os.utime(os.path.join(dirpath, name), (t, t), follow_symlinks=False)
    os.utime(top, (t, t))


# --- the user's tree -------------------------------------------------------------------------


def tree_digest(root: Path) -> dict[str, tuple]:
    """Every path under `root` mapped to (kind, sha256, size, mode, mtime_ns), links not
    followed: anything written, created, removed, chmod-ed or touched shows."""
    out: dict[str, tuple] = {}
    hashed: dict[tuple, str] = {}  # hard links to one file are read once
    for dirpath, dirnames, filenames in os.walk(os.fsencode(root)):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            st = os.lstat(p)
            digest = "dir"
            if os.path.islink(p):
                digest = "link:" + os.fsdecode(os.readlink(p))
            elif not stat.S_ISREG(st.st_mode) and not stat.S_ISDIR(st.st_mode):
                digest = "special"  # a FIFO: opening it would block
            elif (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size) in hashed:
                digest = hashed[st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size]
            elif name in filenames:
                h = hashlib.sha256()
                try:
                    with open(p, "rb") as fh:
                        while chunk := fh.read(1 << 20):
                            h.update(chunk)
                    digest = h.hexdigest()
                    hashed[st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size] = digest
                except PermissionError:
                    digest = "unreadable"
            out[os.fsdecode(os.path.relpath(p, os.fsencode(root)))] = (
                digest, st.st_size, st.st_mode, st.st_mtime_ns,
            )  # fmt: skip
    return out


# --- scanning --------------------------------------------------------------------------------


def clear_parse_cache() -> None:
    """A fresh scan must not be served parse results the live engine cached."""
    from ocr_tui.formats.ocr import file_cache

    file_cache.clear()


def fresh_scan(root: Path) -> dict[str, SessionView]:
    clear_parse_cache()
    return {v.id: v for v in Engine(find_project(root), clock=clock).scan()}


def diff_views(live: dict[str, SessionView], fresh: dict[str, SessionView]) -> str:
    lines = []
    for sid in sorted(set(live) | set(fresh)):
        a, b = live.get(sid), fresh.get(sid)
        if a == b:
            continue
        if a is None or b is None:
            lines.append(f"{sid!r}: live={'absent' if a is None else 'present'}, "
                         f"fresh={'absent' if b is None else 'present'}")  # fmt: skip
            continue
        da, db = msgspec.to_builtins(a), msgspec.to_builtins(b)
        for k in sorted(set(da) | set(db)):
            if da.get(k) != db.get(k):
                lines.append(f"{sid!r}.{k}: live={da.get(k)!r} fresh={db.get(k)!r}")
    return "\n".join(lines)


# --- the watcher, live -----------------------------------------------------------------------


class LiveWatch:
    """`watch_project` on an event loop in a background thread. `model` is the session list
    the events describe (Scanned replaces it, Changed updates it), as a consumer keeps it."""

    def __init__(self, root: Path, *, backend: str = "auto", poll: bool = False) -> None:
        self.root = root
        self.engine = Engine(find_project(root), clock=clock)
        self.backend, self.poll = backend, poll
        self.model: dict[str, SessionView] = {}
        self.kinds: list[str] = []
        self.lock = threading.Lock()
        self.last_activity = time.monotonic()
        self.error: BaseException | None = None
        self.scanned = threading.Event()
        self._loop = asyncio.new_event_loop()
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._run, daemon=True, name="live-watch")

    def start(self, timeout: float = 20.0) -> LiveWatch:
        self._thread.start()
        if not self.scanned.wait(timeout):
            raise AssertionError(f"no Scanned event within {timeout}s (error: {self.error!r})")
        return self

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._main())
        finally:
            self._loop.close()

    async def _main(self) -> None:
        from ocr_tui.core.watch import Changed, Scanned, watch_project

        self._stop = asyncio.Event()
        try:
            async for ev in watch_project(
                self.engine, stop=self._stop, poll=self.poll, backend=self.backend
            ):
                with self.lock:
                    self.kinds.append(type(ev).__name__)
                    if isinstance(ev, Scanned):
                        self.model = {v.id: v for v in ev.sessions}
                    elif isinstance(ev, Changed):
                        for sid in ev.removed:
                            self.model.pop(sid, None)
                        for v in ev.sessions:
                            self.model[v.id] = v
                    self.last_activity = time.monotonic()
                if isinstance(ev, Scanned):
                    self.scanned.set()
        except BaseException as exc:  # noqa: BLE001 - reported by check()
            self.error = exc
            self.scanned.set()

    def touched(self) -> None:
        """Note that the test just wrote something (quiet is measured from here too)."""
        with self.lock:
            self.last_activity = time.monotonic()

    def close(self, timeout: float = 20.0) -> None:
        if self._thread.is_alive() and self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(timeout)
        if self._thread.is_alive():
            import traceback

            frame = sys._current_frames().get(self._thread.ident)
            where = "".join(traceback.format_stack(frame)) if frame else "?"
            with self.lock:
                kinds = self.kinds[-10:]
            raise AssertionError(
                f"the watcher did not stop within {timeout}s; last events {kinds}; "
                f"its thread is at:\n{where}"
            )

    def settle(
        self,
        expected: Callable[[], dict[str, SessionView]] | None = None,
        *,
        quiet: float = 0.025,
        deadline: float = 15.0,
    ) -> dict[str, SessionView]:
        """Once no event came and nothing was written for `quiet` seconds, the live model must
        equal a fresh scan; on a mismatch wait for quiet again and re-compare, up to
        `deadline`. Returns the live model."""
        expected = expected or (lambda: fresh_scan(self.root))
        end = time.monotonic() + deadline
        while True:
            if self.error is not None:
                raise AssertionError(f"the watcher failed: {self.error!r}") from self.error
            while True:
                with self.lock:
                    idle = time.monotonic() - self.last_activity
                if idle >= quiet:
                    break
                time.sleep(quiet - idle + 0.001)
            with self.lock:
                live = dict(self.model)
            fresh = expected()
            if live == fresh:
                return live
            if time.monotonic() > end:
                raise AssertionError(
                    "live model differs from a fresh scan after the watcher went quiet:\n"
                    + diff_views(live, fresh)
                )
            time.sleep(0.02)


# --- what reaches the terminal ---------------------------------------------------------------

# C0 controls other than tab and newline (ESC among them), DEL, C1 controls (U+0080-U+009F,
# e.g. CSI as U+009B), and lone surrogates (which a real terminal's encoder refuses).
RAW_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")


def assert_terminal_safe(text: str, where: str) -> None:
    m = RAW_CONTROL.search(text)
    if m:
        at = m.start()
        raise AssertionError(
            f"raw control character {m.group()!r} in {where}: {text[max(0, at - 40) : at + 40]!r}"
        )
    text.encode("utf-8")  # strict: would the terminal's encoder accept it?


def cli_output(capsys, *args: str) -> str:
    """Run the CLI in this process; its stdout (already checked to be terminal-safe)."""
    from ocr_tui import cli

    capsys.readouterr()
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    assert code == 0, f"ocr-tui {' '.join(args)} exited {code}: {err}"
    assert_terminal_safe(out, f"`ocr-tui {' '.join(args)}` stdout")
    assert_terminal_safe(err, f"`ocr-tui {' '.join(args)}` stderr")
    return out


LEAD = ("headers", "projects")  # the lines watch --jsonl begins with, before any news


def watch_jsonl(
    root: Path,
    sessions: int,
    *,
    timeout: float = 30.0,
    prelude: str = "",
    until: Callable[[list[dict]], bool] | None = None,
    args: tuple[str, ...] = (),
) -> list[dict]:
    """`ocr-tui watch --jsonl` as a real process: its lines up to the last snapshot (or the
    waiting line when there is nothing to show; or until `until(lines)`), checked byte for
    byte. `prelude`: Python run in that process first (e.g. to make the OS refuse watches)."""
    env = dict(os.environ, OCR_TUI_CACHE_DIR="off")
    code = f"{prelude}\nimport sys\nfrom ocr_tui.cli import main\nsys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "watch", str(root), "--jsonl", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    buf = b""
    lines: list[dict] = []
    end = time.monotonic() + timeout
    try:
        while True:
            snaps = sum(1 for d in lines if d.get("type") == "snapshot")
            if until is not None:
                if until(lines):
                    break
            elif snaps >= sessions and (sessions or any(d.get("type") not in LEAD for d in lines)):
                break  # (nothing to show: the waiting line, after the headers that lead)
            left = end - time.monotonic()
            if left <= 0 or proc.poll() is not None:
                err = proc.stderr.read() if proc.poll() is not None else b""
                raise AssertionError(
                    f"watch --jsonl gave {snaps}/{sessions} snapshots; stderr: {err[-2000:]!r}"
                )
            ready, _, _ = select.select([proc.stdout], [], [], min(left, 0.5))
            if not ready:
                continue
            chunk = os.read(proc.stdout.fileno(), 1 << 20)
            buf += chunk
            *done, buf = buf.split(b"\n")
            for raw in done:
                assert raw.isascii(), f"watch --jsonl printed non-ASCII bytes: {raw[:200]!r}"
                assert_terminal_safe(raw.decode("ascii"), "watch --jsonl output")
                lines.append(json.loads(raw))
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    return lines
