"""The Phases pane's legend fits its border: `~ approximate (from file times) ·
bar…` was cut at every width the phases are a column of their own. The longest wording of
what applies that fits is shown, whole."""

from __future__ import annotations

import html
import re

import pytest

from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.screens.session.timeline_cells import KEYS_ALONE, KEYS_WITH_BAR

from .drilldown_tree import SID, DrillApp
from .test_drilldown import snap_tree, wait_for


def screen_rows(app) -> list[str]:
    rows: dict[str, list[tuple[float, str]]] = {}
    svg = app.export_screenshot()
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(m.group(2), []).append((float(m.group(1)), html.unescape(m.group(3))))
    return [
        "".join(t for _, t in sorted(r)).replace("\xa0", " ")
        for _, r in sorted(rows.items(), key=lambda kv: float(kv[0]))
    ]


@pytest.mark.parametrize(
    ("width", "key"),
    [
        (80, KEYS_WITH_BAR[0]),  # stacked, the screen's width: every word
        (120, KEYS_ALONE[0]),  # a 44-column pane that has no room for the bars: no bar
        (200, KEYS_WITH_BAR[2]),  # a 51-column pane, its bars drawn
    ],
)
async def test_the_phases_legend_fits_whole(width: int, key: str) -> None:
    app = DrillApp(snap_tree(f"legend-{width}"), lambda: SessionScreen(SID))
    async with app.run_test(size=(width, 60)) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        pane = app.screen.query_one("#timeline-pane")
        await wait_for(
            pilot,
            lambda: pane.size.width > 0 and pane.border_subtitle,
            what="the phases pane to be laid out with its legend",
        )
        await pilot.pause()
        legend = pane.border_subtitle
        assert legend == key
        assert len(legend) <= pane.outer_size.width - 6  # `╰─ ` and ` ─╯`
        drawn = [row for row in screen_rows(app) if "~ " in row and "╰" in row]
        assert len(drawn) == 1 and legend in drawn[0] and "…" not in drawn[0], drawn


async def test_the_legend_follows_the_width() -> None:
    """From wide (a column of its own) to stacked and back: it is chosen again."""
    app = DrillApp(snap_tree("legend-resize"), lambda: SessionScreen(SID))
    async with app.run_test(size=(200, 60)) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        pane = app.screen.query_one("#timeline-pane")
        await wait_for(
            pilot,
            lambda: pane.border_subtitle == KEYS_WITH_BAR[2],
            what="the legend to show its widest form at 200 columns",
        )
        await pilot.resize_terminal(80, 60)
        await wait_for(
            pilot,
            lambda: pane.border_subtitle == KEYS_WITH_BAR[0],
            what="the legend to shrink to its narrowest form at 80 columns",
        )
        await pilot.resize_terminal(200, 60)
        await wait_for(
            pilot,
            lambda: pane.border_subtitle == KEYS_WITH_BAR[2],
            what="the legend to grow back at 200 columns",
        )


def test_every_legend_says_the_approximate_mark() -> None:
    for key in KEYS_WITH_BAR + KEYS_ALONE:
        assert key.startswith("~ ") and "file times" in key
