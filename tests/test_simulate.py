"""The OCR run simulator: layout, phase order, stores, atomicity, determinism."""

from __future__ import annotations

import json
import math
import os
import re
import sqlite3
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ocr_tui.formats.ocr import sim as simulate
from ocr_tui.formats.ocr.sim import SimStep, Simulator, build_history, main

START = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)
STORES = ["state.json", "ocr.db"]
REVIEW = [
    "context",
    "change-context",
    "analysis",
    "reviews",
    "aggregation",
    "discourse",
    "synthesis",
    "complete",
]
MAP = ["map-context", "topology", "flow-analysis", "requirements-mapping", "synthesis", "complete"]
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
SQL_TS = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$")


def make(root: Path, store: str, **kw) -> Simulator:
    kw.setdefault("seed", 7)
    return Simulator(root, store=store, start=START, speed=math.inf, **kw)


def sessions_dir(root: Path) -> Path:
    return root / ".ocr" / "sessions"


def db_rows(root: Path, sql: str, args: tuple = ()) -> list[sqlite3.Row]:
    con = sqlite3.connect(f"file:{root / '.ocr/data/ocr.db'}?mode=ro", uri=True)
    con.row_factory = sqlite3.Row
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()


def read_state(root: Path, store: str, sid: str) -> dict | None:
    """The session's stored state, or None before it exists; raises if the store is corrupt."""
    if store == "state.json":
        path = sessions_dir(root) / sid / "state.json"
        return json.loads(path.read_text()) if path.exists() else None
    if not (root / ".ocr/data/ocr.db").exists():
        return None
    rows = db_rows(root, "SELECT * FROM sessions WHERE id = ?", (sid,))
    return dict(rows[0]) if rows else None


def play(sim: Simulator) -> list[SimStep]:
    return list(sim.steps())


# -- history ------------------------------------------------------------------------------


@pytest.mark.parametrize("store", STORES)
def test_setup_writes_closed_history(tmp_path: Path, store: str) -> None:
    sim = make(tmp_path, store)
    sim.setup()
    ids = sim.history_ids
    assert len(ids) == 3 and len(set(ids)) == 3
    assert sorted(p.name for p in sessions_dir(tmp_path).iterdir()) == sorted(ids)
    assert (tmp_path / ".ocr/data/ocr.db").exists() == (store == "ocr.db")
    maps = metas = 0
    for sid in ids:
        assert sid[:10] < START.strftime("%Y-%m-%d")  # in the past of the simulated clock
        sdir = sessions_dir(tmp_path) / sid
        for name in ("discovered-standards.md", "context.md"):
            assert (sdir / name).is_file()
        rounds = sorted((sdir / "rounds").iterdir())
        assert 1 <= len(rounds) <= 2
        for rdir in rounds:
            assert 4 <= len(list((rdir / "reviews").glob("*.md"))) <= 6
            assert (rdir / "discourse.md").is_file()
            assert "## Verdict" in (rdir / "final.md").read_text()
            metas += (rdir / "round-meta.json").exists()
        run = sdir / "map/runs/run-1"
        if run.exists():
            maps += 1
            for name in ("topology.md", "flow-analysis.md", "map.md"):
                assert (run / name).is_file()
        state = read_state(tmp_path, store, sid)
        assert state["status"] == "closed" and state["current_phase"] == "complete"
        assert state["workflow_type"] == ("map" if run.exists() else "review")
        assert all(p.stat().st_mtime < START.timestamp() for p in sdir.rglob("*"))
    assert maps == 1
    assert any((sessions_dir(tmp_path) / sid / "rounds/round-2").is_dir() for sid in ids)
    assert 0 < metas  # some rounds carry OCR >= 1.6 round-meta.json
    assert sim.live_session_id == "2026-03-10-feat-live-review"
    assert not (sessions_dir(tmp_path) / sim.live_session_id).exists()


