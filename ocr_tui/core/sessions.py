"""The session store: every session's current view, where each one lives (source, key, path),
the view ids (unique across sources), and when passing time alone will change a view.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from ocr_tui.core.order import activity_key, descending, newest_first  # noqa: F401 (shared)
from ocr_tui.core.reading import derive_raw, derive_view, finish_view
from ocr_tui.core.result_cache import ResultCache
from ocr_tui.core.source import Source
from ocr_tui.core.view import SessionView


class SessionStore:
    """Every session of every source: its view, where it lives and when time alone changes it."""

    def __init__(self, name: str | None = None) -> None:
        # One of several projects' store: its name (`SessionView.project`), which every view
        # id starts with (`name/key`); None: the only project (ids are the sources' keys).
        self.name = name
        self._prefix = f"{name}/" if name else ""
        self.views: dict[str, SessionView] = {}
        # view id -> (source, key, path); `_ids` maps a source's key back to the view id.
        self._where: dict[str, tuple[Source, str, Path]] = {}
        self._ids: dict[str, dict[str, str]] = {}  # framework -> the source's key -> view id
        self._expires: dict[str, datetime] = {}
        # From a full scan's start until the start-up settles (`Scan`): views of unchanged
        # sessions are served from it, those derived anew noted in it.
        self.cache: ResultCache | None = None
        self._gen: dict[str, int] = {}  # view id -> how many times it was derived here

    def generation(self, vid: str) -> int:
        """Changes whenever `derive` reads the session (a view sent for earlier is older)."""
        return self._gen.get(vid, 0)

    def keys(self, src: Source) -> dict[str, str]:
        """The source's key -> view id (live: kept up to date, never rebuilt)."""
        return self._ids.setdefault(src.framework, {})

    def where(self, vid: str) -> tuple[Source, str, Path] | None:
        return self._where.get(vid)

    def path(self, vid: str) -> Path:
        """Where a placed session lives."""
        return self._where[vid][2]

    def place(self, src: Source, key: str, path: Path) -> str:
        """Note where a listed session lives; returns its view id (new, or the one it has)."""
        vid = self._view_id(src, key)
        before = self._where.get(vid)
        self._where[vid] = (src, key, path)
        if before is not None and before[2] != path:  # it moved: what was kept of it goes
            _forget(src, key, before[2])
        return vid

    def _view_id(self, src: Source, key: str) -> str:
        ids = self.keys(src)
        vid = ids.get(key)
        if vid is None:
            # A key another source (or this one, for `code:x` beside `x`) already shows under
            # is prefixed with the format, then numbered: one id never stands for two sessions.
            vid, n = self._prefix + key, 1
            while vid in self._where:
                n += 1
                vid = f"{self._prefix}{src.framework}:{key}" + (f"#{n - 1}" if n > 2 else "")
            ids[key] = vid
        return vid

    def derive(self, vid: str, now: datetime) -> SessionView:
        """Read session `vid` (a placed one) again, and note when time alone will change it.
        The view is returned, not stored: the caller decides."""
        src, key, path = self._where[vid]
        self._gen[vid] = self._gen.get(vid, 0) + 1
        cache = self.cache
        if cache is None:
            view, expires = derive_view(src, vid, key, path, now)
        else:
            fp = cache.fingerprint(src, key, path)
            hit = cache.get(src, key, path, fp, now)
            if hit is not None:
                view, expires = finish_view(src, vid, hit, now)
            else:
                raw, ok = derive_raw(src, key, path, now)
                view, expires = finish_view(src, vid, raw, now)
                if ok:
                    cache.put(src, key, path, fp, view, now)
        self.note_expiry(vid, expires)
        return self.stamp(view)

    def stamp(self, view: SessionView) -> SessionView:
        """A view of this store's project: with its name, when it is one of several."""
        if self.name:
            view.project = self.name
        return view

    def note_expiry(self, vid: str, expires: datetime | None) -> None:
        if expires is None:
            self._expires.pop(vid, None)
        else:
            self._expires[vid] = expires

    def restale(self, now: datetime) -> list[SessionView]:
        """Re-derive (and store) the sessions whose time-based state is due to change."""
        changed = []
        for vid, at in list(self._expires.items()):
            if at > now or vid not in self._where:
                continue
            self.views[vid] = new = self.derive(vid, now)
            changed.append(new)
        return changed

    def forget(self, vid: str) -> None:
        """The session is gone: its view, and what its source keeps for it."""
        where = self._where.pop(vid, None)
        if where is not None:
            self._ids.get(where[0].framework, {}).pop(where[1], None)
            _forget(*where)
        self.views.pop(vid, None)
        self._expires.pop(vid, None)
        self._gen.pop(vid, None)

    def placed(self) -> list[tuple[Source, str, Path]]:
        """(source, key, path) of every placed session."""
        return list(self._where.values())

    def forget_gone(self, before: list[tuple[Source, str, Path]]) -> None:
        """Of the sessions `before` (`placed` before a `clear`), those not placed at the same
        path now are gone: their sources drop what they keep for them."""
        now = {(id(src), key): path for src, key, path in self._where.values()}
        for src, key, path in before:
            if now.get((id(src), key)) != path:
                _forget(src, key, path)

    def clear(self, *, forget: bool = False) -> list[str]:
        """Forget every session; returns their ids. `forget`: the sessions are gone (their
        sources drop what they keep for them); else they are about to be listed again."""
        if forget:
            for where in self._where.values():
                _forget(*where)
        removed = sorted(self.views)
        self.views.clear()
        self._where.clear()
        self._ids.clear()
        self._expires.clear()
        self._gen.clear()
        return removed

    def sessions(self) -> list[SessionView]:
        return newest_first(self.views.values())


def _forget(src: Source, key: str, path: Path) -> None:
    try:
        src.forget(key, path)
    except Exception:  # a source's bug: what it keeps stays, the session goes all the same
        pass
