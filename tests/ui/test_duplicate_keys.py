"""Tables keyed by what is on disk, given two things that normalise to one key: `round-01`
beside `round-1`, `run-01` beside `run-1`, reviewer files whose names differ only in bytes that
are not UTF-8 (or only in case), two documents with one shown name, a format's steps with one
key, two sessions whose names differ only in undecodable bytes. Every row is shown and opens
what it shows; nothing raises Textual's DuplicateKey."""

from __future__ import annotations

import json
import os
from datetime import timedelta
from pathlib import Path

import pytest
from textual.app import App, ComposeResult

from ocr_tui.cli import make_app
from ocr_tui.core.project import find_project
from ocr_tui.ui.screens.document.screen import DocumentScreen
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.widgets.drill_table import DrillTable, unique_keys

from .test_drilldown import crumbs, wait_for

try:
    from .builders import fixed_clock, loaded
    from .drilldown_tree import NOW, DrillApp, freeze_mtimes, reviewer, write
except ImportError:  # tests/ui collected as a plain directory
    from builders import fixed_clock, loaded
    from drilldown_tree import NOW, DrillApp, freeze_mtimes, reviewer, write

SIZE = (120, 36)
SID = "2026-11-22-twins"


def raw_path(base: Path, tail: bytes) -> Path:
    """`base` joined with a name that is not UTF-8."""
    return Path(os.fsdecode(os.fsencode(base) + b"/" + tail))


def build(root: Path) -> Path:
    """A review session with round-1, round-01 and round-2; round-2's reviewers include two
    whose names differ only in an undecodable byte and two that differ only in case. Map runs
    run-1 and run-01 (both empty), run-2 and run-02 (a topology each)."""
    s = root / ".ocr" / "sessions" / SID
    write(s / "state.json", json.dumps({
        "session_id": SID, "workflow_type": "review", "status": "active",
        "current_phase": "reviews", "current_round": 2,
        "started_at": "2026-11-22T10:00:00Z", "updated_at": "2026-11-22T10:30:00Z",
    }))  # fmt: skip
    write(s / "rounds/round-1/reviews/principal-1.md", reviewer("R1", [("In round-1", "High")]))
    write(s / "rounds/round-1/final.md", "# Final\n\n## Verdict\n\n**REQUEST CHANGES**\n")
    write(s / "rounds/round-01/reviews/principal-1.md", reviewer("R01", [("In round-01", "Low")]))
    write(s / "rounds/round-01/reviews/quality-1.md", reviewer("Q01", [("Q in 01", "Low")]))
    r2 = s / "rounds/round-2/reviews"
    write(raw_path(r2, b"p\xff-1.md"), reviewer("FF", [("From ff", "High")]))
    write(raw_path(r2, b"p\xfe-1.md"), reviewer("FE", [("From fe", "Low")]))
    write(r2 / "principal-1.md", reviewer("lower", [("From lower", "Medium")]))
    write(r2 / "Principal-1.md", reviewer("upper", [("From upper", "Medium")]))
    (s / "map/runs/run-1").mkdir(parents=True)
    (s / "map/runs/run-01").mkdir(parents=True)
    write(s / "map/runs/run-2/topology.md", "# Topology run-2\n")
    write(s / "map/runs/run-02/topology.md", "# Topology run-02\n")
    freeze_mtimes(root)
    return root


@pytest.fixture
def twins(tmp_path: Path) -> Path:
    return build(tmp_path / "proj")


async def doc_shown(pilot, rel: str) -> str:
    app = pilot.app

    def ready() -> bool:
        s = app.screen
        return (
            isinstance(s, DocumentScreen)
            and s.rel_path == rel
            and s.loads > 0
            and (s.state is not None and s.state.rel == rel)
        )

    await wait_for(pilot, ready, what=f"document {rel!r} to be read and shown")
    return app.screen.text or ""


def round_path(app) -> str | None:
    s = app.screen
    assert isinstance(s, RoundScreen)
    rnd = s.round
    return rnd.path if rnd is not None else None


# -- rounds ----------------------------------------------------------------------------------


