"""Watching directory trees: what changed under them, as paths. Nothing else.

Knows directories and paths only (no engine, source or session): given the roots to watch and a
path filter (a plain predicate over path strings), a `Watch` arms inotify (Linux), watchfiles
(elsewhere) or watchfiles' poller, and `Watch.next` returns what happened:

- `Paths`: a batch of changed paths (filtered);
- `Tick`: nothing happened for TICK_S (time passes; with polling, paths due a second read);
- `RootGone`: a watched root was deleted or vanished while arming: the watch is dead, re-arm;
- `Refused`: the OS refused a watch (e.g. the inotify limit): fall back to polling.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ocr_tui.core import inotify
from ocr_tui.core.aio import cancel_and_wait, wait_event

# inotify backend: a batch is closed once no event arrived for QUIET_MS.
QUIET_MS = 3.0
# watchfiles backend: it returns a batch once it stopped growing for one `step`, so a change
# reaches us ~1-2 steps after the write. 8 ms keeps the median well under 20 ms; `debounce`
# caps how long a continuous burst is held back.
STEP_MS = 8
DEBOUNCE_MS = 150
POLL_DELAY_MS = 250
TICK_S = 2.0  # with no file events: time-based flags, unwatched places, new directories
MISSING_POLL_S = 0.25
RECHECK_S = 1.1  # polling: a batch's paths are returned again after this (1 s time resolution)
ARM_S = 0.02  # lets the native watch arm before the caller reads what it watches

_END = object()
EVERYTHING = "*"  # in `Tick.recheck`: every session, not a path


@dataclass(frozen=True)
class Paths:
    """Paths that changed (created, modified, deleted) under the watched roots."""

    paths: list[str]


@dataclass(frozen=True)
class Tick:
    """No change for TICK_S. With polling, `recheck` holds paths worth reading again."""

    recheck: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RootGone:
    """A watched root went away: this watch is over (re-arm over the roots that exist)."""

    root: str


@dataclass(frozen=True)
class Refused:
    """The OS refused a native watch (e.g. the inotify limit)."""

    error: OSError


WatcherEvent = Paths | Tick | RootGone | Refused
PathFilter = Callable[[str], bool]


async def wait_for_any(
    dirs: list[Path], stop: asyncio.Event, appeared: Callable[[], bool] | None = None
) -> None:
    """Return once one of `dirs` is a directory, `appeared()` says so (it may do IO: called
    in a thread), or `stop` is set."""

    def present() -> bool:
        return any(p.is_dir() for p in dirs) or (appeared is not None and appeared())

    while not stop.is_set() and not await asyncio.to_thread(present):  # stats: off the loop
        await wait_event(stop, MISSING_POLL_S)


class Watch:
    """The recursive watch of `roots` (existing directories), started at once; an async
    context manager that closes it. `backend`: "auto" (inotify on Linux, else watchfiles) or
    "watchfiles"; `polling` uses watchfiles' poller."""

    def __init__(
        self, roots: list[Path], accept: PathFilter, *, polling: bool = False, backend: str = "auto"
    ) -> None:
        from watchfiles import Change  # deferred, as in _open: keeps `status` start-up fast

        self.polling = polling
        self._gone = [(Change.deleted, str(r)) for r in roots]
        self._queue: BatchQueue = BatchQueue()
        self._pumps, self._armed = _open(roots, accept, polling, backend, self._queue)
        self._recheck: list[str] = []  # polling: paths to return again once their second is over
        self._recheck_at = 0.0

    async def __aenter__(self) -> Watch:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def armed(self) -> bool:
        """Every watch is armed, or one of them failed (its error is next in line)."""
        return all(e.is_set() for e in self._armed) or any(p.done() for p in self._pumps)

    async def until_armed(self) -> None:
        """Return once `armed`, and the native watch had ARM_S to settle."""
        while not self.armed():
            await asyncio.sleep(0.005)
        await asyncio.sleep(ARM_S)

    async def baseline(self) -> None:
        """Polling: wait until the poller took its first picture (a change before that is only
        seen by reading again)."""
        await asyncio.sleep(2 * POLL_DELAY_MS / 1000)

    def recheck_everything(self) -> None:
        """Polling: have the next tick after RECHECK_S re-read every session (`EVERYTHING`):
        a write in the same second as the poller's first picture looks unchanged to it."""
        self._recheck = sorted({*self._recheck, EVERYTHING})
        self._recheck_at = time.monotonic() + RECHECK_S

    def quiet(self) -> bool:
        """Nothing is waiting to be returned by `next`."""
        return self._queue.empty()

    async def next(self, stop: asyncio.Event) -> WatcherEvent | None:
        """What happened next; None once `stop` is set or a watch ended by itself."""
        batch = await _next(self._queue, stop)
        if batch is _END:
            return None
        if isinstance(batch, FileNotFoundError):  # a root vanished while being armed
            return RootGone(str(batch.filename or ""))
        if isinstance(batch, OSError):
            return Refused(batch)
        if isinstance(batch, BaseException):
            raise batch
        if not batch:
            # The poller compares times to the second: a second write within the same second
            # as the one it saw looks unchanged. Those paths are returned again.
            due = self._recheck if self._recheck and time.monotonic() >= self._recheck_at else []
            if due:
                self._recheck = []
            return Tick(due)
        for gone in self._gone:
            if gone in batch:
                return RootGone(gone[1])  # an inotify watch dies with its root
        paths = [p for _, p in batch]
        if self.polling:
            self._recheck = sorted({*self._recheck, *paths})
            self._recheck_at = time.monotonic() + RECHECK_S
        return Paths(paths)

    async def close(self) -> None:
        await cancel_and_wait(self._pumps)
        for pump in self._pumps:  # how each ended is not news (an error was queued already)
            if not pump.cancelled():
                pump.exception()


