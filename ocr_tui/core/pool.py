"""Reading off the UI process at start-up: the sessions a first start must derive (no view of
theirs in the result cache) are derived by worker processes, one per core, in batches; each
batch comes back as one msgspec-encoded list of views, and the calling process only merges
them (`scan.Scan`).

Only sources that say their derivation is a function of their files alone take part
(`pool_safe`: constructible as `cls(root, stall_after=...)`, no state kept in the source that
the engine reads afterwards, such as expiry times). Others are derived in the calling thread.

Start method: `spawn`. The app forks nothing safely: its event loop and the worker threads
(`asyncio.to_thread`) may hold locks at the moment of a fork, which the child would inherit
held. A spawned worker is a fresh interpreter importing only the core and the formats (no
Textual), ~0.1-0.2 s of start-up. Workers die with the parent: a watchdog thread in each
exits within a quarter of a second of the parent's end (whatever ended it, SIGKILL too). They
read the project and the cache directory, and write nothing: the parse cache is the
parent's to write. A session whose reader raised comes back as a view with the error as its
problem, as in-process; a batch whose worker died (or whose result cannot be read) is
derived in the calling thread instead.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import types
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from ocr_tui.core.reading import derive_raw
from ocr_tui.core.view import SessionView

if TYPE_CHECKING:
    from concurrent.futures import Future

POOL_MIN = 200  # sessions to derive below which no pool is started (its start-up costs more)
BATCH = 48  # sessions per batch: small enough that the newest come back early
NICE = 10  # the workers' niceness: the UI process (and its key presses) comes first
_ENV = "OCR_TUI_POOL"  # "off": never; "on": whatever the number (tests)

# One batch's answer: (index in the batch, fingerprint or None, derived without a reader
# error, the view, or nil when it could not be encoded: the parent derives that one itself).
Answer = list[tuple[int, bytes | None, bool, msgspec.Raw]]
_ANSWER = msgspec.msgpack.Decoder(list[tuple[int, bytes | None, bool, msgspec.Raw]])
_NIL = msgspec.Raw(b"\xc0")
_VIEW = msgspec.msgpack.Decoder(SessionView)
_ENC = msgspec.msgpack.Encoder()


def pool_safe(src: Any) -> bool:
    return bool(getattr(type(src), "pool_safe", False))


def wanted(n: int) -> bool:
    """Is a pool worth starting for `n` sessions to derive?"""
    mode = os.environ.get(_ENV, "").lower()
    if mode in ("off", "0", "no"):
        return False
    if mode in ("on", "1", "yes"):
        return n > 0
    return n >= POOL_MIN and workers() > 1


def workers() -> int:
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        n = os.cpu_count() or 1
    return max(1, n)


# -- in the worker ------------------------------------------------------------------------------


def _quiet_stdio() -> None:
    """A worker's output goes nowhere: it inherits the parent's terminal, which the dashboard
    draws on (a worker's failure comes back as its batch's failure, derived in the parent)."""
    try:
        null = os.open(os.devnull, os.O_RDWR)
    except OSError:
        return
    for fd in (0, 1, 2):
        with contextlib.suppress(OSError):
            os.dup2(null, fd)
    os.close(null)


def _init_worker(parent: int) -> None:
    """The worker's initializer: yield the CPU to the UI process (the dashboard must answer
    keys while the workers read), and exit when the parent does (it is then re-parented, and
    `getppid` changes). Not PR_SET_PDEATHSIG: that fires when the parent's *thread* that
    started the worker ends, and the engine starts them from a worker thread."""
    try:
        os.nice(NICE)
    except (AttributeError, OSError):
        pass
    _quiet_stdio()
    if os.getppid() != parent:  # gone already
        os._exit(1)

    def watch() -> None:
        while True:
            time.sleep(0.25)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


_sources: dict[tuple, Any] = {}  # in a worker: one source per (class, root, stall_after)


def _source(spec: str, root: str, stall_after: float) -> Any:
    ident = (spec, root, stall_after)
    src = _sources.get(ident)
    if src is None:
        import importlib

        module, _, name = spec.partition(":")
        cls = getattr(importlib.import_module(module), name)
        src = cls(Path(root), stall_after=stall_after)
        src.begin_scan()
        _sources[ident] = src
    return src


def derive_batch(
    spec: str, root: str, stall_after: float, items: list[tuple[str, str]], now_ts: float
) -> bytes:
    """In a worker: derive each (key, path) of one source; returns an encoded `Answer`."""
    src = _source(spec, root, stall_after)
    now = datetime.fromtimestamp(now_ts, UTC)
    out: Answer = []
    fingerprint = getattr(src, "fingerprint", None)
    for i, (key, path) in enumerate(items):
        p = Path(path)
        fp = None
        if fingerprint is not None:
            try:  # before the derivation: a write meanwhile makes it stale, never the view
                fp = fingerprint(key, p)
            except Exception:
                fp = None
        view, ok = derive_raw(src, key, p, now)
        try:
            raw = msgspec.Raw(_ENC.encode(view))
        except (UnicodeEncodeError, TypeError, ValueError, OverflowError):
            out.append((i, None, False, _NIL))
            continue
        out.append((i, fp, ok, raw))
    return _ENC.encode(out)


# -- in the parent ------------------------------------------------------------------------------


@contextlib.contextmanager
def _main_not_imported() -> Iterator[None]:
    """A spawned worker imports the parent's `__main__` script again (as `__mp_main__`)
    unless it is a package's `__main__`: a script that calls the engine without an
    `if __name__ == "__main__"` guard would then run again in every worker. The workers need
    nothing of it (what they run is this module's), so while they start, `__main__` says it
    is one (multiprocessing then skips it)."""
    main = sys.modules.get("__main__")
    if main is None:
        yield
        return
    had = "__spec__" in vars(main)
    spec = getattr(main, "__spec__", None)
    main.__spec__ = types.SimpleNamespace(name="ocr_tui.core.pool.__main__")
    try:
        yield
    finally:
        if had:
            main.__spec__ = spec
        else:
            del main.__spec__


class Pool:
    """Worker processes for one scan; `close` ends them. The scans running at once (several
    projects': `core.workspace`) share one set of workers, one per core, ended when the last
    of them closes: never one set per project."""

    _lock = threading.Lock()
    _shared: Any = None  # the ProcessPoolExecutor, while some scan uses it
    _users = 0

    def __init__(self) -> None:
        with Pool._lock:
            ex = Pool._shared
            if ex is None or getattr(ex, "_broken", False):  # none, or a worker died in it
                if ex is not None:
                    ex.shutdown(wait=False, cancel_futures=True)
                ex = Pool._shared = _executor()
            Pool._users += 1
        self._ex = ex
        self._closed = False

    def submit(self, src: Any, items: list[tuple[str, Path]], now: datetime) -> Future | None:
        spec = f"{type(src).__module__}:{type(src).__qualname__}"
        try:
            with _main_not_imported():  # workers start (spawned) at the first submits
                return self._ex.submit(
                    derive_batch, spec, str(src.root), float(src.stall_after),
                    [(k, str(p)) for k, p in items], now.timestamp(),
                )  # fmt: skip
        except Exception:  # broken (a worker died) or shut down: the caller derives them
            return None

    def close(self) -> None:
        with Pool._lock:
            if self._closed:
                return
            self._closed = True
            Pool._users -= 1
            ending = []
            if Pool._users <= 0:  # the last user: end the workers (and a broken set's)
                Pool._users = 0
                ending = [ex for ex in {id(x): x for x in (self._ex, Pool._shared)}.values() if ex]
                Pool._shared = None
        for ex in ending:
            ex.shutdown(wait=False, cancel_futures=True)


def _executor() -> Any:
    import multiprocessing  # when a pool starts (~10 ms of start-up otherwise)
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import resource_tracker

    ctx = multiprocessing.get_context("spawn")
    with _stderr_with_a_file():
        resource_tracker.ensure_running()  # (now: the spawns ask for it again, it runs)
        return ProcessPoolExecutor(
            max_workers=workers(), mp_context=ctx, initializer=_init_worker,
            initargs=(os.getpid(),),
        )  # fmt: skip


@contextlib.contextmanager
def _stderr_with_a_file() -> Iterator[None]:
    """multiprocessing starts its resource tracker (which every spawned process needs) with
    `sys.stderr.fileno()` among the descriptors the child keeps; under Textual, `sys.stderr` is
    a capture whose `fileno()` is -1, and the start failed (`ValueError: bad value(s) in
    fds_to_keep`): the dashboard had no workers and derived every session in its own process
    (10,000 sessions: 60 s instead of `Engine.scan`'s 25). While the tracker starts,
    `sys.stderr` is /dev/null where it has no descriptor of its own."""
    try:
        has_fd = sys.stderr is not None and sys.stderr.fileno() >= 0
    except (AttributeError, OSError, ValueError):
        has_fd = False
    if has_fd:
        yield
        return
    saved = sys.stderr
    with open(os.devnull, "w") as devnull:
        sys.stderr = devnull
        try:
            yield
        finally:
            sys.stderr = saved


def answers(fut: Future) -> list[tuple[int, bytes | None, bool, SessionView | None]] | None:
    """A finished batch's views; None when its worker failed (derive the batch in-thread)."""
    try:
        data = fut.result(timeout=0)
        got = _ANSWER.decode(data)
    except Exception:
        return None
    out = []
    for i, fp, ok, raw in got:
        try:
            view = _VIEW.decode(raw)
        except (msgspec.DecodeError, ValueError, TypeError, RecursionError):
            view = None  # nil (or unreadable): the parent derives it
        out.append((i, fp, ok, view))
    return out
