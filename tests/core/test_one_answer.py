"""One fact, one answer, on every screen (class 2): a round's and a map run's start
and end, a map run's time whatever the store, a stall's length, a stale agent's state, a map
session's Verdict cell, whose phases the timeline shows."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest

from ocr_tui.core import display
from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.core.reviews import review_rows
from ocr_tui.core.states import session_state
from ocr_tui.core.view import Elapsed, RunningAgent, SessionView
from ocr_tui.formats.ocr.sim import Simulator
from ocr_tui.status_text import status_cell
from ocr_tui.ui import fmt
from ocr_tui.ui.screens.session.timeline_cells import timeline_title

from .builders import FIXED, ago, final_md, iso, reviewer_md

SID = "2026-03-10-feat-x"
START = datetime(2026, 3, 10, 9, 0, 0, tzinfo=UTC)


# --- every round and map run has a start and an end ----------------------------------


def test_state_json_rounds_end_when_their_synthesis_was_written_not_at_updated_at(tree):
    """The Reviews view dated both rounds of a state.json session with its `updated_at`."""
    s = tree.session(SID)
    s.round(1, reviewers={"principal-1": reviewer_md("High")}, mtime=ago(minutes=50))
    s.write("rounds/round-1/final.md", final_md("REQUEST CHANGES"), mtime=ago(minutes=45))
    s.round(2, reviewers={"principal-1": reviewer_md("Low")}, mtime=ago(minutes=20))
    s.write("rounds/round-2/final.md", final_md("APPROVE"), mtime=ago(minutes=10))
    s.state(current_phase="complete", status="closed", current_round=2,
            started_at=iso(ago(hours=1)), round_started_at=iso(ago(minutes=40)),
            updated_at=iso(ago(minutes=5)))  # fmt: skip
    view = tree.view(SID)
    r1, r2 = view.rounds
    assert (r1.started_at, r1.ended_at, r1.approximate) == (
        iso(ago(hours=1)),
        iso(ago(minutes=45)),
        True,
    )  # its start is state.json's; its end the time final.md was written
    assert (r2.started_at, r2.ended_at) == (iso(ago(minutes=40)), iso(ago(minutes=10)))
    rows = {r.number: r for r in review_rows([view])}
    assert rows[1].at == iso(ago(minutes=45)) and rows[1].approximate
    assert rows[2].at == iso(ago(minutes=10))
    assert rows[1].at != rows[2].at != view.updated_at


def test_ocr_db_rounds_start_and_end_at_their_events(tree):
    s = tree.session(SID)
    s.round(1, reviewers={"principal-1": reviewer_md("High")}, final=final_md("APPROVE"))
    s.round(2, reviewers={"principal-1": reviewer_md("Low")})
    db = tree.db.session(SID, current_round=2, current_phase="reviews", phase_number=4,
                         started_at="2026-03-10 10:00:00")  # fmt: skip
    db.event(SID, "session_created", "2026-03-10 10:00:00", phase="context", round=1)
    db.event(SID, "round_completed", "2026-03-10 10:20:00", phase="synthesis", round=1)
    db.event(SID, "round_started", "2026-03-10 10:25:00", phase="context", round=2)
    db.save()
    r1, r2 = tree.view(SID).rounds
    assert (r1.started_at, r1.ended_at, r1.approximate) == (
        "2026-03-10T10:00:00Z", "2026-03-10T10:20:00Z", False
    )  # fmt: skip
    assert (r2.started_at, r2.ended_at, r2.approximate) == ("2026-03-10T10:25:00Z", None, False)


# --- a map run's time is its own in every store -----------------------------------------


def _live(tmp_path, store: str) -> SessionView:
    sim = Simulator(tmp_path, store=store, seed=2, start=START, speed=math.inf, history=0)
    for _ in sim.steps():
        pass
    views = {v.id: v for v in Engine(Project(tmp_path), clock=lambda: sim.now).scan()}
    return views[sim.live_session_id]


def test_a_map_runs_time_is_its_own_with_ocr_db_as_with_state_json(tmp_path):
    """An ocr.db session's map run counted the whole session's time (`5m` / `5m`; state.json
    said `1m` / `5m`): ocr.db keeps no map_started_at, its events say when the map began."""
    by_store = {store: _live(tmp_path / store, store) for store in ("state.json", "ocr.db")}
    for view in by_store.values():
        assert view.workflow == "map" and view.map_runs[-1].started_at is not None
        run_time = display.round_seconds(view, FIXED)
        whole = display.session_seconds(view, FIXED)
        assert run_time is not None and whole is not None and run_time < whole / 2
    json_run, db_run = (by_store[s].elapsed.seconds for s in ("state.json", "ocr.db"))
    assert abs(json_run - db_run) <= 5


# --- a stall's length reads the same on every screen -------------------------------------


def _stalled(idle: timedelta) -> SessionView:
    return SessionView(framework="ocr",
        id=SID, branch="x", source="ocr.db", status="active", workflow="review",
        phase="reviews", phase_label="Parallel Reviews", phase_number=4, phase_total=8,
        complete=False, started_at=iso(ago(hours=1)), updated_at=None,
        last_activity=iso(FIXED - idle), stalled=True,
        elapsed=Elapsed(since=iso(ago(hours=1)), seconds=3600, running=True),
        current_round=1, rounds=[], current_map_run=None, map_runs=[], problems=[], path="/x",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("idle", "said", "ago_said"),
    [(36, "under a minute", "36s ago"), (81, "1m", "1m ago"), (2170, "36m", "36m ago")],
)
def test_a_stalls_length_is_in_whole_minutes_as_the_activity_says(idle, said, ago_said):
    """The detail pane said `no activity for 36s` under `activity (1m ago)` and did not move
    on; the session screen said `1m 21s`: one length, in the Activity column's minutes."""
    view = _stalled(timedelta(seconds=idle))
    assert fmt.stall_text(view, FIXED, 10) == f"no activity for {said} (limit 10s)"
    assert fmt.when(view.last_activity, FIXED, "ago") == ago_said


