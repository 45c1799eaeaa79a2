"""The session engine: holds the current view of every session of every Source (format) of a
project, and re-derives only what changed.

Used by `status`, `watch --jsonl` and the dashboard alike. Blocking IO: call it from a worker
thread in async code. It knows nothing of watching: it answers where sessions live (the
directories to watch, which paths matter) and turns a batch of changed paths, a tick of the
clock or a poll into session changes. `ocr_tui.core.watch` drives it from a watcher.

The parts: `sessions.SessionStore` (views, where each lives, view ids, expiry times),
`headers.HeaderBoard` (project-level headers, reader failures, the version counter),
`scan.Scan` (a full scan, progressive), `refresh.Refresh` (apply, relist, poll) and
`places` (which directories and paths belong to which source).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import msgspec
from msgspec import UNSET, UnsetType

from ocr_tui.core import places
from ocr_tui.core.headers import HeaderBoard
from ocr_tui.core.project import Project
from ocr_tui.core.refresh import Diff, Refresh
from ocr_tui.core.registry import source_classes
from ocr_tui.core.scan import Scan
from ocr_tui.core.sessions import SessionStore
from ocr_tui.core.source import DEFAULT_STALL_AFTER, Source
from ocr_tui.core.timeutil import fmt_ts
from ocr_tui.core.view import Header, ProjectRef, SessionView, Snapshot


def utcnow() -> datetime:
    return datetime.now(UTC)


class Engine:
    """Every Source of one project, and the current view of each of their sessions."""

    def __init__(
        self,
        project: Project,
        *,
        stall_after: float = DEFAULT_STALL_AFTER,
        clock=utcnow,
        sources: list[Source] | None = None,
        name: str | None = None,
    ):
        """`name`: one of several projects' engine (`core.workspace`): its views' `project`,
        and the start of their ids (`name/…`)."""
        self.project = project
        self.name = name
        self.stall_after = stall_after
        self.clock = clock  # read at each call (tests set it after construction)
        if sources is None:
            sources = [cls(project.root, stall_after=stall_after) for cls in source_classes()]
        self.sources = sources
        self._table = SessionStore(name)
        self._board = HeaderBoard(project, name)
        self._scan = Scan(sources, self._table, self._board)
        self._refresh = Refresh(sources, self._table, self._board)

    @property
    def views(self) -> dict[str, SessionView]:
        """View id -> the session's current view."""
        return self._table.views

    @property
    def headers(self) -> dict[str, Header]:
        return self._board.headers

    @property
    def headers_version(self) -> int:
        """Bumped whenever `headers` changes."""
        return self._board.version

    @property
    def pending(self) -> list[str]:
        """View ids queued by `begin`, derived by `step` (or by worker processes, whose views
        `step` merges)."""
        return self._scan.remaining()

    @property
    def touched(self) -> set[str]:
        """View ids the last `apply` re-read (changed or not)."""
        return self._refresh.touched

    # -- where ------------------------------------------------------------------------------

    def watch_roots(self) -> list[Path]:
        """The existing directories to watch recursively (one list for every source)."""
        return places.watch_roots(self.sources)

    def anchors(self) -> list[Path]:
        """Every directory whose appearance or disappearance means re-arming the watch."""
        return places.anchors(self.sources)

    def has_sessions_dir(self) -> bool:
        """Does any format's sessions directory exist?"""
        return places.has_sessions_dir(self.sources)

    def accept(self, path: str) -> bool:
        """Is a changed path worth a batch? (Called per event on the event loop: one pass.)"""
        return places.accepts(self.sources, path)

    # -- reading ----------------------------------------------------------------------------

    def scan(self) -> list[SessionView]:
        """Re-read everything."""
        self.begin(placeholders=False)
        while self._scan.waiting:
            self.step(budget_s=None)
        self.settle()
        return self.sessions()

    def rescan(self) -> Diff:
        """Re-read everything; returns what differs from before (changed views, removed ids)."""
        before = dict(self.views)
        views = self.scan()
        changed = [v for v in views if before.get(v.id) != v]
        return changed, sorted(set(before) - set(self.views))

    def begin(self, *, placeholders: bool = True, pool: bool = True) -> list[SessionView]:
        """Start a full scan: list every session (cheap) and queue them to be derived by
        `step`, newest first. With `placeholders`, each session gets a stand-in view at once
        (`source == "loading"`), so a list of 10,000 shows before one is parsed."""
        self._scan.begin(self.clock(), placeholders=placeholders, pool=pool)
        return self.sessions()

    def start_pool(self) -> None:
        """Worker processes for the sessions `begin(pool=False)` left to derive."""
        self._scan.start_pool(self.clock())

    def step(self, budget_s: float | None = 0.05) -> list[SessionView]:
        """Derive queued sessions for about `budget_s` seconds (all with None); returns them."""
        return self._scan.step(self.clock(), budget_s)

    def settle(self) -> None:
        """The start-up is over: the views kept to re-read sessions cheaply right after a
        scan (`begin`, `relist` of what was read before the watch was armed) are dropped, now
        or when the scan ends."""
        self._scan.settle()

    def sessions(self) -> list[SessionView]:
        return self._table.sessions()

    def snapshot(self) -> Snapshot:
        return snapshot_of(self.project.root, self.clock(), self.sessions(), self.headers)

    # -- incremental ------------------------------------------------------------------------

    def apply(self, paths: Iterable[str | Path]) -> Diff:
        """Re-derive the sessions that `paths` touched. Returns (changed views, removed ids)."""
        return self._refresh.apply(paths, self.clock())

    def relist(self, ids: Iterable[str] = ()) -> Diff:
        """List every source again (sessions that appeared or went since the last listing),
        and re-derive the sessions `ids`."""
        return self._refresh.relist(ids, self.clock())

    def restale(self) -> list[SessionView]:
        """Time passed with no file event: re-derive the sessions whose time-based state (stalled,
        idle, overdue...) is due to change (no IO unless one is). Headers (whose staleness is
        counted in hours) are re-derived once a minute."""
        now = self.clock()
        self._board.refresh(self.sources, now)
        return self._table.restale(now)

    def poll(self) -> tuple[list[SessionView], list[str], bool]:
        """The once-a-second check for sources with unwatched places (e.g. /tmp). Returns
        (changed, removed, rearm): rearm when the directories to watch changed."""
        return self._refresh.poll(self.clock())

    def close(self) -> None:
        """The engine is dropped: end what its scan started (worker processes), and let its
        sources drop what they keep for the project."""
        self._scan.close()
        for src in self.sources:
            try:
                src.close()
            except Exception:  # a source's bug: nothing to stop the others for
                pass

    def discover(self) -> bool:
        """Did new projects appear? (One project: never; `Workspace` looks for them.)"""
        return False

    def clear(self) -> list[str]:
        """Every watched directory is gone: forget every session; returns the removed ids."""
        removed = self._table.clear(forget=True)
        self._board.clear()
        return removed


def snapshot_of(
    root: Path,
    now: datetime,
    sessions: list[SessionView],
    headers: dict[str, Header],
    projects: list[ProjectRef] | UnsetType = UNSET,
) -> Snapshot:
    """`status --json`'s object: one project's, or (with `projects`) several's."""
    return Snapshot(
        version=1,
        project=str(root),
        generated_at=fmt_ts(now) or "",
        sessions=sessions,
        headers=[headers[k] for k in sorted(headers)],
        projects=projects,
    )


def encode_json(obj: object) -> str:
    """ASCII-only JSON (non-ASCII and control characters escaped); unset fields (a view's
    `project` with one project) are left out."""
    import json

    return json.dumps(msgspec.to_builtins(obj), ensure_ascii=True, separators=(",", ":"))
