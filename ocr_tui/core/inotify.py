"""A small event-driven inotify watcher (Linux), integrated with asyncio via `add_reader`.

Why not watchfiles' native watcher here: its Rust loop wakes up every `step` ms to look for
changes, so low latency costs CPU while idle (step 8 ms ≈ 0.6 % of a core doing nothing) and
low idle cost costs latency. inotify itself is event-driven: the file descriptor becomes
readable when something changes, so this watcher costs nothing while idle and reports a change
within a few milliseconds. watchfiles remains the backend for polling and other platforms.

The system calls and the parsing of events are inotify_simple's; what is ours is on
top: the recursive arming, the overflow and watch-limit handling, and the batching.

Yields batches in watchfiles' shape: `set[tuple[Change, str]]`.
"""

from __future__ import annotations

import asyncio
import errno
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import suppress
from functools import cache
from types import SimpleNamespace

from watchfiles import Change

from ocr_tui.core.aio import wait_event

OVERFLOW = "<overflow>"


@cache
def _lib():
    """The inotify_simple module, or None off Linux or when it cannot be imported."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import inotify_simple
    except (ImportError, OSError):
        return None
    return inotify_simple


def available() -> bool:
    return _lib() is not None


class Inotify:
    """Recursive watch of one directory tree (symbolic links are not followed)."""

    def __init__(self, root: str, accept: Callable[[str], bool] | None = None) -> None:
        lib = _lib()
        if lib is None:
            raise OSError(errno.ENOSYS, "inotify is not available")
        # the flags as plain ints: looking up an IntEnum member costs ~70 ns, per event
        self.flags = f = SimpleNamespace(**{k: int(v) for k, v in lib.flags.__members__.items()})
        self.mask = (
            f.MODIFY | f.ATTRIB | f.CLOSE_WRITE | f.MOVED_FROM | f.MOVED_TO | f.CREATE | f.DELETE
            | f.DELETE_SELF | f.MOVE_SELF | f.ONLYDIR | f.DONT_FOLLOW | f.EXCL_UNLINK
        )  # fmt: skip
        self.root = root
        self.accept = accept or (lambda _p: True)
        try:
            self.ino = lib.INotify(nonblocking=True)  # CLOEXEC: not inheritable by default
        except AttributeError as e:  # a C library without inotify_init1
            raise OSError(errno.ENOSYS, "inotify is not available") from e
        self.fd = self.ino.fileno()
        self.paths: dict[int, str] = {}
        self.wds: dict[str, int] = {}
        try:
            if not os.path.isdir(root):
                raise FileNotFoundError(errno.ENOENT, "No such directory", root)
            self._add_tree(root, report=None)
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        self.ino.close()  # idempotent

    def _add(self, path: str) -> bool:
        try:
            wd = self.ino.add_watch(path, self.mask)
        except OSError as e:
            if e.errno in (errno.ENOENT, errno.ENOTDIR, errno.EACCES):
                return False  # gone already, or not ours to read: nothing to watch
            raise OSError(e.errno, f"cannot watch {path}: {e.strerror}") from None  # ENOSPC
        self.paths[wd] = path
        self.wds[path] = wd
        return True

    def _add_tree(self, top: str, report: set | None) -> None:
        """Watch `top` and every directory below it. With `report`, everything found is
        reported as added (it may have been written before the watch was in place)."""
        stack = [top]
        while stack:
            d = stack.pop()
            if not self._add(d):
                continue
            try:
                with os.scandir(d) as it:
                    entries = list(it)
            except OSError:
                continue
            for e in entries:
                try:  # (not `suppress`: a context manager per entry, 200,000 at 10,000 sessions)
                    if e.is_dir(follow_symlinks=False):
                        stack.append(e.path)
                except OSError:
                    pass
                if report is not None and self.accept(e.path):
                    report.add((Change.added, e.path))

    def read(self) -> set[tuple[Change, str]]:
        """Drain pending events (non-blocking)."""
        f = self.flags
        out: set[tuple[Change, str]] = set()
        while True:
            try:
                events = self.ino.read(timeout=0)
            except (OSError, ValueError):  # ValueError: closed
                return out
            if not events:
                return out
            for wd, mask, _cookie, name in events:
                if mask & f.Q_OVERFLOW:
                    out.add((Change.modified, OVERFLOW))
                    continue
                base = self.paths.get(wd)
                if base is None:
                    continue
                if mask & f.IGNORED:
                    self.paths.pop(wd, None)
                    if self.wds.get(base) == wd:
                        del self.wds[base]
                    continue
                if mask & (f.DELETE_SELF | f.MOVE_SELF):
                    if base == self.root:
                        out.add((Change.deleted, base))
                    continue
                path = os.path.join(base, name) if name else base
                if mask & (f.CREATE | f.MOVED_TO):
                    change = Change.added
                    if mask & f.ISDIR:
                        self._add_tree(path, out)
                elif mask & (f.DELETE | f.MOVED_FROM):
                    change = Change.deleted
                    if mask & f.ISDIR:
                        self._forget(path)
                else:
                    change = Change.modified
                if self.accept(path):
                    out.add((change, path))

    def _forget(self, top: str) -> None:
        prefix = top + os.sep
        for p in [p for p in self.wds if p == top or p.startswith(prefix)]:
            wd = self.wds.pop(p)
            self.paths.pop(wd, None)
            with suppress(OSError, ValueError):
                self.ino.rm_watch(wd)


async def ainotify(
    root: str,
    *,
    accept: Callable[[str], bool] | None = None,
    quiet_ms: float = 3.0,
    debounce_ms: float = 150.0,
    timeout_s: float = 5.0,
    on_armed: Callable[[], None] | None = None,
) -> AsyncIterator[set[tuple[Change, str]]]:
    """Yield a batch once changes stop arriving for `quiet_ms` (or after `debounce_ms` of a
    continuous burst); an empty set after `timeout_s` without changes.

    The watch is armed in a thread (a tree of 60,000 directories takes seconds to walk), then
    `on_armed` is called on the event loop."""
    loop = asyncio.get_running_loop()
    ino = await asyncio.to_thread(Inotify, root, accept)
    if on_armed is not None:
        on_armed()
    ready = asyncio.Event()
    loop.add_reader(ino.fd, ready.set)
    try:
        while True:
            if not await wait_event(ready, timeout_s):
                yield set()
                continue
            batch: set[tuple[Change, str]] = set()
            first = time.monotonic()
            while True:
                ready.clear()
                batch |= ino.read()
                if not batch:
                    # Nothing accepted (a writer's temp file: ocr.db's is created, written and
                    # closed apart from its rename, further apart the larger the file): no
                    # batch to let settle, back to waiting without a timer.
                    break
                if (time.monotonic() - first) * 1000 >= debounce_ms:
                    break
                if not await wait_event(ready, quiet_ms / 1000):
                    break
            if batch:
                yield batch
            if (Change.deleted, root) in batch:
                return
    finally:
        with suppress(Exception):
            loop.remove_reader(ino.fd)
        ino.close()
