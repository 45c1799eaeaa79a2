"""A line table whose columns are planned rather than measured: it holds every column of
`list_layout.SPECS`, `list_layout.plan` picks those shown and their widths (from the formats
and projects the list can show and the table's width, with the sorted column marked; the
cells' widest only share the room left), and the others are drawn zero wide. A resize, a
format filter or a new sort re-lays the columns without touching a row; no cell is measured
through Rich.

A layout that holds still: the cells' widest are kept as the most seen (a row that goes, a
cell that gets shorter, takes no room back), and a column is never drawn narrower than it was
(`floors`), until the table is resized or its columns change (formats, projects, sort).
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from rich.text import Text
from textual import events

from ocr_tui.core.registry import host
from ocr_tui.ui.screens.sessions import layout as list_layout
from ocr_tui.ui.screens.sessions.cells import BAR_CELLS, Bars, Cell, cell_width, is_blank
from ocr_tui.ui.widgets.line_table import LineColumn, LineTable


class PlannedTable(LineTable):
    """`configure(formats, sort)` and its size choose the columns; `_cells` (row key → the
    row's cells as data) is the subclass's, kept up to date, `_measure` told of new cells."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self._cells: dict[str, dict[str, Cell]] = {}
        self._formats: frozenset[str] = frozenset()  # the formats the list can show
        self._projects: tuple[str, ...] = ()  # the projects it lists (several: a column)
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

    def configure(
        self,
        formats: Collection[str],
        sort: tuple[str, bool] | None,
        projects: Collection[str] = (),
    ) -> None:
        """The formats the list can show and the projects it lists (its columns), and the
        sorted column (its mark)."""
        formats, projects = frozenset(formats), tuple(sorted(projects))
        if (formats, sort, projects) != (self._formats, self._sort, self._projects):
            self._formats, self._sort, self._projects = formats, sort, projects
            self.shown = []  # new columns: none of the old widths holds
            self._relayout()

    def on_resize(self, _event: events.Resize) -> None:
        if self.shown and self._planned_for[0] != self.scrollable_content_region.width:
            self.shown = []  # a new width: planned afresh, from the cells there are now
            self._remeasure()
        self._relayout()

    _planned_for: tuple[int, int] = (0, 0)  # the width and readable id they were planned for

    def _relayout(self) -> None:
        available = self.scrollable_content_region.width
        if not available and not self.size.width:
            # Before its first layout (start-up's first frame): the screen's width, less
            # the scrollbar's room, so the first frame already shows rows. A resize follows.
            available = self.app.size.width - self.styles.scrollbar_size_vertical
        if available <= 0:
            return
        # The same width and the same ids (a row whose id is wider may change the columns:
        # the id is read first): the columns keep the room they had.
        ids = min(list_layout.ID_STEP, self._natural.get("id_core", self._natural.get("id", 0)))
        planned_for = (available, ids)
        shown = list_layout.plan(
            self._formats or {host()},
            self._natural,
            available,
            sort=self._sort,
            projects=self._projects,
            floors=self._floors() if planned_for == self._planned_for else None,
        )
        self._planned_for = planned_for
        plan = {s.key: s for s in shown}
        phase = plan.get("phase")
        bars = phase is not None and phase.bar
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

    def _floors(self) -> dict[str, int]:
        """The columns shown, as wide as their cells had (without air or bar): never less."""
        return {s.key: s.width - s.air - (BAR_CELLS if s.bar else 0) for s in self.shown}

    def cell_room(self, key: str, cell: Cell) -> int:
        """The room a (non-blank) cell wants in its column."""
        return cell_width(cell)

    def _measure(self, cells: dict[str, Cell]) -> bool:
        """Widen the columns' natural widths to fit `cells`; whether any changed."""
        changed = False
        natural = self._natural
        for key, cell in cells.items():
            if not is_blank(cell):
                width = self.cell_room(key, cell)
                if width > natural.get(key, 0):
                    natural[key] = width
                    changed = True
        return changed

    def _remeasure(self) -> bool:
        """The cells' widest anew, from the rows there are (a resize: the only time a column
        may take less room than it had)."""
        old, self._natural = self._natural, {}
        for cells in self._cells.values():
            self._measure(cells)
        return old != self._natural
