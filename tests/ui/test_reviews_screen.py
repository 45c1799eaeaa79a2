"""The Reviews view, driven by keys in the real app on the sample project
with OCR's dashboard records (`records_db`): `r` from the list, the actionable filter, the
sort, Enter to the round, live triage from ocr.db, and the summary line over the list."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import DataTable

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.ui.screens.ocr.reviews.cells import ReviewsQuery
from ocr_tui.ui.screens.ocr.reviews.screen import ReviewsScreen
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.screens.sessions.screen import MainScreen
from ocr_tui.ui.screens.sessions.summary_bar import SummaryBar
from ocr_tui.ui.widgets.fit_table import FitTable

from .builders import SIZE, fixed_clock, loaded, wait_until
from .records_db import AUTH, give_records, replace_db


def table(app) -> FitTable:
    return app.screen.query_one("#reviews", FitTable)


def rows(app) -> list[tuple[str, str, str]]:
    """(session, round, triage) of each row shown."""
    t = table(app)
    if not t.display:
        return []
    return [
        (t.get_cell(k, "session").plain, t.get_cell(k, "round").plain,
         t.get_cell(k, "triage").plain)
        for k in t.row_keys
    ]  # fmt: skip


def count(app) -> str:
    return str(app.screen.query_one("#reviews-count").render())


async def open_reviews(pilot: Pilot) -> ReviewsScreen:
    await loaded(pilot)
    await pilot.press("r")
    await wait_until(
        pilot,
        lambda: isinstance(pilot.app.screen, ReviewsScreen),
        what="the reviews screen to open",
    )
    await pilot.pause()
    return pilot.app.screen


async def test_reviews_by_keys(project: Project) -> None:
    give_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reviews(pilot)
        assert rows(app) == [
            (AUTH, "R2", "needs review"),
            (AUTH, "R1", "changes made"),
            ("2026-03-10-fix-cache", "R1", "—"),
            ("2026-03-09-main", "R1", "—"),
        ]
        t = table(app)
        assert t.get_cell(t.row_keys[0], "verdict").plain == "in progress"
        assert t.get_cell(t.row_keys[1], "verdict").plain == "REQUEST CHANGES"
        assert t.get_cell(t.row_keys[1], "should_fix").plain == "2"
        # today: the time alone; `~`: final.md's time (ocr.db records no round_completed here)
        assert t.get_cell(t.row_keys[1], "at").plain == "~14:57"
        assert count(app) == "4 of 4 reviews · all rounds · sort: date ▼"
        labels = {k.value: str(c.label) for k, c in t.columns.items()}
        assert labels["at"] == "Date (UTC) ▼" and labels["session"] == "Session"

        # actionable: no verdict yet, or needs review / in progress, or never triaged (OCR's
        # dashboard treats a round without triage as needing review)
        await pilot.press("a")
        assert rows(app) == [
            (AUTH, "R2", "needs review"),
            ("2026-03-10-fix-cache", "R1", "—"),
            ("2026-03-09-main", "R1", "—"),
        ]
        assert count(app) == "3 of 4 reviews · actionable only · sort: date ▼"
        await pilot.press("a")
        assert len(rows(app)) == 4

        await pilot.press("s")  # by session, A→Z by the name shown (not the date before it)
        assert screen.query_state == ReviewsQuery(sort="session")
        assert [r[0] for r in rows(app)] == [
            "2026-03-10-feat-auth", "2026-03-10-feat-auth", "2026-03-10-fix-cache",
            "2026-03-09-main",
        ]  # fmt: skip
        assert count(app).endswith("sort: session ▲")  # ascending (A→Z), as in the list
        await pilot.press("S")
        assert rows(app)[0][0] == "2026-03-09-main"
        assert count(app).endswith("sort: session ▼")

        await pilot.press("s", "s", "s")  # round → verdict → blockers, most first
        assert screen.query_state.sort == "blockers"
        assert [r[:2] for r in rows(app)][:2] == [(AUTH, "R2"), (AUTH, "R1")]

        await pilot.press("g", "enter")  # the first row: feat-auth's round 2
        await wait_until(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        assert app.screen.round_number == 2 and app.screen.session_id == AUTH
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="the reviews screen to be back")
        assert screen.query_state.sort == "blockers"  # as it was left
        await pilot.press("escape")
        await wait_until(
            pilot, lambda: isinstance(app.screen, MainScreen), what="the list to be back"
        )


async def test_a_header_click_sorts(project: Project) -> None:
    give_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_reviews(pilot)
        t = table(app)
        key = next(k for k in t.columns if k.value == "triage")
        index = t.get_column_index("triage")
        t.post_message(DataTable.HeaderSelected(t, key, index, t.columns[key].label))
        await wait_until(
            pilot, lambda: screen.query_state.sort == "triage", what="the reviews to sort by triage"
        )
        assert [r[2] for r in rows(app)] == ["needs review", "changes made", "—", "—"]
        t.post_message(DataTable.HeaderSelected(t, key, index, t.columns[key].label))
        await wait_until(
            pilot, lambda: screen.query_state.reverse, what="the triage sort to reverse"
        )
        assert [r[2] for r in rows(app)] == ["changes made", "needs review", "—", "—"]


async def test_triage_shows_live(project: Project) -> None:
    """ocr.db replaced whole while the view is open: the new triage shows."""
    give_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await open_reviews(pilot)
        assert rows(app)[0] == (AUTH, "R2", "needs review")
        replace_db(project.db_path, "UPDATE user_round_progress SET status = 'acknowledged';")
        await wait_until(
            pilot,
            lambda: rows(app)[0] == (AUTH, "R2", "acknowledged"),
            what="the first row's triage to show acknowledged",
        )
        assert rows(app)[1] == (AUTH, "R1", "acknowledged")
        await pilot.press("a")  # round 2 still has no verdict: still actionable; R1 is settled
        assert rows(app)[0] == (AUTH, "R2", "acknowledged")
        assert (AUTH, "R1", "acknowledged") not in rows(app)


async def test_r_without_ocr_sessions_says_why(empty_project: Project) -> None:
    app = make_app(empty_project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: app.status != "loading", what="the first scan to be applied"
        )
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        assert any("No OCR sessions here" in str(n.message) for n in app._notifications)
        assert not app.main_screen.query_one(SummaryBar).display


async def test_the_summary_line_follows_the_project(project: Project) -> None:
    give_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        bar = app.main_screen.query_one(SummaryBar)
        assert bar.plain == (
            "6 sessions · 4 active · 3 reviews with a verdict · 1 unresolved blocker"
        )
        # the unresolved blockers in the attention colour
        assert any("warning" in str(s.style) for s in bar._shown.spans)
        # the blocker finding of round 2 goes: 0 unresolved, in the plain colour; so far
        # (round 2 has no synthesis yet: its blockers are not known)
        path = project.sessions_dir / AUTH / "rounds" / "round-2" / "reviews" / "principal-1.md"
        path.write_text("# Principal review\n\n## Findings\n\nNothing.\n")
        await wait_until(
            pilot,
            lambda: bar.plain.endswith("0 unresolved blockers so far"),
            what="the summary line to count 0 unresolved blockers",
        )
        assert not any("warning" in str(s.style) for s in bar._shown.spans)


def test_snapshot_reviews_screen(snap_compare, project: Project) -> None:
    give_records(project)

    async def run_before(pilot: Pilot) -> None:
        await open_reviews(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(make_app(project, clock=fixed_clock), terminal_size=SIZE,
                        run_before=run_before)  # fmt: skip


def test_snapshot_reviews_screen_at_80_columns(snap_compare, project: Project) -> None:
    give_records(project)

    async def run_before(pilot: Pilot) -> None:
        await open_reviews(pilot)
        await pilot.press("a")
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(make_app(project, clock=fixed_clock), terminal_size=(80, 24),
                        run_before=run_before)  # fmt: skip


def test_snapshot_main_screen_with_the_summary(snap_compare, project: Project) -> None:
    give_records(project)

    async def run_before(pilot: Pilot) -> None:
        await loaded(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(make_app(project, clock=fixed_clock), terminal_size=SIZE,
                        run_before=run_before)  # fmt: skip