async def test_round_01_and_round_1_are_two_rows_each_opening_its_own_round(twins) -> None:
    app = DrillApp(twins, lambda: SessionScreen(SID))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        rounds = app.screen.query_one("#rounds", DrillTable)
        assert rounds.row_keys == ["rounds/round-1", "rounds/round-01", "rounds/round-2"]
        problems = str(app.screen.query_one("#problems").render())
        assert "rounds/round-01 and rounds/round-1 are both round 1" in problems
        assert app.focused is rounds and rounds.cursor_key == "rounds/round-2"  # the current
        await pilot.press("g", "enter")  # round-1
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, RoundScreen),
            what="the round screen to open on round-1",
        )
        assert round_path(app) == "rounds/round-1"
        assert crumbs(app) == f"Sessions › {SID} › Round 1"
        assert app.screen.query_one("#reviewers", DrillTable).row_count == 1
        await pilot.press("escape")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, SessionScreen),
            what="the session screen to be back",
        )
        await pilot.press("j", "enter")  # round-01
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, RoundScreen),
            what="the round screen to open on round-01",
        )
        assert round_path(app) == "rounds/round-01"
        assert crumbs(app) == f"Sessions › {SID} › Round 1 (round-01)"
        reviewers = app.screen.query_one("#reviewers", DrillTable)
        assert reviewers.row_keys == [
            "rounds/round-01/reviews/principal-1.md",
            "rounds/round-01/reviews/quality-1.md",
        ]
        await pilot.press("enter")
        text = await doc_shown(pilot, "rounds/round-01/reviews/principal-1.md")
        assert "In round-01" in text
        assert crumbs(app) == f"Sessions › {SID} › Round 1 (round-01) › principal-1.md"


async def test_step_keys_walk_through_both_twins(twins) -> None:
    app = DrillApp(twins, lambda: RoundScreen(SID, 1))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        assert round_path(app) == "rounds/round-1"  # a number alone: the canonical twin
        await pilot.press("]")
        assert round_path(app) == "rounds/round-01"
        await pilot.press("]")
        assert round_path(app) == "rounds/round-2"
        await pilot.press("[", "[")
        assert round_path(app) == "rounds/round-1"
        await pilot.press("]")
        assert round_path(app) == "rounds/round-01"
        # a document of round-01 steps to the same file in its neighbours
        await pilot.press("enter")
        await doc_shown(pilot, "rounds/round-01/reviews/principal-1.md")
        await pilot.press("[")
        assert "In round-1" in await doc_shown(pilot, "rounds/round-1/reviews/principal-1.md")
        await pilot.press("]")
        assert "In round-01" in await doc_shown(pilot, "rounds/round-01/reviews/principal-1.md")
        await pilot.press("]")
        assert "From lower" in await doc_shown(pilot, "rounds/round-2/reviews/principal-1.md")


async def test_a_document_crumb_goes_back_to_its_own_twin(twins) -> None:
    rel = "rounds/round-01/reviews/quality-1.md"
    app = DrillApp(twins, lambda: DocumentScreen(SID, rel))
    async with app.run_test(size=SIZE) as pilot:
        await doc_shown(pilot, rel)
        assert crumbs(app) == f"Sessions › {SID} › Round 1 (round-01) › quality-1.md"
        app.screen.action_crumb(2)
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, RoundScreen),
            what="the round screen to open from the crumb",
        )
        assert round_path(app) == "rounds/round-01"
        await pilot.press("enter")
        await doc_shown(pilot, "rounds/round-01/reviews/principal-1.md")
        app.screen.action_crumb(2)  # the round screen below is this one's twin: popped back to
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, RoundScreen),
            what="the twin round screen below to be back",
        )
        assert round_path(app) == "rounds/round-01"
        # the first crumb opened the round on the breadcrumb's session (Back follows it)
        assert [type(s).__name__ for s in app.screen_stack[1:]] == ["SessionScreen", "RoundScreen"]


async def test_current_round_key_opens_the_canonical_twin(tmp_path: Path) -> None:
    root = build(tmp_path / "proj")
    s = root / ".ocr/sessions" / SID
    write(s / "rounds/round-02/reviews/stray-1.md", reviewer("stray", [("x", "Low")]))
    freeze_mtimes(root)
    app = DrillApp(root, lambda: SessionScreen(SID))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        await pilot.press("c")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, RoundScreen),
            what="the current round's screen to open",
        )
        assert round_path(app) == "rounds/round-2"


# -- reviewers -------------------------------------------------------------------------------


