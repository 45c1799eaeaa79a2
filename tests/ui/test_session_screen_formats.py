"""The session screen and the detail pane in every format (keys that mean what they
say, one vocabulary, nothing cut while there is room): `c` / `F` only where there is a review
round (pressed anyway, they say why); one mark for "current" (phase, round, map run) and `·`
for "to come" only (a zero count is `0`); the phase bar beside the phase for every format, as
the list shows it; each fact once (no badge line repeating the status or a fact, no fact
repeating an alert); the severity bar's counts and the steps' details whole at 80, 120 and
200 columns (wrapped at words), the status said once."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from rich.style import Style
from textual.pilot import Pilot
from textual.widgets.data_table import ColumnKey

from ocr_tui.cli import make_app
from ocr_tui.core.states import CURRENT, PHASE_MARKS, TO_COME
from ocr_tui.core.view import Elapsed, Fact, Reviewer, Round, SessionView, Severity
from ocr_tui.ui import fmt
from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.fmt.text import unsaid_badges
from ocr_tui.ui.navigation import SessionTarget
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.screens.session.cells import meta_content
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.screens.sessions.cells import row_cells
from ocr_tui.ui.screens.sessions.detail_cells import (
    details_content,
    info_content,
    reviewers_content,
    rounds_content,
    status_words,
)
from ocr_tui.ui.screens.sessions.detail_pane import DetailPane
from ocr_tui.ui.widgets.fit_table import FitTable
from ocr_tui.ui.widgets.format_panes import fact_items
from ocr_tui.ui.widgets.labelled_rows import LabelledRows

from .builders import fixed_clock, loaded, wait_until
from .mixed_project import mixed_project

MAP = "2026-03-10-map-onboarding"
AUTH = "2026-03-10-feat-auth"
CODE = "260310-rate-limiter"
ANALYSIS = "session-20260310-143022-12345"
IDUMB = "ses_3d0fdbb84ffeAN7FeCuPSp5ZW7"
T = datetime(2026, 11, 23, 19, 45, tzinfo=UTC)


def record_toasts(app: OcrTuiApp, monkeypatch) -> list[str]:
    toasts: list[str] = []
    monkeypatch.setattr(app, "notify", lambda message, **kw: toasts.append(str(message)))
    return toasts


async def open_session(pilot: Pilot, sid: str) -> SessionScreen:
    app = pilot.app
    app.open_target(SessionTarget(sid))
    await wait_until(
        pilot,
        lambda: (
            isinstance(app.screen, SessionScreen)
            and app.screen.session_id == sid
            and app.screen._last_meta is not None
        ),
        what="the session screen to show the session",
    )
    await pilot.pause()
    return app.screen


def view(**kw) -> SessionView:
    base = dict(
        framework="ocr",
        id="s", branch=None, source="files", status="active", workflow="review", phase="p",
        phase_label="P", phase_number=None, phase_total=8, complete=False, updated_at=None,
        last_activity=None, stalled=False, current_round=None, rounds=[],
        current_map_run=None, map_runs=[], problems=[], path="/s", started_at=None,
        elapsed=Elapsed(since=None, seconds=None, running=False),
    )  # fmt: skip
    return SessionView(**{**base, **kw})


# -- keys: c and F only where there is a review round ----------------------------------------


@pytest.mark.parametrize(
    ("sid", "why"),
    [
        (MAP, "This map session has no review round"),
        (CODE, "Code workflow sessions have no review rounds"),
        (ANALYSIS, "Scientific analysis sessions have no review rounds"),
        (IDUMB, "iDumb sessions have no review rounds"),
    ],
)
async def test_no_round_keys_where_there_is_no_round(home, monkeypatch, sid: str, why: str):
    """A map session's footer showed `c Current round` (it has no review round); pressed,
    the key only said so afterwards."""
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    toasts = record_toasts(app, monkeypatch)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        screen = await open_session(pilot, sid)
        keys = screen.active_bindings
        assert "c" not in keys and "F" not in keys
        assert "escape" in keys and "q" in keys  # back and quit apply everywhere
        toasts.clear()
        await pilot.press("c")
        await wait_until(pilot, lambda: toasts, what="a toast saying why c does nothing")
        assert toasts[0].startswith(why), toasts
        assert app.screen is screen
        toasts.clear()
        await pilot.press("F")
        await wait_until(pilot, lambda: toasts, what="a toast saying why F does nothing")
        assert toasts[0].startswith(why), toasts


async def test_round_keys_where_there_is_a_round(home, monkeypatch) -> None:
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        screen = await open_session(pilot, AUTH)
        keys = screen.active_bindings
        assert keys["c"].binding.description == "Current round" and keys["c"].enabled
        await pilot.press("c")
        await wait_until(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        assert app.screen.round_number == 2


# -- one glyph per meaning ---------------------------------------------------------------------


def test_current_and_to_come_have_one_mark_each():
    assert fmt.PHASE_MARKS == PHASE_MARKS  # the phases' marks are the vocabulary's
    assert CURRENT == PHASE_MARKS["current"] and TO_COME == PHASE_MARKS["pending"]
    assert len(set(PHASE_MARKS.values())) == len(PHASE_MARKS)


async def test_the_current_round_has_the_current_mark_everywhere(home) -> None:
    """The rounds table marked the current round `•`, the detail pane `▶` (the timeline's
    mark for the current phase)."""
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    async with app.run_test(size=(200, 60)) as pilot:
        await loaded(pilot)
        current = app.sessions[AUTH].current
        assert current is not None
        assert f"R{current.number} {CURRENT} " in rounds_content(app.sessions[AUTH]).plain
        screen = await open_session(pilot, AUTH)
        table = screen.query_one("#rounds", FitTable)
        labels = [table.get_row_at(i)[0].plain for i in range(table.row_count)]
        assert f"{current.number} {CURRENT}" in labels
        assert not any("•" in label for label in labels)
        assert str(screen.query_one("#rounds-pane").border_subtitle).startswith(CURRENT)


def test_a_zero_count_is_a_number_not_the_to_come_mark():
    """`·` said both "to come" (a pending phase) and zero (a reviewer's count)."""
    rnd = Round(
        number=1, path="rounds/round-1", complete=False, verdict=None, discourse=False,
        counts=None,
        reviewers=[
            Reviewer(name="principal-1", label="Principal #1", findings=2, path="r.md",
                     severity=Severity(critical=0, high=2, medium=0, low=0, info=0)),
        ],
    )  # fmt: skip
    rows = reviewers_content(view(rounds=[rnd], current_round=1))
    cells = rows[2].plain.split()
    assert cells == ["Principal", "#1", "2", "0", "2", "0", "0", "0"]
    assert TO_COME not in rows[2].plain


# -- the phase bar: one treatment for every format ---------------------------------------------


@pytest.mark.parametrize("sid", [AUTH, MAP, CODE, ANALYSIS])
async def test_the_phase_bar_beside_the_phase_in_every_format(home, sid: str) -> None:
    """The list drew `▰▰▱▱ 2/4` for every format; the session screen and the detail pane
    drew no bar for any."""
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    async with app.run_test(size=(200, 60)) as pilot:
        await loaded(pilot)
        v = app.sessions[sid]
        done, todo = fmt.phase_bar(fmt.phase_position(v), v.phase_total)
        bar = f"{done}{todo} {fmt.phase_fraction(v)}"
        listed = "".join(text for text, _ in row_cells(v, app.now())["phase"])
        assert bar.split() == listed.split()[:2]
        assert f"phase    {bar}" in info_content(v, app.now()).plain
        screen = await open_session(pilot, v.id)
        assert f"phase {bar}" in screen._last_meta.plain


def test_no_bar_where_the_number_of_phases_is_unknown():
    """iDumb's free-text phase: no bar, no `/0`, the phase's name."""
    v = view(phase_total=0, phase_label="init", framework="idumb", workflow="session")
    for text in (meta_content(v, T).plain, info_content(v, T).plain):
        assert "▰" not in text and "▱" not in text and "/0" not in text
        assert " ".join(text.split()).count("phase init") == 1


# -- each fact once --------------------------------------------------------------------------


def test_badges_the_screen_says_already_are_left_out():
    """The code workflow's Details began with `full · auto` above `mode full (/code), auto`,
    iDumb's with `active` under `session · active`."""
    code = view(
        framework="code", workflow="code", badges=["full", "auto", "5 chapters"],
        facts=[Fact(label="mode", value="full (/code), auto")],
    )  # fmt: skip
    assert unsaid_badges(code) == ["5 chapters"]
    idumb = view(framework="idumb", workflow="session", badges=["active", "compacted"],
                 facts=[Fact(label="compacted", value="19:58 UTC; 186,717 tokens")])  # fmt: skip
    assert unsaid_badges(idumb) == []


def test_a_fact_an_alert_says_is_left_out():
    """iDumb's `! stale: idle over 48h; …` alert and its `state stale: idle over 48h` fact."""
    v = view(
        framework="idumb", workflow="session",
        alerts=["stale: idle over 48h; start fresh or confirm resume"],
        facts=[Fact(label="state", value="stale: idle over 48h"),
               Fact(label="governance", value="standard")],
    )  # fmt: skip
    items = fact_items(v, T)
    assert [getattr(i, "label", None) for i in items] == [None, "governance"]


async def test_the_details_pane_does_not_repeat_the_status_line(home) -> None:
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    async with app.run_test(size=(120, 40)) as pilot:
        await loaded(pilot)
        for sid in (CODE, IDUMB):
            screen = await open_session(pilot, sid)
            facts = screen.query_one("#facts", LabelledRows).plain.splitlines()
            badges = " · ".join(app.sessions[sid].badges)
            assert badges and badges not in facts, facts
            await pilot.press("escape")


def test_the_status_is_said_once():
    """The detail pane said `✓ closed · closed`."""
    closed = view(status="closed", complete=True)
    assert status_words(closed, "closed", T, None) == "closed"
    assert "closed · closed" not in info_content(closed, T).plain
    running = view(status="active")
    assert status_words(running, "running", T, None) == "active · running"


# -- nothing cut while there is room -----------------------------------------------------------


def rendered(table: FitTable, key: str) -> list[str]:
    """The lines `key`'s cells draw, as plain text."""
    col = [k for k, _ in table._column_spec].index(key)
    out = []
    for row in range(table.row_count):
        width = table.columns[ColumnKey(key)].get_render_width(table)
        lines = table._render_cell(row, col, Style(), width)
        out.append(" ".join("".join(seg.text for seg in line).strip() for line in lines))
    return out


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)])
async def test_the_severity_counts_are_whole(home, size) -> None:
    """`██████████ 1 critical 2 high 5 m…` at 120 columns: the counts wrap instead."""
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        screen = await open_session(pilot, AUTH)
        await pilot.pause()
        table = screen.query_one("#rounds", FitTable)
        bars = rendered(table, "bar")
        for i, text in enumerate(bars):
            whole = " ".join(table.get_row_at(i)[-1].plain.split())
            assert " ".join(text.split()) == whole, (text, whole)
            assert "…" not in text


