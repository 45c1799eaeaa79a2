"""One watcher for everything: an async generator over watchfiles that yields domain events.

It watches `.ocr/` recursively (so `sessions/` appearing, vanishing and coming back, and
`data/ocr.db` being replaced, are all seen by one inotify instance), re-derives only the
sessions a batch touched (in a worker thread, never on the event loop), and re-arms itself
when the watched directory is deleted. No Textual here: the dashboard and `watch --jsonl`
both consume it.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from ocr_tui import inotify
from ocr_tui.engine import Engine
from ocr_tui.model.view import SessionView

# inotify backend: a batch is closed once no event arrived for QUIET_MS.
QUIET_MS = 3.0
# watchfiles backend: it returns a batch once it stopped growing for one `step`, so a change
# reaches us ~1-2 steps after the write. 8 ms keeps the median well under 20 ms; `debounce`
# caps how long a continuous burst is held back.
STEP_MS = 8
DEBOUNCE_MS = 150
POLL_DELAY_MS = 250
TICK_S = 5.0  # how often, with no file events, stalled flags are re-checked
MISSING_POLL_S = 0.25
ARM_S = 0.02  # lets the native watch arm before the scan

_END = object()


async def _pump(gen, queue: asyncio.Queue) -> None:
    try:
        async for batch in gen:
            await queue.put(batch)
    except asyncio.CancelledError:
        raise
    except BaseException as exc:  # surfaced to the consumer
        await queue.put(exc)
        return
    await queue.put(_END)


@dataclass(frozen=True)
class Scanned:
    """The first full picture (and after `.ocr/` came back): every session."""

    sessions: list[SessionView]
    sessions_dir: bool  # does .ocr/sessions exist?


@dataclass(frozen=True)
class Changed:
    """Some sessions changed, appeared (in `sessions`) or went away (`removed` ids)."""

    sessions: list[SessionView] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    sessions_dir: bool = True


@dataclass(frozen=True)
class ProjectMissing:
    """`.ocr/` itself is gone: waiting for it to come back."""


@dataclass(frozen=True)
class PollingFallback:
    """The OS refused a native watch (e.g. the inotify limit); we poll instead."""

    reason: str


WatchEvent = Scanned | Changed | ProjectMissing | PollingFallback


def _is_temp(name: str) -> bool:
    return name.endswith((".tmp", "~", ".swp", "-journal", "-wal", "-shm")) or ".tmp" in name


class _Filter:
    """Only what can change a session: anything under sessions/ but temp files, ocr.db."""

    def __init__(self, engine: Engine) -> None:
        p = engine.project
        self.ocr = str(p.ocr_dir)
        self.sessions = str(p.sessions_dir)
        self.sessions_prefix = self.sessions + os.sep
        self.data = str(p.data_dir)
        self.db = str(p.db_path)

    def __call__(self, change, path: str) -> bool:
        if path in (self.ocr, self.sessions, self.db, self.data):
            return True
        if path.startswith(self.sessions_prefix):
            return not _is_temp(os.path.basename(path))
        return False


async def _wait_for_dir(path: Path, stop: asyncio.Event) -> None:
    while not path.is_dir() and not stop.is_set():
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), MISSING_POLL_S)


async def _next(queue: asyncio.Queue, stop: asyncio.Event):
    """The next batch, or _END as soon as `stop` is set."""
    if not queue.empty():
        return queue.get_nowait()
    get = asyncio.ensure_future(queue.get())
    halt = asyncio.ensure_future(stop.wait())
    try:
        done, _ = await asyncio.wait({get, halt}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        halt.cancel()
    if get in done:
        return get.result()
    get.cancel()
    return _END


def _rescan(engine: Engine) -> tuple[list[SessionView], list[str]]:
    before = dict(engine.views)
    views = engine.scan()
    changed = [v for v in views if before.get(v.id) != v]
    return changed, sorted(set(before) - set(engine.views))


async def watch_project(
    engine: Engine,
    *,
    stop: asyncio.Event | None = None,
    poll: bool = False,
    backend: str = "auto",
) -> AsyncIterator[WatchEvent]:
    """Yield `Scanned` once, then `Changed` per batch, until `stop` is set or cancelled.

    `backend`: "auto" (inotify on Linux, else watchfiles), "watchfiles", or polling with
    `poll=True`."""
    from watchfiles import Change, awatch  # deferred: keeps `status` start-up fast

    stop = stop or asyncio.Event()
    force_polling = poll
    ocr = engine.project.ocr_dir
    sessions_dir = engine.project.sessions_dir
    first = True
    watch_filter = _Filter(engine)
    while not stop.is_set():
        if not ocr.is_dir():
            removed = engine.clear()
            if removed and not first:
                yield Changed(removed=removed, sessions_dir=False)
            yield ProjectMissing()
            await _wait_for_dir(ocr, stop)
            continue
        try:
            # Arm the watch first, then scan: a change made in between is then both in the scan
            # and in a batch (harmless), never in neither.
            batches: asyncio.Queue = asyncio.Queue()
            if force_polling or backend == "watchfiles" or not inotify.available():
                source = awatch(
                    ocr,
                    watch_filter=watch_filter,
                    debounce=DEBOUNCE_MS,
                    step=STEP_MS,
                    rust_timeout=int(TICK_S * 1000),
                    yield_on_timeout=True,
                    force_polling=force_polling,
                    poll_delay_ms=POLL_DELAY_MS,
                )
            else:
                source = inotify.ainotify(
                    str(ocr),
                    accept=lambda path: watch_filter(None, path),
                    quiet_ms=QUIET_MS,
                    debounce_ms=DEBOUNCE_MS,
                    timeout_s=TICK_S,
                )
            pump = asyncio.create_task(_pump(source, batches))
            try:
                await asyncio.sleep(ARM_S)
                if first:
                    views = await asyncio.to_thread(engine.scan)
                    yield Scanned(views, sessions_dir.is_dir())
                    first = False
                else:  # re-armed: report what changed while we were not watching
                    diff = await asyncio.to_thread(_rescan, engine)
                    yield Changed(*diff, sessions_dir.is_dir())
                if force_polling:
                    # The poll watcher takes its first picture a while after it starts: catch
                    # up once on anything written before that.
                    await asyncio.sleep(2 * POLL_DELAY_MS / 1000)
                    diff = await asyncio.to_thread(_rescan, engine)
                    if diff[0] or diff[1]:
                        yield Changed(*diff, sessions_dir.is_dir())
                while not stop.is_set():
                    batch = await _next(batches, stop)
                    if batch is _END:
                        break
                    if isinstance(batch, BaseException):
                        raise batch
                    if not batch:  # timeout tick: time passes, sessions may become stalled
                        changed = engine.restale()
                        if changed:
                            yield Changed(changed, [], sessions_dir.is_dir())
                        continue
                    if (Change.deleted, str(ocr)) in batch or not ocr.is_dir():
                        break  # the inotify watch dies with its root: re-arm
                    paths = [p for _, p in batch]
                    changed, removed = await asyncio.to_thread(engine.apply, paths)
                    if changed or removed:
                        yield Changed(changed, removed, sessions_dir.is_dir())
            finally:
                pump.cancel()
                with suppress(asyncio.CancelledError, Exception):
                    await pump
        except FileNotFoundError:
            continue
        except OSError as exc:
            if force_polling:
                raise
            force_polling = True
            yield PollingFallback(
                f"native file watching failed ({exc}); polling every {POLL_DELAY_MS} ms instead"
                " (raise fs.inotify.max_user_watches to watch natively)"
            )
