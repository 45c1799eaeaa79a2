"""The keys of a `LineTable`, as `DataTable` answers them (the cursor up and down, a page, the
top and the bottom, left and right, Enter: `RowSelected`), and the row under the pointer. A key
hides the hover row."""

from __future__ import annotations

from textual import events

from ocr_tui.ui.widgets.row_painter import HEADER


class LineTableKeys:
    """The actions of `line_table_look.BINDINGS` and the pointer's row: a mixin of `LineTable`,
    whose cursor, rows and scrolling they move (`self` is the table)."""

    def _set_hover_cursor(self, active: bool) -> None:
        self._show_hover_cursor = active
        self.refresh_row(self.hover_row)

    def row_at(self, event: events.MouseEvent) -> int | None:
        """The row under the mouse (HEADER for the header), by its line, as `render_line`
        lays rows out now: right however rows came, went or moved. (Drawn cells do not say
        their row: a style naming a session was a new style per session created, which
        Rich's and Textual's style caches kept; `RowPainter.draw`.)"""
        offset = event.get_content_offset(self)
        if offset is None:
            return None
        header = self.header_height if self.show_header else 0
        if offset.y < header:
            return HEADER
        row = offset.y + self.scroll_offset.y - header
        return row if 0 <= row < self.row_count else None

    def action_cursor_up(self) -> None:
        self._set_hover_cursor(False)
        self.cursor_row -= 1

    def action_cursor_down(self) -> None:
        self._set_hover_cursor(False)
        self.cursor_row += 1

    def action_cursor_right(self) -> None:
        self._set_hover_cursor(False)
        self.action_scroll_right()

    def action_cursor_left(self) -> None:
        self._set_hover_cursor(False)
        self.action_scroll_left()

    def _page(self) -> int:
        return self.scrollable_content_region.height - (
            self.header_height if self.show_header else 0
        )

    def action_page_down(self) -> None:
        self._set_hover_cursor(False)
        height = self._page()
        rows = min(height + 1, self.row_count - self.cursor_row)
        target = self.cursor_row + rows - 1
        self.scroll_relative(y=height, animate=False, force=True)
        self.move_cursor(row=target, scroll=False)

    def action_page_up(self) -> None:
        self._set_hover_cursor(False)
        height = self._page()
        rows = min(height + 1, self.cursor_row + 1)
        target = self.cursor_row - rows + 1
        self.scroll_relative(y=-height, animate=False)
        self.move_cursor(row=target, scroll=False)

    def action_scroll_top(self) -> None:
        self._set_hover_cursor(False)
        self.cursor_row = 0

    def action_scroll_bottom(self) -> None:
        self._set_hover_cursor(False)
        self.cursor_row = self.row_count - 1

    def action_scroll_home(self) -> None:
        self._set_hover_cursor(False)
        self.scroll_x = 0

    def action_scroll_end(self) -> None:
        self._set_hover_cursor(False)
        self.scroll_x = self.max_scroll_x

    def action_select_cursor(self) -> None:
        self._set_hover_cursor(False)
        if self.row_count:
            row = self.cursor_row
            self.post_message(self.RowSelected(self, row, self.row_keys[row]))
