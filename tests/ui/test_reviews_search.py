"""The Reviews view's `/` search and its columns at 80: `/` opens the box, Enter
keeps the search, Esc clears it (then goes back), as on the list and the findings screen; it
is in the footer, `?` and the palette. At 80 columns no verdict is cut while the date can be
shortened (`REQUEST CHA…` beside a Date column with room to spare)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.command import CommandPalette
from textual.widgets import Input

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.core.reviews import ReviewRow
from ocr_tui.ui.screens.ocr.reviews.cells import LAYOUTS, ReviewsQuery, choose_layout, date_text
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.screens.sessions.screen import MainScreen

from .builders import SIZE, fixed_clock, wait_until
from .records_db import AUTH, give_records
from .test_app_contract import search_palette
from .test_keys_help import described, open_help
from .test_reviews_screen import count, open_reviews, rows, table

NOW = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)


def column(app, key: str) -> list[str]:
    t = table(app)
    return [t.get_cell(k, key).plain for k in t.row_keys]


async def test_slash_searches_enter_keeps_esc_clears(project: Project) -> None:
    give_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reviews(pilot)
        assert len(rows(app)) == 4
        box = screen.query_one("#reviews-search", Input)
        assert not box.display
        await pilot.press("slash", *"auth")  # typed at once: the box has focus at `/`
        assert app.focused is box and box.value == "auth"
        assert [r[:2] for r in rows(app)] == [(AUTH, "R2"), (AUTH, "R1")]
        assert count(app) == '2 of 4 reviews · all rounds · "auth" · sort: date ▼'
        await pilot.press("enter")  # kept: the table again, the box says what is searched
        assert app.focused is table(app) and box.display and box.value == "auth"
        await pilot.press("j", "enter")  # the second match: round 1
        await wait_until(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        assert app.screen.round_number == 1
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="the reviews screen to be back")
        assert box.value == "auth" and len(rows(app)) == 2  # as it was left

        await pilot.press("slash", *" request")  # every word: the verdict too
        assert [r[:2] for r in rows(app)] == [(AUTH, "R1")]
        await pilot.press("slash")  # in the box, `/` is text
        assert box.value == "auth request/" and rows(app) == []
        empty = screen.query_one("#reviews-empty")
        assert empty.display and "No round matches the search" in str(empty.render())

        await pilot.press("escape")  # clears, back to every round
        assert not box.display and box.value == "" and len(rows(app)) == 4
        assert app.focused is table(app)
        await pilot.press("escape")  # then back
        await wait_until(
            pilot, lambda: isinstance(app.screen, MainScreen), what="the list to be back"
        )


async def test_search_is_in_the_footer_help_and_palette(project: Project) -> None:
    give_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_reviews(pilot)
        shown = {k: b.binding.description for k, b in screen.active_bindings.items()}
        assert shown["slash"] == "Search" and shown["escape"] == "Back"
        footer = [k.description for k in app.screen.query("FooterKey")]
        assert "Search" in footer and "Help" in footer
        _title, sections = await open_help(pilot)
        keys = described(next(v for k, v in sections.items() if "Reviews" in k))
        assert keys["Search"] == "/"
        await pilot.press("ctrl+p")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, CommandPalette),
            what="the command palette to open",
        )
        await search_palette(pilot, "Search (key /)")
        await wait_until(
            pilot,
            lambda: app.screen is screen,
            what="the reviews screen to be back from the palette",
        )
        await wait_until(
            pilot,
            lambda: app.focused is screen.query_one("#reviews-search"),
            what="the search box to take the focus",
        )


async def test_no_verdict_is_cut_at_80_columns(project: Project) -> None:
    give_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await open_reviews(pilot)
        assert "REQUEST CHANGES" in column(app, "verdict")
        assert not any("…" in cell for cell in column(app, "verdict"))
        t = table(app)
        drawn = sum(c.get_render_width(t) for c in t.columns.values())
        assert drawn <= t.size.width  # every column whole: none cut at the pane's edge


async def test_the_simulated_reviews_fit_80_columns(sim_root: Path) -> None:
    """The demo's history at 80 columns: `NEEDS DISCUSSION` and `REQUEST CHANGES` whole."""
    app = make_app(Project(sim_root), clock=lambda: datetime(2026, 11, 24, 10, tzinfo=UTC))
    async with app.run_test(size=(80, 24)) as pilot:
        await open_reviews(pilot)
        verdicts = column(app, "verdict")
        assert {"REQUEST CHANGES", "APPROVE"} <= set(verdicts)
        assert not any("…" in cell for cell in verdicts)
        t = table(app)
        assert sum(c.get_render_width(t) for c in t.columns.values()) <= t.size.width

        await pilot.press("slash", *"webhooks", "enter")  # typed fast: the text after Enter
        screen = app.screen
        box = screen.query_one("#reviews-search")
        await wait_until(
            pilot,
            lambda: box.display and len(rows(app)) == 1,
            what="the search box to show with 1 matching row",
        )
        await pilot.pause()
        assert screen.query_one("#reviews-pane").outer_size.width == 80  # not 78 beside it
        assert sum(c.get_render_width(t) for c in t.columns.values()) <= t.size.width


def row(verdict: str | None, at: str = "2026-03-07T09:00:00Z") -> ReviewRow:
    return ReviewRow(
        "2026-03-07-feat-billing-webhooks", "feat/billing-webhooks", 1, "rounds/round-1",
        verdict, 0, 2, 5, 0, "changes_made", at, False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("width", "layout"),
    # the other columns and the session's 12: 100 with every word, 80 with Blk / Fix / Sug,
    # 74 with `3d ago`, 73 with `3d` under Age; below, the verdict is cut (as a last resort)
    [(200, 0), (100, 0), (99, 1), (80, 1), (79, 2), (74, 2), (73, 3), (72, 4), (60, 4)],
)
def test_the_date_gives_way_before_the_verdict(width: int, layout: int) -> None:
    rows_ = [row("NEEDS DISCUSSION"), row("REQUEST CHANGES"), row(None)]
    assert choose_layout(rows_, ReviewsQuery(), NOW, width) == LAYOUTS[layout]


def test_the_date_forms() -> None:
    r = row("APPROVE")
    assert [date_text(r, NOW, f) for f in ("cell", "ago", "age")] == [
        "Mar 07 09:00", "3d ago", "3d",
    ]  # fmt: skip
    now = row("APPROVE", at="2026-03-10T15:00:00Z")
    assert date_text(now, NOW, "age") == "now"
    assert date_text(row("APPROVE", at=None), NOW, "age") == "—"