@pytest.mark.parametrize("store", STORES)
def test_build_history_fifty_sessions(tmp_path: Path, store: str, monkeypatch) -> None:
    replaced: list[str] = []
    real_replace = os.replace

    def counting_replace(src, dst, *a, **kw):
        replaced.append(os.fspath(dst))
        return real_replace(src, dst, *a, **kw)

    monkeypatch.setattr(simulate.os, "replace", counting_replace)
    ids = build_history(tmp_path, sessions=50, store=store, now=START)
    assert len(ids) == len(set(ids)) == 50
    assert {p.name for p in sessions_dir(tmp_path).iterdir()} == set(ids)
    for sid in ids[:5]:
        rounds = sessions_dir(tmp_path) / sid / "rounds"
        assert sorted(p.name for p in rounds.iterdir()) == ["round-1", "round-2"]
        assert len(list((rounds / "round-2/reviews").glob("*.md"))) == 4
    if store == "ocr.db":
        assert [p for p in replaced if p.endswith("ocr.db")] == [
            str(tmp_path.resolve() / ".ocr/data/ocr.db")
        ]  # ONE db write
        rows = db_rows(tmp_path, "SELECT id, status, current_phase FROM sessions")
        assert {r["id"] for r in rows} == set(ids)
        assert {(r["status"], r["current_phase"]) for r in rows} == {("closed", "complete")}
    else:
        for sid in ids:
            assert read_state(tmp_path, store, sid)["status"] == "closed"


# -- the live session -----------------------------------------------------------------------


@pytest.mark.parametrize("store", STORES)
def test_live_session_walks_phases_in_order(tmp_path: Path, store: str) -> None:
    sim = make(tmp_path, store)
    sid = sim.live_session_id
    seen: list[tuple[str, int, str | None]] = []
    steps = 0
    for step in sim.steps():
        steps += 1
        assert step.session_id == sid
        state = read_state(tmp_path, store, sid)
        assert state is not None  # the first step creates it
        assert step.phase == state["current_phase"]
        key = (state["current_phase"], state["phase_number"], state["workflow_type"])
        if not seen or seen[-1] != key:
            seen.append(key)
    assert 60 <= steps <= 90
    expected = [(p, i, "review") for i, p in enumerate(REVIEW, 1)] * 2 + [
        (p, i, "map") for i, p in enumerate(MAP, 1)
    ]
    assert seen == expected
    final = read_state(tmp_path, store, sid)
    assert final["status"] == "closed" and final["current_phase"] == "complete"
    assert final["current_round"] == 2 and final["current_map_run"] == 1


def test_state_json_schema_and_timestamps(tmp_path: Path) -> None:
    sim = make(tmp_path, "state.json")
    sid = sim.live_session_id
    states = []
    for _ in sim.steps():
        states.append(read_state(tmp_path, "state.json", sid))
    first, last = states[0], states[-1]
    assert first == {
        "session_id": sid,
        "workflow_type": "review",
        "status": "active",
        "current_phase": "context",
        "phase_number": 1,
        "current_round": 1,
        "started_at": "2026-03-10T12:00:00Z",
        "round_started_at": "2026-03-10T12:00:00Z",
        "updated_at": "2026-03-10T12:00:00Z",
    }
    assert last["started_at"] == first["started_at"]
    for key in ("started_at", "round_started_at", "map_started_at", "updated_at"):
        assert ISO.match(last[key])
    assert last["started_at"] < last["round_started_at"] < last["map_started_at"]
    assert last["updated_at"] > last["map_started_at"]
    round2 = next(s for s in states if s["current_round"] == 2)
    assert (
        round2["current_phase"] == "context"
        and round2["round_started_at"] > first["round_started_at"]
    )


