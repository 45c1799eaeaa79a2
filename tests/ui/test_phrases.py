"""Phrases that wrap whole, drawn with plain spaces: the severity counts of the
rounds table and the events' details joined a phrase with U+2800, which a terminal copies as
`⠀`; they are joined with U+00A0, which Rich and Textual would break at, and FitTable's cells
(`ui.phrases.Phrases`) keep the phrase whole and draw a space."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console
from rich.text import Text
from textual.content import Content

from ocr_tui.ui.fmt import KEEP_TOGETHER
from ocr_tui.ui.fmt.phrases import Phrases, words
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.widgets.fit_table import FitTable

from .drilldown_tree import SID, DrillApp, build_tree
from .test_drilldown import wait_for

K = KEEP_TOGETHER
COUNTS = f"█████ 1{K}critical 2{K}high 3{K}medium"


def test_rich_and_textual_alone_break_at_a_no_break_space() -> None:
    """Why `Phrases` exists (rich 15, textual 8): both wrap at U+00A0 as at a space."""
    console = Console(width=40)
    assert [line.plain for line in Text(COUNTS).wrap(console, 14)][0] == f"█████ 1{K}"
    assert [line.plain for line in Content(COUNTS).wrap(14)][0] == "█████ 1"


def test_a_phrase_wraps_whole_and_is_drawn_with_a_space() -> None:
    text = Text(COUNTS)
    text.stylize("red", 6, 16)  # `1 critical`
    console = Console(width=40)
    lines = Phrases.of(text).wrap(console, 14)
    assert [line.plain.rstrip() for line in lines] == ["█████", "1 critical", "2 high", "3 medium"]
    assert lines[1].spans and lines[1].spans[0].style == "red"
    assert lines[1].spans[0].start == 0 and lines[1].spans[0].end == 10
    one = Phrases.of(text).wrap(console, 80)  # unwrapped: spaces too
    assert [line.plain for line in one] == [COUNTS.replace(K, " ")]
    assert isinstance(Phrases.of(text).copy(), Phrases)
    assert words(f"a b{K}c\nd") == ["a", f"b{K}c", "d"]


def drawn(table: FitTable) -> list[str]:
    return [table.render_line(y).text for y in range(table.size.height)]


async def test_the_rounds_table_draws_counts_whole_with_spaces(tmp_path: Path) -> None:
    build_tree(tmp_path / "proj")
    app = DrillApp(tmp_path / "proj", lambda: SessionScreen(SID))
    async with app.run_test(size=(80, 40)) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        await wait_for(
            pilot,
            lambda: app.screen._last_meta is not None,
            what="the session screen to show the session",
        )
        table = app.screen.query_one("#rounds", FitTable)
        await wait_for(
            pilot,
            lambda: table.row_count == 2 and table.size.height > 0,
            what="the rounds table to list 2 rounds and be laid out",
        )
        await pilot.pause()
        lines = drawn(table)
        text = "\n".join(lines)
        assert "\u2800" not in text and K not in text
        assert "1 critical" in text and "2 high" in text
        for line in lines:  # a count never ends a line without its word
            assert not line.rstrip().split(" ")[-1].isdigit() or "█" not in line, line
