"""A scientific analysis session's id is its own `session_id` (its directory's name when it has
none), not the fixed word `project`: two projects' sessions, a session and its archive, and the
temp-dir fallbacks are told apart. The engine's key stays stable while a file is rewritten, and
two sessions with the same `session_id` are still two rows (the later one named as a problem).
The title is what the session is about, never a copy of the id."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.formats.analysis.source import AnalysisSource
from tests.formats.test_analysis import NOW, example, write

P = ".scientific-analysis-session"
A = P + ".archive"
T = "scientific-analysis-architect-session-"
S1, S2, S3, S4 = (f"session-20260204-1430{n}2-1234{n}" for n in range(1, 5))


@pytest.fixture
def tmp_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fake-tmp")


def engine(root: Path, tmp_dir: Path) -> Engine:
    src = AnalysisSource(root, tmp_dir=tmp_dir)
    return Engine(Project(root), sources=[src], clock=lambda: NOW)


def ids(e: Engine) -> dict[str, str]:
    """view id -> the session's directory, relative to the project root where inside it."""
    out = {}
    for v in e.sessions():
        p = Path(v.path)
        out[v.id] = (
            str(p.relative_to(e.project.root)) if p.is_relative_to(e.project.root) else p.name
        )
    return out


def test_every_session_is_keyed_by_its_session_id(tmp_path, tmp_dir):
    write(tmp_path, example(session_id=S1), P)
    arch = write(tmp_path, example(session_id=S2, status="interrupted"), A)
    write(arch, example(session_id=S3), P)
    write(tmp_dir, example(session_id=S4, config={"output_directory": str(tmp_path)}), T + "x")
    e = engine(tmp_path, tmp_dir)
    e.scan()
    assert ids(e) == {S1: P, S2: A, S3: f"{A}/{P}", S4: T + "x"}
    views = {v.id: v for v in e.sessions()}
    assert "archived" in views[S2].badges and "archived" in views[S3].badges
    assert "tmp" in views[S4].badges and "archived" not in views[S1].badges
    assert all(v.problems == [] for v in views.values())


def test_without_a_session_id_the_directory_name(tmp_path, tmp_dir):
    state = example()
    del state["session_id"]
    write(tmp_path, state, P)
    arch = write(tmp_path, state, A)
    write(arch, state, P)
    write(tmp_dir, dict(state, config={"output_directory": str(tmp_path)}), T + "20260204-1")
    src = AnalysisSource(tmp_path, tmp_dir=tmp_dir)
    assert set(src.list_sessions()) == {P, A, f"{A}/{P}", T + "20260204-1"}


def test_two_projects_sessions_have_different_ids(tmp_path, tmp_dir):
    a, b = tmp_path / "a", tmp_path / "b"
    write(a, example(session_id=S1), P)
    write(b, example(session_id=S2), P)
    assert list(AnalysisSource(a, tmp_dir=tmp_dir).list_sessions()) == [S1]
    assert list(AnalysisSource(b, tmp_dir=tmp_dir).list_sessions()) == [S2]


@pytest.mark.parametrize(
    "bad",
    ["", "   ", "two words", "line\nbreak", "\x1b[31mred", "x" * 300, "bidi\u202eevil"],
    ids=["empty", "blank", "space", "newline", "escape", "long", "bidi"],
)
def test_a_session_id_unfit_for_an_id_falls_back_to_the_directory(tmp_path, tmp_dir, bad):
    write(tmp_path, example(session_id=bad), P)
    e = engine(tmp_path, tmp_dir)
    (v,) = e.scan()
    assert v.id == P
    if bad.strip():
        assert any("session_id" in p and "not usable as an id" in p for p in v.problems)


def test_same_session_id_twice_is_two_rows_the_later_named(tmp_path, tmp_dir):
    """A copy of the live session in its archive (or anywhere): two rows; the one listed
    later (the archive) gets a suffix and says why."""
    write(tmp_path, example(session_id=S1), P)
    write(tmp_path, example(session_id=S1, status="interrupted"), A)
    e = engine(tmp_path, tmp_dir)
    e.scan()
    assert ids(e) == {S1: P, f"{S1}~2": A}
    views = {v.id: v for v in e.sessions()}
    assert views[S1].problems == []
    (problem,) = views[f"{S1}~2"].problems
    assert S1 in problem and P in problem and f"{S1}~2" in problem


def test_the_session_seen_first_keeps_its_id(tmp_path, tmp_dir):
    """An archive is listed; then a live session with the same session_id appears: the
    newcomer is the later one (the archive's row does not change its id)."""
    write(tmp_path, example(session_id=S1, status="interrupted"), A)
    e = engine(tmp_path, tmp_dir)
    e.scan()
    assert ids(e) == {S1: A}
    write(tmp_path, example(session_id=S1), P)
    changed, removed = e.apply([tmp_path / P])
    assert removed == [] and ids(e) == {S1: A, f"{S1}~2": P}
    assert e.views[f"{S1}~2"].problems and not e.views[S1].problems


