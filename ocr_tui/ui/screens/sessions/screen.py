"""The main screen: the OCR review summary, filter bar, format headers, search box, session
table, detail pane, helpful empty states.

It owns only view state (filter, format, sort, search: `ListKeys`, with the keys that change
them). The sessions themselves live on the app (`app.sessions`); this screen follows them
through `app.sessions_signal` (merged: one refresh per turn, `ui.latest`). Its size sets
classes (`-narrow`/`-medium`/`-wide`, `-short`/`-tall`/`-very-tall`) that app.tcss lays the
list and the detail pane out by.
"""

from __future__ import annotations

from typing import TypeVar

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Header, Input

from ocr_tui.core.registry import is_host
from ocr_tui.core.reviews import NO_SUMMARY
from ocr_tui.core.view import SessionView
from ocr_tui.ui.contract import Dashboard
from ocr_tui.ui.latest import Latest, subscribe_latest
from ocr_tui.ui.listing import ListQuery, sort_key
from ocr_tui.ui.navigation import FindingsTarget, Open, SessionTarget
from ocr_tui.ui.screens.base.nothing_to_open import no_round_reason
from ocr_tui.ui.screens.sessions.detail_pane import DetailPane
from ocr_tui.ui.screens.sessions.empty_state import EmptyState
from ocr_tui.ui.screens.sessions.feed import ListFeed
from ocr_tui.ui.screens.sessions.filter_bar import FilterBar
from ocr_tui.ui.screens.sessions.headers_bar import HeadersBar
from ocr_tui.ui.screens.sessions.keys import LIST_ACTIONS, SEARCHED, ListKeys
from ocr_tui.ui.screens.sessions.layout import SORT_COLUMN
from ocr_tui.ui.screens.sessions.links_bar import LinksBar
from ocr_tui.ui.screens.sessions.model import ListModel
from ocr_tui.ui.screens.sessions.row_order import RowOrder
from ocr_tui.ui.screens.sessions.screen_clock import ScreenClock
from ocr_tui.ui.screens.sessions.session_table import SessionTable
from ocr_tui.ui.screens.sessions.summary_bar import SummaryBar
from ocr_tui.ui.widgets.key_footer import KeyFooter
from ocr_tui.ui.widgets.table_search import SearchBox

W = TypeVar("W", bound=Widget)


class ListBody(Vertical):
    """The list and the detail pane, in what the bars above and the footer leave: the list as
    tall as its rows, at most what leaves the pane its min-height (app.tcss); the pane the
    rest. Its height changes only with the screen's, or a bar shown (the search)."""

    def on_resize(self) -> None:
        self.fit()

    def fit(self) -> None:
        panes = self.query_children(DetailPane)
        tables = self.query_children(SessionTable)
        if not self.size.height or not panes or not tables:
            return  # (not composed yet)
        pane = panes.first().styles.min_height
        keep = int(pane.value) if pane is not None and pane.is_cells else 0
        tables.first().styles.max_height = max(MIN_LIST_ROWS, self.size.height - keep)


MIN_LIST_ROWS = 4  # the header and three sessions, however short the screen


