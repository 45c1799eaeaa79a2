"""A line table whose columns are planned rather than measured: it holds every column of
`list_layout.SPECS`, `list_layout.plan` picks those shown and their widths (from the formats
the list can show, each column's widest cell and the table's width, with the sorted column
marked), and the others are drawn zero wide. A resize, a format filter or a new sort re-lays
the columns without touching a row; no cell is measured through Rich.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from rich.text import Text
from textual import events

from ocr_tui.ui import list_layout
from ocr_tui.ui.list_cells import Bars, Cell, cell_width, is_blank
from ocr_tui.ui.widgets.line_table import LineColumn, LineTable


class PlannedTable(LineTable):
    """`configure(formats, sort)` and its size choose the columns; `_cells` (row key → the
    row's cells as data) is the subclass's, kept up to date, `_measure` told of new cells."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._cells: dict[str, dict[str, Cell]] = {}
        self._formats: frozenset[str] = frozenset()  # the formats the list can show
        self._sort: tuple[str, bool] | None = None  # (column key, reversed)
        self._natural: dict[str, int] = {}  # each column's widest non-blank cell
        self.shown: list[list_layout.Shown] = []  # the columns shown, as planned
        self._bars = Bars()  # whether the phase cells draw their bars
        self.set_columns(
            [
                LineColumn(s.key, Text(s.header), max(1, len(s.header)), hidden=True)
                for s in list_layout.SPECS
            ]
        )

    def on_mount(self) -> None:
        self._relayout()

    @property
    def columns_shown(self) -> list[str]:
        return [s.key for s in self.shown]

    def configure(self, formats: Collection[str], sort: tuple[str, bool] | None) -> None:
        """The formats the list can show (its columns) and the sorted column (its mark)."""
        formats = frozenset(formats)
        if (formats, sort) != (self._formats, self._sort):
            self._formats, self._sort = formats, sort
            self._relayout()

    def on_resize(self, _event: events.Resize) -> None:
        self._relayout()

    def _relayout(self) -> None:
        available = self.scrollable_content_region.width
        if not available and not self.size.width:
            # Before its first layout (start-up's first frame): the screen's width, less
            # the scrollbar's room, so the first frame already shows rows. A resize follows.
            available = self.app.size.width - self.styles.scrollbar_size_vertical
        if available <= 0:
            return
        shown = list_layout.plan(
            self._formats or {"ocr"}, self._natural, available, sort=self._sort
        )
        plan = {s.key: s for s in shown}
        phase = plan.get("phase")
        bars = phase is not None and phase.width >= self._natural.get("phase", 0)
        if shown == self.shown and bars == self._bars.shown:
            return
        self.shown, self._bars.shown = shown, bars
        columns = []
        for key, column in self.columns.items():
            s = plan.get(key)
            if s is None:
                columns.append(LineColumn(key, column.label, column.width, hidden=True))
            else:
                columns.append(LineColumn(key, Text(s.label), s.width))
        self.set_columns(columns)

    def _measure(self, cells: dict[str, Cell]) -> bool:
        """Widen the columns' natural widths to fit `cells`; whether any changed."""
        changed = False
        natural = self._natural
        for key, cell in cells.items():
            if not is_blank(cell):
                width = cell_width(cell)
                if width > natural.get(key, 0):
                    natural[key] = width
                    changed = True
        return changed

    def _remeasure(self) -> bool:
        old, self._natural = self._natural, {}
        for cells in self._cells.values():
            self._measure(cells)
        return old != self._natural
