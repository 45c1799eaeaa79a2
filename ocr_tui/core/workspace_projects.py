"""A Workspace's projects: found (the given roots and, with `--scan`, a walk for every format's
markers), each given an Engine and a short name, looked for again at most every few seconds, and
dropped when gone. A mixin of `Workspace` (`self` is the workspace)."""

from __future__ import annotations

import os
import time
from collections import ChainMap
from collections.abc import Iterable
from pathlib import Path

from ocr_tui.core.discover import MAX_DIRS, find_projects, short_names
from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import ProjectRef, SessionView

DISCOVER_EVERY_S = 3.0  # `--scan`: how often DIR is walked again for projects
LOOK_SHARE = 20  # ...at most: a walk that took t seconds waits 20 t before the next


class WorkspaceProjects:
    """Which projects the workspace holds, and their engines."""

    def _first_look(self) -> None:
        if not self._looked:
            self._looked = True
            self._add(self._look())

    def _look(self) -> list[Path]:
        """The projects under the scanned directory now (a walk: in a worker thread)."""
        assert self.scope.scan is not None
        if self._markers is None:
            from ocr_tui.core.registry import markers

            self._markers = markers
        start = time.monotonic()
        found = find_projects(self.scope.scan, self._markers(), depth=self.scope.depth)
        self.truncated = found.truncated
        self._partial = found.truncated or found.unreadable
        took = time.monotonic() - start
        # every DISCOVER_EVERY_S, or less often where a walk is long: 5% of a core at most
        self._next_look = start + took + max(DISCOVER_EVERY_S, LOOK_SHARE * took)
        return found.roots

    def _add(self, roots: Iterable[Path]) -> list[Engine]:
        new = [r for r in dict.fromkeys(roots) if r not in self.engines]
        if not new:
            return []
        self._names = short_names(new, self._names)
        added = []
        # (a new dict, swapped in whole: the UI thread may be reading the one before)
        engines = dict(self.engines)
        for root in new:
            engines[root] = engine = Engine(
                Project(root), stall_after=self.stall_after, clock=self._now, name=self._names[root]
            )
            added.append(engine)
        self.engines = dict(sorted(engines.items(), key=lambda kv: self._names[kv[0]]))
        self._generation += 1
        self._reindex()
        return added

    def _reindex(self) -> None:
        """The views of every engine as one mapping, and where each one's sessions live."""
        self._views = ChainMap(*(e.views for e in self.engines.values()))

    def _place(self) -> None:
        """Each engine's directories (its sources' `watch_dirs` and `extra_watch_dirs`, such
        as a format's temporary directories outside the project), for `accept`. Called
        where the watch roots are asked for (in a thread: extra dirs may be listed)."""
        prefixes: list[tuple[str, Engine]] = []
        by_dir: dict[str, list[Engine]] = {}
        for e in self.engines.values():
            for src in e.sources:
                for d in (*src.watch_dirs(), *src.extra_watch_dirs()):
                    prefixes.append((os.path.join(str(d), ""), e))
                    mine = by_dir.setdefault(str(d), [])
                    if e not in mine:
                        mine.append(e)
        self._prefixes, self._by_dir = prefixes, by_dir  # (each swapped in whole)

    def truncation(self) -> str | None:
        """What a walk cut short at MAX_DIRS leaves out, in a sentence; None when it was not."""
        if not self.truncated or self.scope.scan is None:
            return None
        return (
            f"--scan stopped after {MAX_DIRS:,} directories under {safe_line(self.scope.scan)}:"
            " projects further on may be missing (scan a smaller directory, or a lower --depth)"
        )

    def refs(self) -> list[ProjectRef]:
        """Every project shown, by name."""
        self._first_look()
        return [ProjectRef(name=e.name or "", path=str(r)) for r, e in self.engines.items()]

    def project_named(self, name: str) -> Project | None:
        for engine in self.engines.values():
            if engine.name == name:
                return engine.project
        return None

    def _look_due(self) -> bool:
        """`--scan`, and the next walk's time has come."""
        return self.scope.scan is not None and time.monotonic() >= self._next_look

    def discover(self) -> bool:
        """`--scan`: walk the directory again (at most every DISCOVER_EVERY_S); True when new
        projects were found (their engines are added, not yet read)."""
        self._first_look()
        if not self._look_due():
            return False
        return bool(self._add(self._look()))

    def _rediscover(self) -> tuple[list[SessionView], list[str], bool]:
        """The projects found and gone since the last walk: the new ones read whole (their
        views), the gone ones' ids; True when either (the watch must be re-armed)."""
        if not self._look_due():
            return [], [], False
        now = set(self._look())
        # (a walk cut short, or that could not list a directory, says nothing of the
        # projects it did not see)
        gone = [] if self._partial else [r for r in self.engines if r not in now]
        gone = [r for r in gone if r not in self._given]
        removed: list[str] = []
        if gone:
            engines = dict(self.engines)  # (swapped in whole, as in `_add`)
            for root in gone:
                engine = engines.pop(root)
                removed += sorted(engine.views)
                engine.close()
            self.engines = engines
            self._generation += 1
        added = self._add(r for r in sorted(now) if r not in self.engines)
        if gone and not added:
            self._reindex()
        changed = [v for e in added for v in e.scan()]
        return changed, removed, bool(gone or added)
