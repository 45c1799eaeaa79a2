"""Markers with a key: the rounds table's `2 •`, `8 =`, `+1 −2` and
its bare severity bar. The bar has its counts beside it in words, the pane's border names the
markers, `fmt.MARKERS` is the whole legend (the `?` screen lists it), and the bar keeps its
colours on the cursor row (cells set their foreground only; the row owns the background)."""

from __future__ import annotations

from pathlib import Path

from rich.style import Style

from ocr_tui.core.states import CURRENT, STATES
from ocr_tui.ui import fmt
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.screens.session.cells import ROUND_COLUMNS, ROUNDS_KEY
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.widgets.fit_table import FitTable

from .drilldown_tree import SID, DrillApp, build_tree
from .test_drilldown import wait_for

BAR = [key for key, _ in ROUND_COLUMNS].index("bar")


def shown(app) -> bool:
    return isinstance(app.screen, SessionScreen) and app.screen._last_meta is not None


def bar_colours(table: FitTable, row: int, *, cursor: bool) -> list[tuple[object, object]]:
    """(foreground, background) of each bar cell of `row`, drawn with or without the cursor."""
    width = table.column_width("bar")
    lines = table._render_cell(row, BAR, Style(), width, cursor=cursor)
    return [
        (seg.style.color, seg.style.bgcolor)
        for line in lines
        for seg in line
        if seg.style is not None and "█" in seg.text
    ]


async def test_the_bar_keeps_its_colours_on_the_cursor_row(tmp_path: Path) -> None:
    build_tree(tmp_path / "proj")
    app = DrillApp(tmp_path / "proj", lambda: SessionScreen(SID))
    async with app.run_test(size=(200, 60)) as pilot:
        await wait_for(
            pilot, lambda: shown(app), what="the session screen to open and draw the session"
        )
        table = app.screen.query_one("#rounds", FitTable)
        assert app.focused is table and table.cursor_row == 1  # the current round
        plain = bar_colours(table, 0, cursor=False)
        under = bar_colours(table, 0, cursor=True)
        assert plain and [fg for fg, _ in under] == [fg for fg, _ in plain]
        assert len({fg for fg, _ in under}) > 1  # critical/high red beside low blue
        cursor_bg = table.get_component_rich_style("datatable--cursor").bgcolor
        assert all(bg == cursor_bg for _, bg in under)  # the row's background


async def test_the_bar_says_its_counts_and_the_border_its_markers(tmp_path: Path) -> None:
    build_tree(tmp_path / "proj")
    app = DrillApp(tmp_path / "proj", lambda: SessionScreen(SID))
    async with app.run_test(size=(200, 60)) as pilot:
        await wait_for(
            pilot, lambda: shown(app), what="the session screen to open and draw the session"
        )
        table = app.screen.query_one("#rounds", FitTable)
        first, second = table.get_row_at(0), table.get_row_at(1)
        spaced = [row[BAR].plain.replace(fmt.KEEP_TOGETHER, " ") for row in (first, second)]
        assert spaced == ["██████████ 1 critical 2 high 1 low 1 info", "████······ 1 medium 1 low"]
        # Round 2 has no synthesis yet: round 1's eight not raised again are pending, not resolved
        assert second[0].plain == f"2 {CURRENT}" and second[2].plain == "2 +1 ?8"
        pane = app.screen.query_one("#rounds-pane")
        assert pane.border_subtitle == ROUNDS_KEY
        for marker in (CURRENT, "+", "−", "=", "?"):
            assert marker in ROUNDS_KEY


def test_every_marker_has_a_legend_entry():
    drawn = ["▶", "+2", "−3", "=", "?2", "1 / 3 / 6", "█▇▆··", "high 3 ██▋", "~", "██▌"]
    drawn += ["● pid 4049"]
    drawn += ["⚠ stale"]
    drawn += ["███░░ 3/5", "✓ ·"]
    drawn += ["⤼", "■", "–", "—"]
    assert list(fmt.MARKERS) == drawn
    for mark, (where, meaning) in fmt.MARKERS.items():
        assert where and meaning, mark
    assert {fmt.PHASE_MARKS[k] for k in ("skipped", "stopped", "unreached")} <= set(fmt.MARKERS)


def test_one_glyph_per_meaning():
    """A marker of the rounds table or the phases is no session state's glyph."""
    state_glyphs = {glyph for glyph, _ in STATES.values()}
    assert not state_glyphs & set(fmt.MARKERS)
    assert not state_glyphs & (set(fmt.PHASE_MARKS.values()) - {"✓"})  # done is done


async def test_the_verdict_banner_is_words_without_a_glyph(tmp_path: Path) -> None:
    """`✗ REQUEST CHANGES` used the problem glyph, `… IN PROGRESS` the reading one."""
    build_tree(tmp_path / "proj")
    app = DrillApp(tmp_path / "proj", lambda: RoundScreen(SID, 1))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        banner = str(app.screen.query_one("#verdict").render())
        assert banner.strip().startswith("REQUEST CHANGES")
        assert not {glyph for glyph, _ in STATES.values()} & set(banner)
        await pilot.press("]")
        await wait_for(
            pilot,
            lambda: "IN PROGRESS" in str(app.screen.query_one("#verdict").render()),
            what="the next round's banner to say IN PROGRESS",
        )
        title = str(app.screen.query_one("#round-title").render())
        assert "· in progress ·" in title  # the rounds table's word
