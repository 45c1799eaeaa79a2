"""The scientific analysis simulator plays a whole run; the source follows it."""

from __future__ import annotations

from datetime import UTC, datetime

from ocr_tui.formats.analysis.sim import PRIMARY, Sim
from ocr_tui.formats.analysis.source import AnalysisSource

ARCHIVE = PRIMARY + ".archive"


def at(views: dict, where) -> object:
    """The view of the session in directory `where`."""
    return next(v for v in views.values() if v.path == str(where))


def test_sim_history_and_live_run(tmp_path, tmp_path_factory):
    tmp_dir = tmp_path_factory.mktemp("fake-tmp")
    root = tmp_path / "project"
    root.mkdir()
    sim = Sim(root, seed=3, speed=1000.0, tmp_dir=tmp_dir)
    sim.setup()
    src = AnalysisSource(root, tmp_dir=tmp_dir)

    def views():
        now = datetime.now(UTC)
        return {k: src.derive(k, p, now) for k, p in src.list_sessions().items()}

    history = views()
    assert len(history) == 3 and all(v.status == "closed" for v in history.values())
    assert all(v.problems == [] for v in history.values())
    assert all(k.startswith("session-") for k in history)  # each its own session_id
    temp = next(v for v in history.values() if "tmp" in v.badges)
    assert temp.complete and len(temp.documents) > 3
    assert "interrupted" in at(history, root / ARCHIVE).badges

    seen: dict[str, set] = {"phase": set(), "waiting": set(), "badges": set(), "alerts": set()}
    waits = []
    first = None
    for wait in sim.steps():
        waits.append(wait * 1000)
        v = at(views(), root / PRIMARY)
        assert v.problems == [], v.problems
        first = first or v
        seen["phase"].add(v.phase_number)
        seen["waiting"].add((v.phase_label, v.waiting))
        seen["badges"].update(v.badges)
        seen["alerts"].update(v.alerts)
    assert first.phase_number == 1 and "initialized" in first.badges
    assert seen["phase"] == set(range(1, 9))
    assert {("Structure Review", True), ("Plan Review", True)} <= seen["waiting"]
    assert ("Statistical Fact-Checking", True) in seen["waiting"]
    assert "3/5 concerns" in seen["badges"]
    assert any(a.startswith("error: timeout · statistician-consultant") for a in seen["alerts"])
    # At speed 1: the newcomer sees movement within a minute and the end within ~3 minutes.
    assert waits[0] < 60 and 60 < sum(waits) < 200

    final = at(views(), root / PRIMARY)
    assert final.complete and final.status == "closed" and final.alerts == []
    assert final.phase_number == 8 and final.waiting is False
    assert len(final.documents) == 16 and all(not d.startswith("..") for d in final.documents)
    assert [s.state for s in final.timeline] == ["done"] * 8
    assert final.title.startswith("Identify cell type markers")  # the research question
    assert final.id == first.id and final.id.startswith("session-")  # one id all along
    assert not list(root.rglob("*.tmp"))  # every write was atomic


def test_sim_without_tmp_dir_writes_only_in_root(tmp_path):
    sim = Sim(tmp_path, speed=1e6)
    sim.setup()
    src = AnalysisSource(tmp_path, tmp_dir=tmp_path / "none")
    archives = {tmp_path / ARCHIVE, tmp_path / ARCHIVE / PRIMARY}
    assert set(src.list_sessions().values()) == archives
    for _ in sim.steps():
        pass
    found = src.list_sessions()
    assert set(found.values()) == archives | {tmp_path / PRIMARY}
    assert len(found) == 3 and all(k.startswith("session-") for k in found)


def test_sim_temp_session_is_named_as_its_session(tmp_path, tmp_path_factory):
    """The skill's fallback dir is `…-session-{date}-{time}-{pid}` for the session
    `session-{date}-{time}-{pid}`: the simulator names both alike, and the id is the latter."""
    tmp_dir = tmp_path_factory.mktemp("fake-tmp")
    Sim(tmp_path, seed=5, speed=1e6, tmp_dir=tmp_dir).setup()
    found = AnalysisSource(tmp_path, tmp_dir=tmp_dir).list_sessions()
    (sid,) = [k for k, p in found.items() if p.parent == tmp_dir]
    assert found[sid].name == "scientific-analysis-architect-" + sid
