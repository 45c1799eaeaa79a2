"""What the session list shows: its filter, format, search and sort, applied to the sessions.
Pure (no Textual): the main screen holds the choices, the filter bar and the empty state show
them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt

FILTERS = ("all", "active", "closed")
SORTS = {"activity": "last activity", "start": "start time", "name": "name"}


@dataclass(frozen=True)
class ListQuery:
    filter: str = "all"  # one of FILTERS: a status, or all
    format: str = "all"  # a framework key, or all
    search: str = ""
    sort: str = "activity"  # a key of SORTS

    def apply(self, views: Iterable[SessionView]) -> list[SessionView]:
        """The sessions shown, in the list's order."""
        shown = [
            v
            for v in views
            if (self.filter == "all" or v.status == self.filter)
            and (self.format == "all" or v.framework == self.format)
            and fmt.matches(v, self.search)
        ]
        return sort_views(shown, self.sort)


def sort_views(views: list[SessionView], how: str) -> list[SessionView]:
    """Newest first for times (unknown last); A→Z for names; ties by id."""
    by_id = sorted(views, key=lambda v: v.id)
    if how == "name":
        return by_id
    if how == "start":
        return sorted(by_id, key=lambda v: v.started_at or v.elapsed.since or "", reverse=True)
    return sorted(by_id, key=lambda v: v.last_activity or "", reverse=True)


def formats_of(views: Iterable[SessionView]) -> list[str]:
    """The frameworks present, OCR first."""
    return sorted({v.framework for v in views}, key=lambda f: (f != "ocr", f))


def following(items: Sequence[str], current: str) -> str:
    """The item after `current`, the first after the last."""
    return items[(items.index(current) + 1) % len(items)]
