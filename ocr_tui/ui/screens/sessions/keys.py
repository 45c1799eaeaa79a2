"""The session list's keys: filter, format, sort (and its direction), search, and `r` to the
Reviews view (every round of every OCR session). The main screen's base: it holds the choices
as reactives (`filter`, `format`, `sort`, `reverse`, `search`); the main screen re-draws the
list when one changes."""

from __future__ import annotations

from textual import on
from textual.binding import Binding
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Input

from ocr_tui.core.registry import is_host
from ocr_tui.ui.listing import FILTERS, SEVERAL_ONLY, SORTS, cycled, following
from ocr_tui.ui.navigation import Open, ReviewsTarget
from ocr_tui.ui.screens.sessions.session_table import SessionTable
from ocr_tui.ui.widgets.table_search import SearchBox

LIST_ACTIONS = {"search", "cycle_filter", "set_filter", "cycle_sort", "set_sort", "clear_search"}
LIST_ACTIONS |= {"cycle_format", "set_format", "reverse_sort", "cycle_project", "set_project"}
# A click on the header of one of these columns sorts by it (again: reverses it).
HEADER_SORTS = {"id": "name", "started": "start", "activity": "activity", "project": "project"}
SEARCHED = "ids, branches, titles, agents, verdicts and alerts"  # `listing.search_texts`


class ListKeys(Screen):
    BINDINGS = [
        # priority: focus moves to the box before the next key is dispatched
        Binding("slash", "search", "Search", tooltip=f"Search {SEARCHED}", priority=True),
        Binding("f", "cycle_filter", "Filter", tooltip="All → active → closed"),
        Binding("1", "set_filter('all')", "Show all sessions", show=False),
        Binding("2", "set_filter('active')", "Show active sessions", show=False),
        Binding("3", "set_filter('closed')", "Show closed sessions", show=False),
        Binding("s", "cycle_sort", "Sort", tooltip="Last activity → start time → name"),
        Binding("S", "reverse_sort", "Reverse sort", show=False, tooltip="Turn the sort around"),
        Binding("t", "cycle_format", "Format", tooltip="All formats → OCR → code workflow → …"),
        Binding("p", "cycle_project", "Project", tooltip="All projects → each project → …"),
        Binding("r", "reviews", "Reviews", tooltip="Every round of every OCR session"),
        Binding("escape", "clear_search", "Clear search", tooltip="Show every session again"),
    ]

    filter: var[str] = var("all")
    format: var[str] = var("all")  # a framework key, or "all"
    project: var[str] = var("all")  # with several projects: one's name, or "all"
    sort: var[str] = var("activity")
    reverse: var[bool] = var(False)
    search: var[str] = var("")

    @property
    def table(self) -> SessionTable:
        return self.query_one(SessionTable)

    def formats(self) -> list[str]:
        """The formats the project holds."""
        raise NotImplementedError

    def projects(self) -> list[str]:
        """The projects the list holds (none with one project)."""
        raise NotImplementedError

    def list_check(self, action: str) -> bool | None:
        """`check_action` for these keys (None: not one of them)."""
        if action == "cycle_format" and self.format == "all" and len(self.formats()) < 2:
            return False  # one format only: nothing to choose
        if action == "cycle_project" and self.project == "all" and len(self.projects()) < 2:
            return False  # one project: nothing to choose
        if action == "search" and isinstance(self.focused, SearchBox):
            return False  # a `/` typed into the search box is text
        if action == "reviews":
            sessions = getattr(self.app, "sessions", None) or {}
            return any(is_host(v.framework) for v in sessions.values())
        if action == "clear_search":  # in the footer while a search is kept (or typed)
            return bool(self.search) or self.query_one("#search", Input).display
        return None

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        """What a key that does not apply says when pressed anyway."""
        if action == "cycle_format":
            return "Only one format here: t has nothing to cycle through."
        if action == "cycle_project":
            return "One project here: p cycles through projects (ocr-tui PATH PATH…, --scan DIR)."
        if action == "clear_search":
            return "No search to clear."
        if action == "reviews":
            return "No OCR sessions here: the Reviews view lists OCR's review rounds."
        if action in LIST_ACTIONS and not getattr(self.app, "sessions", None):
            return "No sessions yet: nothing to search, filter or sort."
        return None

    def action_cycle_filter(self) -> None:
        self.filter = following(FILTERS, self.filter)

    def action_set_filter(self, name: str) -> None:
        if name in FILTERS:
            self.filter = name

    def action_cycle_format(self) -> None:
        """all → each framework present → all."""
        self.format = cycled(self.format, self.formats())

    def action_set_format(self, name: str) -> None:
        self.format = name

    def action_cycle_project(self) -> None:
        """all → each project present → all."""
        self.project = cycled(self.project, self.projects())

    def action_set_project(self, name: str) -> None:
        self.project = name

    def action_cycle_sort(self) -> None:
        self.reverse = False
        several = len(self.projects()) > 1
        sorts = [s for s in SORTS if several or s not in SEVERAL_ONLY or s == self.sort]
        self.sort = following(sorts, self.sort)

    def action_set_sort(self, name: str) -> None:
        if name in SORTS:
            self.reverse = False
            self.sort = name

    def action_reverse_sort(self) -> None:
        self.reverse = not self.reverse

    def action_reviews(self) -> None:
        self.post_message(Open(ReviewsTarget()))

    @on(SessionTable.HeaderSelected)
    def _header_clicked(self, event: SessionTable.HeaderSelected) -> None:
        sort = HEADER_SORTS.get(event.column_key)
        if sort == self.sort:
            self.reverse = not self.reverse
        elif sort is not None:
            self.action_set_sort(sort)

    # Focus and visibility change at once (not at the next refresh), so keys typed right
    # after `/` or Enter already go to the right widget.

    def action_search(self) -> None:
        search = self.query_one("#search", Input)
        search.display = True
        self.set_focus(search)
        self.refresh_bindings()

    def action_clear_search(self) -> None:
        self.query_one("#search", Input).value = ""
        self.search = ""
        self._close_search()

    def _close_search(self) -> None:
        self.query_one("#search", Input).display = False
        self.set_focus(self.table if self.table.display else None)
        self.refresh_bindings()

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.search = event.value

    def action_keep_search(self) -> None:
        """Enter (or ↓) in the search box: keep the search, back to the list."""
        self._close_search()
