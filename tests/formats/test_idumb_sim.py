"""The iDumb simulator played to the end, read through the source and through the engine."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.formats.idumb.sim import Sim
from ocr_tui.formats.idumb.source import IdumbSource


def _views(root: Path, now: datetime) -> dict:
    src = IdumbSource(root)
    return {k: src.derive(k, p, now) for k, p in src.list_sessions().items()}


def test_sim_plays_a_live_session_to_the_end(tmp_path):
    sim = Sim(tmp_path, seed=3, speed=1.0)
    sim.setup()
    now = datetime.now(UTC)
    history = _views(tmp_path, now)
    assert len(history) == 3
    assert all(v.status == "closed" and not v.problems for v in history.values())
    assert sorted(v.badges[0] for v in history.values()) == ["archive-eligible", "old", "stale"]
    assert any("delegation depth" in [f.label for f in v.facts] for v in history.values())
    assert all(len(v.steps) == 2 for v in history.values())  # their checkpoints

    waits: list[float] = []
    seen_running = seen_compacted = False
    for i, wait in enumerate(sim.steps()):
        waits.append(wait)
        views = _views(tmp_path, datetime.now(UTC))
        assert all(not v.problems for v in views.values()), [v.problems for v in views.values()]
        live = views.get(sim.sid)
        assert live is not None
        assert live.status == "active" and live.elapsed.running and "active" in live.badges
        seen_running = True
        seen_compacted |= any(b.startswith("compacted") for b in live.badges)
        if i == 5:
            assert live.summary and "idumb-" in live.summary
    assert seen_running and seen_compacted
    assert waits[0] <= 5 and 60 <= sum(waits) <= 200  # moves at once, ends within ~3 min

    live = _views(tmp_path, datetime.now(UTC))[sim.sid]
    labels = {f.label for f in live.facts}
    assert {"agent spawns", "errors", "iterations", "delegations", "compacted"} <= labels
    assert "checkpoints phase-2-build" in labels
    kinds = {s.key.split(":")[0] for s in live.steps}
    assert kinds == {"checkpoint", "delegation", "error"}
    # two hours later the same session is resumable, three days later stale
    later = _views(tmp_path, datetime.now(UTC) + timedelta(hours=2))[sim.sid]
    assert later.status == "active" and not later.elapsed.running and "resumable" in later.badges
    stale = _views(tmp_path, datetime.now(UTC) + timedelta(days=3))[sim.sid]
    assert stale.status == "closed" and any(a.startswith("stale") for a in stale.alerts)

    h = IdumbSource(tmp_path).header(datetime.now(UTC))
    assert h.title == "iDumb brain · idumb · phase 2/4 (Phase 2: build)" and h.alerts == []
    assert next(f for f in h.facts if f.label == "validations").value == "12"


def test_engine_serves_the_source_and_re_derives_at_thresholds(tmp_path):
    sim = Sim(tmp_path, seed=5, speed=1e9)
    sim.setup()
    steps = sim.steps()
    next(steps)  # the live session exists
    clock = [datetime.now(UTC)]
    engine = Engine(Project(tmp_path), clock=lambda: clock[0], sources=[IdumbSource(tmp_path)])
    views = {v.id: v for v in engine.scan()}
    assert len(views) == 4 and views[sim.sid].elapsed.running
    assert "idumb" in {h.framework for h in engine.snapshot().headers}
    for _ in steps:
        pass
    changed, removed = engine.apply(
        [
            tmp_path / ".idumb/sessions" / f"{sim.sid}.json",
            tmp_path / ".idumb/brain/execution-metrics.json",
            tmp_path / ".idumb/brain/delegations.json",
            tmp_path / ".idumb/brain/execution/phase-2-build",
        ]
    )
    assert not removed and sim.sid in {v.id for v in changed}
    assert engine.views[sim.sid].summary
    clock[0] += timedelta(hours=1, minutes=1)
    restaled = {v.id: v for v in engine.restale()}
    assert "resumable" in restaled[sim.sid].badges
