"""What the session list shows: its filter, format, project, search and sort, applied to the
sessions.
Pure (no Textual): the main screen holds the choices, the filter bar and the empty state show
them."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ocr_tui.core import display
from ocr_tui.core.order import activity_key, descending
from ocr_tui.core.registry import is_host
from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt

FILTERS = ("all", "active", "closed")
SORTS = {"activity": "last activity", "start": "start time", "name": "name", "project": "project"}
SEVERAL_ONLY = {"project"}  # sorts that mean something with several projects only


@dataclass(frozen=True)
class ListQuery:
    filter: str = "all"  # one of FILTERS: a status, or all
    format: str = "all"  # a framework key, or all
    search: str = ""
    sort: str = "activity"  # a key of SORTS
    reverse: bool = False  # the sort turned around (`S`)
    project: str = "all"  # with several projects: one's name, or all

    def admits(self, view: SessionView) -> bool:
        """Does the list show this session (its filter, format, project and search)?"""
        return (
            (self.filter == "all" or view.status == self.filter)
            and (self.format == "all" or view.framework == self.format)
            and (self.project == "all" or view.project == self.project)
            and matches(view, self.search)
        )

    def apply(self, views: Iterable[SessionView]) -> list[SessionView]:
        """The sessions shown, in the list's order."""
        ordered = sort_views([v for v in views if self.admits(v)], self.sort)
        return ordered[::-1] if self.reverse else ordered


def search_texts(view: SessionView) -> list[str]:
    """What `/` looks in: the id, branch, title and format, the agents (OCR's reviewers,
    the other formats' agents), the verdict and what needs attention: what the list and
    the detail pane show of a session."""
    texts = [view.id, view.branch or "", view.title or "", view.framework]
    texts += [fmt.framework_short(view.framework), view.summary or "", *view.alerts]
    texts += [f.value for f in view.facts if "agent" in f.label.lower()]
    current = display.unit_round(view)  # a map session: not the review round before it
    if current is not None:
        texts.append(current.verdict or "")
        texts += [t for r in current.reviewers for t in (r.name, r.label)]
    return texts


def matches(view: SessionView, query: str) -> bool:
    """Case-insensitive substring search over `search_texts`."""
    q = query.strip().lower()
    return not q or any(q in t.lower() for t in search_texts(view))


def sort_views(views: list[SessionView], how: str) -> list[SessionView]:
    """Newest first for times (unknown last); A→Z for names (as shown: `display.name_order`)
    and projects (each one's sessions by last activity); ties by id: `sort_key`'s order."""
    return sorted(views, key=sort_key(how))


def sort_key(how: str) -> Callable[[SessionView], tuple]:
    """A session's place in the list sorted `how`, as one key (ascending; every key ends with
    the id, so no two are equal), so that a changed session finds its place by bisection
    (`row_order.RowOrder`). The keys are the session's own fields: times are timestamps,
    never ages, so the order changes with the data alone, never with the clock."""
    return _KEYS.get(how, activity_key)


def _by_start(v: SessionView) -> tuple:
    return (descending(v.started_at or v.elapsed.since or ""), v.id)


def _by_name(v: SessionView) -> tuple:  # (by the session's own name, then its project)
    return (*display.name_order(display.local_id(v)), v.id)


def _by_project(v: SessionView) -> tuple:  # A→Z by project, each one's newest activity first
    return ((v.project or "").lower(), descending(v.last_activity or ""), v.id)


_KEYS = {"activity": activity_key, "start": _by_start, "name": _by_name, "project": _by_project}


def formats_of(views: Iterable[SessionView]) -> list[str]:
    """The frameworks present, OCR first."""
    return sorted({v.framework for v in views}, key=lambda f: (not is_host(f), f))


def projects_of(views: Iterable[SessionView]) -> list[str]:
    """The projects present (with several projects; none with one), A→Z."""
    return sorted({v.project for v in views if v.project})


def cycled(current: str, present: list[str]) -> str:
    """The choice after `current` in all → each one present → all (one no longer present
    still leads on)."""
    order = ["all", *present]
    if current not in order:
        order.append(current)
    return following(order, current)


def following(items: Sequence[str], current: str) -> str:
    """The item after `current`, the first after the last."""
    return items[(items.index(current) + 1) % len(items)]
