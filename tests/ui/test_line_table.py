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


class Versions(LineTable):
    """Rows whose cells are data (`row_cell_data`: drawn once per version), renewed and
    replaced by new rows as a test goes, as sessions are."""

    def __init__(self, n: int) -> None:
        super().__init__(id="versions")
        self.set_columns([LineColumn("k", Text("Key"), 8), LineColumn("v", Text("Version"), 8)])
        self.version: dict[str, int] = {str(i): 0 for i in range(n)}
        self.rows_changed(list(self.version))

    def row_cell_data(self, row_key: str, column_key: str) -> tuple[str, int]:
        return (row_key, self.version[row_key]) if column_key == "v" else (row_key, 0)

    def render_row_cell(self, row_key: str, column_key: str) -> Text:
        return Text(row_key if column_key == "k" else f"v{self.version[row_key]}")


async def test_what_is_kept_drawn_depends_on_the_screen_not_on_changes() -> None:
    """Bounded memory: every version of every cell drawn was kept (an LRU of
    8,192 cells, and 1,024 lines by row key, filled by changes and by rows come and gone).
    Now one record per row near the screen, each cell's newest version in it."""

    class VersionsApp(App[None]):
        def compose(self) -> ComposeResult:
            yield Versions(100)

    app = VersionsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(Versions)
        painter = table._painter
        bound = table.size.height + 3 * 8  # the screen and a few rows beside it
        for k in range(300):
            key = table.row_keys[k % 5]
            table.version[key] += 1  # a row on screen changes
            table.refresh_row_key(key)
            if k % 3 == 0:  # a new row at the top, the oldest gone (a session created)
                new = f"n{k}"
                table.version[new] = 0
                del table.version[table.row_keys[-1]]
                table.rows_changed([new, *table.row_keys[:-1]])
            await pilot.pause()
            y = 1 + table.get_row_index(key)  # (under the header)
            assert f"v{table.version[key]}" in table.render_line(y).text.split()
        assert painter.kept() <= bound
        looks = 4  # a row's stripe, cursor, hover and focus: at most a few looks a cell
        assert all(len(d.cells) <= 2 * looks for d in painter._rows.values())
        await pilot.press("ctrl+end")  # every row scrolled past
        await wait_until(
            pilot,
            lambda: table.scroll_offset.y == table.max_scroll_y,
            what="the table scrolled to its last row",
        )
        await pilot.pause()
        assert painter.kept() <= bound
        assert set(painter._rows) <= {None, *table.row_keys}


async def test_drawn_styles_do_not_grow_with_rows_come_and_gone() -> None:
    """Bounded memory: a drawn cell's style named its row's key, so every session
    created made new styles, which Rich's and Textual's global caches kept (`Strip.render_ansi`
    holds 16,384 of them). Now cells say their column only and the mouse finds the row by its
    line: 200 rows created and as many gone draw the styles the first 20 drew, and a click
    still picks the row shown where it was clicked."""

    class VersionsApp(App[None]):
        def compose(self) -> ComposeResult:
            yield Versions(30)

    app = VersionsApp()
    async with app.run_test(size=(40, 12)) as pilot:
        table = app.query_one(Versions)
        styles: set = set()
        first: set = set()
        for k in range(200):  # a new row at the top, the oldest gone (a session created)
            new = f"n{k}"
            table.version[new] = 0
            del table.version[table.row_keys[-1]]
            table.rows_changed([new, *table.row_keys[:-1]])
            await wait_until(
                pilot,
                lambda new=new: new in table.render_line(1).text,
                what=f"row {new} drawn at the top",
            )
            for y in range(table.size.height):
                styles.update(seg.style for seg in table.render_line(y) if seg.style)
            if k == 19:
                first = set(styles)
        assert first and styles == first
        assert all(set(s.meta) <= {"column", "out_of_bounds"} for s in styles if s.meta)
        await pilot.click("#versions", offset=(2, 3))  # the third row (under the header)
        await wait_until(
            pilot,
            lambda: table.cursor_row == 2,
            what="the cursor on the clicked row",
        )
        assert table.row_keys[2] == "n197"
