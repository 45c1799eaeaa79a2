"""A round's findings by severity as a bar chart: the pure drawing
(`ui/severity_chart.py`), then the session and round screens driven by keys, and a snapshot
of each."""

from __future__ import annotations

from datetime import timedelta

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.core.view import Reviewer, Round, Severity
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.widgets.severity_chart import (
    BAR,
    MIN_BAR,
    SEVERITIES,
    SeverityChart,
    chart_content,
    chart_lines,
    round_severity,
    session_most,
)

from .builders import NOW, fixed_clock, loaded, reviewer_md, set_mtime, wait_until

AUTH = "2026-03-10-feat-auth"  # the sample project's session of two rounds
# Round 2's security reviewer, empty in the sample, given findings: round 2 then counts
# critical 1, high 3, medium 7, low 2, info 1 (round 1: high, medium, low 1 each).
SECURITY = ["high", "high", *["medium"] * 6, "low"]


def vary(project: Project) -> None:
    rev = project.sessions_dir / AUTH / "rounds" / "round-2" / "reviews" / "security-1.md"
    rev.write_text(reviewer_md("security-1", SECURITY))
    set_mtime(rev, NOW - timedelta(minutes=4))  # before the session's last activity


def a_round(number: int, *severities: Severity) -> Round:
    reviewers = [
        Reviewer(name=f"r-{i}", label=f"R {i}", findings=s.total(), severity=s, path=f"r-{i}.md")
        for i, s in enumerate(severities)
    ]
    return Round(
        number=number,
        complete=True,
        discourse=False,
        verdict=None,
        counts=None,
        reviewers=reviewers,
        path=f"rounds/round-{number}",
    )


def test_counts_add_up_the_reviewers_every_severity_kept() -> None:
    rnd = a_round(1, Severity(high=2, low=1), Severity(high=1, info=3))
    assert round_severity(rnd) == {"critical": 0, "high": 3, "medium": 0, "low": 1, "info": 3}
    assert round_severity(None) == dict.fromkeys(SEVERITIES, 0)
    # the scale: the largest count of one severity in any round
    assert session_most([rnd, a_round(2, Severity(medium=5))]) == 5
    assert session_most([]) == 0


def test_bars_in_eighths_against_the_largest_zero_muted_and_bare() -> None:
    counts = {"critical": 0, "high": 8, "medium": 3, "low": 1, "info": 0}
    lines = chart_lines(counts, most=8, room=None)
    assert lines == [
        "critical 0",
        "high     8 " + "█" * BAR,
        "medium   3 " + "█" * 7 + "▌",  # 3/8 of 20 cells: 7.5
        "low      1 " + "██▌",  # 2.5 cells
        "info     0",
    ]
    content = chart_content(counts, most=8)
    # a zero's word and count are muted; the others in their severity's colour
    spans = {content.plain[s.start : s.end].strip(): str(s.style) for s in content.spans}
    assert spans["critical 0"] == "$foreground-muted"
    assert spans["high"] == "$text-error"
    assert spans["medium"] == "$text-warning"
    assert spans["low"] == "$text-primary"


