"""One watcher for everything: an async generator that yields domain events.

It watches every source's directory recursively (`.ocr/`, so `sessions/` appearing, vanishing
and coming back, and `data/ocr.db` being replaced, are all seen; `.claude/.docs/`, ...),
re-derives only the sessions a batch touched (in a worker thread, never on the event loop),
and re-arms itself when a watched directory is deleted or a format's directory appears.
No Textual here: the dashboard and `watch --jsonl` both consume it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from ocr_tui.core import inotify
from ocr_tui.core.engine import Engine
from ocr_tui.core.view import SessionView

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
RECHECK_S = 1.1  # polling: a batch's paths are read again after this (1 s time resolution)
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
    touched: frozenset[str] = frozenset()  # ids whose files a batch changed (views may be equal)


@dataclass(frozen=True)
class ProjectMissing:
    """`.ocr/` itself is gone: waiting for it to come back."""


@dataclass(frozen=True)
class PollingFallback:
    """The OS refused a native watch (e.g. the inotify limit); we poll instead."""

    reason: str


WatchEvent = Scanned | Changed | ProjectMissing | PollingFallback


async def _wait_for_any(paths: list[Path], stop: asyncio.Event) -> None:
    while not any(p.is_dir() for p in paths) and not stop.is_set():
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


def _apply(engine: Engine, paths: list[str]):
    """In a worker thread: a batch's sessions re-derived, and the stats the loop needs after
    it (whether a sessions directory exists, which roots exist) so none runs on the loop."""
    changed, removed = engine.apply(paths)
    return changed, removed, engine.has_sessions_dir(), {str(r) for r in engine.watch_roots()}


def _tick(engine: Engine, recheck: list[str]):
    """In a worker thread: the periodic poll of unwatched places, paths due a re-read, and the
    same stats as `_apply`."""
    moved, removed, rearm = engine.poll()
    if recheck:
        again, gone = engine.apply(recheck)
        moved, removed = _merge(moved, again), sorted({*removed, *gone})
    roots = {str(r) for r in engine.watch_roots()}
    return moved, removed, rearm, engine.has_sessions_dir(), roots


def _relist(engine: Engine) -> tuple[list[SessionView], list[str]]:
    return engine.relist()


def _rescan(engine: Engine) -> tuple[list[SessionView], list[str]]:
    before = dict(engine.views)
    views = engine.scan()
    changed = [v for v in views if before.get(v.id) != v]
    return changed, sorted(set(before) - set(engine.views))


def _open(
    engine: Engine, roots: list[Path], polling: bool, backend: str, queue
) -> tuple[list[asyncio.Task], list[asyncio.Event]]:
    """Start the native (or polling) watch of `roots`, feeding batches into `queue`. Returns
    the pump tasks and one event per watch, set once it is armed."""
    from watchfiles import awatch  # deferred: keeps `status` start-up fast

    if polling or backend == "watchfiles" or not inotify.available():
        gens = [
            awatch(
                *roots,
                watch_filter=lambda _change, path: engine.accept(path),
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
                accept=engine.accept,
                quiet_ms=QUIET_MS,
                debounce_ms=DEBOUNCE_MS,
                timeout_s=TICK_S if i == 0 else 3600.0,  # one of them ticks
                on_armed=armed[i].set,
            )
            for i, root in enumerate(roots)
        ]
    return [asyncio.create_task(_pump(g, queue)) for g in gens], armed


def _is_armed(armed: list[asyncio.Event], pumps: list[asyncio.Task]) -> bool:
    """Every watch is armed, or one of them failed (its error is in the queue)."""
    return all(e.is_set() for e in armed) or any(p.done() for p in pumps)


async def _until_armed(armed: list[asyncio.Event], pumps: list[asyncio.Task]) -> None:
    while not _is_armed(armed, pumps):
        await asyncio.sleep(0.005)


async def watch_project(
    engine: Engine,
    *,
    stop: asyncio.Event | None = None,
    poll: bool = False,
    backend: str = "auto",
    progressive: bool = False,
) -> AsyncIterator[WatchEvent]:
    """Yield `Scanned` once, then `Changed` per batch, until `stop` is set or cancelled.

    With `progressive`, the first `Scanned` comes at once with a stand-in view per session
    (`source == "loading"`), then `Changed` events carry the real views as they are derived
    (newest first, in slices of ~50 ms, between which file events are handled).

    Every source's directories are watched (`Engine.watch_roots`); when one appears or goes,
    the watch is re-armed and what changed meanwhile is reported. `backend`: "auto" (inotify
    on Linux, else watchfiles), "watchfiles", or polling with `poll=True`."""
    from watchfiles import Change

    stop = stop or asyncio.Event()
    force_polling = poll
    first = True
    anchors = engine.anchors()
    while not stop.is_set():
        roots = engine.watch_roots()
        if not roots:
            removed = engine.clear()
            if removed and not first:
                yield Changed(removed=removed, sessions_dir=False)
            yield ProjectMissing()
            await _wait_for_any(anchors, stop)
            continue
        try:
            # Arm the watch first, then scan: a change made in between is then both in the scan
            # and in a batch (harmless), never in neither.
            batches: asyncio.Queue = asyncio.Queue()
            pumps, armed = _open(engine, roots, force_polling, backend, batches)
            try:
                has_dir = engine.has_sessions_dir()
                catch_up = _rescan
                if first and progressive:
                    # The list (stand-ins) is shown while the watch is armed; sessions are read
                    # once it is, after a re-list for any that appeared meanwhile.
                    views = await asyncio.to_thread(engine.begin)
                    yield Scanned(views, has_dir)
                    first = False
                    # Reading starts at once; what was read before the watch was armed is read
                    # again after (cheap: parse results are cached by file identity), so a
                    # write during arming is never missed.
                    early: list[str] = []
                    while engine.pending and not _is_armed(armed, pumps):
                        derived = await asyncio.to_thread(engine.step)
                        early += [v.id for v in derived]
                        if derived:
                            yield Changed(derived, [], has_dir)
                    await _until_armed(armed, pumps)
                    await asyncio.sleep(ARM_S)
                    diff = await asyncio.to_thread(engine.relist, early)
                    if diff[0] or diff[1]:
                        yield Changed(*diff, has_dir)
                    catch_up = _relist
                else:
                    await _until_armed(armed, pumps)
                    await asyncio.sleep(ARM_S)
                    if first:
                        views = await asyncio.to_thread(engine.scan)
                        yield Scanned(views, has_dir)
                        first = False
                    else:  # re-armed: report what changed while we were not watching
                        diff = await asyncio.to_thread(_rescan, engine)
                        yield Changed(*diff, has_dir)
                if force_polling:
                    # The poll watcher takes its first picture a while after it starts: catch
                    # up once on anything written before that.
                    await asyncio.sleep(2 * POLL_DELAY_MS / 1000)
                    diff = await asyncio.to_thread(catch_up, engine)
                    if diff[0] or diff[1]:
                        yield Changed(*diff, has_dir)
                armed_roots = {str(r) for r in roots}
                recheck: list[str] = []  # polling: paths to read again once their second is over
                recheck_at = 0.0
                hv = engine.headers_version
                while not stop.is_set():
                    if engine.pending and batches.empty():
                        derived = await asyncio.to_thread(engine.step)
                        if derived:
                            yield Changed(derived, [], has_dir)
                        continue
                    batch = await _next(batches, stop)
                    if batch is _END:
                        break
                    if isinstance(batch, BaseException):
                        raise batch
                    if not batch:  # tick: time passes (stalled, idle), unwatched places move
                        changed = engine.restale()
                        # The poller compares times to the second: a second write within the
                        # same second as the one it saw looks unchanged. Read those again.
                        due = recheck if recheck and time.monotonic() >= recheck_at else []
                        if due:
                            recheck = []
                        moved, removed, rearm, now_dir, now_roots = await asyncio.to_thread(
                            _tick, engine, due
                        )
                        changed = _merge(changed, moved)
                        if changed or removed or now_dir != has_dir or engine.headers_version != hv:
                            has_dir, hv = now_dir, engine.headers_version
                            yield Changed(changed, removed, now_dir)
                        if rearm or now_roots != armed_roots:
                            break
                        continue
                    if any((Change.deleted, r) in batch for r in armed_roots):
                        break  # an inotify watch dies with its root: re-arm
                    paths = [p for _, p in batch]
                    changed, removed, now_dir, now_roots = await asyncio.to_thread(
                        _apply, engine, paths
                    )
                    if force_polling:
                        recheck = sorted({*recheck, *paths})
                        recheck_at = time.monotonic() + RECHECK_S
                    touched = frozenset(engine.touched)
                    if (
                        changed
                        or removed
                        or touched
                        or now_dir != has_dir
                        or engine.headers_version != hv
                    ):
                        has_dir, hv = now_dir, engine.headers_version
                        yield Changed(changed, removed, now_dir, touched)
                    if now_roots != armed_roots:
                        break  # a watched directory went, or a format's directory appeared
            finally:
                for pump in pumps:
                    pump.cancel()
                for pump in pumps:
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


def _merge(a: list[SessionView], b: list[SessionView]) -> list[SessionView]:
    """Views from two passes, the later one winning for the same id."""
    later = {v.id for v in b}
    return [v for v in a if v.id not in later] + b
