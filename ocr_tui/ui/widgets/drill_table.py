"""A row-cursor DataTable for drill-down lists: Enter opens, j/k move, rows update in place.

Cells must be `rich.text.Text` (or numbers), never `str`: DataTable parses strings as markup,
and the text here comes from disk.

Row keys come from disk too (paths, names, step keys), and two of them can be one string after
normalising (two reviewer files whose names differ only in bytes that are not UTF-8, two
delegations with one id). DataTable raises `DuplicateKey` on the second: `sync_rows` shows
every row, under `unique_keys`, and `key_of` / `selected_key` give back the key a row was given.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable
from textual.widgets.data_table import ColumnKey

from ocr_tui.ui import textual_compat as tc


def unique_keys(keys: Sequence[str]) -> list[str]:
    """`keys` with each repeat made unique: `a, a` -> `a, a#2` (a counter that no other key in
    `keys` has, so a real `a#2` keeps its own key)."""
    taken = set(keys)
    seen: set[str] = set()
    out = []
    for key in keys:
        if key in seen:
            n = 2
            while f"{key}#{n}" in taken:
                n += 1
            key = f"{key}#{n}"
            taken.add(key)
        seen.add(key)
        out.append(key)
    return out


def selected_key(event: DataTable.RowSelected) -> str | None:
    """The key the selected row was given (for a DrillTable, before `unique_keys`)."""
    table = event.data_table
    value = event.row_key.value
    return table.key_of(value) if isinstance(table, DrillTable) else value


class DrillTable(DataTable):
    BINDINGS = [
        Binding("enter", "select_cursor", "Open"),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
        Binding("g", "scroll_top", "First", show=False),
        Binding("G", "scroll_bottom", "Last", show=False),
    ]

    def __init__(
        self,
        columns: Sequence[tuple[str, str]],
        *,
        id: str | None = None,
        classes: str | None = None,
        show_header: bool = True,
    ) -> None:
        super().__init__(
            id=id,
            classes=classes,
            cursor_type="row",
            zebra_stripes=False,
            show_header=show_header,
        )
        self._column_spec = tuple(columns)  # (key, label)
        self._cells: dict[str, tuple] = {}
        self._given: dict[str, str] = {}  # row key -> the key `sync_rows` was given

    def on_mount(self) -> None:
        if not self.columns:
            for key, label in self._column_spec:
                self.add_column(label, key=key)

    def action_scroll_top(self) -> None:
        if self.row_count:
            self.move_cursor(row=0)

    def action_scroll_bottom(self) -> None:
        if self.row_count:
            self.move_cursor(row=self.row_count - 1)

    @property
    def row_keys(self) -> list[str]:
        return [row.key.value for row in self.ordered_rows if row.key.value is not None]

    @property
    def cursor_key(self) -> str | None:
        if not self.row_count:
            return None
        row = min(max(self.cursor_row, 0), self.row_count - 1)
        return self.ordered_rows[row].key.value

    def key_of(self, row_key: str | None) -> str | None:
        """The key a row was given to `sync_rows` (two rows can share one)."""
        return self._given.get(row_key, row_key) if row_key is not None else None

    def _update_dimensions(self, new_rows) -> None:
        """Textual measures new rows when idle, after they may have been drawn (and cached)
        at the old column widths: when a width changed, nothing drawn before may be reused
        (a table filled by a worker after its first frame kept a header of label widths)."""
        before = [c.content_width for c in self.columns.values()]
        super()._update_dimensions(new_rows)
        if [c.content_width for c in self.columns.values()] != before:
            tc.table_draws_anew(self)
            self.refresh()

    def _fit_columns(self, *, force: bool = False) -> None:
        """Columns as wide as their widest cell now (DataTable only ever widens them: a cell
        that got shorter left its column wide, and a horizontal scrollbar with it)."""
        changed = False
        for i, (key, _label) in enumerate(self._column_spec):
            column = self.columns.get(ColumnKey(key))
            if column is None:
                continue
            widths = [_cell_width(cells[i]) for cells in self._cells.values() if i < len(cells)]
            want = max([column.label.cell_len, *widths])
            if want != column.content_width:
                column.content_width = want
                changed = True
        if changed or force:
            tc.table_redrawn_measured(self)
            self.refresh()

    def set_labels(self, labels: dict[str, str]) -> None:
        """New header labels for some columns (by key), e.g. shorter ones in a narrow terminal;
        the columns are measured again."""
        for key, label in labels.items():
            column = self.columns.get(ColumnKey(key))
            if column is not None:
                column.label = Text(label)
        self._fit_columns(force=True)

    def sync_rows(self, rows: Sequence[tuple[str, Sequence]]) -> None:
        """Show `rows` (`(key, cells)`), changing only what changed. The cursor stays on the
        same key (or at the same position if its row went away). Rows with one key are all
        shown (see `unique_keys`)."""
        if not self.columns:
            self.on_mount()
        given = [key for key, _ in rows]
        keys = unique_keys(given)
        self._given = {k: g for k, g in zip(keys, given, strict=True) if k != g}
        rows = [(key, cells) for key, (_, cells) in zip(keys, rows, strict=True)]
        if keys == self.row_keys:
            for key, cells in rows:
                cells = tuple(cells)
                old = self._cells.get(key)
                if old == cells:
                    continue
                for i, (col, _) in enumerate(self._column_spec):
                    if old is None or i >= len(old) or old[i] != cells[i]:
                        self.update_cell(key, col, cells[i], update_width=True)
                self._cells[key] = cells
            self._fit_columns()
            return
        cursor_key = self.cursor_key
        cursor_row = self.cursor_row
        self.clear()
        self._cells = {}
        for column in self.columns.values():  # measured anew from the rows below: a
            column.content_width = column.label.cell_len  # column never shrinks by itself
        for key, cells in rows:
            cells = tuple(cells)
            self.add_row(*cells, key=key)
            self._cells[key] = cells
        if not rows:
            return
        target = keys.index(cursor_key) if cursor_key in keys else min(cursor_row, len(keys) - 1)
        self.move_cursor(row=max(target, 0), animate=False)


def _cell_width(cell: object) -> int:
    """A cell's width in terminal cells (its longest line): a Text, or a number."""
    if isinstance(cell, Text):
        return max((line.cell_len for line in cell.split("\n")), default=0)
    return cell_len(str(cell))
