"""How a `LineTable` draws a row: as Textual's DataTable draws it, segment for segment (the
same component styles, meta, padding and cropping), so a screen drawn with either is the same
on screen and in a snapshot; and what it keeps of what it drew.

Each row's line is kept, by row key, with what it was drawn for (its stripe, cursor, hover,
the table's pseudo-classes and width): moving the cursor draws two rows, a new order none.
Each cell's segments are kept by the cell's data (`row_cell_data`) and place: a row whose
data changed draws only the cells that changed. `clear` forgets everything (the layout, the
styles or the theme changed).
"""

from __future__ import annotations

from itertools import chain
from typing import Any

from rich.console import RenderableType
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from textual._segment_tools import line_crop
from textual.cache import LRUCache
from textual.renderables.styled import Styled
from textual.strip import Strip

HEADER = -1  # the header's row index (DataTable's)


class RowPainter:
    def __init__(self, table: Any) -> None:  # a LineTable (which imports this module)
        self.table = table
        # the drawn line of each row (by key) and of the header, with what it was drawn for
        self._strips: LRUCache[str | None, tuple[tuple, Strip]] = LRUCache(1024)
        # each drawn cell's segments, by its data and place
        self._cells: LRUCache[tuple, list[Segment]] = LRUCache(8192)
        self._styles: dict[tuple[bool, bool, bool], tuple[Style, Style]] = {}

    def clear(self) -> None:
        self._strips.clear()
        self._cells.clear()
        self._styles.clear()

    def forget(self, row_key: str) -> None:
        """Row `row_key`'s data changed (or it is gone)."""
        self._strips.discard(row_key)

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
        cached = self._strips.get(key)
        if cached is not None and cached[0] == state:
            return cached[1]
        strip = table._draw(row, key, x1, x2)
        self._strips[key] = (state, strip)
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
        drawn = self._cells
        # A row's cells say which row they are by its key, not its place (the mouse finds it
        # by `LineTable.row_at`): a row kept drawn while others come and go above it stays
        # right, as its stripe, cursor and hover are in its line's state (`line`).
        where = {"row": HEADER} if header else {"key": key}
        place = (key, row_style, component, post, table.get_pseudo_class_state())
        for index, column in enumerate(table.columns.values()):
            width = column.get_render_width(table)
            if not width:
                continue
            data = None if header or key is None else table.row_cell_data(key, column.key)
            cache_key = (data, index, width, place) if data is not None else None
            if cache_key is not None:
                segments = drawn.get(cache_key)
                if segments is not None:
                    cells.append(segments)
                    continue
            if header:
                renderable: RenderableType = column.label
            else:
                assert key is not None
                renderable = table.render_row_cell(key, column.key)
            pre = row_style + Style.from_meta({**where, "column": index}) + component
            lines = console.render_lines(
                Styled(Padding(renderable, padding), pre_style=pre, post_style=post),
                options.update_dimensions(width, 1).update(no_wrap=True),
            )
            cells.append(lines[0])
            if cache_key is not None:
                drawn[cache_key] = lines[0]
        table_width = sum(column.get_render_width(table) for column in table.columns.values())
        extend, _ = self.cell_styles(header, hover, row == table.cursor_row)
        extend = row_style + extend
        extend += Style.from_meta({**where, "column": 0, "out_of_bounds": True})
        width = table.size.width
        cells.append([Segment(" " * max(0, width - table_width), extend)])
        line = list(chain.from_iterable(cells))
        return (
            Strip(line_crop(line, x1, x2, width))
            .adjust_cell_length(width, table.rich_style)
            .simplify()
        )
