"""Snapshot tests (pytest-textual-snapshot): fixed clock, UTC, `~` home, no toasts.

Update the baselines with `pytest tests/ui/test_snapshots.py --snapshot-update` after looking
at the report, and only with the pinned Textual.
"""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from ocr_tui.cli import make_app
from ocr_tui.ui.screens.help.screen import HelpScreen

from .builders import SIZE, fixed_clock, loaded, wait_until
from .mixed_project import mixed_project


async def settle(pilot: Pilot) -> None:
    await loaded(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def test_main_screen_with_sessions(snap_compare, project) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("j")  # the detail pane shows a review with two rounds

    assert snap_compare(
        make_app(project, clock=fixed_clock), terminal_size=SIZE, run_before=run_before
    )


def test_empty_state_no_sessions(snap_compare, empty_project) -> None:
    app = make_app(empty_project, clock=fixed_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_no_project_found(snap_compare, home) -> None:
    app = make_app(None, start_path=home / "code" / "not-a-project", clock=fixed_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_help_screen(snap_compare, project) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("question_mark")
        await wait_until(
            pilot, lambda: isinstance(pilot.app.screen, HelpScreen), what="the help screen to open"
        )

    app = make_app(project, clock=fixed_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


# The session list of every format at three sizes: the columns that fit, whole ids
# (or their ends), the detail pane's panes side by side or stacked, the iDumb header on one line.
LIST_SIZES = [(80, 24), (120, 40), (200, 60)]


@pytest.mark.parametrize("size", LIST_SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_list_of_every_format(snap_compare, home, size) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("j")  # the cursor row on a striped list

    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    assert snap_compare(app, terminal_size=size, run_before=run_before)


def test_list_light_theme(snap_compare, home) -> None:
    async def run_before(pilot: Pilot) -> None:
        pilot.app.theme = "textual-light"
        await settle(pilot)
        await pilot.press("j")

    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)
