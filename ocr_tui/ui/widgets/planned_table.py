"""A DataTable whose columns are planned rather than measured: it holds every column of
`list_layout.SPECS`, `list_layout.plan` picks those shown and their widths (from the formats
the list can show, each column's widest cell and the table's width, with the sorted column
marked), and the others are drawn zero wide. A resize, a format filter or a new sort re-lays
the columns without re-adding a row; no cell is measured through Rich.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import events
from textual.geometry import Size
from textual.widgets import DataTable
from textual.widgets.data_table import Column, ColumnKey, RowKey

from ocr_tui.ui import list_layout
from ocr_tui.ui.list_cells import Bars, Cell, cell_width, is_blank


@dataclass
class _Column(Column):
    """A column that `hidden` draws zero wide (padding included)."""

    hidden: bool = False

    def get_render_width(self, data_table: DataTable[Any]) -> int:
        return 0 if self.hidden else super().get_render_width(data_table)


class PlannedTable(DataTable):
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

    def on_mount(self) -> None:
        for spec in list_layout.SPECS:
            key = self.add_column(spec.header, width=max(1, len(spec.header)), key=spec.key)
            column = self.columns[key]
            self.columns[key] = _Column(**vars(column), hidden=True)
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
        if not available or not self.columns:
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
        for key, column in self.columns.items():
            assert isinstance(column, _Column)
            s = plan.get(str(key.value))
            column.hidden = s is None
            if s is not None:
                column.width, column.label = s.width, Text(s.label)
        self._clear_caches()
        self._update_count += 1
        self._require_update_dimensions = True
        self.refresh()

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

    def _update_dimensions(self, new_rows: Iterable[RowKey]) -> None:
        """The virtual size only: DataTable's own also measures every new cell through Rich
        (~35 µs each, 15 a row), for column widths this table plans instead. Rows here are
        one line high and unlabelled."""
        width = sum(column.get_render_width(self) for column in self.columns.values())
        header = self.header_height if self.show_header else 0
        self.virtual_size = Size(width, self._total_row_height + header)

    def update_row_cells(self, row_key: str, values: dict[str, Any]) -> None:
        """Cells of one row anew, and only that row drawn again. DataTable's `update_cell`
        bumps a counter that is part of every cached cell, row and line: a change to one
        session re-rendered every visible row's every cell through Rich (most of a change's
        cost on screen). Here the caches lose that row's entries alone. (Columns are planned,
        never measured: no width to update.)"""
        key = RowKey(row_key)
        if key not in self._row_locations:
            return
        row = self._data[key]
        for column_key, value in values.items():
            column = ColumnKey(column_key)
            if column in self._column_locations:
                row[column] = value
        index = self._row_locations.get(key)
        self._forget_row(key, index)
        self.refresh_row(index)

    def _forget_row(self, key: RowKey, index: int) -> None:
        """Drop the cached renders of row `key` at `index` (its renderables, cells and
        lines); the screen lines are joined anew from the rows' cached renders (cheap: nothing
        measured or styled). The caches are DataTable's (Textual is pinned)."""
        for cached in [k for k in self._row_renderable_cache.keys() if k[1] == index]:
            self._row_renderable_cache.discard(cached)
        for cache in (self._cell_render_cache, self._row_render_cache):
            for cached in [k for k in cache.keys() if k[0] == key]:
                cache.discard(cached)
        self._line_cache.clear()

    def _render_cell(self, row_index, column_index, base_style, width, *args, **kw):
        if width == 0:  # a hidden column
            return [[] for _ in range(max(1, self.header_height))]
        return super()._render_cell(row_index, column_index, base_style, width, *args, **kw)
