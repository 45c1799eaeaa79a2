"""The session screen's Rounds pane: the blocker trend, the rounds table (its cells:
`ocr_tui.ui.screens.session.cells`) or "No review rounds yet.", in a bordered pane keyed by its
markers.

It holds still as the rounds go on: the table's columns never narrow, its verdict is
planned for the widest (`NEEDS DISCUSSION`), and its cursor opens on the current round (the one
`c` opens, the one a live review is in), following it to the next round until the user moves
it elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ocr_tui.core.columns import VERDICTS
from ocr_tui.core.registry import is_host
from ocr_tui.core.view import SessionView
from ocr_tui.ui.screens.session.cells import (
    ROUND_COLUMNS,
    ROUNDS_KEY,
    round_labels,
    round_rows,
    trend_content,
)
from ocr_tui.ui.widgets.fit_table import FitTable

VERDICT_ROOM = max(len(v) for v in VERDICTS)  # the verdict column: `NEEDS DISCUSSION`


class RoundsPane(Vertical):
    """`show(view, style)`; hidden for a session that has no review round and is not a
    review (a map's, another format's)."""

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._cursor_put: str | None = None  # the round the cursor was put on

    def compose(self) -> ComposeResult:
        self.border_title = "Rounds"
        self.border_subtitle = ROUNDS_KEY
        trend = Static(id="rounds-trend")
        trend.styles.padding = (0, 1)  # in line with the table's first column
        yield trend
        rounds = FitTable(
            ROUND_COLUMNS,
            flex=("verdict", "bar"),
            wrap=("verdict", "bar"),
            id="rounds",
            hold=True,
            least={"verdict": VERDICT_ROOM},
        )
        # The cells' colours (the severity bar, the verdict) stay on the cursor row: the
        # cursor gives the row its background only.
        rounds.cursor_foreground_priority = "renderable"
        yield rounds
        yield Static("No review rounds yet.", id="rounds-empty", classes="dd-empty")

    @property
    def table(self) -> FitTable:
        return self.query_one("#rounds", FitTable)

    def show(self, view: SessionView, style: Callable[..., Style]) -> None:
        table = self.table
        table.set_labels(round_labels(view))
        rows = round_rows(view, style)
        table.sync_rows(rows)
        table.display = bool(rows)
        self._follow_current(view)
        trend = trend_content(view)
        self.query_one("#rounds-trend", Static).update(trend or "")
        self.query_one("#rounds-trend").display = trend is not None
        review = view.workflow == "review" and is_host(view.framework)
        self.query_one("#rounds-empty").display = not rows and review
        self.display = bool(rows) or review

    def _follow_current(self, view: SessionView) -> None:
        table = self.table
        current = view.current.path if view.current is not None else None
        if current is None or current not in table.row_keys:
            return
        if self._cursor_put is not None and table.cursor_key != self._cursor_put:
            return  # moved by the user: it stays where they put it
        if table.cursor_key != current:
            table.move_cursor(row=table.row_keys.index(current), animate=False)
        self._cursor_put = current
