"""A table on Textual's line API: rows are keys in an order, and a row is drawn only when it is
on screen, from its data, at that moment (`render_row_cell`), as Toolong draws files of
millions of lines. It holds no row objects, no cell renderables and no measurements: a row's
drawn line is cached until its data, its place (cursor, hover, stripe) or the layout changes,
so a change to one row draws that row alone and moving the cursor draws two.

It looks and answers like Textual's `DataTable` with a row cursor (the same component classes,
CSS, keys, mouse and segments, drawn by `RowPainter`, so a screen drawn with it is the same on
screen and in a snapshot): a header row (a click on it posts `HeaderSelected`), zebra
stripes, a cursor (`RowHighlighted` when it moves, `RowSelected` on Enter or a click on the
cursor row), the hover row under the mouse. Columns are given, not measured (`set_columns`).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.console import RenderableType
from rich.text import Text
from textual import events
from textual.binding import BindingType
from textual.geometry import Region, Size, Spacing, clamp
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ocr_tui.ui.widgets import line_table_look as look
from ocr_tui.ui.widgets.line_table_keys import LineTableKeys
from ocr_tui.ui.widgets.row_painter import HEADER, RowPainter


@dataclass
class LineColumn:
    """A column: its key, header and content width; `hidden` ones are drawn zero wide."""

    key: str
    label: Text
    width: int
    hidden: bool = False

    def get_render_width(self, table: LineTable) -> int:
        return 0 if self.hidden else self.width + 2 * table.cell_padding


class LineTable(LineTableKeys, ScrollView, can_focus=True):
    """Rows of `render_row_cell(row_key, column_key)`, in the order of `row_keys`; a
    subclass keeps both (calling `rows_changed` / `rows_reordered` / `refresh_row_key`)."""

    # DataTable's keys, under DataTable's names (the help shows Textual's own keys as such),
    # its component classes and its CSS, for the same look (`line_table_look`).
    TEXTUAL_KEYS = True
    BINDINGS: ClassVar[list[BindingType]] = look.BINDINGS
    COMPONENT_CLASSES: ClassVar[set[str]] = look.COMPONENT_CLASSES
    DEFAULT_CSS = look.CSS

    class RowHighlighted(Message):
        """The cursor moved to the row `row_key` (at `row_index`)."""

        def __init__(self, table: LineTable, row_index: int, row_key: str) -> None:
            super().__init__()
            self.table, self.row_index, self.row_key = table, row_index, row_key

        @property
        def control(self) -> LineTable:
            return self.table

    class RowSelected(RowHighlighted):
        """Enter, or a click on the cursor row."""

    class HeaderSelected(Message):
        """A click on the header of column `column_key`."""

        def __init__(self, table: LineTable, column_key: str, column_index: int) -> None:
            super().__init__()
            self.table, self.column_key, self.column_index = table, column_key, column_index

        @property
        def control(self) -> LineTable:
            return self.table

    cursor_row: reactive[int] = reactive(0, repaint=False, always_update=False)
    show_header = True
    header_height = 1
    cell_padding = 1
    zebra_stripes = True
    show_cursor = True
    cursor_type = "row"

    def __init__(self, *, id: str | None = None, zebra_stripes: bool = True) -> None:
        super().__init__(id=id)
        self.zebra_stripes = zebra_stripes
        self.columns: dict[str, LineColumn] = {}
        self.row_keys: list[str] = []
        self._row_index: dict[str, int] = {}
        self.hover_row = 0
        self._show_hover_cursor = False
        self._painter = RowPainter(self)  # draws the rows and keeps what it drew

    # -- rows -------------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self.row_keys)

    def get_row_index(self, row_key: str) -> int:
        """The row's place (KeyError when it is not a row)."""
        if (index := self.index_of(row_key)) is None:
            raise KeyError(row_key)
        return index

    def index_of(self, row_key: str) -> int | None:
        return self._row_index.get(row_key)  # (None: not a row)

    def render_row_cell(self, row_key: str, column_key: str) -> RenderableType:
        """What row `row_key` shows in column `column_key` (drawn one line high)."""
        raise NotImplementedError

    def row_cell_data(self, row_key: str, column_key: str) -> Hashable | None:
        """What `render_row_cell` draws, as data: a cell whose data, place and width are
        those it was drawn with is not drawn again (None: always drawn). Whatever else
        changes what a cell looks like must `clear_drawn`."""
        return None

    def rows_changed(self, row_keys: Sequence[str], moved: Collection[str] = ()) -> None:
        """The rows are `row_keys` now (some added, removed or moved: `moved`, the rows whose
        data changed, may have). The view holds still: at the top, it stays at the top (the
        rows added above are shown); scrolled, the first row in view that did not move stays
        on its line (rows added or removed above it shift the scroll, not the screen). The
        cursor is not followed here: a new order is not a user's move (`keep_cursor_on`)."""
        page = self.page_keys()
        self.row_keys = list(row_keys)
        self._row_index = {key: i for i, key in enumerate(self.row_keys)}
        self.rows_placed(page, moved)

    def page_keys(self) -> list[str]:
        """The rows in view when scrolled (at the top: none), which `rows_placed` holds."""
        top = int(self.scroll_y)
        return self.row_keys[top : top + max(1, self._page())] if top else []

    def rows_placed(self, page: Sequence[str], moved: Collection[str] = ()) -> None:
        """`row_keys` changed from an order with `page` in view (`page_keys`): the first of
        those still listed and not `moved` keeps its line (`rows_changed`)."""
        top = int(self.scroll_y)
        self._update_virtual_size()
        moved = set(moved)
        for line, key in enumerate(page):
            if key not in moved and (index := self.index_of(key)) is not None:
                top = index - line
                break
        top = max(0, min(top, self.max_scroll_y))
        if top != int(self.scroll_y):
            self.scroll_to(y=top, animate=False, force=True)
        if self.cursor_row >= self.row_count:
            self.keep_cursor_on(max(0, self.row_count - 1))
        self.refresh()  # the drawn rows are kept: they are found by key

    def refresh_row_key(self, row_key: str) -> None:
        """Row `row_key`'s data changed: draw it (alone) again."""
        self._painter.forget(row_key)
        if (index := self.index_of(row_key)) is not None:
            self.refresh_row(index)

    def set_columns(self, columns: Sequence[LineColumn]) -> None:
        """The columns (all of them, hidden ones drawn zero wide), in order."""
        self.columns = {column.key: column for column in columns}
        self.clear_drawn()
        self._update_virtual_size()

    def clear_drawn(self) -> None:
        """Every row is drawn anew (the layout or the styles changed)."""
        self._painter.clear()
        self.refresh()

    def _update_virtual_size(self) -> None:
        width = sum(column.get_render_width(self) for column in self.columns.values())
        header = self.header_height if self.show_header else 0
        self.virtual_size = Size(width, self.row_count + header)

    # -- the cursor -------------------------------------------------------------------------

    def validate_cursor_row(self, row: int) -> int:
        return clamp(row, 0, max(0, self.row_count - 1))

    _cursor_scrolls = True  # (False while `keep_cursor_on` moves it)

    def watch_cursor_row(self, old: int, new: int) -> None:
        if old != new:
            self.refresh_row(old)
            self._highlight_row(new)
            if self._cursor_scrolls:
                self._scroll_cursor_into_view()

    def keep_cursor_on(self, row: int) -> None:
        """The cursor's row moved with the data (rows added or removed above it): the cursor
        follows it without scrolling, so the view holds still (it may leave the screen; the
        next key that moves the cursor brings it back into view)."""
        self._cursor_scrolls = False
        try:
            self.cursor_row = row
        finally:
            self._cursor_scrolls = True

    def move_cursor(
        self, *, row: int | None = None, animate: bool = False, scroll: bool = True
    ) -> None:
        if scroll:
            self._scroll_cursor_into_view(animate=animate, row=row)
        if row is not None:
            self.cursor_row = row

    def _highlight_row(self, row: int) -> None:
        self.refresh_row(row)
        if row < self.row_count:
            self.post_message(self.RowHighlighted(self, row, self.row_keys[row]))

    def _row_region(self, row: int) -> Region:
        width = sum(column.get_render_width(self) for column in self.columns.values())
        y = row + (self.header_height if self.show_header else 0)
        return Region(0, y, max(self.size.width, width), 1)

    def refresh_row(self, row: int) -> None:
        """Repaint row `row` if it is on screen (a row off screen is drawn when shown)."""
        top = int(self.scroll_y)
        if 0 <= row < self.row_count and top <= row < top + self.size.height:
            self.refresh(self._row_region(row).translate(-self.scroll_offset))

    def _scroll_cursor_into_view(self, animate: bool = False, row: int | None = None) -> None:
        top = self.header_height if self.show_header else 0
        _, y, width, height = self._row_region(self.cursor_row if row is None else row)
        region = Region(int(self.scroll_x), y, width, height)
        self.scroll_to_region(region, animate=animate, spacing=Spacing(top, 0, 0, 0), force=True)

    # -- the mouse --------------------------------------------------------------------------

    def _on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover_cursor(True)
        meta = event.style.meta
        if not meta:
            self._set_hover_cursor(False)
            return
        row = self.row_at(event)
        if row is not None and row != self.hover_row:
            old, self.hover_row = self.hover_row, row
            self.refresh_row(old)
            self.refresh_row(row)

    def _on_leave(self, _event: events.Leave) -> None:
        self._set_hover_cursor(False)

    async def _on_click(self, event: events.Click) -> None:
        self._set_hover_cursor(True)
        meta = event.style.meta
        row, column = self.row_at(event), meta.get("column")
        if row is None or not isinstance(column, int):
            return
        if row == HEADER:
            keys = list(self.columns)
            if 0 <= column < len(keys):
                self.post_message(self.HeaderSelected(self, keys[column], column))
            return
        if 0 <= row < self.row_count:
            selected = row == self.cursor_row
            self.cursor_row = row
            if selected:
                self.action_select_cursor()
            self._scroll_cursor_into_view(animate=True)
            event.stop()

    # -- drawing ----------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self.clear_drawn()

    def _on_resize(self, _event: events.Resize) -> None:
        self.clear_drawn()

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        scroll_x, scroll_y = self.scroll_offset
        header = self.header_height if self.show_header else 0
        if y < header:
            row = HEADER
        else:
            row = y + scroll_y - header
            if row >= self.row_count:
                return Strip.blank(width, self.rich_style)
        return self._painter.line(row, scroll_x, scroll_x + width)

    def _draw(self, row: int, key: str | None, x1: int, x2: int) -> Strip:
        """The row's line, drawn (not from the cache)."""
        return self._painter.draw(row, key, x1, x2)
