"""ProblemsPane: what could not be read of a session, in plain words, above everything else;
hidden when there is nothing wrong."""

from __future__ import annotations

from datetime import datetime

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ocr_tui.core.view import SessionView
from ocr_tui.ui.screens.session.cells import problems_content


class ProblemsPane(Vertical):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Problems"

    def compose(self) -> ComposeResult:
        yield Static(id="problems")

    def show(self, view: SessionView, now: datetime) -> None:
        self.display = bool(view.problems)
        self.query_one("#problems", Static).update(problems_content(view, now))
