"""The simulator fills what OCR ≥ 1.5 records beyond the session rows: the map
rows with reviewed files, the user's notes and triage, the agent command of each session
(running while the live session plays), and ocr-tui reads them back."""

from __future__ import annotations

import math
from datetime import UTC, datetime

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.formats.ocr.sim import Simulator

START = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)


def views(root, now=START):
    return {v.id: v for v in Engine(Project(root), clock=lambda: now).scan()}


def test_history_sessions_carry_maps_notes_triage_and_finished_commands(tmp_path):
    sim = Simulator(tmp_path, store="ocr.db", seed=7, start=START, speed=math.inf)
    sim.setup()
    found = views(tmp_path)
    history = [found[sid] for sid in sim.history_ids]
    assert all(v.events and v.events[0].type == "session_created" for v in history)
    assert all(v.events[-1].type == "session_closed" for v in history)
    assert all(v.agents == [] for v in history)  # their commands finished
    maps = [run for v in history for run in v.map_runs]
    assert maps and all(run.sections for run in maps)
    assert any(s.reviewed for run in maps for s in run.sections)
    assert all(0 <= s.reviewed <= s.files for run in maps for s in run.sections)
    assert all({n.target for n in v.notes} >= {"session"} for v in history)
    assert any(r.triage for v in history for r in v.rounds)
    # Every phase the session entered has its time and duration; the last one has none.
    closed = history[0]
    timed = [t for t in closed.timeline if t.at is not None]
    assert len(timed) >= 5 and all(t.seconds is not None for t in timed[:-1])


def test_the_live_session_has_its_agent_running(tmp_path):
    sim = Simulator(tmp_path, store="ocr.db", seed=7, start=START, speed=math.inf)
    steps = sim.steps()
    for _ in range(12):
        next(steps)
    live = views(tmp_path, now=sim.now)[sim.live_session_id]
    (agent,) = live.agents
    assert agent.command == "review" and agent.stale is False  # its pid is ours, alive
    assert agent.model and agent.heartbeat_at is not None
    for _ in steps:  # to the end: the session closes, its command finishes
        pass
    assert views(tmp_path, now=sim.now)[sim.live_session_id].agents == []
