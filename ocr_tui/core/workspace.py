"""Several projects at once (`ocr-tui PATH PATH…`, `--scan DIR`): one `Engine` per project,
behind the Engine's own interface, so the watcher (`core.watch`), the dashboard and the
headless commands drive them as they drive one.

Each project has a short name (`core.discover.short_names`: `api`, `team-a/web`); its views
carry it (`SessionView.project`) and their ids start with it (`api/2026-11-23-main`), so ids
stay unique across projects. With `--scan DIR`, the directory is walked again every
`workspace_projects.DISCOVER_EVERY_S` (on the watcher's tick, in its thread): a project that
appears is read and watched, one whose store is gone leaves the list. Projects named on the command
line stay.

`Scope` (`core.scope`) says what to show; `make_engine` builds an `Engine` for one project (so
its ids and output are those of one project, unchanged) and a `Workspace` for more.
"""

from __future__ import annotations

import os
import time
from collections import ChainMap
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path

from ocr_tui.core import pool
from ocr_tui.core.engine import Engine, snapshot_of, utcnow
from ocr_tui.core.order import newest_first
from ocr_tui.core.project import Project
from ocr_tui.core.refresh import Diff
from ocr_tui.core.scope import Scope
from ocr_tui.core.source import DEFAULT_STALL_AFTER
from ocr_tui.core.view import Header, SessionView, Snapshot
from ocr_tui.core.workspace_projects import WorkspaceProjects


def make_engine(
    scope: Scope, *, stall_after: float = DEFAULT_STALL_AFTER, clock=utcnow
) -> Engine | Workspace:
    """One project's Engine (its output unchanged), or a Workspace of several."""
    if not scope.several:
        return Engine(scope.projects[0], stall_after=stall_after, clock=clock)
    return Workspace(scope, stall_after=stall_after, clock=clock)


