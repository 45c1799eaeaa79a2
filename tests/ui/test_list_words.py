"""The session list and its detail pane speak the session screen's vocabulary ("one
vocabulary"): times from `fmt.when`, `started` from `fmt.started_at`, a stall measured against
`--stall-after`, fact labels sized to their content and values as the session screen shows
them, round states in `fmt.ROUND_STATES`' words; the document's modified time and the format
headers' facts too. Everything from disk stays text."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from textual.widgets import Static

from ocr_tui.cli import make_app
from ocr_tui.core.view import Elapsed, Fact, Header, MapRun, Round, SessionView
from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.screens.document.screen import info_content as doc_info
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.screens.sessions.cells import activity_text, row_cells, started_text
from ocr_tui.ui.screens.sessions.detail_cells import (
    clock_content,
    details_content,
    info_content,
    rounds_content,
)
from ocr_tui.ui.screens.sessions.detail_pane import DetailPane, LaidPane
from ocr_tui.ui.screens.sessions.headers_bar import header_line

from .builders import fixed_clock, loaded, wait_until
from .mixed_project import mixed_project

BASE = dict(
    id="s", branch=None, source="files", status="active", workflow="review", phase="p",
    phase_label="P", phase_number=None, phase_total=8, complete=False, updated_at=None,
    last_activity=None, stalled=False, current_round=None, rounds=[], current_map_run=None,
    map_runs=[], problems=[], path="/s", framework="ocr",
)  # fmt: skip
T = datetime(2026, 11, 23, 19, 45, tzinfo=UTC)


def view(**kw) -> SessionView:
    elapsed = Elapsed(since=None, seconds=None, running=False)
    fields = {**BASE, "started_at": None, "elapsed": elapsed, **kw}
    return SessionView(**fields)


def rnd(number: int, complete: bool, verdict: str | None = None) -> Round:
    return Round(
        number=number, path=f"rounds/round-{number}", complete=complete, verdict=verdict,
        discourse=False, counts=None, reviewers=[],
    )  # fmt: skip


# -- the list's cells ---------------------------------------------------------------------


def test_started_cell_falls_back_to_the_elapsed_start():
    """The list said `—` where the session screen showed a start (both ask `started_at`)."""
    v = view(elapsed=Elapsed(since="2026-11-23T19:00:00Z", seconds=60, running=True))
    assert row_cells(v, T)["started"] == (("19:00", "muted"),)
    assert started_text(view(started_at="2026-11-17T08:00:00Z"), T) == "Nov 17 08:00"
    assert started_text(view(started_at="2025-11-17T08:00:00Z"), T) == "2025-11-17"  # fits
    assert started_text(view(), T) == "—"


def test_activity_cell_is_relative_and_changes_once_a_minute():
    at = lambda seconds: (T - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    assert [activity_text(at(s), T) for s in (3, 25, 59, 720, -7200)] == [
        "just now", "<1m ago", "<1m ago", "12m ago", "in 2h 00m",
    ]  # fmt: skip
    assert activity_text(None, T) == "—"


async def test_list_and_session_screen_show_the_same_start(app: OcrTuiApp) -> None:
    sid = "2026-03-07-[bold]broken"  # no start of its own: cut-off state.json
    async with app.run_test(size=(200, 50)) as pilot:
        await loaded(pilot)
        table = app.main_screen.table
        shown = table.get_cell(sid, "started").plain
        assert shown not in ("", "—")
        table.select(sid)
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        meta = str(app.screen.query_one("#session-meta", Static).render()).replace("\xa0", " ")
        assert f"started {shown} UTC (" in meta
        detail = app.main_screen.query_one(DetailPane)
        assert f"started  {shown} UTC" in detail.query_one("#dp-info").plain


# -- the detail pane ------------------------------------------------------------------------


async def test_detail_pane_says_how_long_a_stall_lasts(app: OcrTuiApp) -> None:
    sid = "2026-03-08-refactor-db"  # active, quiet for 49 hours
    async with app.run_test(size=(120, 36)) as pilot:
        await loaded(pilot)
        app.main_screen.table.select(sid)
        detail = app.main_screen.query_one(DetailPane)
        await wait_until(
            pilot,
            lambda: detail.session_id == sid,
            what="the detail pane to show the selected session",
        )
        info = " ".join(detail.query_one("#dp-info").plain.split())  # (values wrap)
        assert "stalled: no activity for 2d 1h (limit 30m)" in info, info
        assert "for a while" not in info


def test_stall_limit_is_the_one_given():
    running = Elapsed(since=None, seconds=None, running=True)
    v = view(stalled=True, last_activity="2026-11-23T19:09:00Z", elapsed=running)
    assert "stalled: no activity for 36m (limit 1h 00m)" in info_content(v, T, 3600).plain


async def test_fact_labels_are_not_cut_with_room(home) -> None:
    """`fmt.safe(label, 15):<16` cut `phase at creati…` with 80 columns free."""
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        sid = next(s for s, v in app.sessions.items() if v.framework == "idumb")
        app.main_screen.table.select(sid)
        detail = app.main_screen.query_one(DetailPane)
        await wait_until(
            pilot,
            lambda: detail.session_id == sid,
            what="the detail pane to show the selected session",
        )
        text = detail.query_one("#dp-rounds", LaidPane)
        await wait_until(
            pilot,
            lambda: "phase at creation " in text.plain,
            what="the rounds pane to show the phase at creation",
        )
        assert "creati…" not in text.plain


def test_fact_values_wrap_under_a_label_sized_to_content():
    facts = [Fact(label="spec", value="x " * 30), Fact(label="phase at creation", value="init")]
    lines = details_content(view(framework="analysis", facts=facts), T, 40).plain.splitlines()
    assert lines[0].startswith("spec              x x")  # the column: the longest label
    assert lines[1].startswith(" " * 18 + "x")  # wrapped under itself
    assert "phase at creation init" in lines
    assert all(len(line) <= 40 for line in lines)


def test_fact_values_times_and_home_as_the_session_screen(home):
    facts = [
        Fact(label="approved", value="at 2026-11-23T19:33:19Z"),
        Fact(label="out", value=f"{home}/proj/out"),
        Fact(label="[bold]x", value="[red]y"),
    ]
    text = details_content(view(framework="analysis", facts=facts), T, 60).plain
    assert "at 19:33 UTC" in text and "T19:33" not in text
    assert "~/proj/out" in text and str(home) not in text
    assert "[bold]x  [red]y" in text  # markup from disk stays text


def test_clock_activity_has_the_time_and_how_long_ago():
    v = view(last_activity="2026-11-23T19:33:00Z")
    assert "activity 19:33 UTC (12m ago)" in clock_content(v, T).plain
    assert "activity 12m ago" in clock_content(v, T, width=20).plain  # no room for both


def test_round_and_map_run_states_in_the_session_screens_words():
    closed = view(status="closed", rounds=[rnd(1, True, "APPROVE"), rnd(2, False)])
    text = rounds_content(closed).plain
    assert "R2 ■ stopped" in text and "R1 ✓ APPROVE" in text
    running = view(rounds=[rnd(1, True), rnd(2, False)], current_round=2)
    text = rounds_content(running).plain
    assert "R2 ▶ in progress" in text and "R1 ✓ done" in text and "complete" not in text
    runs = [MapRun(number=1, complete=True, files=3, path="m1"), MapRun(number=2, complete=False,
            files=None, path="m2")]  # fmt: skip
    text = rounds_content(view(workflow="map", map_runs=runs, current_map_run=2)).plain
    assert "Run 2 ▶ in progress · ? files" in text and "Run 1 ✓ done · 3 files" in text


# -- elsewhere ------------------------------------------------------------------------------


def test_document_modified_time_is_the_clock_time():
    class St:
        status, size, mtime = "ok", 265, datetime(2026, 11, 22, 10, 30, tzinfo=UTC).timestamp()

    assert doc_info(St(), T).plain == "265 B · modified Nov 22 10:30 UTC"  # type: ignore[arg-type]


def test_header_fact_times_as_every_screen():
    h = Header(framework="idumb", title="iDumb brain", path="/p",
               facts=[Fact(label="checked", value="2026-11-23T19:33:19Z")])  # fmt: skip
    assert "checked 19:33 UTC" in header_line(h, 120, T).plain


def test_phase_times_only_where_every_line_has_room():
    """`Mar 09 13:00` after `Tech Lead Analysis` wrapped in the 30-cell pane: the times are
    left out then (the durations stay), and the title names no zone. The room is judged
    beside the widest label the format has: an OCR session's times do not come and go with
    its phases (its `Requirements Mapping` leaves them no room); a code workflow's fit."""
    from ocr_tui.core.view import PhaseStep
    from ocr_tui.ui.screens.sessions.detail_cells import phase_times, timeline_content

    def steps(label: str, at: str) -> list[PhaseStep]:
        return [PhaseStep(key="a", label=label, number=1, state="done", at=at, seconds=400)]

    today = view(timeline=steps("Research", "2026-11-23T19:40:00Z"), framework="code")
    assert phase_times(today, T) == ["19:40"]
    assert "✓ Research   19:40 6m 40s" in timeline_content(today, T).plain  # (`Implement`)
    assert phase_times(view(timeline=steps("Research", "2026-11-23T19:40:00Z")), T) == []
    older = view(timeline=steps("Tech Lead Analysis", "2026-11-09T13:00:00Z"))
    assert phase_times(older, T) == []
    assert timeline_content(older, T).plain == "✓ Tech Lead Analysis    6m 40s"  # (a map's label)
