"""Snapshots of the session and round screens at the sizes a new user meets: OCR at
80×24 and 200×60 (dark) and once light; a session of each other format at 120×40.

80×24 stacks the panes (the rounds first, whole: their Verdict column is not given up for a
40-column Phases pane); 200×60 puts the phases beside them, as wide as they need.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from ocr_tui.cli import make_app
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.screens.session.screen import SessionScreen

from .builders import fixed_clock, loaded, wait_until
from .drilldown_tree import SID, DrillApp
from .mixed_project import mixed_project
from .test_drilldown import snap_tree, wait_for

SIZES = [(80, 24), (200, 60)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_ocr_session_screen(snap_compare, size) -> None:
    app = DrillApp(snap_tree(f"session-{size[0]}"), lambda: SessionScreen(SID))

    async def run_before(pilot: Pilot) -> None:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_ocr_round_screen(snap_compare, size) -> None:
    app = DrillApp(snap_tree(f"round-{size[0]}"), lambda: RoundScreen(SID, 1))

    async def run_before(pilot: Pilot) -> None:
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        await pilot.press("down")  # the cursor row keeps the severity colours
        await pilot.pause()

    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_ocr_session_screen_light(snap_compare) -> None:
    app = DrillApp(snap_tree("session-light"), lambda: SessionScreen(SID))

    async def run_before(pilot: Pilot) -> None:
        pilot.app.theme = "textual-light"
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


@pytest.mark.parametrize("framework", ["code", "analysis", "idumb"])
def test_session_screen_of_each_format(snap_compare, home, framework) -> None:
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)

    async def run_before(pilot: Pilot) -> None:
        await loaded(pilot)
        pilot.app.clear_notifications()
        views = [v for v in app.sessions.values() if v.framework == framework]
        sid = max(views, key=lambda v: v.last_activity or "").id  # the newest of the format
        app.open_session(sid)
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        await pilot.pause()

    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)