async def test_reviewers_whose_names_normalise_to_one_are_rows_of_their_own(twins) -> None:
    app = DrillApp(twins, lambda: RoundScreen(SID, 2))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        table = app.screen.query_one("#reviewers", DrillTable)
        assert table.row_count == 4
        assert len(set(table.row_keys)) == 4
        opened = []
        for row in range(4):
            table.move_cursor(row=row)
            await pilot.press("enter")
            rel = table.row_keys[row]
            opened.append((await doc_shown(pilot, rel)).splitlines()[0])
            await pilot.press("escape")
            await wait_for(
                pilot,
                lambda: isinstance(app.screen, RoundScreen),
                what="the round screen to be back",
            )
        assert sorted(opened) == ["# FE Review", "# FF Review", "# lower Review", "# upper Review"]


# -- map runs --------------------------------------------------------------------------------


async def test_map_run_twins_are_rows_and_documents_step_between_them(twins) -> None:
    app = DrillApp(twins, lambda: SessionScreen(SID))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        runs = app.screen.query_one("#runs", DrillTable)
        assert runs.row_keys == [
            "map/runs/run-1",
            "map/runs/run-01",
            "map/runs/run-2/topology.md",
            "map/runs/run-02/topology.md",
        ]
        runs.focus()
        runs.move_cursor(row=3)
        await pilot.press("enter")
        assert "run-02" in await doc_shown(pilot, "map/runs/run-02/topology.md")
        await pilot.press("[")
        assert "run-2" in await doc_shown(pilot, "map/runs/run-2/topology.md")
        await pilot.press("]")
        assert "run-02" in await doc_shown(pilot, "map/runs/run-02/topology.md")


# -- the table itself ------------------------------------------------------------------------


def test_unique_keys_appends_a_counter_that_no_other_key_has() -> None:
    assert unique_keys(["a", "b", "a", "a#2", "a"]) == ["a", "b", "a#3", "a#2", "a#4"]
    assert unique_keys([]) == []
    assert unique_keys(["x", "y"]) == ["x", "y"]


class _TableApp(App):
    def compose(self) -> ComposeResult:
        yield DrillTable([("name", "Name")], id="t")


async def test_drill_table_shows_rows_with_one_key_and_maps_them_back() -> None:
    from rich.text import Text

    app = _TableApp()
    async with app.run_test() as pilot:
        table = app.query_one(DrillTable)
        rows = [("a", [Text("first")]), ("a", [Text("second")]), ("b", [Text("third")])]
        table.sync_rows(rows)
        await pilot.pause()
        assert table.row_count == 3
        assert [table.key_of(k) for k in table.row_keys] == ["a", "a", "b"]
        table.sync_rows(rows)  # the same rows again: updated in place
        table.sync_rows(rows[1:])
        assert table.row_count == 2 and [table.key_of(k) for k in table.row_keys] == ["a", "b"]


# -- other formats ---------------------------------------------------------------------------


def _code_session(root: Path, name: bytes) -> Path:
    d = raw_path(root / ".claude/.docs", name)
    write(d / "state.json", json.dumps({
        "id": "260310-twins", "task": "Twins", "workflow": "code",
        "created_at": "2026-11-22T09:00:00Z", "updated_at": "2026-11-22T10:00:00Z",
        "phases": [{"name": "research", "status": "completed"},
                   {"name": "Research", "status": "in_progress"}],
        "dispatcher_decisions": {"research": {"agent": "scouter", "instances": 2}},
    }))  # fmt: skip
    return d


