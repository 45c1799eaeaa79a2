"""One time convention from one formatter: `fmt.when`. Local time with the
zone named, the absolute time first and, where there is room, how long ago; the relative time
alone where there is none. The session screen, its facts, its steps and its problems all show
times this way (no `16:17:17Z`, no `2026-11-23T15:27:15Z`, no `2026-11-22 16:11:55Z`)."""

from __future__ import annotations

import re
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ocr_tui.core.view import Elapsed, SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.widgets.fit_table import FitTable
from ocr_tui.ui.widgets.labelled_rows import LabelledRows

from .drilldown_tree import SID, DrillApp, build_tree
from .mixed_project import mixed_project
from .test_drilldown import wait_for

NOW = datetime(2026, 11, 23, 19, 45, tzinfo=UTC)
# The forms this replaces: `fmt_time`, `fmt_datetime`, `fmt_ts`, SQLite's, `Nov 17` alone.
OTHER_FORMS = re.compile(
    r"\d\d:\d\d:\d\dZ|\d{4}-\d\d-\d\dT\d\d:\d\d|\d{4}-\d\d-\d\d \d\d:\d\d:\d\d|\d\d-\d\d \d\d:\d\dZ"
)


@pytest.mark.parametrize(
    ("value", "full", "clock", "cell", "ago"),
    [
        ("2026-11-23T19:33:19Z", "19:33 UTC (11m ago)", "19:33 UTC", "19:33", "11m ago"),
        ("2026-11-17T08:00:00Z", "Nov 17 08:00 UTC (6d ago)", "Nov 17 08:00 UTC", "Nov 17 08:00",
         "6d ago"),
        ("2025-11-17 08:00:00", "2025-11-17 08:00 UTC (371d ago)", "2025-11-17 08:00 UTC",
         "2025-11-17 08:00", "371d ago"),
        ("2026-11-26T19:33:22Z", "Nov 26 19:33 UTC (in 2d 23h)", "Nov 26 19:33 UTC", "Nov 26 19:33",
         "in 2d 23h"),
        ("2026-11-23T19:44:58Z", "19:44 UTC (just now)", "19:44 UTC", "19:44", "just now"),
        (None, "", "", "", ""),
        ("yesterday", "", "", "", ""),
    ],
)  # fmt: skip
def test_one_formatter_every_room(value, full, clock, cell, ago):
    forms = [fmt.when(value, NOW, room) for room in ("full", "clock", "cell", "ago")]
    assert forms == [full, clock, cell, ago]


def test_local_zone_is_named(monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    try:
        assert fmt.when("2026-11-23T19:33:19Z", NOW) == "20:33 CET (11m ago)"
        assert fmt.when("2026-07-01T10:00:00Z", NOW, "clock") == "Jul 01 12:00 CEST"
        assert fmt.zone_name(NOW) == "CET"
    finally:
        monkeypatch.undo()
        time.tzset()


def test_times_in_a_fact_are_shown_by_the_formatter():
    text = "phase 4 (Structure Review): approved at 2026-11-23T19:33:19Z"
    assert fmt.times_in(text, NOW) == "phase 4 (Structure Review): approved at 19:33 UTC (11m ago)"
    assert fmt.times_in("no time here: 12:00", NOW) == "no time here: 12:00"


def test_started_is_the_same_time_everywhere():
    """The list said `started —` where the session screen showed a time: both ask
    `fmt.started_at`, which falls back to the time the elapsed clock counts from."""
    base = dict(
        id="x", branch=None, source="files", status="active", workflow="review", phase="p",
        phase_label="P", phase_number=None, phase_total=8, complete=False, updated_at=None,
        last_activity=None, stalled=False, current_round=None, rounds=[],
        current_map_run=None, map_runs=[], problems=[], path="/x", framework="ocr",
    )  # fmt: skip
    since = Elapsed(since="2026-11-23T19:00:00Z", seconds=60, running=True)
    view = SessionView(started_at=None, elapsed=since, **base)
    assert fmt.started_at(view) == "2026-11-23T19:00:00Z"
    assert fmt.when(fmt.started_at(view), NOW) == "19:00 UTC (45m ago)"
    own = SessionView(started_at="2026-11-23T18:00:00Z", elapsed=since, **base)
    assert fmt.started_at(own) == "2026-11-23T18:00:00Z"


def first_of(app: DrillApp, framework: str) -> str:
    return next(v.id for v in app.sessions.values() if v.framework == framework)


def shown(app) -> bool:
    """The session screen is up and drawn (its meta line rendered)."""
    return isinstance(app.screen, SessionScreen) and app.screen._last_meta is not None


async def test_session_screen_times_follow_the_convention(tmp_path: Path) -> None:
    build_tree(tmp_path / "proj")
    app = DrillApp(tmp_path / "proj", lambda: SessionScreen(SID))
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        meta = str(app.screen.query_one("#session-meta").render()).replace("\xa0", " ")
        assert "started 10:00 UTC (42m ago)" in meta
        assert "last activity 10:30 UTC (12m ago)" in meta
        assert not OTHER_FORMS.search(meta), meta


async def test_format_facts_steps_and_problems_follow_the_convention(home: Path) -> None:
    root = home / "proj"
    mixed_project(root)
    now = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)
    app = DrillApp(root, lambda: SessionScreen(first_of(app, "analysis")), now=now)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(
            pilot, lambda: shown(app), what="the session screen to open and draw the session"
        )
        facts = " ".join(app.screen.query_one("#facts", LabelledRows).plain.split())
        assert "approved at 14:50 UTC (10m ago)" in facts
        assert "Mar 13 14:55 UTC (in 2d 23h)" in facts  # resumable until
        assert not OTHER_FORMS.search(facts), facts
        steps = app.screen.query_one("#steps", FitTable)
        assert steps.columns[next(iter(steps.columns))].label.plain == "When (UTC)"
        at = [str(steps.get_row_at(i)[0]) for i in range(steps.row_count)]
        assert at == ["14:35", "14:45", "14:50"]


