"""The findings table's side of the triage keys (`triage.finding_marks`): they act on the
findings selected with space, else the one at the cursor; space selects (and moves down)."""

from __future__ import annotations

from ocr_tui.formats.ocr.api import Finding
from ocr_tui.ui.screens.ocr.triage.finding_marks import FindingMarks


class FindingsMarks(FindingMarks):
    selected: frozenset[str] = frozenset()

    def chosen_findings(self) -> list[Finding]:
        picked = [f for f in self.shown if f.id in self.selected]
        cursor = self.cursor_finding()
        return picked or ([cursor] if cursor is not None else [])

    def marked(self) -> None:
        self.selected = frozenset()
        self.refresh_rows()

    def action_select(self) -> None:
        """Space: select the finding at the cursor (or take it out), and move down."""
        f = self.cursor_finding()
        if f is None:
            self.app.bell()
            return
        self.selected = self.selected ^ {f.id}
        self.refresh_rows()
        self.query_one("#findings").action_cursor_down()
