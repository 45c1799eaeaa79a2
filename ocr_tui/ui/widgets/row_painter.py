"""How a `LineTable` draws a row: as Textual's DataTable draws it, segment for segment (the
same component styles, meta, padding and cropping), so a screen drawn with either is the same
on screen and in a snapshot; and what it keeps of what it drew.

What is kept is by row key, one record per row (`Drawn`): the row's line, with what it was
drawn for (its stripe, cursor, hover, the table's pseudo-classes and width), so moving the
cursor draws two rows and a new order none; and its cells' segments, each with the data
(`row_cell_data`) and width it was drawn for, by column and look (stripe, cursor, hover), so
a row whose data changed draws only the cells that changed, and a new version of a cell
replaces the old. Records are kept for the rows on screen and a few beside it only: past
`a page + 3 * SPARE` records, those of rows further off (or no longer rows) are dropped
(`_trim`). What is kept so depends on the screen's height, never on how many rows changed or
came and went (an LRU of every version of every cell grew to 8,192 cells; then
three pages of records, each row's strip with the pieces Textual's compositor cut it into,
held ~3.5x what a fresh start draws while new sessions pushed rows off the screen). `clear`
forgets everything (the layout, the styles or the theme changed).
"""

from __future__ import annotations

from collections.abc import Hashable
from itertools import chain
from typing import Any

from rich.console import RenderableType
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.renderables.styled import Styled
from textual.strip import Strip

from ocr_tui.ui.textual_compat import line_crop

HEADER = -1  # the header's row index (DataTable's)
SPARE = 8  # rows kept above and below the screen (and records kept before a trim)


class Drawn:
    """What was drawn of one row: its line (and what for), its cells (and what for)."""

    __slots__ = ("state", "strip", "cells")

    def __init__(self) -> None:
        self.state: tuple | None = None
        self.strip: Strip | None = None
        # by (column index, the row's look): (the cell's data, its width, its segments)
        self.cells: dict[tuple, tuple[Hashable, int, list[Segment]]] = {}


