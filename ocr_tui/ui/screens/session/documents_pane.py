"""DocumentsPane: the session's own markdown documents, a row each (Enter opens one), or
`No documents yet.`"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import SessionView
from ocr_tui.ui.screens.session.cells import DOC_COLUMNS
from ocr_tui.ui.widgets.fit_table import FitTable


class DocumentsPane(Vertical):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Documents"

    def compose(self) -> ComposeResult:
        yield FitTable(DOC_COLUMNS, flex=("name",), id="documents", show_header=False)
        yield Static("No documents yet.", id="docs-empty", classes="dd-empty")

    def show(self, view: SessionView) -> bool:
        """The rows of `view`'s documents; whether it has any."""
        rows = [(name, [Text(safe_line(name))]) for name in view.documents]
        table = self.query_one("#documents", FitTable)
        table.sync_rows(rows)
        table.display = bool(rows)
        self.query_one("#docs-empty").display = not rows
        return bool(rows)
