"""RunsPane: a map session's runs and their documents (`session_cells.run_rows`), a table that
holds still as the run goes on; hidden while there is none."""

from __future__ import annotations

from collections.abc import Callable

from rich.style import Style
from textual.app import ComposeResult
from textual.containers import Vertical

from ocr_tui.core.view import SessionView
from ocr_tui.ui.screens.session.cells import RUN_COLUMNS, RUN_LEAST, run_rows
from ocr_tui.ui.widgets.fit_table import FitTable


class RunsPane(Vertical):
    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.border_title = "Map runs"

    def compose(self) -> ComposeResult:
        yield FitTable(RUN_COLUMNS, flex=("doc",), id="runs", hold=True, least=RUN_LEAST)

    def show(self, view: SessionView, style: Callable[..., Style]) -> None:
        rows = run_rows(view, style)
        self.query_one("#runs", FitTable).sync_rows(rows)
        self.display = bool(rows)