async def test_code_workflow_documents_with_one_shown_name(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    d = _code_session(root, b"260310-twins")
    write(raw_path(d, b"notes\xff.md"), "# ff\n")
    write(raw_path(d, b"notes\xfe.md"), "# fe\n")
    freeze_mtimes(root)
    app = DrillApp(root, lambda: SessionScreen("260310-twins"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        docs = app.screen.query_one("#documents", DrillTable)
        assert docs.row_count == 2 and len(set(docs.row_keys)) == 2
        steps = app.screen.query_one("#steps", DrillTable)
        assert steps.row_count == 2  # 2× scouter


async def test_two_sessions_whose_names_differ_in_undecodable_bytes_are_both_listed(
    tmp_path: Path,
) -> None:
    root = tmp_path / "proj"
    _code_session(root, b"260310-caf\xe9")
    _code_session(root, b"260310-caf\xe8")
    (root / ".ocr/sessions").mkdir(parents=True)
    for tail in (b"2026-11-22-x\xff", b"2026-11-22-x\xfe"):
        write(raw_path(root / ".ocr/sessions", tail) / "context.md", "# C\n")
    freeze_mtimes(root)
    app = make_app(find_project(root), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.main_screen.table.row_count == 4
        assert len(app.sessions) == 4


async def test_idumb_delegations_with_one_id_are_two_steps(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    sid = "ses_twins"
    t0 = NOW - timedelta(hours=1)
    write(root / ".idumb/sessions" / f"{sid}.json", json.dumps({
        "sessionId": sid, "createdAt": t0.isoformat(), "lastUpdated": NOW.isoformat(),
        "phase": "init",
    }))  # fmt: skip
    ms = int(t0.timestamp() * 1000)
    recs = [
        {"id": "d1", "fromAgent": "a", "toAgent": "b", "status": "completed",
         "createdAt": ms + 60_000, "completedAt": ms + 120_000},
        {"id": "d1", "fromAgent": "a", "toAgent": "c", "status": "completed",
         "createdAt": ms + 180_000, "completedAt": ms + 240_000},
    ]  # fmt: skip
    write(root / ".idumb/brain/delegations.json", json.dumps({"delegations": recs}))
    freeze_mtimes(root)
    app = DrillApp(root, lambda: SessionScreen(sid))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        assert [s.key for s in app.sessions[sid].steps].count("delegation:d1") == 2
        steps = app.screen.query_one("#steps", DrillTable)
        assert steps.row_count == 2


async def test_analysis_agent_runs_with_one_key_are_two_steps(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    run = {"timestamp": "2026-11-22T10:00:00Z", "agent": "research-architect", "phase": 1,
           "duration_seconds": 12.0, "status": "success", "output_files": []}  # fmt: skip
    write(root / ".scientific-analysis-session/session-state.json", json.dumps({
        "version": "2.1", "session_id": "session-20261122-100000-1",
        "created_at": "2026-11-22T09:59:00Z", "last_updated": "2026-11-22T10:01:00Z",
        "status": "in_progress", "current_phase": 1, "completed_phases": [0, 0, 1],
        "config": {"output_directory": str(root)},
        "agent_execution_log": [run, run],
    }))  # fmt: skip
    freeze_mtimes(root)
    app = DrillApp(root)
    (view,) = app.sessions.values()
    app._first = lambda: SessionScreen(view.id)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        steps = app.screen.query_one("#steps", DrillTable)
        assert steps.row_count >= 2


# -- live ------------------------------------------------------------------------------------


async def test_a_twin_appearing_live_is_shown_and_announced_as_itself(
    empty_project, monkeypatch
) -> None:
    from ocr_tui.ui.toasts import transitions

    from .builders import SIZE as MAIN_SIZE
    from .builders import RoundSpec, final_md, wait_until, write_session

    sid = "2026-03-10-live-twins"
    spec = RoundSpec({"principal-1": ["low"]}, verdict="APPROVE")
    write_session(empty_project, sid, phase="complete", rounds=[spec])
    app = make_app(empty_project, clock=fixed_clock)
    toasts: list[str] = []
    monkeypatch.setattr(app._toasts, "post", lambda note, *_: toasts.append(str(note.message)))
    async with app.run_test(size=MAIN_SIZE) as pilot:
        await loaded(pilot)
        app.open_session(sid)
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        await wait_until(
            pilot,
            lambda: app.screen.query("#rounds"),
            what="the session screen's rounds table to be composed",
        )
        before = app.sessions[sid]
        twin = empty_project.sessions_dir / sid / "rounds" / "round-01"
        (twin / "reviews").mkdir(parents=True)
        (twin / "final.md").write_text(final_md("REQUEST CHANGES", (1, 0, 0)))
        rounds = app.screen.query_one("#rounds", DrillTable)
        await wait_until(
            pilot,
            lambda: rounds.row_count == 2,
            what="the rounds table to list the twin as a second row",
        )
        assert rounds.row_keys == ["rounds/round-1", "rounds/round-01"]
        # The session on screen raises no toast (its screen shows the change); elsewhere, the
        # twin is announced as itself.
        assert toasts == []
        texts = [e.text for e in transitions(before, app.sessions[sid])]
        assert any("round 1 (round-01) complete" in t for t in texts)
        assert not any("round 1 complete" in t for t in texts)  # round-1 was complete already
