"""The dashboard's first sessions, read while Textual is imported, so its first frame has rows.

Most of the dashboard's start-up is Python importing Textual and the screens (~200 ms on a
2-core VM); finding the project (which imports every format) and reading its newest sessions
would come after it, on the same core. `EarlyRead.start` forks a child that does that read
meanwhile, on the other core: it finds the project, lists every session (a stand-in view each)
and derives the newest `FIRST` of them, then sends the views, the format headers and whether
the sessions directory exists, msgspec-encoded, through a pipe. The app is built with them
(`Early`), and draws its first frame with those rows; its own engine starts after that frame
and reads everything again once its watch is armed (a write made meanwhile is never missed:
`core.watch`), replacing these views with its own (equal unless something changed).

Nothing depends on it: no fork (Windows), a child that fails, is slow (`WAIT_S`) or sends
something unreadable, and the dashboard starts as it would without it. The child writes
nothing to the terminal, holds no lock the parent needs, and ends with `os._exit` (no atexit
handler of the parent's runs twice); the parent reaps it.
"""

from __future__ import annotations

import os
import select
import time
from pathlib import Path

import msgspec

from ocr_tui.core.view import Header, SessionView

FIRST = 60  # sessions derived before the first frame: more rows than a tall terminal shows
BUDGET_S = 0.25  # the child's time for them (what is left stays a stand-in, read after)
WAIT_S = 1.0  # the longest the parent waits for the child once it needs the views


class Early(msgspec.Struct, array_like=True):
    """What the child read: the project's root (None: no project at the path), whether its
    sessions directory exists, every session's view (derived or a stand-in), the headers."""

    root: str | None
    has_dir: bool = False
    views: list[SessionView] = []
    headers: list[Header] = []

    @property
    def project_root(self) -> Path | None:
        return None if self.root is None else Path(self.root)


class EarlyRead:
    """A child process reading the first sessions; `result()` takes them (once)."""

    def __init__(self, pid: int, fd: int) -> None:
        self.pid = pid
        self.fd = fd

    @classmethod
    def start(cls, path: Path, stall_after: float) -> EarlyRead | None:
        """Fork the reader for the project at (or above) `path`; None where there is no fork.
        Call it before any thread is started (a fork copies only the calling thread)."""
        if not hasattr(os, "fork"):
            return None
        r, w = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(r)
            os.close(w)
            return None
        if pid == 0:  # the child: read, send, end (never return into the parent's code)
            code = 1
            try:
                os.close(r)
                _send(w, _read(path, stall_after))
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        return cls(pid, r)

    def result(self, wait_s: float = WAIT_S) -> Early | None:
        """The child's read, or None (it failed, sent nothing readable, or took longer than
        `wait_s`: then it is ended). Reaps the child either way."""
        chunks: list[bytes] = []
        deadline = time.monotonic() + wait_s
        done = False
        try:
            while True:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                    return None  # too slow: the app reads for itself
                chunk = os.read(self.fd, 1 << 20)
                if not chunk:
                    done = True  # (the child closed the pipe: it is ending)
                    break
                chunks.append(chunk)
        except OSError:
            return None
        finally:
            os.close(self.fd)
            self._reap(ended=done)
        try:
            return msgspec.msgpack.decode(b"".join(chunks), type=Early)
        except (msgspec.DecodeError, msgspec.ValidationError):
            return None

    def _reap(self, *, ended: bool) -> None:
        """Wait for the child: it is ending (`ended`), or is ended now."""
        try:
            if not ended:
                os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        except OSError:
            pass


def _read(path: Path, stall_after: float) -> Early:
    """In the child: the project, its sessions listed, the newest FIRST derived."""
    import gc

    gc.disable()  # a short-lived process: nothing to collect
    from ocr_tui.core.engine import Engine
    from ocr_tui.core.project import ProjectNotFound, find_project

    try:
        project = find_project(path)
    except ProjectNotFound:
        return Early(None)
    engine = Engine(project, stall_after=stall_after)
    engine.begin(pool=False)
    deadline = time.perf_counter() + BUDGET_S
    derived = 0
    while engine.pending and derived < FIRST and time.perf_counter() < deadline:
        derived += len(engine.step(budget_s=0.005))
    headers = engine.headers
    return Early(
        str(project.root),
        engine.has_sessions_dir(),
        engine.sessions(),
        [headers[k] for k in sorted(headers)],
    )


def _send(fd: int, early: Early) -> None:
    data = memoryview(msgspec.msgpack.encode(early))
    try:
        while data:
            data = data[os.write(fd, data) :]
    finally:
        os.close(fd)
