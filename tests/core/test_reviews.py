"""Reviews across sessions: a row per round of every session, the
actionable ones, and the project's summary line with its unresolved blockers."""

from __future__ import annotations

import math
from datetime import UTC, datetime

import msgspec

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.core.reviews import review_rows, summary
from ocr_tui.formats.ocr.sim import Simulator

START = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)


def views(tmp_path):
    sim = Simulator(tmp_path, store="ocr.db", seed=7, start=START, speed=math.inf, history=4)
    steps = sim.steps()
    for _ in range(30):  # the live session is under way: its round has no verdict yet
        next(steps)
    return sim, Engine(Project(tmp_path), clock=lambda: sim.now).scan()


def test_a_row_per_round_newest_first(tmp_path):
    sim, found = views(tmp_path)
    rows = review_rows(found)
    assert len(rows) == sum(len(v.rounds) for v in found)
    assert [r.at for r in rows] == sorted((r.at for r in rows), reverse=True)
    live = [r for r in rows if r.session_id == sim.live_session_id]
    assert live and live[0].verdict is None and live[0].running and live[0].actionable
    closed = [r for r in rows if r.session_id != sim.live_session_id]
    assert all(r.verdict for r in closed)
    assert any(r.triage for r in closed)
    assert any(r.triage is None for r in closed)
    for r in closed:  # a round nobody triaged needs review (OCR's dashboard's Actionable)
        assert r.actionable == (r.triage in ("needs_review", "in_progress", None))
        assert r.should_fix is not None and r.suggestions is not None


def test_summary_counts_each_sessions_latest_round_blockers(tmp_path):
    _, found = views(tmp_path)
    s = summary(found)
    assert s.sessions == len(found) and s.active == 1
    assert s.verdicts == sum(1 for v in found for r in v.rounds if r.verdict)
    assert s.open_blockers == sum(v.rounds[-1].open_blockers for v in found if v.rounds)
    # A blocker still open in round 2 counts once, not once per round.
    two = next(v for v in found if len(v.rounds) == 2)  # the newest history session
    more = msgspec.structs.replace(
        two, rounds=[msgspec.structs.replace(r, open_blockers=3) for r in two.rounds]
    )
    assert summary([more]).open_blockers == 3
    assert summary([]).text() == (
        "0 sessions · 0 active · 0 reviews with a verdict · 0 unresolved blockers"
    )