def test_ocr_db_events(tmp_path: Path) -> None:
    sim = make(tmp_path, "ocr.db")
    sid = sim.live_session_id
    play(sim)
    events = db_rows(
        tmp_path, "SELECT * FROM orchestration_events WHERE session_id = ? ORDER BY id", (sid,)
    )
    kinds = [e["event_type"] for e in events]
    assert kinds[0] == "session_created" and kinds[-1] == "session_closed"
    assert kinds.count("round_started") == 1 and kinds.count("round_completed") == 2
    assert kinds.count("map_completed") == 1
    started = next(e for e in events if e["event_type"] == "round_started")
    assert (started["round"], started["phase"], started["phase_number"]) == (2, "context", 1)
    transitions = [
        (e["phase"], e["phase_number"], e["round"])
        for e in events
        if e["event_type"] == "phase_transition"
    ]
    assert transitions[:7] == [(p, i, 1) for i, p in enumerate(REVIEW, 1)][1:]
    assert ("map-context", 1, 2) in transitions
    verdicts = [
        json.loads(e["metadata"])["verdict"] for e in events if e["event_type"] == "round_completed"
    ]
    assert verdicts == ["REQUEST CHANGES", "APPROVE"]
    assert all(SQL_TS.match(e["created_at"]) for e in events)
    assert events[0]["created_at"] == "2026-03-10 12:00:00"
    assert [e["created_at"] for e in events] == sorted(e["created_at"] for e in events)
    (row,) = db_rows(tmp_path, "SELECT * FROM sessions WHERE id = ?", (sid,))
    assert (row["status"], row["current_phase"], row["workflow_type"]) == (
        "closed",
        "complete",
        "map",
    )
    assert SQL_TS.match(row["started_at"]) and SQL_TS.match(row["updated_at"])
    assert row["session_dir"] == f".ocr/sessions/{sid}"


@pytest.mark.parametrize("store", STORES)
def test_reviewer_files_appear_one_at_a_time(tmp_path: Path, store: str) -> None:
    sim = make(tmp_path, store)
    reviews = sessions_dir(tmp_path) / sim.live_session_id / "rounds/round-1/reviews"
    counts = []
    for step in sim.steps():
        n = len(list(reviews.glob("*.md"))) if reviews.exists() else 0
        if not counts or n != counts[-1][0]:
            counts.append((n, step.phase))
    assert [n for n, _ in counts] == list(range(7))
    assert all(phase == "reviews" for n, phase in counts if n > 0)


def test_reviewer_file_template(tmp_path: Path) -> None:
    sim = make(tmp_path, "state.json", history=0)
    play(sim)
    severities = set()
    counts = set()
    files = sorted((sessions_dir(tmp_path) / sim.live_session_id).glob("rounds/*/reviews/*.md"))
    assert len(files) == 11
    for path in files:
        text = path.read_text()
        assert re.match(r"^# .+ Review\n", text)
        assert "\n## Summary\n" in text and "\n## Findings\n" in text
        heads = re.findall(r"^### Finding (\d+): .+$", text, re.M)
        assert heads == [str(i) for i in range(1, len(heads) + 1)] and len(heads) <= 5
        counts.add(len(heads))
        sev = re.findall(r"^- \*\*Severity\*\*: (\w+)$", text, re.M)
        assert len(sev) == len(heads)
        assert set(sev) <= {"Critical", "High", "Medium", "Low", "Info"}
        severities |= set(sev)
        locs = re.findall(r"^- \*\*Location\*\*: (\S+)$", text, re.M)
        assert all(re.fullmatch(r"[\w/.]+:L\d+-L\d+", loc) for loc in locs)
    assert len(severities) >= 3 and len(counts) >= 2


@pytest.mark.parametrize("store", STORES)
def test_verdicts_and_second_round(tmp_path: Path, store: str) -> None:
    sim = make(tmp_path, store)
    sdir = sessions_dir(tmp_path) / sim.live_session_id
    r1, r2 = sdir / "rounds/round-1", sdir / "rounds/round-2"
    for _ in sim.steps():
        if r2.exists():
            assert (r1 / "final.md").exists()  # round 2 only after round 1's final.md
    final1 = (r1 / "final.md").read_text()
    assert "## Verdict\n\n**REQUEST CHANGES**" in final1
    assert re.search(r"^## Blockers\n\n### 1\. ", final1, re.M)
    for section in ("## Should Fix", "## Suggestions", "## Individual Reviews"):
        assert section in final1
    assert "## Verdict\n\n**APPROVE**" in (r2 / "final.md").read_text()
    assert "AGREE" in (r1 / "discourse.md").read_text()
    assert sorted(p.name for p in (r2 / "reviews").iterdir()) == [
        "performance-1.md",
        "principal-1.md",
        "principal-2.md",
        "quality-1.md",
        "testing-1.md",
    ]
    has_meta = (r1 / "round-meta.json").exists()
    assert has_meta == (store == "ocr.db")
    if has_meta:
        meta = json.loads((r1 / "round-meta.json").read_text())
        assert meta["schema_version"] == 1 and meta["verdict"] == "REQUEST CHANGES"
        assert meta["synthesis_counts"]["blockers"] == len(
            re.findall(r"^### \d+\. ", final1.split("## Should Fix")[0], re.M)
        )


