"""The snapshot matrix: the list, a session of each format and an OCR round at
80×24, 120×40 and 200×60, in the dark and light themes, on the project holding every format
(tests/ui/mixed_project.py) at the fixed clock, each screen opened through the app's own
navigation.

The combinations other tests already draw are left out (`EXISTING`), so that together they
make the whole matrix.
"""

from __future__ import annotations

import itertools

import pytest
from textual.pilot import Pilot

from ocr_tui.cli import make_app
from ocr_tui.ui.navigation import RoundTarget
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.screens.session.screen import SessionScreen

from .builders import fixed_clock, loaded, wait_until
from .mixed_project import mixed_project

SIZES = {"80x24": (80, 24), "120x40": (120, 40), "200x60": (200, 60)}
THEMES = ("dark", "light")

# screen -> the session it shows (None: the list; the round screen shows round 1 of it)
SCREENS = {
    "list": None,
    "session-ocr-review": "2026-03-10-feat-auth",
    "session-ocr-map": "2026-03-10-map-onboarding",
    "session-code": "260310-rate-limiter",  # the newest code session, as the format tests
    "session-analysis": "session-20260310-143022-12345",
    "session-idumb": "ses_3d0fdbb84ffeAN7FeCuPSp5ZW7",
    "round-ocr": "2026-03-10-feat-auth",
}

# (screen, size, theme) already drawn elsewhere:
EXISTING = {
    # test_snapshots.py: test_list_of_every_format[*] and test_list_light_theme
    ("list", "80x24", "dark"),
    ("list", "120x40", "dark"),
    ("list", "200x60", "dark"),
    ("list", "120x40", "light"),
    # test_drilldown_sizes.py: test_ocr_session_screen[*], test_ocr_session_screen_light,
    # test_ocr_round_screen[*] (the drill-down tree's review session and its round 1)
    ("session-ocr-review", "80x24", "dark"),
    ("session-ocr-review", "200x60", "dark"),
    ("session-ocr-review", "120x40", "light"),
    ("round-ocr", "80x24", "dark"),
    ("round-ocr", "200x60", "dark"),
    # test_drilldown_sizes.py: test_session_screen_of_each_format[*] (this project, 120×40)
    ("session-code", "120x40", "dark"),
    ("session-analysis", "120x40", "dark"),
    ("session-idumb", "120x40", "dark"),
}

MATRIX = [
    pytest.param(screen, size, theme, id=f"{screen}-{size}-{theme}")
    for screen, size, theme in itertools.product(SCREENS, SIZES, THEMES)
    if (screen, size, theme) not in EXISTING
]


@pytest.mark.parametrize(("screen", "size", "theme"), MATRIX)
def test_snapshot_matrix(snap_compare, home, screen: str, size: str, theme: str) -> None:
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    sid = SCREENS[screen]

    async def run_before(pilot: Pilot) -> None:
        if theme == "light":
            app.theme = "textual-light"
        await loaded(pilot)
        app.clear_notifications()
        if screen == "list":
            await pilot.press("j")  # the cursor row on a striped list, as the list snapshots
        elif screen.startswith("session-"):
            assert sid in app.sessions
            app.open_session(sid)
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, SessionScreen) and app.screen.view,
                what="the session screen to show the session",
            )
        else:
            assert app.open_target(RoundTarget(sid, 1, "rounds/round-1"))
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, RoundScreen) and app.screen.round,
                what="the round screen to show the round",
            )
            await pilot.press("down")  # the cursor row keeps the severity colours
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZES[size], run_before=run_before)