class BatchQueue(asyncio.Queue):
    """The pumps' batches for `Watch.next`: a batch that comes while another waits untaken is
    merged into it (each path once), so a consumer that falls behind (a busy dashboard) holds
    the paths that changed, never one batch per change; a tick behind a waiting batch is
    dropped (the consumer ticks on batches too, every TICK_S)."""

    def put_batch(self, batch: set) -> None:
        waiting = self._queue[-1] if self._queue else None  # type: ignore[attr-defined]
        if isinstance(waiting, set):  # (a tick waiting, an empty set, becomes the paths)
            waiting |= batch
            return
        self.put_nowait(set(batch))  # (a copy: merged into later, never the pump's own)


def _open(
    roots: list[Path], accept: PathFilter, polling: bool, backend: str, queue: BatchQueue
) -> tuple[list[asyncio.Task], list[asyncio.Event]]:
    """Start the native (or polling) watch of `roots`, feeding batches into `queue`. Returns
    the pump tasks and one event per watch, set once it is armed."""
    from watchfiles import awatch  # deferred: keeps `status` start-up fast

    if polling or backend == "watchfiles" or not inotify.available():
        gens = [
            awatch(
                *roots,
                watch_filter=lambda _change, path: accept(path),
                debounce=DEBOUNCE_MS,
                step=STEP_MS,
                rust_timeout=int(TICK_S * 1000),
                yield_on_timeout=True,
                force_polling=polling,
                poll_delay_ms=POLL_DELAY_MS,
            )
        ]
        armed = [asyncio.Event()]
        armed[0].set()  # watchfiles arms in its own thread: ARM_S gives it the time
    else:
        armed = [asyncio.Event() for _ in roots]
        gens = [
            inotify.ainotify(
                str(root),
                accept=accept,
                quiet_ms=QUIET_MS,
                debounce_ms=DEBOUNCE_MS,
                timeout_s=TICK_S if i == 0 else 3600.0,  # one of them ticks
                on_armed=armed[i].set,
            )
            for i, root in enumerate(roots)
        ]
    return [asyncio.create_task(_pump(g, queue)) for g in gens], armed


async def _pump(gen, queue: BatchQueue) -> None:
    try:
        async for batch in gen:
            queue.put_batch(batch)
            await asyncio.sleep(0)  # (as `await queue.put` did: the consumer may run)
    except (asyncio.CancelledError, KeyboardInterrupt, SystemExit):
        raise  # (Ctrl-C, SIGTERM: for the loop to end on, not for a queue no one may read)
    except BaseException as exc:  # surfaced to the consumer
        await queue.put(exc)
        return
    await queue.put(_END)


async def _next(queue: asyncio.Queue, stop: asyncio.Event):
    """The next batch, or _END as soon as `stop` is set."""
    if not queue.empty():
        return queue.get_nowait()
    get = asyncio.ensure_future(queue.get())
    halt = asyncio.ensure_future(stop.wait())
    try:
        done, _ = await asyncio.wait({get, halt}, return_when=asyncio.FIRST_COMPLETED)
    except BaseException:
        get.cancel()  # cancelled while waiting (the app quit): no task left pending
        raise
    finally:
        halt.cancel()
    if get in done:
        return get.result()
    get.cancel()
    return _END