class Workspace(WorkspaceProjects):
    """Every project of a `Scope`, each one's sessions in its own Engine."""

    def __init__(
        self,
        scope: Scope,
        *,
        stall_after: float = DEFAULT_STALL_AFTER,
        clock: Callable[[], datetime] = utcnow,
        markers: Callable[[], list[str]] | None = None,
    ) -> None:
        self.scope = scope
        self.project = Project(scope.root)  # where they all are (Snapshot.project)
        self.stall_after = stall_after
        self.clock = clock  # read at each call (tests set it after construction)
        self.truncated = False  # the last scan stopped at discover.MAX_DIRS directories
        self._partial = False  # ...or could not list a directory: no project is taken as gone
        self._markers = markers
        self._given = {p.root for p in scope.projects}
        self._names: dict[Path, str] = {}
        self.engines: dict[Path, Engine] = {}
        self._views: ChainMap[str, SessionView] = ChainMap()
        self._prefixes: list[tuple[str, Engine]] = []
        self._by_dir: dict[str, list[Engine]] = {}
        self._generation = 0  # bumped whenever the set of engines changes
        self._headers: tuple[object, dict[str, Header]] = (None, {})
        self._next_look = 0.0
        self._add(p.root for p in scope.projects)
        # `--scan`: the first walk is left to the first call that reads (`_first_look`), in
        # the thread that calls it: a dashboard builds its engine on the UI thread.
        self._looked = scope.scan is None

    # -- the projects ---------------------------------------------------------------------

    def _now(self) -> datetime:
        return self.clock()

    # -- Engine's interface -----------------------------------------------------------------

    @property
    def views(self) -> ChainMap[str, SessionView]:
        return self._views

    @property
    def headers(self) -> dict[str, Header]:
        """Every project's headers (built again only when one changed: read per event)."""
        version = self.headers_version
        if self._headers[0] != version:
            engines = self.engines.values()
            self._headers = (
                version,
                {f"{e.name}/{k}": h for e in engines for k, h in e.headers.items()},
            )
        return self._headers[1]

    @property
    def headers_version(self) -> tuple[int, int]:
        """Changes whenever `headers` does: the engines' counters only grow, and the set of
        engines has its own (`_generation`)."""
        return (self._generation, sum(e.headers_version for e in self.engines.values()))

    @property
    def pending(self) -> list[str]:
        return [vid for e in self.engines.values() for vid in e.pending]

    @property
    def touched(self) -> set[str]:
        return {vid for e in self.engines.values() for vid in e.touched}

    def watch_roots(self) -> list[Path]:
        self._first_look()
        self._place()
        return [d for e in self.engines.values() for d in e.watch_roots()]

    def anchors(self) -> list[Path]:
        return [d for e in self.engines.values() for d in e.anchors()]

    def has_sessions_dir(self) -> bool:
        return any(e.has_sessions_dir() for e in self.engines.values())

    def accept(self, path: str) -> bool:
        """(Per event, on the event loop: only the engines whose directories hold the path,
        or lie under it, are asked: one or two, not every project a scan found.)"""
        return any(e.accept(path) for e in self._engines_for(path))

    def _engines_for(self, path: str) -> list[Engine]:
        """The engines whose directories (`_place`) hold `path`, or lie under it: looked up
        by the path's own directories (a dozen dict lookups, however many projects: 3,000
        of them made a linear pass cost milliseconds per event on the loop); a path above
        every directory (rare) by a pass over them."""
        by_dir, out = self._by_dir, []
        p = path
        while True:
            for e in by_dir.get(p, ()):
                if e not in out:
                    out.append(e)
            parent = os.path.dirname(p)
            if parent == p:
                break
            p = parent
        if out:
            return out
        for prefix, e in self._prefixes:
            if (path.startswith(prefix) or prefix.startswith(path + os.sep)) and e not in out:
                out.append(e)
        return out

    def scan(self) -> list[SessionView]:
        """Every project read whole: begun together (one decision on worker processes for
        all their sessions), then each stepped to its end."""
        self.begin(placeholders=False)
        for e in list(self.engines.values()):
            while e.pending:
                e.step(budget_s=None)
            e.settle()
        return self.sessions()

    def rescan(self) -> Diff:
        changed: list[SessionView] = []
        removed: list[str] = []
        for e in list(self.engines.values()):
            c, r = e.rescan()
            changed += c
            removed += r
        return changed, removed

    def begin(self, *, placeholders: bool = True) -> list[SessionView]:
        """Every project's `begin`; worker processes decided on their sessions together (a
        scan of 3,000 projects of 4 sessions each is 12,000 to read: one project alone
        never reached POOL_MIN, and they were all read in the UI process' thread)."""
        self._first_look()
        engines = list(self.engines.values())
        for e in engines:
            e.begin(placeholders=placeholders, pool=False)
        if pool.wanted(sum(len(e.pending) for e in engines)):
            for e in engines:
                e.start_pool()
        return self.sessions()

    def step(self, budget_s: float | None = 0.05) -> list[SessionView]:
        deadline = None if budget_s is None else time.perf_counter() + budget_s
        out: list[SessionView] = []
        for e in list(self.engines.values()):
            if not e.pending:
                continue
            left = None if deadline is None else max(0.0, deadline - time.perf_counter())
            out += e.step(left)
            if deadline is not None and time.perf_counter() >= deadline:
                break
        return out

    def settle(self) -> None:
        for e in self.engines.values():
            e.settle()

    def sessions(self) -> list[SessionView]:
        return newest_first(self._views.values())

    def snapshot(self) -> Snapshot:
        now = self.clock()
        return snapshot_of(self.project.root, now, self.sessions(), self.headers, self.refs())

    def apply(self, paths: Iterable[str | Path]) -> Diff:
        """Each engine re-reads the paths in its directories only (a batch is usually one
        project's); before the first `watch_roots` (no directories known yet), every one."""
        if not self._prefixes:
            paths = list(paths)
            return self._each(lambda e: e.apply(paths))
        mine: dict[int, list[str | Path]] = {}
        for p in paths:
            for e in self._engines_for(str(p)):
                mine.setdefault(id(e), []).append(p)
        # (an engine with none is still called: its `touched` must not say a batch before)
        return self._each(lambda e: e.apply(mine.get(id(e), [])))

    def relist(self, ids: Iterable[str] = ()) -> Diff:
        ids = list(ids)
        return self._each(lambda e: e.relist([i for i in ids if i in e.views]))

    def restale(self) -> list[SessionView]:
        return [v for e in list(self.engines.values()) for v in e.restale()]

    def poll(self) -> tuple[list[SessionView], list[str], bool]:
        changed, removed, rearm = self._rediscover()
        for e in list(self.engines.values()):
            c, r, again = e.poll()
            changed += c
            removed += r
            rearm = rearm or again
        return changed, sorted(set(removed)), rearm

    def close(self) -> None:
        for e in self.engines.values():
            e.close()

    def clear(self) -> list[str]:
        removed: list[str] = []
        for e in self.engines.values():
            removed += e.clear()
        return sorted(removed)

    def _each(self, call: Callable[[Engine], Diff]) -> Diff:
        changed: list[SessionView] = []
        removed: list[str] = []
        for e in list(self.engines.values()):
            c, r = call(e)
            changed += c
            removed += r
        return changed, sorted(set(removed))
