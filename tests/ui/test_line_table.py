"""The session list's table on the line API, driven by keys and the mouse:
it answers like DataTable with a row cursor, and draws only rows on screen."""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult

from ocr_tui.ui.widgets.line_table import LineColumn, LineTable

from .builders import wait_until


class Numbers(LineTable):
    def __init__(self, n: int) -> None:
        super().__init__(id="numbers")
        self.set_columns([LineColumn("n", Text("Number"), 8), LineColumn("sq", Text("Square"), 8)])
        self.drawn: list[int] = []
        self.rows_changed([str(i) for i in range(n)])

    def render_row_cell(self, row_key: str, column_key: str) -> Text:
        n = int(row_key)
        return Text(str(n if column_key == "n" else n * n))

    def _draw(self, row, *args, **kw):
        self.drawn.append(row)
        return super()._draw(row, *args, **kw)


class NumbersApp(App[None]):
    def __init__(self, n: int) -> None:
        super().__init__()
        self.n = n
        self.events: list[tuple[str, str]] = []

    def compose(self) -> ComposeResult:
        yield Numbers(self.n)

    def on_line_table_row_highlighted(self, event: LineTable.RowHighlighted) -> None:
        self.events.append(("highlighted", event.row_key))

    def on_line_table_row_selected(self, event: LineTable.RowSelected) -> None:
        self.events.append(("selected", event.row_key))

    def on_line_table_header_selected(self, event: LineTable.HeaderSelected) -> None:
        self.events.append(("header", event.column_key))


async def test_keys_move_the_cursor_and_page() -> None:
    app = NumbersApp(10_000)
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(Numbers)
        table.focus()
        await pilot.press("down", "down")
        assert table.cursor_row == 2
        await pilot.press("up")
        assert table.cursor_row == 1
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: ("selected", "1") in app.events,
            what="the table to report row 1 selected",
        )
        await pilot.press("pagedown")
        assert table.cursor_row > 5 and table.scroll_offset.y > 0
        await pilot.press("ctrl+end")
        await wait_until(
            pilot, lambda: table.cursor_row == 9_999, what="the cursor to reach the last row"
        )
        await pilot.pause()
        assert "9999" in table.render_line(table.size.height - 1).text
        await pilot.press("ctrl+home")
        await wait_until(
            pilot,
            lambda: table.cursor_row == 0 and table.scroll_offset.y == 0,
            what="the cursor and scroll to be back at the top",
        )
        assert ("highlighted", "9999") in app.events


async def test_only_rows_on_screen_are_drawn() -> None:
    app = NumbersApp(10_000)
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(Numbers)
        await pilot.pause()
        assert table.drawn and max(table.drawn) < 12  # 10,000 rows, a screenful drawn
        table.drawn.clear()
        table.refresh_row_key("3")  # one row's data changed
        await pilot.pause()
        assert set(table.drawn) == {3}


async def test_mouse_moves_selects_and_sorts() -> None:
    app = NumbersApp(20)
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(Numbers)
        await pilot.click("#numbers", offset=(2, 4))  # row 3 (under the header)
        assert table.cursor_row == 3
        assert ("selected", "3") not in app.events
        await pilot.click("#numbers", offset=(2, 4))  # the cursor row again: opens it
        await wait_until(
            pilot,
            lambda: ("selected", "3") in app.events,
            what="the table to report row 3 selected",
        )
        await pilot.click("#numbers", offset=(12, 0))  # the second column's header
        await wait_until(
            pilot,
            lambda: ("header", "sq") in app.events,
            what="the table to report a click on the sq header",
        )
        await pilot.hover("#numbers", offset=(2, 6))
        await wait_until(
            pilot,
            lambda: table.hover_row == 5 and table._show_hover_cursor,
            what="the hover cursor to show on row 5",
        )
