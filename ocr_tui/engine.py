"""The session engine: holds the project's current views and re-derives only what changed.

Used by `status`, `watch --jsonl` and the dashboard alike. Blocking IO: call it from a worker
thread in async code.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from ocr_tui.derive.session import DEFAULT_STALL_AFTER, derive_session
from ocr_tui.derive.timeutil import fmt_ts, parse_ts
from ocr_tui.model.ocr import state_from_json
from ocr_tui.model.view import SessionView, Snapshot
from ocr_tui.sources import ocr_fs, parse_cache
from ocr_tui.sources.ocr_db import ABSENT, DbSnapshot, load_db
from ocr_tui.sources.ocr_fs import read_session
from ocr_tui.sources.project import Project, session_dirs
from ocr_tui.textsafe import unsurrogate


def utcnow() -> datetime:
    return datetime.now(UTC)


def sort_key(view: SessionView) -> tuple:
    """Active sessions first, then by last activity, newest first."""
    return (0 if view.status == "active" else 1, _neg_ts(view.last_activity), view.id)


def _neg_ts(ts: str | None) -> str:
    # ISO strings sort like times; invert the characters to sort newest first.
    if ts is None:
        return "~"
    return "".join(chr(0x7F - ord(c)) for c in ts)


class Engine:
    def __init__(self, project: Project, *, stall_after: float = DEFAULT_STALL_AFTER, clock=utcnow):
        self.project = project
        self.stall_after = stall_after
        self.clock = clock
        self.db: DbSnapshot = ABSENT
        self.views: dict[str, SessionView] = {}
        self._dirs: dict[str, Path] = {}
        self._cache_file = parse_cache.cache_file(project.root)
        self._cache_loaded = False

    def load_cache(self) -> None:
        """Serve parse results from the persistent cache (once)."""
        if not self._cache_loaded:
            self._cache_loaded = True
            ocr_fs.use_persisted(parse_cache.load(self._cache_file))

    def save_cache(self) -> bool:
        """Write the persistent cache if anything new was parsed."""
        entries, dirty = ocr_fs.cache_entries()
        if not dirty or self._cache_file is None:
            return False
        ok = parse_cache.save(self._cache_file, entries)
        if ok:
            ocr_fs.mark_saved()
        return ok

    # -- reading --------------------------------------------------------------------------

    def _refresh_db(self) -> bool:
        """Re-read ocr.db if it changed; True when its content may differ."""
        new = load_db(self.project.db_path, self.db)
        changed = new is not self.db
        self.db = new
        return changed

    def derive(self, path: Path, now: datetime | None = None) -> SessionView:
        now = now or self.clock()
        sid = unsurrogate(path.name)
        problems: list[str] = []
        row = self.db.rows.get(path.name) if self.db.present else None
        if self.db.error:
            problems.append(self.db.error)
        files = read_session(path, read_state_json=row is None)
        state = row
        if state is None and files.state is not None:
            state = state_from_json(files.state)
        view = derive_session(
            files, state, now=now, stall_after=self.stall_after, problems=problems
        )
        if view.id != sid:  # pragma: no cover - read_session names it the same way
            view.id = sid
        return view

    def scan(self) -> list[SessionView]:
        """Re-read everything."""
        self.load_cache()
        self._refresh_db()
        now = self.clock()
        dirs = session_dirs(self.project)
        self._dirs = {unsurrogate(p.name): p for p in dirs}
        self.views = {sid: self.derive(p, now) for sid, p in self._dirs.items()}
        self.save_cache()
        return self.sessions()

    def sessions(self) -> list[SessionView]:
        return sorted(self.views.values(), key=sort_key)

    def snapshot(self) -> Snapshot:
        return Snapshot(
            version=1,
            project=str(self.project.root),
            generated_at=fmt_ts(self.clock()) or "",
            sessions=self.sessions(),
        )

    # -- incremental ----------------------------------------------------------------------

    def session_of(self, path: str | Path) -> str | None:
        """The id of the session a changed path belongs to, if any."""
        try:
            rel = Path(path).relative_to(self.project.sessions_dir)
        except ValueError:
            return None
        if not rel.parts or rel.parts[0].startswith("."):
            return None
        return unsurrogate(rel.parts[0])

    def apply(self, paths: Iterable[str | Path]) -> tuple[list[SessionView], list[str]]:
        """Re-derive the sessions that `paths` touched. Returns (changed views, removed ids).

        A change to ocr.db re-derives the sessions whose rows changed; a change to the
        sessions directory itself re-lists it.
        """
        touched: set[str] = set()
        relist = False
        db_touched = False
        sessions_dir = self.project.sessions_dir
        for p in paths:
            p = Path(p)
            if p == sessions_dir or sessions_dir.is_relative_to(p) and p != sessions_dir:
                relist = True
                continue
            if p.parent == self.project.data_dir or p == self.project.data_dir:
                db_touched = True
                continue
            sid = self.session_of(p)
            if sid is not None:
                touched.add(sid)
                if p.parent == sessions_dir:
                    relist = True
        changed: list[SessionView] = []
        removed: list[str] = []
        if db_touched:
            old_rows = self.db.rows
            old_err = self.db.error
            if self._refresh_db():
                for sid in set(old_rows) | set(self.db.rows):
                    if old_rows.get(sid) != self.db.rows.get(sid):
                        touched.add(sid)
                if old_err != self.db.error:
                    touched.update(self.views)
        if relist or touched - set(self._dirs):
            current = {unsurrogate(p.name): p for p in session_dirs(self.project)}
            for sid in set(self._dirs) - set(current):
                removed.append(sid)
                self.views.pop(sid, None)
            touched.update(set(current) - set(self._dirs))
            self._dirs = current
        now = self.clock()
        for sid in sorted(touched):
            path = self._dirs.get(sid)
            if path is None:
                if sid in self.views:
                    self.views.pop(sid)
                    removed.append(sid)
                continue
            if not path.is_dir():
                self._dirs.pop(sid, None)
                if self.views.pop(sid, None) is not None:
                    removed.append(sid)
                continue
            view = self.derive(path, now)
            if self.views.get(sid) != view:
                self.views[sid] = view
                changed.append(view)
        return changed, sorted(set(removed))

    def restale(self) -> list[SessionView]:
        """Time passed with no file event: re-derive running sessions whose stalled flag would
        flip (no IO unless one does)."""
        now = self.clock()
        changed = []
        for sid, view in list(self.views.items()):
            if not view.running or view.last_activity is None:
                continue
            last = parse_ts(view.last_activity)
            stalled = last is not None and (now - last).total_seconds() > self.stall_after
            if stalled != view.stalled and sid in self._dirs:
                self.views[sid] = new = self.derive(self._dirs[sid], now)
                changed.append(new)
        return changed

    def clear(self) -> list[str]:
        """The sessions directory is gone: forget every session; returns the removed ids."""
        removed = sorted(self.views)
        self.views.clear()
        self._dirs.clear()
        return removed


def encode_json(obj: object) -> str:
    """ASCII-only JSON (non-ASCII and control characters escaped)."""
    import json

    return json.dumps(msgspec.to_builtins(obj), ensure_ascii=True, separators=(",", ":"))
