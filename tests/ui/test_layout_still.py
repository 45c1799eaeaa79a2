"""A layout that holds still while a run goes on: the simulator's live review
is played step by step (its round 1 asks for changes, round 2 approves, a map run follows)
into the project of a running dashboard, at 80, 120 and 200 columns; after every step, once
the dashboard shows it, the list's header line and the detail pane's geometry are exactly
what they were at the first."""

from __future__ import annotations

import math
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from ocr_tui.cli import make_app
from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.core.view import SessionView
from ocr_tui.formats.ocr.sim import SimStep, Simulator
from ocr_tui.ui.screens.sessions.detail_pane import DetailPane

from .builders import loaded, wait_until

START = datetime(2026, 11, 23, 22, 0, tzinfo=UTC)
SIZES = [(80, 24), (120, 40), (200, 60)]


class Run:
    """The simulator's live session played into `root`, one step at a time, on a clock of
    its own (the app's and the engine's that says what each step should show)."""

    def __init__(self, root) -> None:
        self.sim = Simulator(root, store="ocr.db", seed=7, start=START, speed=math.inf)
        self._steps: Iterator[SimStep] = self.sim.steps()
        next(self._steps)  # the session exists from the first frame
        self.live = self.sim.live_session_id
        self.project = Project(root)
        self.engine = Engine(self.project, clock=self.now)

    def now(self) -> datetime:
        return self.sim.now

    def steps(self) -> Iterator[str]:
        """Plays each step; yields the live session's phase once it is played."""
        for _step in self._steps:
            yield self.sim.live_session_id

    def expected(self) -> tuple:
        """What the dashboard should show of the live session now (`shown`)."""
        (view,) = [v for v in self.engine.scan() if v.id == self.live]
        return shown(view)


def shown(view: SessionView | None) -> tuple:
    """What a step changes on screen (not its times, which the derivation's moment moves)."""
    if view is None:
        return ()
    rounds = tuple((r.number, r.complete, r.verdict, len(r.reviewers), r.findings)
                   for r in view.rounds)  # fmt: skip
    runs = tuple((m.number, m.complete, m.files) for m in view.map_runs)
    return (view.phase, view.status, view.workflow, rounds, runs, len(view.agents))


def geometry(app) -> tuple:
    """What must hold still: the list's header line (its columns, their widths), where the
    list and the detail pane are, and where each box of the pane is."""
    screen = app.main_screen
    table = screen.table
    pane = screen.query_one(DetailPane)
    boxes = tuple((box.id, box.region) for box in pane.children if box.display)
    return table.render_line(0).text, table.region, pane.region, boxes


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_run_moves_no_column_and_no_pane(tmp_path, size) -> None:
    run = Run(tmp_path)
    app = make_app(run.project, clock=run.now)
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        app.main_screen.table.select(run.live)
        await pilot.pause()
        first = geometry(app)
        assert "Session" in first[0] and "Phase" in first[0]
        seen = set()
        for _ in run.steps():
            want = run.expected()
            await wait_until(
                pilot,
                lambda want=want: shown(app.sessions.get(run.live)) == want,
                what="the app to read the run's step",
            )
            await pilot.pause()
            seen.add(want[0])
            assert geometry(app) == first, (size, want)
        # the whole run was played: both workflows' phases, to the end
        assert {"reviews", "discourse", "flow-analysis", "complete"} <= seen
        run.engine.close()


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_session_screen_holds_still(tmp_path, size) -> None:
    """The live session's screen through the whole run: the phases' column as wide as at the
    first step (the map's `Requirements Mapping` was planned for: it widened the column, and
    the Rounds table beside it re-wrapped, when the map began); the Rounds table's columns
    never narrow, its verdict as wide from its first row to the last; the Map runs table's
    columns as wide from its first row (a run's state planned for `in progress`), its document
    column sharing what is left; the Rounds cursor on
    the current round (R1, then R2), as it opened."""
    from ocr_tui.ui.screens.session.screen import SessionScreen

    run = Run(tmp_path)
    app = make_app(run.project, clock=run.now)
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        app.main_screen.table.select(run.live)
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        screen = app.screen
        await pilot.pause()
        left = screen.query_one("#session-left").region.width
        rounds = screen.query_one("#rounds")
        runs = screen.query_one("#runs")
        widths: dict[str, int] = {}
        run_widths: dict[str, int] = {}
        verdict = None
        for _ in run.steps():
            want = run.expected()
            await wait_until(
                pilot,
                lambda want=want: shown(app.sessions.get(run.live)) == want,
                what="the app to read the run's step",
            )
            await pilot.pause()
            if size != (80, 24):  # (stacked below WIDE_AT: as wide as the screen)
                assert screen.query_one("#session-left").region.width == left, want
            if runs.row_count:  # the map runs' table: `in progress` then `done` moves nothing
                held = {k: runs.column_width(k) for k, _ in runs._column_spec if k != "doc"}
                assert all(held[k] == w for k, w in run_widths.items()), (run_widths, held, want)
                run_widths = held
            if not rounds.row_count:
                continue
            now = {key: rounds.column_width(key) for key, _ in rounds._column_spec}
            assert all(now[k] >= w for k, w in widths.items()), (widths, now, want)
            widths = now
            verdict = verdict or now["verdict"]
            assert now["verdict"] == verdict, want
            current = app.sessions[run.live].current
            assert rounds.cursor_key == current.path, (rounds.cursor_key, want)
        assert len(app.sessions[run.live].rounds) == 2 and rounds.cursor_key.endswith("round-2")