class MainScreen(ScreenClock, ListFeed, ListKeys):
    PALETTE_KEYS = False  # its actions are in the palette as SessionCommands' MAIN_ACTIONS
    AUTO_FOCUS = "SessionTable"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-medium"), (140, "-wide")]
    VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall"), (50, "-very-tall")]
    # ListKeys' keys, then:
    BINDINGS: list[Binding] = [
        Binding(
            "F",
            "latest_findings",
            "Findings",
            tooltip="The highlighted session's latest findings",
        ),
    ]

    _refresh_due = False
    _had_sessions = False  # whether the list's keys applied at the last refresh of bindings
    _formats_seen = (0, 0)  # how many formats and projects the bindings were refreshed for
    _has_round: bool | None = None  # whether the highlighted session had a round (`F`)

    app: Dashboard  # (typing only) what this screen reads of the app

    def compose(self) -> ComposeResult:
        yield Header()
        yield SummaryBar(id="summary")
        yield FilterBar(id="filter-bar")
        yield HeadersBar(id="headers")
        yield LinksBar(id="links")
        yield SearchBox(
            select_on_focus=False,
            placeholder=f"Search {SEARCHED} · Enter keeps it · Esc clears",
            id="search",
        )
        with ListBody(id="body"):
            yield SessionTable(id="sessions")
            yield EmptyState(id="empty")
            yield DetailPane(id="detail")
        yield KeyFooter()  # the keys that fit; the rest are in `?` help and the palette

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._model = ListModel()  # the sessions as the list counts them, by delta
        self._rows: RowOrder | None = None  # the last full order (its keys are reused)
        self._shown: dict[str, SessionView] = {}  # shown, changed since the table's sync
        self._hidden: set[str] = set()  # no longer shown since then
        self._latest: Latest | None = None
        self._parts: dict[type, Widget] = {}  # (`_part`)

    def _part(self, kind: type[W]) -> W:
        """The screen's `kind` widget (composed once, never replaced), looked up once:
        Textual's `query_one` caches by the DOM's generation, which every toast shown or gone
        moves on, so a look-up per refresh filled its cache (1,024 entries)."""
        part = self._parts.get(kind)
        if part is None:
            self._parts[kind] = part = self.query_one(kind)
        return part  # type: ignore[return-value]

    @property
    def table(self) -> SessionTable:
        return self._part(SessionTable)

    def on_mount(self) -> None:
        self._latest = subscribe_latest(self.app.sessions_signal, self, self._on_sessions)
        self.watch(self.app, "status", self._on_status, init=False)
        self.watch(self.app, "headers", self._on_headers, init=False)
        self.refresh_view()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in LIST_ACTIONS and (self.app.project is None or not self.app.sessions):
            return False  # nothing to filter, sort or search (yet)
        if action == "latest_findings":  # OCR sessions only; dimmed on one without a round
            if not any(is_host(v.framework) for v in self.app.sessions.values()):
                return False
            return True if self._highlighted_rounds() else None
        allowed = self.list_check(action)
        return True if allowed is None else allowed

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        if action == "latest_findings":
            return _no_findings(self._highlighted_view())
        return super().explain_disabled(action, parameters)

    def _highlighted_view(self) -> SessionView | None:
        sid = self.table.highlighted_id if self.table.display else None
        return self.app.sessions.get(sid) if sid else None

    def _highlighted_rounds(self) -> bool:
        view = self._highlighted_view()
        return view is not None and bool(view.rounds)

    def action_latest_findings(self) -> None:
        """`F`: the highlighted session's latest round's findings."""
        view = self._highlighted_view()
        if view is None or not view.rounds:
            self.notify(_no_findings(view), severity="warning", markup=False)
            return
        latest = view.rounds[-1]
        self.post_message(Open(FindingsTarget(view.id, latest.number, latest.path)))

    # -- keeping up with the data (`ListFeed`) ---------------------------------------------

    LOADING_REFRESH_S = 0.25
    _full = True  # the table must be synced whole (the query changed)

    @property
    def list_query(self) -> ListQuery:
        return ListQuery(
            self.filter, self.format, self.search, self.sort, self.reverse, self.project
        )

    def visible(self) -> list[SessionView]:
        return self.list_query.apply(self.app.sessions.values())

    # A change of more sessions than this (or than an eighth of those shown) re-syncs the
    # table whole: bisecting each into its place would cost more than sorting them all.
    FULL_SYNC_CHANGES = 64

    def refresh_view(self, *, follow: bool = False) -> None:
        """The list as the sessions and the query are now. `follow`: the user changed the
        query, the list scrolls to the highlighted session; else (the data moved) the view
        holds still (`SessionTable.sync`). A change of a few sessions touches their rows
        alone (`SessionTable.sync_changes`): its cost does not grow with the history."""
        model = self._counted()
        formats, projects = model.formats(), model.projects()
        if (len(formats), len(projects)) != self._formats_seen:
            self._formats_seen = (len(formats), len(projects))
            self.refresh_bindings()
        query = self.list_query
        # The columns are those of the formats and projects the list can show (not only of
        # the rows the search leaves), so typing a search does not move them.
        scope = formats if self.format == "all" else [self.format]
        # a remote project's column is there from the start (it does not wait for its rows)
        links = getattr(self.app, "links", {})
        listed = sorted({*projects, *links}) if self.project == "all" else [self.project]
        if links and len(listed) == 1:
            listed.append("")  # one remote project alone: its column names its host all the same
        self.table.configure(scope, (SORT_COLUMN[self.sort], self.reverse), listed)
        self._sync_table(query, follow)
        shown = len(model.shown)
        bar = self._part(FilterBar)
        bar.show(
            self.app,
            query,
            shown=shown,
            several_formats=len(formats) > 1,
            several_projects=len(projects) > 1,
        )
        # OCR's summary, while the list shows OCR sessions (not above a format filter's others)
        summed = self.format == "all" or is_host(self.format)
        ocr = model.ocr if summed else NO_SUMMARY
        self._part(SummaryBar).show_summary(ocr, ocr.sessions < len(model.views))
        in_view = model.pairs()  # (with several projects: whose)
        heads = [h for h in self.app.headers if (h.project, h.framework) in in_view]
        self._part(HeadersBar).show(heads)
        self.set_class(self.app.project is None, "-no-project")
        empty = not shown
        self.set_class(empty, "-empty")
        self.table.display = self._part(DetailPane).display = not empty
        state = self._part(EmptyState)
        state.display = empty
        if empty:
            state.show(self.app, query)
        elif self.focused is None:
            self.set_focus(self.table)
        self._show_detail()
        self.arm_tick_later()

    def _sync_table(self, query: ListQuery, follow: bool) -> None:
        """The table shows the model's sessions: what changed alone when it can, else all
        of them, sorted."""
        model, now, resort = self._model, self.app.now(), not self.app.unread
        changes = len(self._shown) + len(self._hidden)
        few = changes <= max(self.FULL_SYNC_CHANGES, len(model.shown) // 8)
        shown, hidden = list(self._shown.values()), list(self._hidden)
        self._shown, self._hidden = {}, set()
        if not (self._full or follow) and resort and few:
            if self.table.sync_changes(shown, hidden, now):
                return
        self._full = False
        key = sort_key(query.sort)
        rows = self._rows
        if rows is None or rows.key is not key:
            rows = RowOrder(key, query.reverse)
        rows = self._rows = rows.resorted(model.shown.values(), query.reverse)
        views = [model.shown[sid] for sid in rows]
        self.table.sync(views, now, resort=resort, follow=follow, rows=rows)

    @property
    def viewed_session_id(self) -> str | None:
        """The highlighted session: its changes show in its row and the detail pane, so
        they raise no toast (`contract.ShowsSession`)."""
        table = self._parts.get(SessionTable)
        if table is None:  # (none while the screen is composed or removed)
            tables = self.query(SessionTable)
            table = tables.first() if tables else None
        return table.highlighted_id if table is not None and table.display else None

    def _show_detail(self) -> None:
        sid = self.table.highlighted_id
        view = self.app.sessions.get(sid) if sid else None
        self._part(DetailPane).show(view, self.app.now())
        has_round = self._highlighted_rounds()
        if has_round != self._has_round:  # `F` follows the highlighted session
            self._has_round = has_round
            self.refresh_bindings()
        self.arm_tick_later()

    @on(SessionTable.RowHighlighted)
    def _highlighted(self) -> None:
        self._show_detail()

    @on(SessionTable.RowSelected)
    def _selected(self, event: SessionTable.RowSelected) -> None:
        self.post_message(Open(SessionTarget(event.row_key)))

    def _query_changed(self) -> None:
        """A new filter, search or sort: the highlighted session stays highlighted while the
        list shows it; else the first row is (a search's first match, never the match that
        happens to be where the cursor was)."""
        if self._latest is None:
            return  # not mounted yet (a reactive read first, before `on_mount`'s refresh)
        before = self.table.highlighted_id
        self.refresh_view(follow=True)
        if before is not None and self.table.highlighted_id != before and self.table.row_count:
            self.table.move_cursor(row=0)
            self._show_detail()
        self.refresh_bindings()

    watch_filter = watch_format = watch_sort = watch_reverse = watch_project = _query_changed
    watch_search = _query_changed

    def select_session(self, session_id: str) -> bool:
        """Highlight a session, widening the filter and dropping the search if they hide it."""
        if session_id not in self.app.sessions:
            return False
        if session_id not in {v.id for v in self.visible()}:
            self.query_one("#search", Input).value = ""
            self.set_reactive(MainScreen.search, "")
            self.set_reactive(MainScreen.filter, "all")
            self.set_reactive(MainScreen.format, "all")
            self.set_reactive(MainScreen.project, "all")
            self.refresh_view(follow=True)
        found = self.table.select(session_id)
        self.set_focus(self.table)
        self._show_detail()
        return found


def _no_findings(view: SessionView | None) -> str:
    return no_round_reason(
        view, "F", "No session is highlighted: F opens one's latest round's findings."
    )
