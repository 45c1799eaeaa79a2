"""What the main screen shows of the sessions, kept up to date by what changed (a change costs the
same at any history size): the sessions the query leaves, the formats and projects present (the
columns and the filter bar), the (project, format) pairs the list shows (the headers bar), and
OCR's summary (the summary bar). A change of k sessions costs O(k); only a new query (filter,
format, project, search) reads every session again.

Pure (no Textual). The order of the sessions shown is the table's (`row_order.RowOrder`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

from ocr_tui.core.registry import is_host
from ocr_tui.core.reviews import NO_SUMMARY, Summary
from ocr_tui.core.view import SessionView
from ocr_tui.ui.listing import ListQuery

Pair = tuple[str | None, str]  # (project, framework)


class ListModel:
    """`reset(query, sessions)`, then `update(changed, removed)` for each change."""

    def __init__(self) -> None:
        self.query: ListQuery | None = None  # None: nothing counted yet
        self.views: dict[str, SessionView] = {}  # every session, as counted
        self.shown: dict[str, SessionView] = {}  # those the query leaves
        self._formats: Counter[str] = Counter()  # framework -> sessions
        self._projects: Counter[str] = Counter()  # project -> sessions
        self._pairs: Counter[Pair] = Counter()  # of the sessions shown
        self.ocr = NO_SUMMARY  # the OCR sessions' summary
        self.examined = 0  # sessions looked at (the work changes cost; for tests)

    def reset(self, query: ListQuery, sessions: Mapping[str, SessionView]) -> None:
        """Count `sessions` afresh for `query`."""
        self.__init__()  # type: ignore[misc]
        self.query = query
        self.update(sessions.values(), ())

    def update(
        self, changed: Iterable[SessionView], removed: Iterable[str]
    ) -> tuple[list[SessionView], list[str]]:
        """Sessions changed (new ones among them) and removed: (the sessions shown that are
        new or changed, the ids no longer shown)."""
        assert self.query is not None, "reset first"
        shown: list[SessionView] = []
        hidden: list[str] = []
        for sid in removed:
            old = self.views.pop(sid, None)
            if old is not None:
                self._count(old, -1)
            if self._unshow(sid):
                hidden.append(sid)
        admits = self.query.admits
        for view in changed:
            old = self.views.get(view.id)
            if old is view:
                continue
            self.examined += 1
            if old is not None:
                self._count(old, -1)
            self.views[view.id] = view
            self._count(view, 1)
            was = self._unshow(view.id)
            if admits(view):
                self.shown[view.id] = view
                _add(self._pairs, (view.project, view.framework), 1)
                shown.append(view)
            elif was:
                hidden.append(view.id)
        return shown, hidden

    def _unshow(self, sid: str) -> bool:
        view = self.shown.pop(sid, None)
        if view is None:
            return False
        _add(self._pairs, (view.project, view.framework), -1)
        return True

    def _count(self, view: SessionView, sign: int) -> None:
        _add(self._formats, view.framework, sign)
        if view.project:
            _add(self._projects, view.project, sign)
        if is_host(view.framework):
            share = Summary.of(view)
            self.ocr = self.ocr + share if sign > 0 else self.ocr - share

    def formats(self) -> list[str]:
        """The frameworks present, OCR first (`listing.formats_of`)."""
        return sorted(self._formats, key=lambda f: (not is_host(f), f))

    def projects(self) -> list[str]:
        """The projects present, A→Z (`listing.projects_of`)."""
        return sorted(self._projects)

    def pairs(self) -> set[Pair]:
        """The (project, framework) pairs of the sessions shown."""
        return set(self._pairs)


def _add(counter: Counter, key: object, sign: int) -> None:
    n = counter[key] + sign
    if n:
        counter[key] = n
    else:
        del counter[key]
