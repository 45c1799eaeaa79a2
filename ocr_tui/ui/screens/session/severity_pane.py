"""SeverityPane: one round's findings by severity as a bar chart (`SeverityChart`), scaled to
the session's largest round so that moving between rounds compares them. Hidden (by CSS, the
`-none` class) while the session has no round."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical

from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.widgets.severity_chart import (
    CHART_KEY,
    SeverityChart,
    chart_title,
    round_severity,
    session_most,
)


class SeverityPane(Vertical):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "By severity"
        self.border_subtitle = CHART_KEY

    def compose(self) -> ComposeResult:
        yield SeverityChart(id="severity-chart")

    def show(self, view: SessionView, round_path: str | None) -> None:
        """The round at `round_path` (else the latest)."""
        self.set_class(not view.rounds, "-none")
        if not view.rounds:
            return
        rnd = next((r for r in view.rounds if r.path == round_path), view.rounds[-1])
        self.border_title = chart_title(fmt.round_label(view, rnd))
        self.query_one(SeverityChart).show(round_severity(rnd), session_most(view.rounds))
