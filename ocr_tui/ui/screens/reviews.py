"""ReviewsScreen: every review round of every session, one row each (issue 13, item 2; OCR's
web dashboard's Reviews page): session, round, verdict, blockers / should-fix / suggestions,
the user's triage (OCR's dashboard records it in ocr.db) and when the round completed.

The rows are `core.reviews.review_rows` of the app's sessions, computed again whenever
`sessions_signal` says some changed (no IO: the views are in memory). Keys: `a` shows the
actionable rounds only (no verdict yet, or triaged needs review / in progress), `s` sorts by
the next column and `S` reverses (a click on a header sorts by it, again: reverses), Enter
opens the round, Esc goes back.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.events import Resize
from textual.screen import Screen
from textual.widgets import DataTable, Static

from ocr_tui.core.reviews import ReviewRow, review_rows
from ocr_tui.core.view import SessionView
from ocr_tui.ui import router
from ocr_tui.ui.drilldown import DrilldownScreen
from ocr_tui.ui.listing import cycled
from ocr_tui.ui.navigation import (
    Navigator,
    Open,
    ReviewsTarget,
    RoundTarget,
    SessionListTarget,
    Target,
)
from ocr_tui.ui.reviews_cells import (
    COLUMNS,
    COMPACT_BELOW,
    ReviewsQuery,
    count_text,
    fit_sessions,
    labels,
    review_cells,
)
from ocr_tui.ui.style import theme_style
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.drill_table import selected_key
from ocr_tui.ui.widgets.format_panes import FitTable
from ocr_tui.ui.widgets.key_footer import KeyFooter

RECORDS_CSS = Path(__file__).parent.parent / "records.tcss"
CRUMBS: list[tuple[str, Target | None]] = [("Sessions", SessionListTarget()), ("Reviews", None)]


@router.route(ReviewsTarget)
class ReviewsScreen(Screen):
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
        Binding(
            "s", "cycle_sort", "Sort", id="reviews.sort",
            tooltip="Next column: date → session → round → verdict → blockers → should-fix → "
            "suggestions → triage",
        ),
        Binding("S", "reverse_sort", "Reverse sort", id="reviews.reverse", show=False),
        Binding(
            "p", "cycle_project", "Project", id="reviews.project",
            tooltip="All projects → each project → … (with several projects)",
        ),
        Binding("escape", "back", "Back", id="reviews.back", tooltip="Back to the session list"),
    ]
    # fmt: on

    def __init__(self) -> None:
        super().__init__()
        self.query_state = ReviewsQuery()
        self.rows: list[ReviewRow] = []
        self._labels: dict[str, str] = {}

    @classmethod
    def for_target(cls, _target: ReviewsTarget) -> ReviewsScreen:
        return cls()

    @property
    def target(self) -> ReviewsTarget:
        return ReviewsTarget()

    def compose(self) -> ComposeResult:
        crumbs = Breadcrumb([(label, t is not None) for label, t in CRUMBS], id="crumbs")
        yield crumbs
        yield Static(Content.styled("Reviews across sessions", "bold"), classes="dd-title")
        yield Static(id="reviews-count", classes="dd-meta")
        with Vertical(id="reviews-pane", classes="dd-pane") as pane:
            pane.border_title = "Rounds"
            yield FitTable(COLUMNS, flex=("session",), min_flex=12, id="reviews")
            yield Static("No review rounds yet.", id="reviews-empty", classes="dd-empty")
        yield KeyFooter()

    def on_mount(self) -> None:
        self.app.sessions_signal.subscribe(self, self._on_sessions)
        theme_signal = getattr(self.app, "theme_changed_signal", None)
        if theme_signal is not None:
            theme_signal.subscribe(self, lambda _theme: self.refresh_rows())
        self.refresh_rows()
        self.query_one("#reviews", FitTable).focus()

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
        self.rows = review_rows(v for v in sessions.values() if v.framework == "ocr")
        shown = self.shown
        now = self.app.now()
        compact = 0 < self.size.width < COMPACT_BELOW
        table = self.query_one("#reviews", FitTable)
        heads = labels(self.query_state, now, compact)
        if heads != self._labels:
            self._labels = heads
            table.set_labels(heads)
        style = partial(theme_style, self)
        cells = [review_cells(r, now, style, compact) for r in shown]
        # the pane's border and padding, and a scrollbar when the rows overflow
        width = self.size.width - 4 - (1 if len(shown) > max(self.size.height - 10, 1) else 0)
        cells = fit_sessions(cells, heads, width, [r.project for r in shown])
        table.sync_rows([(r.key, c) for r, c in zip(shown, cells, strict=True)])
        table.display = bool(shown)
        count = count_text(len(shown), len(self.rows), self.query_state)
        self.query_one("#reviews-count", Static).update(Content(count))
        empty = self.query_one("#reviews-empty", Static)
        empty.display = not shown
        if not self.rows:
            empty.update(Content("No review rounds yet: OCR sessions of the review workflow."))
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cycle_project":  # one project: nothing to choose
            return self.query_state.project != "all" or len(self.projects()) > 1
        return True

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
