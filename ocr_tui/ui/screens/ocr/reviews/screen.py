"""ReviewsScreen: every review round of every session, one row each (OCR's
web dashboard's Reviews page): session, round, verdict, blockers / should-fix / suggestions,
the user's triage (OCR's dashboard records it in ocr.db) and when the round completed.

The rows are `core.reviews.review_rows` of the app's sessions, computed again whenever
`sessions_signal` says some changed (no IO: the views are in memory). Keys: `a` shows the
actionable rounds only (no verdict yet, or triaged needs review / in progress), `/` searches
(as the list and the findings: Enter keeps it, Esc clears it), `s` sorts by the next column and
`S` reverses (a click on a header sorts by it, again: reverses), Enter opens the round, Esc
goes back. The columns say as much as the width allows (`reviews_cells.choose_layout`): the
date is shortened before a verdict is cut.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from ocr_tui.core.registry import is_host
from ocr_tui.core.reviews import ReviewRow, review_rows
from ocr_tui.core.view import SessionView
from ocr_tui.ui import router
from ocr_tui.ui.latest import subscribe_latest
from ocr_tui.ui.listing import cycled
from ocr_tui.ui.navigation import (
    Navigator,
    Open,
    ReviewsTarget,
    RoundTarget,
    SessionListTarget,
    Target,
)
from ocr_tui.ui.screens.base.drilldown import DrilldownScreen
from ocr_tui.ui.screens.ocr.reviews.cells import (
    COLUMNS,
    SEARCHED,
    ReviewsQuery,
    choose_layout,
    count_text,
    fit_sessions,
    labels,
    review_cells,
)
from ocr_tui.ui.screens.ocr.triage.rounds import RoundMarks
from ocr_tui.ui.style import theme_style
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.drill_table import selected_key
from ocr_tui.ui.widgets.fit_table import FitTable
from ocr_tui.ui.widgets.key_footer import KeyFooter
from ocr_tui.ui.widgets.table_search import SearchBox

RECORDS_CSS = DrilldownScreen.CSS_PATH.with_name("records.tcss")
CRUMBS: list[tuple[str, Target | None]] = [("Sessions", SessionListTarget()), ("Reviews", None)]


@router.route(ReviewsTarget)
class ReviewsScreen(RoundMarks, Screen):
    """Every round of every session; `ReviewsScreen()`."""

    CSS_PATH = [DrilldownScreen.CSS_PATH, RECORDS_CSS]
    AUTO_FOCUS = None
    HELP_TITLE = "Reviews across sessions"

    # fmt: off
    BINDINGS = [
        Binding(
            "a", "toggle_actionable", "Actionable", id="reviews.actionable",
            tooltip="Only the rounds that want you: no verdict yet, or triaged needs review "
            "or in progress; again: every round",
        ),
        # priority: the box has focus before the next key is dispatched (`/auth⏎` typed fast)
        Binding(
            "slash", "search", "Search", id="reviews.search", priority=True,
            tooltip=f"Search {SEARCHED}; Enter keeps it, Esc clears it",
        ),
        Binding(
            "s", "cycle_sort", "Sort", id="reviews.sort",
            tooltip="Next column: date → session → round → verdict → blockers → should-fix → "
            "suggestions → triage",
        ),
        Binding("S", "reverse_sort", "Reverse sort", id="reviews.reverse", show=False),
        Binding(
            "m", "mark_round", "Mark", id="reviews.mark",
            tooltip="The round's triage in ocr.db: needs review, in progress, changes made, "
            "acknowledged, dismissed (as OCR's store allows), or clear (x)",
        ),
        Binding("n", "note_round", "Note", id="reviews.note", tooltip="A note on the round"),
        Binding("u", "undo_mark", "Undo mark", id="reviews.undo", show=False),
        Binding(
            "p", "cycle_project", "Project", id="reviews.project",
            tooltip="All projects → each project → … (with several projects)",
        ),
        Binding(
            "escape", "escape", "Back", id="reviews.back",
            tooltip="Clear the search if there is one, else back to the session list",
        ),
    ]
    # fmt: on

    def __init__(self, start_at: str | None = None) -> None:
        super().__init__()
        self.query_state = ReviewsQuery()
        self.rows: list[ReviewRow] = []
        self._labels: dict[str, str] = {}
        self._start_at = start_at  # a session: the cursor starts on its latest round

    @classmethod
    def for_target(cls, target: ReviewsTarget) -> ReviewsScreen:
        return cls(target.session_id)

    @property
    def target(self) -> ReviewsTarget:
        return ReviewsTarget()

    def compose(self) -> ComposeResult:
        crumbs = Breadcrumb([(label, t is not None) for label, t in CRUMBS], id="crumbs")
        yield crumbs
        yield Static(Content.styled("Reviews across sessions", "bold"), classes="dd-title")
        yield Static(id="reviews-count", classes="dd-meta")
        search = SearchBox(
            select_on_focus=False,
            placeholder=f"Search {SEARCHED} · Enter keeps it · Esc clears",
            id="reviews-search",
        )
        search.display = False  # hidden until `/`: the table has the first focus
        yield search
        with Vertical(id="reviews-pane", classes="dd-pane") as pane:
            pane.border_title = "Rounds"
            yield FitTable(COLUMNS, flex=("session",), min_flex=12, id="reviews")
            yield Static("No review rounds yet.", id="reviews-empty", classes="dd-empty")
        yield KeyFooter()

    def on_mount(self) -> None:
        subscribe_latest(self.app.sessions_signal, self, self._on_sessions)  # (merged)
        theme_signal = getattr(self.app, "theme_changed_signal", None)
        if theme_signal is not None:
            theme_signal.subscribe(self, lambda _theme: self.refresh_rows())
        self.refresh_rows()
        table = self.query_one("#reviews", FitTable)
        table.focus()
        mine = [r for r in self.shown if r.session_id == self._start_at]
        if mine:  # `r` on a session: the cursor on its latest round
            latest = max(mine, key=lambda r: r.number)
            table.move_cursor(row=table.row_keys.index(latest.key), animate=False)

    def _on_sessions(self, _payload: tuple[list[SessionView], list[str]]) -> None:
        self.refresh_rows()

    def on_resize(self, _event: Resize) -> None:
        self.refresh_rows()

    # -- the rows ---------------------------------------------------------------------------

    @property
    def shown(self) -> list[ReviewRow]:
        return self.query_state.apply(self.rows)

    def refresh_rows(self) -> None:
        sessions = getattr(self.app, "sessions", None) or {}
        self.rows = review_rows(v for v in sessions.values() if is_host(v.framework))
        shown = self.shown
        now = self.app.now()
        table = self.query_one("#reviews", FitTable)
        # the pane's border and padding, and a scrollbar when the rows overflow
        width = self.size.width - 4 - (1 if len(shown) > max(self.size.height - 10, 1) else 0)
        layout = choose_layout(shown, self.query_state, now, width if self.size.width else 0)
        heads = labels(self.query_state, now, layout)
        if heads != self._labels:
            self._labels = heads
            table.set_labels(heads)
        style = partial(theme_style, self)
        cells = [review_cells(r, now, style, layout) for r in shown]
        cells = fit_sessions(cells, heads, width, [r.project for r in shown])
        table.sync_rows([(r.key, c) for r, c in zip(shown, cells, strict=True)])
        table.display = bool(shown)
        count = count_text(len(shown), len(self.rows), self.query_state)
        self.query_one("#reviews-count", Static).update(Content(count))
        empty = self.query_one("#reviews-empty", Static)
        empty.display = not shown
        if not self.rows:
            empty.update(Content("No review rounds yet: OCR sessions of the review workflow."))
        elif self.query_state.search.strip():
            empty.update(Content("No round matches the search (Esc clears it)."))
        else:
            empty.update(Content("No round needs you now (a: every round)."))

    def _set_query(self, query: ReviewsQuery) -> None:
        self.query_state = query
        self.refresh_rows()

    # -- actions ----------------------------------------------------------------------------

    def action_toggle_actionable(self) -> None:
        q = self.query_state
        self._set_query(replace(q, actionable=not q.actionable))

    def action_cycle_sort(self) -> None:
        self._set_query(self.query_state.next_sort())

    def projects(self) -> list[str]:
        return sorted({r.project for r in self.rows if r.project})

    def round_at_cursor(self) -> tuple[str, int, str | None] | None:
        found = self.query("#reviews")
        if not found:
            return None  # not composed yet
        table = found.first(FitTable)
        key = table.cursor_key if table.display and table.row_count else None
        row = next((r for r in self.shown if r.key == key), None)
        return None if row is None else (row.session_id, row.number, row.triage)

    def explain_disabled(self, action: str, parameters: tuple[object, ...]) -> str | None:
        return self.round_writes_disabled(action)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if self.round_writes_disabled(action):
            return False
        if action == "cycle_project":  # one project: nothing to choose
            return self.query_state.project != "all" or len(self.projects()) > 1
        if action == "search" and isinstance(self.focused, Input):
            return False  # a `/` typed into the search box is text
        return True

    def action_search(self) -> None:
        box = self.query_one("#reviews-search", SearchBox)
        box.display = True
        self.set_focus(box)  # at once (focus() waits a turn): the next key goes in the box

    @on(Input.Changed, "#reviews-search")
    def _search_changed(self, event: Input.Changed) -> None:
        self._set_query(replace(self.query_state, search=event.value))
        if not event.input.has_focus:  # `/auth⏎` typed fast: the text came in after Enter
            event.input.display = bool(event.value.strip())

    def action_keep_search(self) -> None:
        """Enter (or ↓) in the search box: keep the search, back to the table."""
        box = self.query_one("#reviews-search", SearchBox)
        box.display = bool(box.value.strip())
        self.query_one("#reviews", FitTable).focus()

    def action_escape(self) -> None:
        """Esc: clear the search if there is one (or the box is open), else go back."""
        box = self.query_one("#reviews-search", SearchBox)
        if box.display or box.value:
            box.value = ""
            box.display = False
            self._set_query(replace(self.query_state, search=""))
            self.query_one("#reviews", FitTable).focus()
            return
        self.action_back()

    def action_cycle_project(self) -> None:
        q = self.query_state
        self._set_query(replace(q, project=cycled(q.project, self.projects())))

    def action_reverse_sort(self) -> None:
        self._set_query(self.query_state.sorted_by(self.query_state.sort))

    @on(DataTable.HeaderSelected, "#reviews")
    def _sort_by_header(self, event: DataTable.HeaderSelected) -> None:
        self._set_query(self.query_state.sorted_by(str(event.column_key.value)))

    @on(DataTable.RowSelected, "#reviews")
    def _open_round(self, event: DataTable.RowSelected) -> None:
        key = selected_key(event)
        row = next((r for r in self.rows if r.key == key), None)
        if row is not None:
            self.post_message(Open(RoundTarget(row.session_id, row.number, row.path)))

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    def action_crumb(self, index: int) -> None:
        if 0 <= index < len(CRUMBS) and CRUMBS[index][1] is not None:
            self.post_message(Open(CRUMBS[index][1], how="back"))  # type: ignore[arg-type]

    @on(Open)
    def _open_without_an_app_router(self, message: Open) -> None:
        if not isinstance(self.app, Navigator):  # the app would route it: let it bubble there
            message.stop()
            router.navigate(self.app, message.target, message.how)
