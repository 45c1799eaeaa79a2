"""The main screen: filter bar, search box, session table, detail pane, helpful empty states.

It owns only view state (filter, sort, search). The sessions themselves live on the app
(`app.sessions`); this screen follows them through `app.sessions_signal`.
"""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input

from ocr_tui.core.view import SessionView
from ocr_tui.ui.contract import Dashboard
from ocr_tui.ui.listing import FILTERS, SORTS, ListQuery, following, formats_of
from ocr_tui.ui.navigation import Open, SessionTarget
from ocr_tui.ui.widgets.detail_pane import DetailPane
from ocr_tui.ui.widgets.empty_state import EmptyState
from ocr_tui.ui.widgets.filter_bar import FilterBar
from ocr_tui.ui.widgets.headers_bar import HeadersBar
from ocr_tui.ui.widgets.session_table import SessionTable
from ocr_tui.ui.widgets.table_search import SearchBox

LIST_ACTIONS = {"search", "cycle_filter", "set_filter", "cycle_sort", "set_sort", "clear_search"}
LIST_ACTIONS |= {"cycle_format", "set_format"}


class MainScreen(Screen):
    PALETTE_KEYS = False  # its actions are in the palette as SessionCommands' MAIN_ACTIONS
    AUTO_FOCUS = "SessionTable"
    BINDINGS = [
        # priority: focus moves to the box before the next key is dispatched
        Binding("slash", "search", "Search", tooltip="Search by id or branch", priority=True),
        Binding("f", "cycle_filter", "Filter", tooltip="All → active → closed"),
        Binding("1", "set_filter('all')", "Show all sessions", show=False),
        Binding("2", "set_filter('active')", "Show active sessions", show=False),
        Binding("3", "set_filter('closed')", "Show closed sessions", show=False),
        Binding("s", "cycle_sort", "Sort", tooltip="Last activity → start time → name"),
        Binding("t", "cycle_format", "Format", tooltip="All formats → OCR → code workflow → …"),
        Binding("escape", "clear_search", "Clear search", show=False),
    ]

    filter: var[str] = var("all")
    format: var[str] = var("all")  # a framework key, or "all"
    _refresh_due = False
    _formats_seen = 0  # how many formats the bindings were last refreshed for
    sort: var[str] = var("activity")
    search: var[str] = var("")

    app: Dashboard  # (typing only) what this screen reads of the app

    def compose(self) -> ComposeResult:
        yield Header()
        yield FilterBar(id="filter-bar")
        yield HeadersBar(id="headers")
        yield SearchBox(
            select_on_focus=False,
            placeholder="Search by id or branch · Enter keeps it · Esc clears",
            id="search",
        )
        yield SessionTable(id="sessions")
        yield EmptyState(id="empty")
        yield DetailPane(id="detail")
        yield Footer()

    def on_mount(self) -> None:
        self.app.sessions_signal.subscribe(self, self._on_sessions)
        self.watch(self.app, "status", self._on_status, init=False)
        self.watch(self.app, "headers", self._on_headers)
        if self.app.clock is None:
            self.set_interval(1.0, self._tick, name="tick")
        self.refresh_view()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in LIST_ACTIONS and self.app.project is None:
            return False  # nothing to filter, sort or search
        if action == "cycle_format" and self.format == "all" and len(self.formats()) < 2:
            return False  # one format only: nothing to choose
        if action == "search" and isinstance(self.focused, SearchBox):
            return False  # a `/` typed into the search box is text
        return True

    # -- keeping up with the data -------------------------------------------------------

    @property
    def table(self) -> SessionTable:
        return self.query_one(SessionTable)

    LOADING_REFRESH_S = 0.25

    def _on_sessions(self, _payload: tuple[list[SessionView], list[str]]) -> None:
        if not self.app.unread:
            self.refresh_view()
        elif not self._refresh_due:
            # Start-up: thousands of rows arrive in slices; re-sorting the table for each
            # would starve the keys. Refresh a few times a second instead.
            self._refresh_due = True
            self.set_timer(self.LOADING_REFRESH_S, self._deferred_refresh)

    def _deferred_refresh(self) -> None:
        self._refresh_due = False
        self.refresh_view()

    def _on_status(self, _status: str) -> None:
        self.refresh_bindings()
        self.refresh_view()

    def _on_headers(self, headers: tuple) -> None:
        self.query_one(HeadersBar).show(headers)

    def formats(self) -> list[str]:
        return formats_of(self.app.sessions.values())

    def _tick(self) -> None:
        if not self.is_current:
            return
        now = self.app.now()
        self.table.tick(now)
        self.query_one(DetailPane).tick(now)

    def on_screen_resume(self) -> None:
        self._tick()

    @property
    def list_query(self) -> ListQuery:
        return ListQuery(self.filter, self.format, self.search, self.sort)

    def visible(self) -> list[SessionView]:
        return self.list_query.apply(self.app.sessions.values())

    def refresh_view(self) -> None:
        n = len(self.formats())
        if n != self._formats_seen:
            self._formats_seen = n
            self.refresh_bindings()
        query = self.list_query
        views = query.apply(self.app.sessions.values())
        now = self.app.now()
        self.table.set_multi(n > 1)
        self.table.sync(views, now, resort=not self.app.unread)
        self.query_one(FilterBar).show(self.app, query, shown=len(views), several_formats=n > 1)
        self.set_class(self.app.project is None, "-no-project")
        empty = not views
        self.set_class(empty, "-empty")
        self.table.display = self.query_one(DetailPane).display = not empty
        state = self.query_one(EmptyState)
        state.display = empty
        if empty:
            state.show(self.app, query)
        elif self.focused is None:
            self.set_focus(self.table)
        self._show_detail()

    def _show_detail(self) -> None:
        sid = self.table.highlighted_id
        view = self.app.sessions.get(sid) if sid else None
        self.query_one(DetailPane).show(view, self.app.now())

    @on(DataTable.RowHighlighted)
    def _highlighted(self) -> None:
        self._show_detail()

    @on(DataTable.RowSelected)
    def _selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.post_message(Open(SessionTarget(event.row_key.value)))

    def _query_changed(self) -> None:
        self.refresh_view()

    watch_filter = watch_format = watch_sort = watch_search = _query_changed

    # -- actions ------------------------------------------------------------------------

    def action_cycle_filter(self) -> None:
        self.filter = following(FILTERS, self.filter)

    def action_set_filter(self, name: str) -> None:
        if name in FILTERS:
            self.filter = name

    def action_cycle_format(self) -> None:
        """all → each framework present → all."""
        order = ["all", *self.formats()]
        if self.format not in order:
            order.append(self.format)
        self.format = following(order, self.format)

    def action_set_format(self, name: str) -> None:
        self.format = name

    def action_cycle_sort(self) -> None:
        self.sort = following(list(SORTS), self.sort)

    def action_set_sort(self, name: str) -> None:
        if name in SORTS:
            self.sort = name

    # Focus and visibility change at once (not at the next refresh), so keys typed right
    # after `/` or Enter already go to the right widget.

    def action_search(self) -> None:
        search = self.query_one("#search", Input)
        search.display = True
        self.set_focus(search)

    def action_clear_search(self) -> None:
        self.query_one("#search", Input).value = ""
        self.search = ""
        self._close_search()

    def _close_search(self) -> None:
        self.query_one("#search", Input).display = False
        self.set_focus(self.table if self.table.display else None)

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        self.search = event.value

    def action_keep_search(self) -> None:
        """Enter (or ↓) in the search box: keep the search, back to the list."""
        self._close_search()

    def select_session(self, session_id: str) -> bool:
        """Highlight a session, widening the filter and dropping the search if they hide it."""
        if session_id not in self.app.sessions:
            return False
        if session_id not in {v.id for v in self.visible()}:
            self.query_one("#search", Input).value = ""
            self.set_reactive(MainScreen.search, "")
            self.set_reactive(MainScreen.filter, "all")
            self.set_reactive(MainScreen.format, "all")
            self.refresh_view()
        found = self.table.select(session_id)
        self.set_focus(self.table)
        self._show_detail()
        return found
