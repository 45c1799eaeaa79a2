"""Left alone, the dashboard's times move as the clock does: its one timer wakes when a time on
screen changes next (`core.ticks`), not every second; in a real terminal, no key pressed, a
running session's elapsed time in seconds shows each second in the list and the detail pane."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from .builders import make_project, write_session
from .test_tmux import DEADLINE_S, pane_factory, pytestmark  # noqa: F401 (the fixture)

SID = "2026-11-28-ticking"


def elapsed(screen: str) -> tuple[str, str]:
    """(the list row's Elapsed, the detail pane's `elapsed`) as shown."""
    row = next(line for line in screen.splitlines() if "ticking" in line and "│" not in line)
    pane = re.search(r"elapsed\s+(\S+)", screen)
    return re.split(r"\s{2,}", row.strip())[-2], pane.group(1) if pane else ""


def test_a_running_sessions_seconds_tick_with_no_key_pressed(
    tmp_path: Path,
    pane_factory,  # noqa: F811 (test_tmux's fixture)
) -> None:
    project = make_project(tmp_path / "proj")
    now = datetime.now(UTC)
    write_session(project, SID, phase="reviews", started=now - timedelta(seconds=3), updated=now)
    pane = pane_factory(project.root)
    shown = elapsed(pane.wait(lambda s: "ticking" in s and "elapsed" in s, "the session"))
    for _ in range(2):  # the next second's, twice
        before = shown
        screen = pane.wait(
            lambda s, before=before: elapsed(s)[0] != before[0], f"an elapsed time after {before}"
        )
        shown = elapsed(screen)
        row, detail = shown
        assert row.endswith("s") and row[:-1].isdigit(), shown  # (seconds: under a minute)
        assert int(row[:-1]) > int(before[0][:-1]), (before, shown)
    # (the pane's clock and the row change on the same tick)
    pane.wait(lambda s: elapsed(s)[1] == elapsed(s)[0], "the pane's elapsed time = the row's")
