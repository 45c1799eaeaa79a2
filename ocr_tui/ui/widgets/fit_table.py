"""`FitTable`: a drill table as wide as its pane, whose flexible columns share what the others
leave (cut with `…`, or wrapped at words in `wrap` columns, rows as tall as that needs)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.widgets.data_table import ColumnKey

from ocr_tui.ui import fmt
from ocr_tui.ui import textual_compat as tc
from ocr_tui.ui.fmt import phrases
from ocr_tui.ui.fmt.phrases import Phrases
from ocr_tui.ui.widgets.drill_table import DrillTable


class FitTable(DrillTable):
    """A DrillTable whose `flex` columns share what the other columns leave of the table's
    width: a flexible cell longer than its column ends in `…` (no horizontal scrollbar); with
    room, each is as wide as its widest cell; short of room, they share it fairly (each keeps
    `min_flex`). A flexible column in `wrap` wraps at words instead (a word longer than the
    column ends in `…`) and its rows are as tall as that needs: nothing is cut while the
    table has room below. Cells must be `Text` (as in every DrillTable).

    `hold`: a table that holds still while its rows change: a column never narrows
    back when its widest cell goes (its widths are the most seen), and `least` plans columns
    whose values come from a known set at the widest of them from the first row (a verdict
    column for `NEEDS DISCUSSION`), so a cell that arrives re-wraps nothing."""

    DEFAULT_CSS = """
    FitTable {
        overflow-x: hidden;
    }
    """

    def __init__(
        self,
        columns: Sequence[tuple[str, str]],
        *,
        flex: Sequence[str],
        wrap: Sequence[str] = (),
        min_flex: int = 6,
        id: str | None = None,
        classes: str | None = None,
        show_header: bool = True,
        hold: bool = False,
        least: Mapping[str, int] | None = None,
    ) -> None:
        super().__init__(columns, id=id, classes=classes, show_header=show_header)
        self._flex = tuple(flex)
        self._wrap = tuple(k for k in wrap if k in self._flex)
        self._min_flex = min_flex
        self._hold = hold
        self._least = dict(least or {})
        self._natural: dict[str, int] = {}
        self._longest_word: dict[str, int] = {}  # of each `wrap` column's cells

    def sync_rows(self, rows: Sequence[tuple[str, Sequence]]) -> None:
        index = {key: i for i, (key, _) in enumerate(self._column_spec)}
        flex = {index[k] for k in self._flex if k in index}
        wrap = {index[k] for k in self._wrap if k in index}
        shown = []
        for key, cells in rows:
            cells = list(cells)
            for i, cell in enumerate(cells):
                if isinstance(cell, Text) and (i in flex or fmt.KEEP_TOGETHER in cell.plain):
                    cell = Phrases.of(cell)  # a copy; its phrases wrap whole, drawn with spaces
                    if i in flex:
                        cell.no_wrap, cell.overflow = i not in wrap, "ellipsis"
                    cells[i] = cell
            shown.append((key, cells))
        show_header = self.show_header
        held = self._natural if self._hold else {}
        self._natural = {
            key: max(
                [cell_len(label) if show_header else 0, self._least.get(key, 0), held.get(key, 0)]
                + [_width(cells[i]) for _, cells in shown if i < len(cells)]
            )
            for i, (key, label) in enumerate(self._column_spec)
        }
        held = self._longest_word if self._hold else {}
        self._longest_word = {
            key: max(
                [held.get(key, 0)]
                + [len(word) for _, cells in shown if i < len(cells) for word in _plain(cells[i])]
            )
            for i, (key, _label) in enumerate(self._column_spec)
            if key in self._wrap
        }
        super().sync_rows(shown)
        if self._hold:
            self._fit_columns()
        self.fit()

    def _fit_columns(self, *, force: bool = False) -> None:
        """A table that holds still: each column as wide as the widest cell it has held."""
        if not self._hold:
            super()._fit_columns(force=force)
            return
        changed = False
        for key, _label in self._column_spec:
            column = self.columns.get(ColumnKey(key))
            want = self._natural.get(key, 0)
            if column is not None and column.content_width < want:
                column.content_width = want
                changed = True
        if changed or force:
            tc.table_redrawn_measured(self)
            self.refresh()

    def _update_column_widths(self, updated_cells: set) -> None:
        """DataTable re-measures a column from its cells when one gets shorter (`in progress`
        → `done`): a table that holds still keeps the widths it has held."""
        super()._update_column_widths(updated_cells)
        if self._hold:
            for key, _label in self._column_spec:
                column = self.columns.get(ColumnKey(key))
                if column is not None:
                    column.content_width = max(column.content_width, self._natural.get(key, 0))

    def set_labels(self, labels: dict[str, str]) -> None:
        """Header labels that change with the width or the data (`Blockers` → `Blk`), measured
        as shown (the columns are sized by `_column_spec`'s labels); unchanged labels are no
        work, so a screen may set them on every tick."""
        spec = tuple((key, labels.get(key, label)) for key, label in self._column_spec)
        if spec == self._column_spec:
            return
        self._column_spec = spec
        super().set_labels(labels)

    def on_resize(self) -> None:
        self.fit()

    def watch_show_vertical_scrollbar(self, _shown: bool) -> None:
        self.call_after_refresh(self.fit)

    def fit(self) -> None:
        """Give the flexible columns what the others leave (each at most its widest cell)."""
        width = self.scrollable_content_region.width
        if width <= 0 or not self.columns or not self._natural:
            return
        pad = 2 * self.cell_padding
        flex = [k for k in self._flex if ColumnKey(k) in self.columns]
        fixed = sum(n + pad for k, n in self._natural.items() if k not in flex)
        left = width - fixed - pad * len(flex)
        widths: dict[str, int] = {}
        # A column that wraps loses no text when narrow, one that is cut does: the cut ones
        # are served first, while each wrapping one keeps room for its longest word.
        cut = [k for k in flex if k not in self._wrap]
        wrapped = [k for k in flex if k in self._wrap]
        labels = dict(self._column_spec)  # a header does not wrap: it is kept whole too
        floor = {k: self._min_flex for k in cut} | {
            k: max(self._min_flex, self._longest_word.get(k, 0), cell_len(labels.get(k, "")))
            for k in wrapped
        }
        for group, room in ((cut, left - sum(floor[k] for k in wrapped)), (wrapped, None)):
            if room is None:
                room = left - sum(widths.values())
            # Fair shares: the narrowest first, each at most its widest cell; what one does
            # not need goes to the next.
            for n, key in enumerate(sorted(group, key=lambda k: self._natural.get(k, 0))):
                share = room // (len(group) - n)
                widths[key] = max(floor[key], min(self._natural.get(key, 0), share))
                room -= widths[key]
        changed = False
        for key, w in widths.items():
            column = self.columns[ColumnKey(key)]
            if column.auto_width or column.width != w:
                column.auto_width, column.width = False, w
                changed = True
        if self._fit_heights():
            changed = True
        if changed:
            tc.table_measure_later(self)
            self.refresh(layout=True)

    def _fit_heights(self) -> bool:
        """Each row as tall as its `wrap` cells need at their columns' widths; True when a
        row's height changed."""
        if not self._wrap:
            return False
        index = {key: i for i, (key, _) in enumerate(self._column_spec)}
        wrap = [(index[k], self.columns[ColumnKey(k)]) for k in self._wrap if k in index]
        console = self.app.console
        changed = False
        for row in self.ordered_rows:
            cells = self._cells.get(row.key.value or "", ())
            height = 1
            for i, column in wrap:
                cell = cells[i] if i < len(cells) else None
                if not isinstance(cell, Text) or not column.width:
                    continue
                if cell.cell_len > column.width or "\n" in cell.plain:
                    height = max(height, len(cell.wrap(console, column.width)))
            if row.height != height:
                row.height = height
                changed = True
        if changed:
            tc.table_forget_offsets(self)
        return changed

    def column_width(self, key: str) -> int:
        """The width a column is drawn at (tests)."""
        column = self.columns[ColumnKey(key)]
        return column.width if not column.auto_width else column.content_width


def _plain(cell: object) -> list[str]:
    return phrases.words(cell.plain if isinstance(cell, Text) else str(cell))


def _width(cell: object) -> int:
    if isinstance(cell, Text):
        return max((line.cell_len for line in cell.split("\n")), default=0)
    return cell_len(str(cell))
