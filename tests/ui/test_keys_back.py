"""Back (Esc) after `[`/`]` moved a screen sideways lands on the breadcrumb's parent, not on
the screen the user came from."""

from __future__ import annotations

from textual.pilot import Pilot

from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.navigation import RoundTarget
from ocr_tui.ui.screens.document.screen import DocumentScreen
from ocr_tui.ui.screens.ocr.findings.screen import FindingsScreen
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb

from .builders import SIZE, loaded, wait_until

AUTH = "2026-03-10-feat-auth"  # two rounds, principal-1.md in both
R1 = "rounds/round-1/reviews/principal-1.md"
R2 = "rounds/round-2/reviews/principal-1.md"


def crumbs(app: OcrTuiApp) -> str:
    return app.screen.query_one(Breadcrumb).plain


async def round_one(pilot: Pilot) -> RoundScreen:
    """The review's round 1, pushed on the list (as the palette or Enter would)."""
    app = pilot.app
    await loaded(pilot)
    app.open_target(RoundTarget(AUTH, 1, "rounds/round-1"))
    await wait_until(
        pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
    )
    screen = app.screen
    await wait_until(
        pilot,
        lambda: [t.row_count for t in screen.query("#reviewers")] == [2],
        what="the round screen to list round 1's 2 reviewers",
    )
    return screen


async def test_back_after_a_step_goes_to_the_breadcrumbs_parent(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await round_one(pilot)
        await pilot.press("enter")  # round 1's principal-1.md
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen) and app.screen.rel_path == R1,
            what="round 1's principal-1.md to open",
        )
        assert crumbs(app) == f"Sessions › {AUTH} › Round 1 › principal-1.md"
        await pilot.press("]")  # the same reviewer's file in round 2, in place
        await wait_until(
            pilot,
            lambda: app.screen.rel_path == R2,
            what="the document to step to round 2's principal-1.md",
        )
        assert crumbs(app) == f"Sessions › {AUTH} › Round 2 › principal-1.md"

        await pilot.press("escape")  # the breadcrumb's parent: round 2, not round 1
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, RoundScreen),
            what="the round screen (round 2) to open",
        )
        assert app.screen.round_number == 2
        assert crumbs(app) == f"Sessions › {AUTH} › Round 2"
        # The round screen below showed round 2 in place: the stack did not grow.
        assert [type(s).__name__ for s in app.screen_stack] == ["MainScreen", "RoundScreen"]


async def test_back_without_a_step_returns_where_it_came_from(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        round_screen = await round_one(pilot)
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open",
        )
        await pilot.press("]", "[")  # there and back: round 1's file again
        await wait_until(
            pilot,
            lambda: app.screen.rel_path == R1,
            what="round 1's principal-1.md to be shown again",
        )
        await pilot.press("escape")
        await wait_until(
            pilot, lambda: app.screen is round_screen, what="the round screen to be back"
        )
        assert round_screen.round_number == 1


async def test_back_after_stepping_findings_goes_to_that_round(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await round_one(pilot)
        await pilot.press("F")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, FindingsScreen),
            what="the findings screen to open",
        )
        await pilot.press("]")  # round 2's findings, in place
        await wait_until(
            pilot, lambda: app.screen.round_number == 2, what="the findings to step to round 2"
        )
        assert crumbs(app) == f"Sessions › {AUTH} › Round 2 › Findings"
        await pilot.press("escape")
        await wait_until(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        assert app.screen.round_number == 2
        assert len(app.screen_stack) == 2


async def test_back_after_a_step_keeps_following_the_breadcrumb(app: OcrTuiApp) -> None:
    """Findings → a finding → `o` its reviewer's file → `[` round 1's: Esc goes to round 1
    (not in the stack: opened on the session, the nearest crumb the stack holds), and Esc
    again to the session, as the breadcrumb said, not back into the findings."""
    from ocr_tui.ui.navigation import DocumentTarget, FindingsTarget
    from ocr_tui.ui.screens.session.screen import SessionScreen

    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_session(AUTH)
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        app.open_target(FindingsTarget(AUTH, 2, "rounds/round-2"))
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, FindingsScreen),
            what="the findings screen to open",
        )
        app.open_target(DocumentTarget(AUTH, R2))  # as `o` on a finding of principal-1 does
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open",
        )
        await pilot.press("[")
        await wait_until(
            pilot,
            lambda: app.screen.rel_path == R1,
            what="the document to step to round 1's principal-1.md",
        )
        assert crumbs(app) == f"Sessions › {AUTH} › Round 1 › principal-1.md"

        await pilot.press("escape")
        await wait_until(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        assert app.screen.round_number == 1
        assert [type(s).__name__ for s in app.screen_stack] == [
            "MainScreen", "SessionScreen", "RoundScreen"
        ]  # fmt: skip
        await pilot.press("escape")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, SessionScreen),
            what="the session screen to be back",
        )