@pytest.mark.parametrize("size", [(80, 24), (120, 40), (200, 60)])
async def test_the_steps_are_whole(home, size) -> None:
    """The scientific analysis' steps read `approval: phase …` and `phase 2 (Birds-E…` at
    120 columns."""
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        screen = await open_session(pilot, ANALYSIS)
        await pilot.pause()
        table = screen.query_one("#steps", FitTable)
        for key in ("step", "detail"):
            for i, text in enumerate(rendered(table, key)):
                col = [k for k, _ in table._column_spec].index(key)
                whole = " ".join(table.get_row_at(i)[col].plain.split())
                assert " ".join(text.split()) == whole, (key, text, whole)


def test_the_detail_panes_steps_keep_their_state_words():
    """A step's state was cut at 12 characters with no `…` (`in progress,` …)."""
    from ocr_tui.core.view import Step

    v = view(
        framework="analysis", workflow="analysis",
        steps=[Step(key="a", label="a very long step label " * 3, state="waiting_for_approval",
                    at=None, seconds=None, detail=None, documents=[])],
    )  # fmt: skip
    text = details_content(v, T, 50).plain
    assert "waiting for approval" in text
    assert all(len(line) <= 50 for line in text.splitlines())


async def test_the_detail_pane_speaks_as_the_session_screen(home) -> None:
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    async with app.run_test(size=(200, 60)) as pilot:
        await loaded(pilot)
        app.main_screen.table.select(AUTH)
        detail = app.main_screen.query_one(DetailPane)
        await wait_until(
            pilot, lambda: detail.session_id == AUTH, what="the detail pane to show feat-auth"
        )
        text = detail.query_one("#dp-rounds").plain
        assert f" {CURRENT} " in text and "•" not in text


def test_the_detail_pane_leaves_out_the_badges_its_facts_say():
    """`workflow code:fast · phase 3/6 · fast · auto` beside `mode fast (/code:fast), auto`."""
    v = view(
        framework="code", workflow="code:fast", badges=["fast", "auto"], phase_total=6,
        facts=[Fact(label="mode", value="fast (/code:fast), auto")],
    )  # fmt: skip
    assert "auto" not in info_content(v, T).plain