class RowPainter:
    def __init__(self, table: Any) -> None:  # a LineTable (which imports this module)
        self.table = table
        self._rows: dict[str | None, Drawn] = {}  # by row key (None: the header)
        self._styles: dict[tuple[bool, bool, bool], tuple[Style, Style]] = {}

    def clear(self) -> None:
        self._rows.clear()
        self._styles.clear()

    def forget(self, row_key: str) -> None:
        """Row `row_key`'s data changed (or it is gone): its line is drawn anew, its cells
        whose data did not change are not."""
        drawn = self._rows.get(row_key)
        if drawn is not None:
            drawn.state = drawn.strip = None

    def kept(self) -> int:
        """How many rows' records are kept (tests)."""
        return len(self._rows)

    def _record(self, key: str | None) -> Drawn:
        drawn = self._rows.get(key)
        if drawn is None:
            self._rows[key] = drawn = Drawn()
            self._trim()
        return drawn

    def _trim(self) -> None:
        """Past a page and 3 SPARE of records, keep those of the rows from SPARE above the
        screen to SPARE below it (and the header's): the others are rows scrolled or pushed
        off, or gone. (Paging draws the rows it brings on screen, as a fresh start does.)"""
        table = self.table
        page = max(1, table.size.height)
        if len(self._rows) <= page + 3 * SPARE:
            return
        top = int(table.scroll_y)
        near = set(table.row_keys[max(0, top - SPARE) : top + page + SPARE])
        near.add(None)
        self._rows = {key: drawn for key, drawn in self._rows.items() if key in near}

    def line(self, row: int, x1: int, x2: int) -> Strip:
        """Row `row`'s line (HEADER: the header's), cropped to `x1`..`x2`."""
        table = self.table
        key = None if row == HEADER else table.row_keys[row]
        state = (
            row % 2,
            row == table.cursor_row,
            row == table.hover_row and table._show_hover_cursor,
            table.get_pseudo_class_state(),
            table.size.width,
            x1,
            x2,
        )
        drawn = self._rows.get(key)
        if drawn is not None and drawn.strip is not None and drawn.state == state:
            return drawn.strip
        strip = table._draw(row, key, x1, x2)
        drawn = self._record(key)
        drawn.state, drawn.strip = state, strip
        return strip

    def row_style(self, row: int) -> Style:
        table = self.table
        if row == HEADER:
            return table.get_component_styles("datatable--header").rich_style
        if table.zebra_stripes:
            name = "datatable--odd-row" if row % 2 else "datatable--even-row"
            return table.get_component_styles(name).rich_style
        return table.rich_style

    def cell_styles(self, header: bool, hover: bool, cursor: bool) -> tuple[Style, Style]:
        """(the component style, the style laid over the cell's own): DataTable's."""
        styles = self._styles.get((header, hover, cursor))
        if styles is not None:
            return styles
        get = self.table.get_component_rich_style
        component = Style()
        if hover:
            component += get("datatable--hover")
            if header:
                component += get("datatable--header-hover")
        if cursor:
            component += get("datatable--cursor")
            if header:
                component += get("datatable--header-cursor")
        post = Style.from_color(color=component.color) + Style.from_color(bgcolor=component.bgcolor)
        self._styles[header, hover, cursor] = styles = (component, post)
        return styles

    def draw(self, row: int, key: str | None, x1: int, x2: int) -> Strip:
        """The row's line as DataTable draws it (its cells from the cache where they are)."""
        table = self.table
        header = row == HEADER
        cursor = not header and row == table.cursor_row
        hover = row == table.hover_row and table._show_hover_cursor
        row_style = self.row_style(row)
        component, post = self.cell_styles(header, hover, cursor)
        console = table.app.console
        options = table.app.console_options
        padding = (0, table.cell_padding)
        cells: list[list[Segment]] = []
        kept = self._record(key).cells
        # A row's cells say their column only, never their row (the mouse finds the row by its
        # line, `LineTable.row_at`): a style naming a session was a new style per session
        # created, kept by Rich's and Textual's style caches (`Strip.render_ansi` holds
        # 16,384) long after the session left the screen. So the styles drawn are
        # bounded by the columns and looks, and a row kept drawn while others come and go
        # above it stays right, its stripe, cursor and hover being in its line's state.
        look = (row_style, component, post, table.get_pseudo_class_state())
        for index, column in enumerate(table.columns.values()):
            width = column.get_render_width(table)
            if not width:
                continue
            data = None if header or key is None else table.row_cell_data(key, column.key)
            if data is not None:
                hit = kept.get((index, look))
                if hit is not None and hit[1] == width and hit[0] == data:
                    cells.append(hit[2])
                    continue
            if header:
                renderable: RenderableType = column.label
            else:
                assert key is not None
                renderable = table.render_row_cell(key, column.key)
            pre = row_style + Style.from_meta({"column": index}) + component
            line = plain_cell(renderable, width, table.cell_padding, pre, post)
            if line is None:
                line = console.render_lines(
                    Styled(Padding(renderable, padding), pre_style=pre, post_style=post),
                    options.update_dimensions(width, 1).update(no_wrap=True),
                )[0]
            cells.append(line)
            if data is not None:  # (a new version of the cell replaces the old)
                kept[index, look] = (data, width, line)
        table_width = sum(column.get_render_width(table) for column in table.columns.values())
        extend, _ = self.cell_styles(header, hover, row == table.cursor_row)
        extend = row_style + extend
        extend += Style.from_meta({"column": 0, "out_of_bounds": True})
        width = table.size.width
        cells.append([Segment(" " * max(0, width - table_width), extend)])
        line = list(chain.from_iterable(cells))
        return (
            Strip(line_crop(line, x1, x2, width))
            .adjust_cell_length(width, table.rich_style)
            .simplify()
        )


def plain_cell(
    renderable: RenderableType, width: int, pad: int, pre: Style, post: Style
) -> list[Segment] | None:
    """A cell that is a plain `Text` fitting its column, as Rich draws it (`Styled`,
    `Padding`, one line): its runs in their styles between `pre` and `post`, padded, without
    Rich's rendering (a tenth of its cost). A `Text` subclass that draws itself otherwise says
    what plain Text it draws (`plain_form(width)`; None: Rich's way). None for any other cell
    (a longer text is cut with an ellipsis, by Rich)."""
    inner = width - 2 * pad
    if type(renderable) is not Text:
        plain_form = getattr(renderable, "plain_form", None)
        renderable = plain_form(inner) if plain_form is not None else None
        if renderable is None:
            return None
    base = renderable.style or Style.null()
    if not isinstance(base, Style) or renderable.cell_len > inner:
        return None  # (a style by name, or too long: Rich's way)
    plain, edge = renderable.plain, pre + base + post
    out = [Segment(" " * pad, pre + post)] if pad else []
    at = 0
    for start, end, style in renderable.spans:
        if start < at or not isinstance(style, Style):
            return None  # (spans that overlap, or name a style: Rich's way)
        if start > at:
            out.append(Segment(plain[at:start], edge))
        if end > start:
            out.append(Segment(plain[start:end], pre + (base + style) + post))
        at = max(at, end)
    if at < len(plain):
        out.append(Segment(plain[at:], edge))
    fill = width - pad - renderable.cell_len
    if fill:
        out.append(Segment(" " * fill, pre + post))
    return out
