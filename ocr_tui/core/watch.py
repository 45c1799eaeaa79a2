"""The live view of a project: the one place that knows both the engine and the watcher.

`watch_project` asks the engine which directories to watch (`Engine.watch_roots`, every source's
`.ocr/`, `.claude/.docs/`, ...), has `core.watcher` watch them recursively, feeds each batch of
changed paths and each tick to the engine (in a worker thread, never on the event loop), and
yields domain events. It re-arms the watch when a watched directory is deleted or a format's
directory appears, and falls back to polling when the OS refuses a native watch.
No Textual here: the dashboard and `watch --jsonl` both consume it.

    engine (sessions)  <--  watch_project (this module)  <--  watcher (directories, paths)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import aclosing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ocr_tui.core.engine import Engine
from ocr_tui.core.view import SessionView

if TYPE_CHECKING:
    from ocr_tui.core.workspace import Workspace
from ocr_tui.core.watcher import (
    EVERYTHING,
    POLL_DELAY_MS,
    TICK_S,
    Paths,
    Refused,
    Tick,
    Watch,
    wait_for_any,
)


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


async def watch_project(
    engine: Engine | Workspace,
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
    stop = stop or asyncio.Event()
    polling = poll
    first = True
    while not stop.is_set():
        roots = await asyncio.to_thread(engine.watch_roots)  # stats: not on the loop
        if not roots:
            removed = engine.clear()
            if removed and not first:
                yield Changed(removed=removed, sessions_dir=False)
            yield ProjectMissing()
            # (a workspace's projects may come and go: its anchors are asked each time)
            await wait_for_any(engine.anchors(), stop, engine.discover)
            continue
        try:
            # Arm the watch first, then scan: a change made in between is then both in the scan
            # and in a batch (harmless), never in neither.
            async with Watch(roots, engine.accept, polling=polling, backend=backend) as watch:
                has_dir = await asyncio.to_thread(engine.has_sessions_dir)
                start = _start(engine, watch, has_dir, first=first, progressive=progressive)
                async with aclosing(start) as events:
                    async for event in events:
                        first = first and not isinstance(event, Scanned)
                        yield event
                armed = {str(r) for r in roots}
                async with aclosing(_follow(engine, watch, stop, has_dir, armed)) as events:
                    async for event in events:
                        yield event
        except FileNotFoundError:
            continue
        except OSError as exc:
            if polling:
                raise
            polling = True
            yield PollingFallback(
                f"native file watching failed ({exc}); polling every {POLL_DELAY_MS} ms instead"
                " (raise fs.inotify.max_user_watches to watch natively)"
            )


async def _start(
    engine: Engine | Workspace, watch: Watch, has_dir: bool, *, first: bool, progressive: bool
) -> AsyncIterator[WatchEvent]:
    """The picture once the watch is armed: `Scanned` the first time, else what changed while
    nothing was watched."""
    catch_up = engine.rescan
    if first and progressive:
        # The list (stand-ins) is shown while the watch is armed; sessions are read once it
        # is, after a re-list for any that appeared meanwhile.
        views = await asyncio.to_thread(engine.begin)
        yield Scanned(views, has_dir)
        # Reading starts at once; what was read before the watch was armed is read again
        # after (cheap: parse results are cached by file identity), so a write during arming
        # is never missed.
        early: list[str] = []
        while engine.pending and not watch.armed():
            derived = await asyncio.to_thread(engine.step)
            early += [v.id for v in derived]
            if derived:
                yield Changed(derived, [], has_dir)
        await watch.until_armed()
        diff = await asyncio.to_thread(engine.relist, early)
        engine.settle()  # what was read early was re-read (from the result cache if unchanged)
        if diff[0] or diff[1]:
            yield Changed(*diff, has_dir)
        catch_up = engine.relist
    else:
        await watch.until_armed()
        if first:
            views = await asyncio.to_thread(engine.scan)
            yield Scanned(views, has_dir)
        else:  # re-armed: report what changed while we were not watching
            diff = await asyncio.to_thread(engine.rescan)
            yield Changed(*diff, has_dir)
    if watch.polling:
        # The poll watcher takes its first picture a while after it starts: catch up once on
        # anything written before that.
        await watch.baseline()
        diff = await asyncio.to_thread(catch_up)
        if diff[0] or diff[1]:
            yield Changed(*diff, has_dir)
        watch.recheck_everything()


async def _follow(
    engine: Engine | Workspace, watch: Watch, stop: asyncio.Event, has_dir: bool, armed: set[str]
) -> AsyncIterator[Changed]:
    """`Changed` per batch or tick that changed anything, until the watch must be re-armed
    (a watched directory went, or a format's directory appeared) or `stop` is set."""
    hv = engine.headers_version
    tick_due = time.monotonic() + TICK_S
    while not stop.is_set():
        if engine.pending and watch.quiet():
            derived = await asyncio.to_thread(engine.step)
            if derived:
                yield Changed(derived, [], has_dir)
            continue
        event = await watch.next(stop)
        if isinstance(event, Refused):
            raise event.error
        if isinstance(event, Tick):  # time passes (stalled, idle), unwatched places move
            changed, removed, rearm, now_dir, now_roots = await asyncio.to_thread(
                _tick, engine, event.recheck
            )
            touched = frozenset()
            tick_due = time.monotonic() + TICK_S
        elif isinstance(event, Paths):
            changed, removed, now_dir, now_roots = await asyncio.to_thread(
                _apply, engine, event.paths
            )
            rearm, touched = False, frozenset(engine.touched)
            if time.monotonic() >= tick_due:
                # Files change without a pause of TICK_S (a busy agent): a tick's work all the
                # same, every TICK_S (stalled times, unwatched places, new projects).
                tick_due = time.monotonic() + TICK_S
                more, gone, rearm, now_dir, now_roots = await asyncio.to_thread(_tick, engine, [])
                changed, removed = _merge(changed, more), sorted({*removed, *gone})
        else:  # stopped, the watch ended, or a root went: re-arm
            return
        if changed or removed or touched or now_dir != has_dir or engine.headers_version != hv:
            has_dir, hv = now_dir, engine.headers_version
            yield Changed(changed, removed, now_dir, touched)
        if rearm or now_roots != armed:
            return


def _apply(engine: Engine | Workspace, paths: list[str]):
    """In a worker thread: a batch's sessions re-derived, and the stats the loop needs after
    it (whether a sessions directory exists, which roots exist) so none runs on the loop."""
    changed, removed = engine.apply(paths)
    return changed, removed, engine.has_sessions_dir(), {str(r) for r in engine.watch_roots()}


def _tick(engine: Engine | Workspace, recheck: list[str]):
    """In a worker thread: sessions whose time-based state is due (stalled, idle), the
    periodic poll of unwatched places, paths due a re-read, and the same stats as `_apply`."""
    stale = engine.restale()  # may read a session's files: never on the loop
    moved, removed, rearm = engine.poll()
    moved = _merge(stale, moved)
    if EVERYTHING in recheck:
        again, gone = engine.rescan()
        moved, removed = _merge(moved, again), sorted({*removed, *gone})
        recheck = [p for p in recheck if p != EVERYTHING]
    if recheck:
        again, gone = engine.apply(recheck)
        moved, removed = _merge(moved, again), sorted({*removed, *gone})
    roots = {str(r) for r in engine.watch_roots()}
    return moved, removed, rearm, engine.has_sessions_dir(), roots


def _merge(a: list[SessionView], b: list[SessionView]) -> list[SessionView]:
    """Views from two passes, the later one winning for the same id."""
    later = {v.id for v in b}
    return [v for v in a if v.id not in later] + b