def test_key_stays_while_the_file_is_rewritten(tmp_path, tmp_dir):
    """A writer that truncates and rewrites in place (`open(f, "w")`, as the skill's own
    pseudocode does): empty, half-written, without a session_id, then whole again. The row
    keeps its id throughout (never removed and re-added)."""
    d = write(tmp_path, example(session_id=S1), P)
    f = d / "session-state.json"
    e = engine(tmp_path, tmp_dir)
    e.scan()
    whole = json.dumps(example(session_id=S1, current_phase=5))
    no_id = {k: v for k, v in example(current_phase=5).items() if k != "session_id"}
    for text in ("", whole[:40], json.dumps(no_id), whole):
        f.write_text(text)
        changed, removed = e.apply([f])
        assert removed == [] and list(e.views) == [S1], text
        assert {v.id for v in changed} <= {S1}
    assert e.views[S1].phase_number == 6 and e.views[S1].problems == []


def test_a_new_session_in_the_same_dir_is_a_new_row(tmp_path, tmp_dir):
    """The skill archives the old session (renames its dir) and starts a new one: the old
    row follows its directory into the archive, the new session is a new row."""
    d = write(tmp_path, example(session_id=S1), P)
    e = engine(tmp_path, tmp_dir)
    e.scan()
    os.rename(d, tmp_path / A)
    write(tmp_path, example(session_id=S2, current_phase=0, completed_phases=[]), P)
    changed, removed = e.apply([tmp_path / A, tmp_path / P])
    assert removed == []
    assert ids(e) == {S1: A, S2: P}
    assert e.views[S1].status == "closed" and "archived" in e.views[S1].badges


def test_a_session_id_changed_in_place_relists(tmp_path, tmp_dir):
    d = write(tmp_path, example(session_id=S1), P)
    e = engine(tmp_path, tmp_dir)
    e.scan()
    f = d / "session-state.json"
    f.write_text(json.dumps(example(session_id=S2)))
    changed, removed = e.apply([f])
    assert removed == [S1] and [v.id for v in changed] == [S2]


def test_touched_maps_paths_to_the_current_ids(tmp_path, tmp_dir):
    d = write(tmp_path, example(session_id=S1), P)
    arch = write(tmp_path, example(session_id=S2), A)
    nested = write(arch, example(session_id=S3), P)
    t = write(tmp_dir, example(session_id=S4, config={"output_directory": str(tmp_path)}), T + "1")
    src = AnalysisSource(tmp_path, tmp_dir=tmp_dir)
    src.list_sessions()
    touch = src.touched([d / "session-state.json", d / "logs" / "errors.log"])
    assert touch.keys == {S1} and not touch.relist
    assert src.touched([arch / "chapter1" / "x.md"]).keys == {S2}
    assert src.touched([nested / "research-structure.md"]).keys == {S3}
    assert src.touched([t / "logs" / "errors.log"]).keys == {S4}


def test_title_is_the_research_question_never_the_id(tmp_path, tmp_dir):
    src = AnalysisSource(tmp_path, tmp_dir=tmp_dir)
    d = write(tmp_path, example(session_id=S1, user_context={}), P)
    (key,) = src.list_sessions()
    v = src.derive(key, d, NOW)
    assert v.id == S1 and v.title is None  # nothing better than the id: no title
    assert not any(f.label == "session" for f in v.facts)  # the id says it: not a fact again
    goals = "Which genes change with age?"
    write(tmp_path, example(session_id=S1), P)
    v = src.derive(key, d, NOW)
    assert v.title.startswith("Identify cell type markers")  # the research question
    assert next(f.value for f in v.facts if f.label == "dataset").startswith("Single-cell")
    write(tmp_path, example(user_context={"research_goals": goals, "dataset_description": "x"}), P)
    assert src.derive(key, d, NOW).title == goals
    write(tmp_path, example(user_context={"dataset_description": "Bulk proteomics"}), P)
    assert src.derive(key, d, NOW).title == "Bulk proteomics"


def test_status_json_shows_the_session_ids(tmp_path, tmp_dir, capsys, monkeypatch):
    from ocr_tui.cli import main

    monkeypatch.setenv("OCR_TUI_ANALYSIS_TMP", str(tmp_dir))
    write(tmp_path, example(session_id=S1), P)
    write(tmp_path, example(session_id=S1, status="interrupted"), A)
    assert main(["status", "--json", str(tmp_path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    got = {s["id"]: s for s in doc["sessions"] if s["framework"] == "analysis"}
    assert set(got) == {S1, f"{S1}~2"}
    assert all(s["title"] != s["id"] for s in got.values())
    assert main(["status", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert S1 in out and f"{S1}~2" in out and "project" not in out.split()