# --- a stale agent is said at every width ----------------------------------------------


def test_a_stale_agent_makes_the_state_attention_and_the_status_says_it():
    """`status` said `● active` at 80 columns for the whole stall limit: `1 stale` was only in
    the Agents column, the first to give way."""
    view = _stalled(timedelta(seconds=5))
    view.stalled = False
    view.agents = [RunningAgent(command="review", stale=True)]
    assert session_state(view) == "alert"
    assert status_cell(view) == "! stale agent"
    view.agents = [RunningAgent(command="review", stale=False)]
    assert session_state(view) == "running" and "stale" not in status_cell(view)
    view.agents, view.status = [RunningAgent(command="review", stale=True)], "closed"
    assert session_state(view) == "closed"  # a closed session's leftover row: not its state


# --- whose phases the timeline shows ----------------------------------------------------


def test_the_timeline_says_whose_round_its_times_are(tmp_path):
    view = _live(tmp_path, "ocr.db")
    assert fmt.timeline_unit(view) == "M1"  # a map after two review rounds
    view.workflow, view.current_round = "review", 2
    assert fmt.timeline_unit(view) == "R2"  # the list's Rnd column's words
    assert timeline_title(view, FIXED).startswith("Phases of R2")
    view.rounds = view.rounds[:1]
    view.current_round = 1
    assert fmt.timeline_unit(view) == "" and timeline_title(view, FIXED).startswith("Phases")


# --- the class hunted on: what is not in yet is not said ---------------------------


def test_a_quick_review_skipped_its_discourse_it_did_not_do_it(tree):
    """A `--quick` review writes no discourse.md: the phase was skipped, not done (✓)."""
    s = tree.session(SID)
    s.round(1, reviewers={"principal-1": reviewer_md("High")}, final=final_md("APPROVE"))
    s.state(current_phase="complete", status="closed", current_round=1)
    steps = {step.key: step.state for step in tree.view(SID).timeline}
    assert steps["discourse"] == "skipped" and steps["synthesis"] == "done"
    s.write("rounds/round-1/discourse.md", "# Discourse\n")
    steps = {step.key: step.state for step in tree.view(SID).timeline}
    assert steps["discourse"] == "done"


def test_the_header_counts_blockers_so_far_while_a_latest_round_has_none_known(tree):
    from ocr_tui.core.reviews import summary

    s = tree.session(SID)
    s.round(1, reviewers={"principal-1": reviewer_md("Low")})
    s.state(current_phase="reviews", status="active", current_round=1)
    assert summary([tree.view(SID)]).text().endswith("0 unresolved blockers so far")
    s.write("rounds/round-1/final.md", final_md("APPROVE"))
    assert summary([tree.view(SID)]).text().endswith("0 unresolved blockers")


def test_oneline_says_no_reviewers_before_the_round_exists(tree, capsys):
    from ocr_tui.cli import main

    tree.session(SID).state(current_phase="context", status="active")
    assert main(["status", str(tree.root), "--oneline", "--max-width", "0"]) == 0
    line = capsys.readouterr().out
    assert "R1" in line and "reviewer" not in line and "finding" not in line
