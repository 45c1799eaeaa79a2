"""The code-workflow simulator: history, a live run through six phases, atomic writes, pacing."""

from __future__ import annotations

import math
import os
from datetime import UTC, datetime, timedelta
from pathlib import Path

from ocr_tui.core.timeutil import parse_ts
from ocr_tui.formats.codeflow.sim import Sim
from ocr_tui.formats.codeflow.source import CodeWorkflowSource

START = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)


def views(root: Path, now: datetime) -> dict:
    src = CodeWorkflowSource(root)
    return {k: src.derive(k, p, now) for k, p in src.list_sessions().items()}


def test_setup_writes_closed_history(tmp_path: Path) -> None:
    sim = Sim(tmp_path, start=START)
    sim.setup()
    assert CodeWorkflowSource.present_in(tmp_path)
    vs = views(tmp_path, START)
    assert 2 <= len(vs) <= 3
    for v in vs.values():
        assert v.problems == [], v.id
        assert (v.status, v.complete, v.phase_number) == ("closed", True, 6)
        assert v.elapsed.seconds and v.elapsed.seconds > 0 and not v.elapsed.running
        assert v.summary and "×" in v.summary
    states = {s.state for v in vs.values() for s in v.timeline}
    assert "skipped" in states
    assert {b for v in vs.values() for b in v.badges} >= {"full", "fast", "auto"}
    spec_docs = [d for v in vs.values() for d in v.documents if ".specs" in d]
    assert spec_docs == ["../../.specs/jwt-auth-refresh-token.md"]


def test_live_run_to_the_end(tmp_path: Path) -> None:
    sim = Sim(tmp_path, start=START, speed=math.inf)
    sim.setup()
    seen_phases: list[str] = []
    checked = {"running": False, "waiting": False, "agents": False}
    total = 0.0
    n = 0
    for wait in sim.steps():
        n += 1
        total += wait
        now = sim.clock
        v = views(tmp_path, now)[sim.live_id]
        assert v.problems == [], (n, v.problems)
        assert v.title and "rate limiting" in v.title
        if not seen_phases or seen_phases[-1] != v.phase:
            seen_phases.append(v.phase)
        if v.phase == "research" and v.timeline[1].state == "current" and v.summary:
            checked["agents"] = v.summary == "2× scouter (parallel)"
            assert [s.state for s in v.steps] == ["running", "running"]
        if v.running and not v.waiting:
            checked["running"] = True
            assert v.elapsed.running and v.elapsed.since == "2026-03-10T12:00:00Z"
        if v.waiting:
            checked["waiting"] = True
            assert v.phase_number is not None and 0 < v.phase_number < 6
        assert not v.stalled
        # nothing half-written is ever left behind
        assert not [f for f in os.listdir(sim.live_dir) if f.endswith(".tmp")]
    assert total == 0.0  # speed inf: no waiting
    assert seen_phases == ["init", "research", "plan", "implement", "quality", "review", "complete"]
    assert all(checked.values()), checked
    v = views(tmp_path, sim.clock + timedelta(hours=5))[sim.live_id]
    assert (v.status, v.complete, v.phase_number, v.stalled) == ("closed", True, 6, False)
    assert v.summary == "1× reviewer (single)"
    assert v.documents == [
        "../../.specs/api-rate-limiting.md",
        "research-report.md",
        "plan-report.md",
        "review-report.md",
    ]
    assert v.elapsed.seconds == int(
        (parse_ts(v.updated_at) - parse_ts(v.started_at)).total_seconds()  # type: ignore[operator]
    )
    assert all(s.seconds is not None for s in v.timeline)


def test_pacing_at_speed_one(tmp_path: Path) -> None:
    """A newcomer sees the run move within a minute and finish within about three."""
    waits = list(Sim(tmp_path, start=START, seed=3).steps())
    assert waits[0] < 60
    assert 60 < sum(waits) < 200
    fast = list(Sim(tmp_path / "b", start=START, seed=3, speed=10).steps())
    assert math.isclose(sum(fast), sum(waits) / 10)


def test_deterministic_for_a_seed(tmp_path: Path) -> None:
    a = list(Sim(tmp_path / "a", start=START, seed=5).steps())
    b = list(Sim(tmp_path / "b", start=START, seed=5).steps())
    assert a == b
    assert (tmp_path / "a/.claude/.docs").is_dir()


def test_engine_follows_the_live_run(tmp_path: Path) -> None:
    """The engine, fed the paths each step wrote, keeps the live view current."""
    from ocr_tui.core.engine import Engine
    from ocr_tui.core.project import Project

    sim = Sim(tmp_path, start=START, speed=math.inf)
    sim.setup()
    clock = [START]
    engine = Engine(
        Project(tmp_path), sources=[CodeWorkflowSource(tmp_path)], clock=lambda: clock[0]
    )
    assert len(engine.scan()) == 3
    phases = []
    for _ in sim.steps():
        clock[0] = sim.clock
        written = [p for p in sim.live_dir.iterdir()] + [sim.live_dir]
        engine.apply(written)
        live = [v for v in engine.sessions() if v.id.endswith(sim.live_id)]
        assert len(live) == 1 and live[0].framework == "code"
        phases.append(live[0].phase)
    assert phases[-1] == "complete" and "implement" in phases
    assert len(engine.sessions()) == 4
    snap = engine.snapshot()
    assert {s.framework for s in snap.sessions} == {"code"}
