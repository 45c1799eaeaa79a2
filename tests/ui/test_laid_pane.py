"""`LaidPane` (the detail pane's rounds): a line added draws that line and lays nothing out; it
looks as the `VerticalScroll` holding a `Laid` it replaced (wrapped at the width left of the
padding and, while the text overflows, the scrollbar); it scrolls from the keyboard."""

from __future__ import annotations

import pytest
from textual.app import App, ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen

from ocr_tui.ui.widgets.laid import Laid
from ocr_tui.ui.widgets.laid_pane import LaidPane

from .builders import wait_until

CSS = """
Horizontal { height: 12; }
LaidPane, VerticalScroll { width: 1fr; height: 100%; border: round $foreground;
    padding: 0 1; scrollbar-size-vertical: 1; }
"""


def text(lines: int, extra: str = "") -> Content:
    words = "a round's line that wraps at a narrow width " + extra
    return Content("\n").join([Content(f"{n}: {words}") for n in range(lines)])


class Side(App):
    """The pane and the pair it replaced, side by side, given the same text."""

    CSS = CSS

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield LaidPane(id="pane")
            with VerticalScroll(id="old"):
                yield Laid(id="laid")

    def show(self, content: Content) -> None:
        self.query_one(LaidPane).update(lambda _w: content)
        self.query_one(Laid).update(lambda _w: content)


def rows(app: App, x0: int, x1: int) -> list[str]:
    """The screen's text between columns x0 and x1, line by line."""
    strips = app.screen._compositor.render_strips()
    return [strip.crop(x0, x1).text for strip in strips]


async def pane_showing(app: App, pilot, content: Content) -> LaidPane:
    """The app's pane, given `content` and laid out."""
    pane = app.query_one(LaidPane)
    pane.update(lambda _w: content)
    await wait_until(pilot, lambda: pane.virtual_size.height > 0, what="the pane laid out")
    return pane


def layouts(screen: Screen) -> list[int]:
    """Counts the screen's layout passes from now on."""
    count = [0]
    run = screen._refresh_layout

    def counted(*args, **kwargs):
        count[0] += 1
        return run(*args, **kwargs)

    screen._refresh_layout = counted  # type: ignore[method-assign]
    return count


@pytest.mark.parametrize("lines", [1, 4, 30])
async def test_it_looks_as_the_pair_it_replaced(lines: int) -> None:
    app = Side()
    async with app.run_test(size=(60, 14)) as pilot:
        app.show(text(lines))
        pane = app.query_one(LaidPane)
        await wait_until(pilot, lambda: pane.virtual_size.height > 0, what="the pane laid out")
        await pilot.pause()
        width = pane.outer_size.width
        assert rows(app, 0, width) == rows(app, width, 2 * width)
        assert pane.show_vertical_scrollbar == (lines > 4)


async def test_a_line_added_draws_that_line_and_lays_nothing_out() -> None:
    app = Side()
    async with app.run_test(size=(60, 14)) as pilot:
        pane = await pane_showing(app, pilot, text(2))
        await pilot.pause()
        before = pane.virtual_size.height
        count = layouts(app.screen)
        pane.update(lambda _w: Content("\n").join([text(2), Content("a reviewer more")]))
        await wait_until(
            pilot,
            lambda: any("a reviewer more" in row for row in rows(app, 0, 30)),
            what="the line added on screen",
        )
        assert pane.virtual_size.height == before + 1
        assert count[0] == 0  # no layout pass for a line


async def test_overflowing_it_shows_a_scrollbar_and_scrolls_by_keys() -> None:
    app = Side()
    async with app.run_test(size=(60, 14)) as pilot:
        pane = await pane_showing(app, pilot, text(3))
        assert not pane.show_vertical_scrollbar
        pane.update(lambda _w: text(3, "and then a line more"))  # the same lines, wider
        pane.update(lambda _w: text(12))
        await wait_until(pilot, lambda: pane.show_vertical_scrollbar, what="the scrollbar shown")
        await pilot.pause()
        assert pane._text_width() == pane.outer_size.width - 2 - 2 - 1  # border, padding, bar
        pane.focus()
        await pilot.press("end")
        await wait_until(
            pilot,
            lambda: any(row[2:].startswith("11:") for row in rows(app, 0, 30)),
            what="the last line in view after End",
        )
        await pilot.press("home")
        await wait_until(
            pilot,
            lambda: any(row[2:].startswith("0:") for row in rows(app, 0, 30)),
            what="the first line in view after Home",
        )
        pane.update(lambda _w: text(1))
        await wait_until(pilot, lambda: not pane.show_vertical_scrollbar, what="the bar gone")
        await pilot.pause()
        assert pane.virtual_size.width == pane.outer_size.width - 4
