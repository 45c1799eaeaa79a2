"""The session and round screens at 80, 120 and 200 columns: narrow,
the panes stack and the rounds table keeps every column (its Verdict was given up for a
40-column Phases pane); nothing is cut while there is room (phase labels, fact labels), values
wrap at words under themselves, long words end in `…`, and no table scrolls sideways."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from rich.cells import cell_len

from ocr_tui.ui import fmt
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.screens.session.cells import WIDE_AT
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.screens.session.timeline_cells import left_limit, left_width
from ocr_tui.ui.widgets.fit_table import FitTable
from ocr_tui.ui.widgets.labelled_rows import Labelled, LabelledRows, item_lines

from .drilldown_tree import SID, DrillApp, build_tree
from .mixed_project import mixed_project
from .test_drilldown import wait_for

NOW = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)
SIZES = [(80, 24), (120, 40), (200, 60)]


def shown(app) -> bool:
    return isinstance(app.screen, SessionScreen) and app.screen._last_meta is not None


def tables_fit(screen) -> None:
    """Every table shown is drawn within its width: no horizontal scrollbar."""
    for table in screen.query(FitTable):
        if table.display and table.row_count:
            region = table.scrollable_content_region
            assert not table.show_horizontal_scrollbar, table.id
            assert table.virtual_size.width <= region.width, (table.id, table.virtual_size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_rounds_keep_every_column(tmp_path: Path, size) -> None:
    build_tree(tmp_path / "proj")
    app = DrillApp(tmp_path / "proj", lambda: SessionScreen(SID))
    async with app.run_test(size=size) as pilot:
        await wait_for(
            pilot, lambda: shown(app), what="the session screen to open and draw the session"
        )
        await pilot.pause()
        screen = app.screen
        rounds = screen.query_one("#rounds", FitTable)
        assert rounds.column_width("verdict") >= len("REQUEST CHANGES")
        assert rounds.get_row_at(0)[4].plain == "REQUEST CHANGES"
        tables_fit(screen)
        phases = screen.query_one("#timeline-pane").region
        pane = screen.query_one("#rounds-pane").region
        if size[0] < WIDE_AT:  # stacked, the rounds first, full width
            assert screen.has_class("-narrow")
            assert pane.y < phases.y and pane.width == phases.width
            assert pane.right >= size[0] - 2
        else:  # the phases beside, as wide as they need
            assert screen.has_class("-wide")
            assert phases.x < pane.x and phases.y == pane.y
            limit = left_limit(size[0])
            needs = left_width(app.sessions[SID], app.now(), limit)
            assert screen.query_one("#session-left").region.width == needs <= limit


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_round_screen_tables_fit(tmp_path: Path, size) -> None:
    build_tree(tmp_path / "proj")
    app = DrillApp(tmp_path / "proj", lambda: RoundScreen(SID, 1))
    async with app.run_test(size=size) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        await wait_for(
            pilot,
            lambda: app.screen.query_one("#reviewers").row_count == 2,
            what="the round screen to list 2 reviewers",
        )
        await pilot.pause()
        tables_fit(app.screen)


async def test_nothing_is_cut_while_there_is_room(home: Path) -> None:
    root = home / "proj"
    mixed_project(root)
    sid = "session-20260310-143022-12345"
    app = DrillApp(root, lambda: SessionScreen(sid), now=NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(
            pilot, lambda: shown(app), what="the session screen to open and draw the session"
        )
        await pilot.pause()
        timeline = str(app.screen.query_one("#timeline").render())
        assert "7 Statistical Fact-Checking" in timeline  # was `7 Statistical Fact-Che`
        assert "8 Audience Document Generation" in timeline
        assert "…" not in timeline
        facts = app.screen.query_one("#facts", LabelledRows)
        lines = facts.plain.splitlines()
        # the label column is as wide as the longest label: `output directory` (16)
        assert "output directory ~/proj" in facts.plain
        approval = next(i for i, line in enumerate(lines) if line.startswith("approval"))
        assert lines[approval].startswith("approval         phase 4 (Structure Review)")
        if len(lines) > approval + 1 and not lines[approval + 1][:1].strip():
            assert lines[approval + 1].startswith(" " * 17)  # wrapped under its value
        tables_fit(app.screen)


def test_labels_size_to_their_content_and_values_wrap_at_words():
    rows = [
        Labelled("phase at creation", "2/4 (Phase 2: build)"),
        Labelled("session", "ses_gJTeKdNnFRIBXuDL7DxtpYlSXp"),
        Labelled("dataset", "Single-cell RNA-seq of mouse brain tissue across 4 conditions"),
    ]
    lines = [line.plain for line in item_lines(rows, 60)]
    assert lines[0] == "phase at creation 2/4 (Phase 2: build)"  # not `phase at creati…`
    assert lines[1] == "session           ses_gJTeKdNnFRIBXuDL7DxtpYlSXp"
    assert lines[2] == "dataset           Single-cell RNA-seq of mouse brain tissue"
    assert lines[3] == "                  across 4 conditions"
    narrow = [line.plain for line in item_lines(rows, 30)]  # too narrow beside: stacked
    assert narrow[:2] == ["phase at creation", "  2/4 (Phase 2: build)"]
    assert narrow[2:4] == ["session", "  ses_gJTeKdNnFRIBXuDL7DxtpYl…"]  # an id is never split


@pytest.mark.parametrize("width", [5, 9, 12, 20, 33])
def test_wrap_breaks_at_words_only(width):
    text = "ids like 2026-11-19-feat-billing-webhooks are never split across lines"
    lines = fmt.wrap(text, width)
    words = text.split()
    for line in lines:
        assert cell_len(line) <= width
        for word in line.split():
            assert word in words or (
                word.endswith("…") and any(w.startswith(word[:-1]) for w in words)
            )


@pytest.mark.parametrize("width", [80, 60, 45, 30])
def test_breadcrumb_fits_its_line_without_splitting_an_id(width):
    """A breadcrumb too long for its line wrapped, its second line hidden: `…-webhoo` / `ks`."""
    from ocr_tui.ui.widgets.breadcrumb import SEPARATOR, fit_parts

    parts = ["Sessions", "2026-11-19-feat-billing-webhooks", "map/runs/run-1/flow-analysis.md"]
    shown = fit_parts(parts, width)
    assert cell_len(SEPARATOR.join(shown)) <= width
    assert shown[0] == "Sessions"
    if width >= 77:
        assert shown == parts
    else:  # the session id loses its middle first: both its ends stay
        assert shown[1].startswith("2026") and shown[1].endswith("ks") and "…" in shown[1]