async def test_relative_times_move_with_the_clock(home: Path) -> None:
    """iDumb's idle time stayed at `0s`: the facts say when, and the screen how long ago,
    live."""
    root = home / "proj"
    mixed_project(root)
    clock = {"now": datetime(2026, 3, 10, 15, 0, tzinfo=UTC)}
    sid = "ses_3d0fdbb84ffeAN7FeCuPSp5ZW7"
    app = DrillApp(root, lambda: SessionScreen(sid), now=clock["now"], fixed_clock=False)
    app.now = lambda: clock["now"]
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(
            pilot, lambda: shown(app), what="the session screen to open and draw the session"
        )
        facts = app.screen.query_one("#facts", LabelledRows)
        assert "last update       14:52 UTC (8m ago)" in facts.plain
        assert not re.search(r"idle \d", facts.plain)
        clock["now"] += timedelta(minutes=3)
        await wait_for(
            pilot,
            lambda: "14:52 UTC (11m ago)" in facts.plain,
            what="the last update to read 11m ago",
        )


def test_the_timeline_says_how_long_and_when_in_one_form():
    """The Phases pane showed `19:32:58Z` beside each phase: now when it was entered, as every
    clock is shown (`HH:MM`, the day and zone in the pane's title), how long each took (from
    one phase's start to the next's) and, for the one under way, how long so far; a bar of
    each phase's time against the longest."""
    from ocr_tui.core.view import PhaseStep
    from ocr_tui.ui.screens.session.timeline_cells import timeline_content

    steps = [
        PhaseStep(key="a", label="Context", number=1, state="done", at="2026-11-23T19:30:00Z"),
        PhaseStep(
            key="b", label="Change Context", number=2, state="done", at="2026-11-23T19:32:10Z"
        ),
        PhaseStep(key="c", label="Reviews", number=3, state="current", at="2026-11-23T19:40:00Z"),
        PhaseStep(key="d", label="Synthesis", number=4, state="pending"),
    ]
    base = dict(
        id="x", branch=None, source="ocr.db", status="active", workflow="review", phase="c",
        phase_label="Reviews", phase_number=3, phase_total=4, complete=False,
        started_at="2026-11-23T19:30:00Z", updated_at=None, last_activity=None, stalled=False,
        elapsed=Elapsed(since="2026-11-23T19:30:00Z", seconds=None, running=True),
        current_round=None, rounds=[], current_map_run=None, map_runs=[], problems=[], path="/x",
        framework="code",  # (OCR's labels column has room for its widest phase's: see below)
    )  # fmt: skip
    text = timeline_content(SessionView(timeline=steps, **base), NOW).plain
    assert [line.rstrip() for line in text.splitlines()] == [
        "✓ 1 Context         19:30   2m 10s █▋",
        "✓ 2 Change Context  19:32   7m 50s ██████",
        "▶ 3 Reviews         19:40   5m 00s ███▉",
        "· 4 Synthesis",
    ]
    narrow = timeline_content(SessionView(timeline=steps, **base), NOW, room=34).plain
    assert narrow.splitlines()[0].rstrip() == "✓ 1 Context         19:30   2m 10s"  # no bar
    narrower = timeline_content(SessionView(timeline=steps, **base), NOW, room=24).plain
    assert narrower.splitlines()[0].rstrip() == "✓ 1 Context          2m 10s"  # no time
    assert not OTHER_FORMS.search(text)
    ocr = timeline_content(SessionView(timeline=steps, **(base | {"framework": "ocr"})), NOW)
    assert ocr.plain.splitlines()[0].rstrip() == "✓ 1 Context               19:30   2m 10s █▋"
