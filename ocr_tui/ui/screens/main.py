"""The main screen: filter bar, search box, session table, detail pane, helpful empty states.

It owns only view state (filter, sort, search). The sessions themselves live on the app
(`app.sessions`); this screen follows them through `app.sessions_signal`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from ocr_tui.core.view import Header as FormatHeader
from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.widgets.detail_pane import DetailPane
from ocr_tui.ui.widgets.session_table import SessionTable

if TYPE_CHECKING:
    from ocr_tui.ui.app import OcrTuiApp

FILTERS = ("all", "active", "closed")
SORTS = {"activity": "last activity", "start": "start time", "name": "name"}
KEY = "bold $text-accent"
LIST_ACTIONS = {"search", "cycle_filter", "set_filter", "cycle_sort", "set_sort", "clear_search"}
LIST_ACTIONS |= {"cycle_format", "set_format"}


def sort_views(views: list[SessionView], how: str) -> list[SessionView]:
    """Newest first for times (unknown last); A→Z for names; ties by id."""
    by_id = sorted(views, key=lambda v: v.id)
    if how == "name":
        return by_id
    if how == "start":
        return sorted(by_id, key=lambda v: v.started_at or v.elapsed.since or "", reverse=True)
    return sorted(by_id, key=lambda v: v.last_activity or "", reverse=True)


class SearchBox(Input):
    """The `/` search. Enter is a priority binding (not the Submitted message) so it takes
    effect before the next key is dispatched: `/feat⏎j` typed fast moves the cursor."""

    BINDINGS = [
        Binding("enter", "screen.keep_search", "Keep search", show=False, priority=True),
        Binding("down", "screen.keep_search", "Keep search", show=False, priority=True),
    ]


class MainScreen(Screen):
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

    app: OcrTuiApp

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="filter-bar")
        yield Static(id="headers")
        yield SearchBox(
            select_on_focus=False,
            placeholder="Search by id or branch · Enter keeps it · Esc clears",
            id="search",
        )
        yield SessionTable(id="sessions")
        yield Static(id="empty")
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
        bar = self.query_one("#headers", Static)
        bar.display = bool(headers)
        bar.update(Content("\n").join(header_line(h) for h in headers))

    def formats(self) -> list[str]:
        """The frameworks present, OCR first."""
        present = {v.framework for v in self.app.sessions.values()}
        return sorted(present, key=lambda f: (f != "ocr", f))

    def _tick(self) -> None:
        if not self.is_current:
            return
        now = self.app.now()
        self.table.tick(now)
        self.query_one(DetailPane).tick(now)

    def on_screen_resume(self) -> None:
        self._tick()

    def visible(self) -> list[SessionView]:
        views = [
            v
            for v in self.app.sessions.values()
            if (self.filter == "all" or v.status == self.filter)
            and (self.format == "all" or v.framework == self.format)
            and fmt.matches(v, self.search)
        ]
        return sort_views(views, self.sort)

    def refresh_view(self) -> None:
        n = len(self.formats())
        if n != self._formats_seen:
            self._formats_seen = n
            self.refresh_bindings()
        views = self.visible()
        now = self.app.now()
        self.table.set_multi(n > 1)
        self.table.sync(views, now, resort=not self.app.unread)
        self._update_bar(len(views))
        self.set_class(self.app.project is None, "-no-project")
        empty = self._empty_message(views)
        self.set_class(empty is not None, "-empty")
        self.table.display = self.query_one(DetailPane).display = empty is None
        self.query_one("#empty", Static).display = empty is not None
        if empty is not None:
            self.query_one("#empty", Static).update(empty)
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
            self.app.open_session(event.row_key.value)

    def watch_filter(self) -> None:
        self.refresh_view()

    def watch_format(self) -> None:
        self.refresh_view()

    def watch_sort(self) -> None:
        self.refresh_view()

    def watch_search(self) -> None:
        self.refresh_view()

    # -- the filter bar and empty states ------------------------------------------------

    def _update_bar(self, shown: int) -> None:
        total = len(self.app.sessions)
        parts: list[str | tuple[str, str]] = [("Filter: ", "$text-muted"), (self.filter, KEY)]
        if self.format != "all" or len(self.formats()) > 1:
            name = "all" if self.format == "all" else fmt.framework_label(self.format)
            parts += [(" · format: ", "$text-muted"), (name, KEY)]
        if self.search:
            parts += [(" · search: ", "$text-muted"), (f"'{fmt.safe(self.search, 40)}'", KEY)]
        parts += [(" · sort: ", "$text-muted"), (SORTS[self.sort], KEY)]
        noun = "session" if total == 1 else "sessions"
        parts += [(" · ", "$text-muted"), f"{shown} of {total} {noun}"]
        if self.app.unread > 0:
            parts += [(" · ", "$text-muted"), (f"reading {self.app.unread:,} more…", KEY)]
        self.query_one("#filter-bar", Static).update(Content.assemble(*parts))

    def _empty_message(self, views: list[SessionView]) -> Content | None:
        app = self.app
        if views:
            return None
        demo = Content.assemble(
            "Press ", ("d", KEY), " to start a live demo in a temporary project."
        )
        if app.project is None:
            where = fmt.display_path(app.start_path)
            return _message(
                "No OCR project found",
                f"Looked for a .ocr/ directory in {where} and in every directory above it.",
                "Run ocr-tui inside a project where Open Code Review is set up, "
                "or pass the project's path: ocr-tui PATH",
                demo,
            )
        sessions_dir = fmt.display_path(app.project.sessions_dir)
        if app.status == "loading":
            return _message("Reading sessions…", f"Looking in {sessions_dir}")
        if app.status == "project-missing":
            return _message(
                "The .ocr directory was deleted",
                f"{fmt.display_path(app.project.ocr_dir)} is gone. We keep waiting for it, "
                "and show its sessions as soon as it comes back.",
            )
        if app.status == "sessions-deleted":
            return _message(
                "The sessions directory was deleted",
                f"{sessions_dir} is gone. We keep waiting for it, and show sessions again "
                "as soon as it comes back.",
            )
        if not app.sessions:
            return _message(
                "No sessions yet",
                f"Watching {sessions_dir}",
                "A session appears here as soon as a review starts: run /ocr-review "
                "(or /ocr-map) in your coding agent, in this project.",
                demo,
            )
        hints: list[str | Content] = []
        if self.filter != "all":
            hints.append(Content.assemble("Press ", ("1", KEY), " to show all sessions."))
        if self.format != "all":
            hints.append(Content.assemble("Press ", ("t", KEY), " to change the format shown."))
        if self.search:
            hints.append(Content.assemble("Press ", ("Esc", KEY), " to clear the search."))
        return _message("No sessions match", "Nothing matches the filter and search above.", *hints)

    # -- actions ------------------------------------------------------------------------

    def action_cycle_filter(self) -> None:
        self.filter = FILTERS[(FILTERS.index(self.filter) + 1) % len(FILTERS)]

    def action_set_filter(self, name: str) -> None:
        if name in FILTERS:
            self.filter = name

    def action_cycle_format(self) -> None:
        """all → each framework present → all."""
        order = ["all", *self.formats()]
        if self.format not in order:
            order.append(self.format)
        self.format = order[(order.index(self.format) + 1) % len(order)]

    def action_set_format(self, name: str) -> None:
        self.format = name

    def action_cycle_sort(self) -> None:
        keys = list(SORTS)
        self.sort = keys[(keys.index(self.sort) + 1) % len(keys)]

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


def header_line(h: FormatHeader) -> Content:
    """One line per format header: `iDumb · phase … · 12 validations · ! brain stale 52 h`."""
    parts: list[str | tuple[str, str]] = [
        (fmt.framework_label(h.framework), "bold"),
        (" · ", "$text-muted"),
        fmt.safe(h.title, 50),
    ]
    title = h.title.lower()
    for fact in [f for f in h.facts if f.value.lower() not in title][:4]:
        parts += [(" · ", "$text-muted"), (f"{fmt.safe(fact.label, 14)} ", "$text-muted")]
        parts.append((fmt.safe(fact.value, 24), fmt.TONES.get(fact.tone, "")))
    for alert in h.alerts[:2]:
        parts += [(" · ", "$text-muted"), (f"! {fmt.safe(alert, 40)}", "$text-warning")]
    return Content.assemble(*parts)


def _message(title: str, *lines: str | Content) -> Content:
    parts: list[Content] = [Content.styled(title, "bold $text-accent"), Content("")]
    for line in lines:
        parts.append(line if isinstance(line, Content) else Content(line))
        parts.append(Content(""))
    return Content("\n").join(parts[:-1])