@pytest.mark.parametrize("seed", range(1, 6))
def test_round_verdicts_for_any_seed(tmp_path: Path, seed: int) -> None:
    sim = Simulator(tmp_path, seed=seed, start=START, speed=0, history=0)
    verdicts = [s.description for s in sim.steps() if s.description.startswith("wrote final")]
    assert verdicts == ["wrote final.md: REQUEST CHANGES", "wrote final.md: APPROVE"]


@pytest.mark.parametrize("store", STORES)
def test_map_run(tmp_path: Path, store: str) -> None:
    sim = make(tmp_path, store)
    run = sessions_dir(tmp_path) / sim.live_session_id / "map/runs/run-1"
    order = []
    for _ in sim.steps():
        for name in ("topology.md", "flow-analysis.md", "requirements-mapping.md", "map.md"):
            if (run / name).exists() and name not in order:
                order.append(name)
    assert order == ["topology.md", "flow-analysis.md", "requirements-mapping.md", "map.md"]
    topo = (run / "topology.md").read_text()
    block = re.search(r"## Canonical File List[\s\S]*?```([\s\S]*?)```", topo).group(1)
    paths = [line for line in block.splitlines() if line.strip()]
    assert 6 <= len(paths) <= 10 and all("/" in p for p in paths)
    assert "## File Review" in (run / "map.md").read_text()
    assert (run / "map-meta.json").exists() == (store == "ocr.db")


# -- atomicity, clock, determinism ----------------------------------------------------------