def test_the_scale_is_the_sessions_not_the_rounds() -> None:
    # a round whose largest count is 2 of a session whose largest is 8: a quarter bar
    lines = chart_lines({"high": 2}, most=8)
    assert lines[1] == "high     2 " + "█" * (BAR // 4)
    # any count at all shows at least a sliver; the counts' column is as wide as the
    # session's largest (a round's lines stay put when the round changes)
    assert chart_lines({"low": 1}, most=1000)[3] == "low         1 ▏"


def test_short_of_room_the_bars_go_first_the_counts_never() -> None:
    counts = {"critical": 12, "high": 3}
    full = chart_lines(counts, most=12, room=None)
    assert full[0] == "critical 12 " + "█" * BAR
    # narrower: the bars shrink to what is left
    narrow = chart_lines(counts, most=12, room=24)
    assert narrow[0] == "critical 12 " + "█" * 12
    assert max(len(line) for line in narrow) <= 24
    # below MIN_BAR cells of bar: none at all, the words and counts stay
    bare = chart_lines(counts, most=12, room=12 + MIN_BAR - 1)
    assert bare == ["critical 12", "high      3", "medium    0", "low       0", "info      0"]
    assert chart_lines(counts, most=12, room=5)[0] == "critical 12"


def test_no_findings_at_all_every_line_muted() -> None:
    content = chart_content({}, most=0)
    assert content.plain.split("\n") == [f"{s.ljust(8)} 0" for s in SEVERITIES]
    assert {str(s.style) for s in content.spans} == {"$foreground-muted"}


# -- the screens ----------------------------------------------------------------------------


def chart_of(screen) -> list[str]:
    return [line.rstrip() for line in screen.query_one(SeverityChart).plain.split("\n")]


async def test_the_session_screen_follows_the_rounds_cursor_and_the_round_screen(
    project: Project,
) -> None:
    vary(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        app.open_session(AUTH)
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        await pilot.pause()
        screen = app.screen
        pane = screen.query_one("#severity-pane")
        # the current round (2) under the cursor as the screen opens; up: round 1's, high,
        # medium, low, at the session's scale (round 2's 7 medium findings are 20 cells)
        assert pane.display and pane.border_title == "Round 2 by severity"
        await pilot.press("k")
        await wait_until(
            pilot,
            lambda: pane.border_title == "Round 1 by severity",
            what="the chart to show round 1",
        )
        one = chart_of(screen)
        assert one == ["critical 0", "high     1 ██▉", "medium   1 ██▉", "low      1 ██▉",
                       "info     0"]  # fmt: skip
        # down: round 2's chart
        await pilot.press("j")
        await wait_until(
            pilot,
            lambda: pane.border_title == "Round 2 by severity",
            what="the chart to show round 2",
        )
        two = chart_of(screen)
        assert two == [
            "critical 1 ██▉",
            "high     3 ████████▋",
            "medium   7 " + "█" * BAR,
            "low      2 █████▊",
            "info     1 ██▉",
        ]
        # Enter: the round's screen, its chart beside the banner; `[` the round before
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        await pilot.pause()
        rscreen = app.screen
        rpane = rscreen.query_one("#round-severity-pane")
        assert rpane.border_title == "Round 2 by severity"
        assert chart_of(rscreen) == two
        await pilot.press("[")
        await wait_until(
            pilot,
            lambda: rpane.border_title == "Round 1 by severity",
            what="the round screen's chart to show round 1",
        )
        assert chart_of(rscreen) == one
        # it fits: nothing of the chart is cut, at 120 columns and at 80
        assert rscreen.query_one(SeverityChart).region.right <= 120
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert rscreen.query_one(SeverityChart).region.right <= 80


def test_snapshot_session_severity_chart(project: Project, snap_compare) -> None:
    vary(project)

    async def run_before(pilot) -> None:
        await loaded(pilot)
        pilot.app.open_session(AUTH)
        await wait_until(
            pilot,
            lambda: isinstance(pilot.app.screen, SessionScreen),
            what="the session screen to open",
        )
        await pilot.pause()  # round 2 under the cursor: the current round, as it opens

    assert snap_compare(
        make_app(project, clock=fixed_clock), terminal_size=(120, 40), run_before=run_before
    )


def test_snapshot_round_severity_chart(project: Project, snap_compare) -> None:
    vary(project)

    async def run_before(pilot) -> None:
        await loaded(pilot)
        pilot.app.open_session(AUTH)
        await wait_until(
            pilot,
            lambda: isinstance(pilot.app.screen, SessionScreen),
            what="the session screen to open",
        )
        await pilot.press("g", "enter")  # round 1
        await wait_until(
            pilot,
            lambda: isinstance(pilot.app.screen, RoundScreen),
            what="the round screen to open",
        )
        await pilot.pause()

    assert snap_compare(
        make_app(project, clock=fixed_clock), terminal_size=(80, 24), run_before=run_before
    )


async def test_on_a_short_screen_the_session_chart_gives_way(project: Project) -> None:
    """Below 32 lines the Rounds table's Reported column says it: the map runs and the
    phases keep their place on the first screen."""
    vary(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=(80, 24)) as pilot:
        await loaded(pilot)
        app.open_session(AUTH)
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        await pilot.pause()
        assert not app.screen.query_one("#severity-pane").display
        await pilot.resize_terminal(80, 40)
        await wait_until(
            pilot,
            lambda: app.screen.query_one("#severity-pane").display,
            what="the severity chart to show on the taller screen",
        )
