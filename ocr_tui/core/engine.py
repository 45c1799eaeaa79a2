"""The session engine: holds the current view of every session of every Source (format) of a
project, and re-derives only what changed.

Used by `status`, `watch --jsonl` and the dashboard alike. Blocking IO: call it from a worker
thread in async code.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import msgspec

from ocr_tui.core.lenient import blank_view
from ocr_tui.core.project import Project
from ocr_tui.core.registry import source_classes
from ocr_tui.core.source import DEFAULT_STALL_AFTER, Source, Touch
from ocr_tui.core.timeutil import fmt_ts
from ocr_tui.core.view import Header, SessionView, Snapshot


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
    """Every Source of one project, and the current view of each of their sessions."""

    def __init__(
        self,
        project: Project,
        *,
        stall_after: float = DEFAULT_STALL_AFTER,
        clock=utcnow,
        sources: list[Source] | None = None,
    ):
        self.project = project
        self.stall_after = stall_after
        self.clock = clock
        if sources is None:
            sources = [cls(project.root, stall_after=stall_after) for cls in source_classes()]
        self.sources = sources
        self.views: dict[str, SessionView] = {}
        self.headers: dict[str, Header] = {}
        # view id -> (source, key, path); `ids` maps a source's key back to the view id.
        self._where: dict[str, tuple[Source, str, Path]] = {}
        self._ids: dict[str, dict[str, str]] = {}  # framework -> the source's key -> view id
        self._expires: dict[str, datetime] = {}
        self.pending: list[str] = []  # view ids queued by `begin`, derived by `step`
        self.touched: set[str] = set()  # view ids the last `apply` re-read (changed or not)
        self._headers_at: datetime | None = None
        self.headers_version = 0  # bumped whenever `headers` changes

    # -- where ------------------------------------------------------------------------------

    def watch_roots(self) -> list[Path]:
        """The existing directories to watch recursively (one list for every source)."""
        out: list[Path] = []
        for src in self.sources:
            for d in (*src.watch_dirs(), *src.extra_watch_dirs()):
                if d not in out and d.is_dir():
                    out.append(d)
        return out

    def anchors(self) -> list[Path]:
        """Every directory whose appearance or disappearance means re-arming the watch."""
        return [d for src in self.sources for d in src.watch_dirs()]

    def has_sessions_dir(self) -> bool:
        """Does any format's sessions directory exist?"""
        return any(d.is_dir() for src in self.sources for d in src.homes())

    def accept(self, path: str) -> bool:
        """Is a changed path worth a batch? (Called per event on the event loop: one pass.)"""
        p = Path(path)
        return any(self._owner_of(p, src) and src.accept(path) for src in self.sources)

    @staticmethod
    def _owner_of(path: Path, src: Source) -> bool:
        for d in (*src.watch_dirs(), *src.extra_watch_dirs()):
            if path == d or path.is_relative_to(d) or d.is_relative_to(path):
                return True
        return False

    # -- reading --------------------------------------------------------------------------

    def _list(self, src: Source) -> dict[str, Path]:
        try:
            return src.list_sessions()
        except Exception as exc:  # a plugin's bug must not take the others down
            self._report(src, exc)
            return {}

    def _report(self, src: Source, exc: Exception) -> None:
        self.headers_version += 1
        self.headers[f"{src.framework}!"] = Header(
            framework=src.framework,
            title=f"{src.label}: reader failed",
            path=str(self.project.root),
            alerts=[f"{type(exc).__name__}: {exc}"],
        )

    def _view_id(self, src: Source, key: str) -> str:
        ids = self._ids.setdefault(src.framework, {})
        vid = ids.get(key)
        if vid is None:
            # A key another source (or this one, for `code:x` beside `x`) already shows under
            # is prefixed with the format, then numbered: one id never stands for two sessions.
            vid, n = key, 1
            while vid in self._where:
                n += 1
                vid = f"{src.framework}:{key}" + (f"#{n - 1}" if n > 2 else "")
            ids[key] = vid
        return vid

    def _derive(self, src: Source, vid: str, key: str, path: Path, now: datetime) -> SessionView:
        try:
            view = src.derive(key, path, now)
        except Exception as exc:  # never lose a session from view, even to a reader's bug
            view = _broken_view(src, key, path, exc)
        view.id = vid
        if view.framework != src.framework:
            view.framework = src.framework
        exp = None
        try:
            exp = src.expires(view)
        except Exception:
            pass
        if exp is None or exp <= now:  # a time already past would re-derive on every tick
            self._expires.pop(vid, None)
        else:
            self._expires[vid] = exp
        return view

    def _header(self, src: Source, now: datetime) -> None:
        before = (self.headers.get(src.framework), self.headers.get(f"{src.framework}!"))
        self.headers.pop(f"{src.framework}!", None)
        try:
            h = src.header(now)
        except Exception as exc:
            self._report(src, exc)
            h = before[0]
        if h is None:
            self.headers.pop(src.framework, None)
        else:
            self.headers[src.framework] = h
        if (self.headers.get(src.framework), self.headers.get(f"{src.framework}!")) != before:
            self.headers_version += 1

    def scan(self) -> list[SessionView]:
        """Re-read everything."""
        self.begin(placeholders=False)
        while self.pending:
            self.step(budget_s=None)
        return self.sessions()

    def begin(self, *, placeholders: bool = True) -> list[SessionView]:
        """Start a full scan: list every session (cheap) and queue them to be derived by
        `step`, newest first. With `placeholders`, each session gets a stand-in view at once
        (`source == "loading"`), so a list of 10,000 shows before one is parsed."""
        now = self.clock()
        for store in (self.views, self._where, self._ids, self._expires, self.headers):
            store.clear()
        order: list[tuple[float, str]] = []
        for src in self.sources:
            try:
                src.begin_scan()
            except Exception as exc:
                self._report(src, exc)
            for key, path in self._list(src).items():
                vid = self._view_id(src, key)
                self._where[vid] = (src, key, path)
                if placeholders:
                    view = placeholder_view(src, key, path)
                    view.id = vid
                    self.views[vid] = view
                    order.append((-(_mtime(path) or 0.0), vid))
                else:
                    order.append((0.0, vid))
            self._header(src, now)
        order.sort()
        self.pending = [vid for _, vid in reversed(order)]  # popped from the end: newest first
        if not self.pending:
            self._end_scan()
        return self.sessions()

    def step(self, budget_s: float | None = 0.05) -> list[SessionView]:
        """Derive queued sessions for about `budget_s` seconds (all with None); returns them."""
        now = self.clock()
        deadline = None if budget_s is None else time.perf_counter() + budget_s
        out: list[SessionView] = []
        while self.pending:
            vid = self.pending.pop()
            where = self._where.get(vid)
            if where is None:
                continue
            src, key, path = where
            self.views[vid] = view = self._derive(src, vid, key, path, now)
            out.append(view)
            if deadline is not None and time.perf_counter() >= deadline:
                break
        if not self.pending:
            self._end_scan()
        return out

    def _end_scan(self) -> None:
        for src in self.sources:
            try:
                src.end_scan()
            except Exception as exc:
                self._report(src, exc)

    def sessions(self) -> list[SessionView]:
        return sorted(self.views.values(), key=sort_key)

    def snapshot(self) -> Snapshot:
        return Snapshot(
            version=1,
            project=str(self.project.root),
            generated_at=fmt_ts(self.clock()) or "",
            sessions=self.sessions(),
            headers=[self.headers[k] for k in sorted(self.headers)],
        )

    # -- incremental ----------------------------------------------------------------------

    def apply(self, paths: Iterable[str | Path]) -> tuple[list[SessionView], list[str]]:
        """Re-derive the sessions that `paths` touched. Returns (changed views, removed ids)."""
        paths = [Path(p) for p in paths]
        now = self.clock()
        changed: list[SessionView] = []
        removed: list[str] = []
        self.touched = set()
        for src in self.sources:
            mine = [p for p in paths if self._owner_of(p, src)]
            if not mine:
                continue
            try:
                touch = src.touched(mine)
            except Exception as exc:
                self._report(src, exc)
                touch = Touch(relist=True, everything=True)
            c, r = self._refresh(src, touch, now)
            changed += c
            removed += r
        return changed, sorted(set(removed))

    def _refresh(self, src: Source, touch: Touch, now: datetime):
        changed: list[SessionView] = []
        removed: list[str] = []
        keys = self._ids.setdefault(src.framework, {})  # live: kept up to date, never rebuilt
        want = set(touch.keys)
        if touch.everything:
            want |= set(keys)
        relist = touch.relist or any(k not in keys for k in want)
        if relist:
            current = self._list(src)
            for key in [k for k in keys if k not in current]:
                vid = keys[key]
                self._forget(vid)
                removed.append(vid)
            for key, path in current.items():
                if key not in keys:
                    vid = self._view_id(src, key)
                    self._where[vid] = (src, key, path)
                    want.add(key)
                elif self._where[keys[key]][2] != path:  # the session now lives elsewhere
                    self._where[keys[key]] = (src, key, path)
                    want.add(key)
        for key in sorted(want):
            vid = keys.get(key)
            if vid is None:
                continue
            _, _, path = self._where[vid]
            if not os.path.lexists(path):
                self._forget(vid)
                removed.append(vid)
                continue
            view = self._derive(src, vid, key, path, now)
            self.touched.add(vid)
            if self.views.get(vid) != view:
                self.views[vid] = view
                changed.append(view)
        if touch.header or touch.everything or relist:  # not on every session file change
            self._header(src, now)
        return changed, removed

    def _forget(self, vid: str) -> None:
        where = self._where.pop(vid, None)
        if where is not None:
            self._ids.get(where[0].framework, {}).pop(where[1], None)
        self.views.pop(vid, None)
        self._expires.pop(vid, None)

    def relist(self, ids: Iterable[str] = ()) -> tuple[list[SessionView], list[str]]:
        """List every source again (sessions that appeared or went since the last listing),
        and re-derive the sessions `ids`."""
        now = self.clock()
        changed: list[SessionView] = []
        removed: list[str] = []
        keys: dict[int, set[str]] = {}
        for vid in ids:
            where = self._where.get(vid)
            if where is not None:
                keys.setdefault(id(where[0]), set()).add(where[1])
        for src in self.sources:
            c, r = self._refresh(src, Touch(keys=keys.get(id(src), set()), relist=True), now)
            changed += c
            removed += r
        return changed, sorted(set(removed))

    def restale(self) -> list[SessionView]:
        """Time passed with no file event: re-derive the sessions whose time-based state (stalled,
        idle, overdue...) is due to change (no IO unless one is). Headers (whose staleness is
        counted in hours) are re-derived once a minute."""
        now = self.clock()
        changed = []
        if self.headers and (
            self._headers_at is None or (now - self._headers_at).total_seconds() >= 60
        ):
            self._headers_at = now
            for src in self.sources:
                if src.framework in self.headers:
                    self._header(src, now)
        for vid, at in list(self._expires.items()):
            if at > now or vid not in self._where:
                continue
            src, key, path = self._where[vid]
            self.views[vid] = new = self._derive(src, vid, key, path, now)
            changed.append(new)
        return changed

    def poll(self) -> tuple[list[SessionView], list[str], bool]:
        """The once-a-second check for sources with unwatched places (e.g. /tmp). Returns
        (changed, removed, rearm): rearm when the directories to watch changed."""
        changed: list[SessionView] = []
        removed: list[str] = []
        rearm = False
        now = self.clock()
        for src in self.sources:
            try:
                moved = src.poll()
            except Exception as exc:
                self._report(src, exc)
                continue
            if moved:
                rearm = True
                c, r = self._refresh(src, Touch(relist=True, everything=True), now)
                changed += c
                removed += r
        return changed, sorted(set(removed)), rearm

    def clear(self) -> list[str]:
        """Every watched directory is gone: forget every session; returns the removed ids."""
        removed = sorted(self.views)
        self.views.clear()
        self._where.clear()
        self._ids.clear()
        self._expires.clear()
        self.headers.clear()
        return removed


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def placeholder_view(src: Source, key: str, path: Path) -> SessionView:
    """A stand-in while a session waits to be read at start-up (`source == "loading"`)."""
    mtime = _mtime(path)
    at = fmt_ts(datetime.fromtimestamp(mtime, UTC)) if mtime is not None else None
    view = _bare_view(src, key, path, phase="loading", label="reading…")
    view.source = "loading"
    view.status = "closed"
    view.last_activity = at
    return view


def _broken_view(src: Source, key: str, path: Path, exc: Exception) -> SessionView:
    """A session whose reader raised: still listed, with the error as its problem."""
    view = _bare_view(src, key, path, phase="unknown", label="unknown")
    view.problems = [f"the {src.label} reader failed on this session: {type(exc).__name__}: {exc}"]
    return view


def _bare_view(src: Source, key: str, path: Path, *, phase: str, label: str) -> SessionView:
    view = blank_view(key, path, src.framework, src.framework, source=src.framework, problems=[])
    view.phase, view.phase_label = phase, label
    return view


def encode_json(obj: object) -> str:
    """ASCII-only JSON (non-ASCII and control characters escaped)."""
    import json

    return json.dumps(msgspec.to_builtins(obj), ensure_ascii=True, separators=(",", ":"))