@pytest.mark.parametrize("store", STORES)
def test_state_always_valid_between_and_during_steps(tmp_path: Path, store: str) -> None:
    sim = make(tmp_path, store)
    sim.setup()
    done = threading.Event()
    errors: list[str] = []
    reads = [0]

    def reader() -> None:
        while not done.is_set():
            try:
                if store == "state.json":
                    for path in sessions_dir(tmp_path).glob("*/state.json"):
                        json.loads(path.read_bytes())
                else:
                    db_rows(tmp_path, "SELECT count(*) FROM orchestration_events")
                reads[0] += 1
            except FileNotFoundError:
                pass
            except Exception as exc:  # any failure is the finding
                errors.append(repr(exc))

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    try:
        for _ in sim.steps():
            assert read_state(tmp_path, store, sim.live_session_id) is not None
    finally:
        done.set()
        thread.join(10)
    assert errors == [] and reads[0] > 0
    leftovers = [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []
    if store == "ocr.db":
        assert db_rows(tmp_path, "PRAGMA integrity_check")[0][0] == "ok"


def test_mtimes_follow_the_simulated_clock(tmp_path: Path) -> None:
    sim = make(tmp_path, "ocr.db")
    sdir = sessions_dir(tmp_path) / sim.live_session_id
    for step in sim.steps():
        if step.description.startswith("wrote final.md"):
            final = sorted(sdir.glob("rounds/*/final.md"))[-1]
            assert final.stat().st_mtime == sim.last_step_at.timestamp()
            assert sdir.stat().st_mtime == sim.last_step_at.timestamp()
    db = tmp_path / ".ocr/data/ocr.db"
    assert db.stat().st_mtime == sim.last_step_at.timestamp()
    assert START.timestamp() < db.stat().st_mtime < sim.now.timestamp()


@pytest.mark.parametrize("store", STORES)
def test_same_seed_same_tree(tmp_path: Path, store: str) -> None:
    def snapshot(root: Path) -> dict[str, object]:
        out: dict[str, object] = {}
        for path in sorted(root.rglob("*")):
            rel = str(path.relative_to(root))
            if path.name == "ocr.db":
                con = sqlite3.connect(path)
                out[rel] = list(con.iterdump())
                con.close()
            elif path.is_file():
                out[rel] = (path.read_bytes(), path.stat().st_mtime)
            else:
                out[rel] = path.stat().st_mtime
        return out

    trees = []
    for name, seed in (("a", 5), ("b", 5), ("c", 6)):
        root = tmp_path / name
        play(Simulator(root, store=store, seed=seed, start=START, speed=0))
        trees.append(snapshot(root))
    assert trees[0] == trees[1]
    assert trees[0] != trees[2]


def test_never_writes_outside_root(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    play(make(root, "ocr.db"))
    assert [p.name for p in tmp_path.iterdir()] == ["project"]
    # .ocr, and the project files its findings point at (tests/test_simulate_project.py)
    assert sorted(p.name for p in root.iterdir()) == [".ocr", "docs", "src", "tests"]
    files = simulate._Files(root)
    with pytest.raises(ValueError):
        files.write(root / ".ocr" / ".." / "escape.md", "x", START)
    with pytest.raises(ValueError):
        files.write(tmp_path / "escape.md", "x", START)


# -- run / loop / CLI -------------------------------------------------------------------------


class RecordingEvent(threading.Event):
    def __init__(self) -> None:
        super().__init__()
        self.waits: list[float] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.waits.append(timeout or 0.0)
        return self.is_set()


def test_run_sleeps_step_seconds_over_speed(tmp_path: Path) -> None:
    sim = Simulator(tmp_path, start=START, speed=4.0, history=0)
    stop = RecordingEvent()
    sim.run(stop=stop)
    simulated = (sim.now - START).total_seconds()
    assert 60 <= simulated <= 90  # at speed 1 the live session plays in 60–90 s
    assert sum(stop.waits) == pytest.approx(simulated / 4.0)
    assert read_state(tmp_path, "state.json", sim.live_session_id)["status"] == "closed"


@pytest.mark.parametrize("speed", [0, math.inf])
def test_run_without_sleeping(tmp_path: Path, speed: float) -> None:
    stop = RecordingEvent()
    sim = Simulator(tmp_path, start=START, speed=speed, history=1, store="ocr.db")
    sim.run(stop=stop)
    assert stop.waits == []
    assert read_state(tmp_path, "ocr.db", sim.live_session_id)["status"] == "closed"


def test_run_loop_starts_new_live_sessions_until_stopped(tmp_path: Path) -> None:
    sim = Simulator(tmp_path, start=START, speed=math.inf, history=0, store="ocr.db")
    stop = threading.Event()
    thread = threading.Thread(target=sim.run, kwargs={"stop": stop, "loop": True})
    thread.start()
    second = sessions_dir(tmp_path) / "2026-03-10-feat-live-review-2"
    try:
        for _ in range(2000):
            if (second / "rounds/round-1/final.md").exists():
                break
            threading.Event().wait(0.01)
    finally:
        stop.set()
        thread.join(30)
    assert not thread.is_alive()
    assert second.exists()
    first = read_state(tmp_path, "ocr.db", "2026-03-10-feat-live-review")
    assert first["status"] == "closed"


def test_live_id_avoids_existing_session(tmp_path: Path) -> None:
    (sessions_dir(tmp_path) / "2026-03-10-feat-live-review").mkdir(parents=True)
    sim = make(tmp_path, "state.json", history=0)
    assert sim.live_session_id == "2026-03-10-feat-live-review-2"
    steps = play(sim)
    assert {s.session_id for s in steps} == {"2026-03-10-feat-live-review-2"}


def looped_ids(root: Path, sessions: int) -> list[str]:
    """The live sessions' ids a `--loop` run plays, in order, until `sessions` have begun."""
    sim = Simulator(root, start=START, speed=math.inf, history=0)
    stop, ids = threading.Event(), []

    def seen(step: SimStep) -> None:
        if step.session_id not in ids:
            ids.append(step.session_id)
        if len(ids) > sessions:
            stop.set()

    sim._run(stop=stop, loop=True, on_step=seen)
    return [i.removeprefix("2026-03-10-feat-live-review") for i in ids[:sessions]]


def test_a_loop_numbers_its_sessions_in_order(tmp_path: Path) -> None:
    """`simulate --loop` named its runs `-2`, then `-2-2`, then `-3`."""
    assert looped_ids(tmp_path / "a", 4) == ["", "-2", "-3", "-4"]
    b = tmp_path / "b"
    (sessions_dir(b) / "2026-03-10-feat-live-review").mkdir(parents=True)
    assert looped_ids(b, 4) == ["-2", "-3", "-4", "-5"]
    # played again into the same project: on from the last one there (-6, begun when the
    # first run stopped)
    assert looped_ids(b, 2) == ["-7", "-8"]


def test_main_prints_one_line_per_step(tmp_path: Path, capsys) -> None:
    assert main([str(tmp_path), "--speed", "inf", "--store", "ocr.db", "--seed", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "3 closed session(s)" in lines[0]
    assert 60 <= len(lines) - 1 <= 90
    assert lines[-1].endswith("session closed")
    assert (tmp_path / ".ocr/data/ocr.db").exists()


def test_main_ctrl_c_exits_zero(tmp_path: Path, monkeypatch) -> None:
    def interrupted(self, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(Simulator, "_run", interrupted)
    assert main([str(tmp_path)]) == 0


def test_naive_start_is_utc(tmp_path: Path) -> None:
    sim = Simulator(tmp_path, start=datetime(2026, 3, 10, 23, 59, 30), speed=0, history=0)
    assert sim.live_session_id == "2026-03-10-feat-live-review"
    next(sim.steps())
    state = read_state(tmp_path, "state.json", sim.live_session_id)
    assert state["started_at"] == "2026-03-10T23:59:30Z"


def test_rejects_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        Simulator(tmp_path, speed=-1)
    with pytest.raises(ValueError):
        Simulator(tmp_path, store="redis")


def test_setup_in_one_thread_run_in_another(tmp_path):
    """The demo sets up on one thread and plays on another (ocr.db store)."""
    import threading

    sim = Simulator(tmp_path, store="ocr.db", speed=math.inf)
    sim.setup()
    errors: list[BaseException] = []

    def play():
        try:
            sim.run()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    th = threading.Thread(target=play)
    th.start()
    th.join(30)
    assert not errors
    assert (tmp_path / ".ocr" / "data" / "ocr.db").is_file()


@pytest.mark.parametrize("fmt", ["ocr", "code"])
def test_faster_than_real_time_never_writes_a_time_to_come(tmp_path: Path, fmt: str) -> None:
    """`simulate --speed 200` against the wall clock: the steps' times are real times (the
    durations shrink), never ahead of the clock, which marked sessions "in the future"."""
    from ocr_tui.core.engine import Engine
    from ocr_tui.core.project import Project
    from ocr_tui.formats.codeflow.sim import Sim as CodeSim

    stop = threading.Event()
    if fmt == "ocr":
        sim = Simulator(tmp_path, speed=200, history=0)
        player = threading.Thread(target=sim.run, kwargs={"stop": stop})
    else:
        code = CodeSim(tmp_path, speed=200)
        code.setup()

        def play() -> None:
            for wait in code.steps():
                if stop.wait(wait):
                    return

        player = threading.Thread(target=play)
    player.start()
    try:
        player.join(timeout=1.5)  # a few simulated minutes of steps
    finally:
        stop.set()
        player.join()
    views = Engine(Project(tmp_path)).scan()
    assert views
    for view in views:
        assert not any("future" in p for p in view.problems), view.problems
        now = datetime.now(UTC).isoformat()
        for at in (view.updated_at, view.last_activity):
            assert at is None or at.replace("Z", "+00:00") <= now


def test_an_instant_run_against_the_wall_clock_ends_now(tmp_path: Path) -> None:
    """`simulate --speed 0` writes the live session at once: as if it had just ended, never
    with times to come."""
    from ocr_tui.core.engine import Engine
    from ocr_tui.core.project import Project

    Simulator(tmp_path, speed=0, history=0).run()
    (view,) = Engine(Project(tmp_path)).scan()
    assert not any("future" in p for p in view.problems), view.problems
    now = datetime.now(UTC).isoformat()
    assert view.last_activity is not None and view.last_activity.replace("Z", "+00:00") <= now
