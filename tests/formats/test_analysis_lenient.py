"""Scientific analysis sessions that break their own schema: every one is still a view."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ocr_tui.formats.analysis.source import AnalysisSource
from tests.formats.test_analysis import EXAMPLE, NOW, example, fact, view, write


def test_empty_object_is_a_session_at_phase_0(tmp_path):
    _, v = view(tmp_path, {})
    assert v.phase == "initialization" and v.phase_number == 1 and v.status == "active"
    assert v.title is None  # no research question: no title (not the id)
    # no status (required): not known to be running, and it says so
    assert v.problems == ["session-state.json has no status"] and not v.elapsed.running


def test_missing_state_file_is_listed_with_a_problem(tmp_path):
    d = tmp_path / ".scientific-analysis-session"
    d.mkdir()
    src = AnalysisSource(tmp_path, tmp_dir=tmp_path / "none")
    assert src.list_sessions() == {".scientific-analysis-session": d}  # no session_id: its name
    v = src.derive(".scientific-analysis-session", d, NOW)
    assert v.problems == ["session-state.json is missing"]


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (b'{"version": "2.0", "current_phase": 4, "stat', "is cut off (ends mid-string)"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not valid JSON"),
        (
            b'{"status": "in_progress", "user_context": {"dataset_description": "\xff\xfe"}}',
            "not valid UTF-8",
        ),
        (b"[1, 2, 3]", "does not hold a JSON object"),
        (b"", "is empty"),
        (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
        (b'{"a": "' + b"x" * (1024 * 1024 + 10) + b'"}', "larger than 1 MiB"),
    ],
    ids=["truncated", "binary", "bad-utf8", "array", "empty", "deep", "huge"],
)
def test_bad_files(tmp_path, data, problem):
    _, v = view(tmp_path, data)
    assert any(problem in p for p in v.problems), v.problems
    assert v.id == "project" and v.phase_total == 8


def test_wrong_types_keep_the_rest(tmp_path):
    state = example(
        current_phase="4",
        completed_phases=[0, 1, "two", 2, 3, None],
        config=["not", "an", "object"],
        errors={"oops": 1},
        agent_execution_log=[5, {"agent": "x", "phase": "1", "duration_seconds": "12.5"}],
        user_approvals={"phase_3": "yes", "phase_4": {"approved": True, "changes_requested": 3}},
    )
    _, v = view(tmp_path, state)
    assert v.phase_number == 5 and not v.waiting  # phase_4's approval still counts
    assert [s.state for s in v.timeline[:5]] == ["done"] * 4 + ["current"]
    run = next(s for s in v.steps if s.key == "run-1")
    assert (run.label, run.seconds) == ("x", 12.5)
    assert "4 chapters" not in v.badges
    joined = " | ".join(v.problems)
    for bit in (
        "completed_phases has items",
        "config has the wrong type (list)",
        "errors is not a list",
    ):
        assert bit in joined
    assert "agent_execution_log[0] is not an object" in joined
    assert "user_approvals.phase_3 is not an object" in joined
    assert "changes_requested has the wrong type" in joined


def test_dotted_keys(tmp_path):
    state = example()
    del state["user_approvals"], state["config"]
    state["user_approvals.phase_3"] = {"approved": True}
    state["user_approvals.phase_4.approved"] = True
    state["config.num_chapters"] = 5
    state["user_context.dataset_description"] = "ignored: the nested key wins"
    _, v = view(tmp_path, state)
    assert not v.waiting and "5 chapters" in v.badges
    assert fact(v, "dataset").startswith("Single-cell")


@pytest.mark.parametrize("status", ["paused", "IN_PROGRESS", 3, None])
def test_unknown_status(tmp_path, status):
    _, v = view(tmp_path, example(status=status))
    assert v.status == "active"
    if status is not None:
        assert any("status" in p for p in v.problems)


@pytest.mark.parametrize("phase", [-1, 9, 99])
def test_phase_out_of_range(tmp_path, phase):
    _, v = view(tmp_path, example(current_phase=phase))
    assert any("outside 0-7" in p for p in v.problems)
    assert 1 <= v.phase_number <= 8


def test_bad_timestamps(tmp_path):
    state = example(created_at="yesterday", last_updated="2099-01-01T00:00:00Z")
    _, v = view(tmp_path, state)
    assert any("created_at 'yesterday'" in p for p in v.problems)
    assert any("in the future" in p for p in v.problems)
    assert v.elapsed.seconds is None


def test_no_timestamps_uses_the_file_time(tmp_path):
    state = {k: v for k, v in EXAMPLE.items() if k not in ("created_at", "last_updated")}
    _, v = view(tmp_path, state)
    assert v.last_activity is not None and v.started_at is None


def test_escapes_are_kept_raw_for_the_ui(tmp_path):
    evil = "\x1b[31mred\x1b]0;title\x07 \u202e"
    state = example(user_context={"dataset_description": evil}, session_id=evil)
    _, v = view(tmp_path, state)
    assert v.title == evil.strip()  # the UI makes it safe; JSON escapes it
    json.dumps(v.title)


def test_research_goals_when_no_dataset(tmp_path):
    _, v = view(tmp_path, example(user_context={"research_goals": "Find markers"}))
    assert v.title == "Find markers" and fact(v, "goals") is None


def test_unreadable_state_file(tmp_path):
    d = write(tmp_path, example())
    (d / "session-state.json").chmod(0)
    try:
        v = AnalysisSource(tmp_path, tmp_dir=tmp_path / "x").derive("project", d, NOW)
    finally:
        (d / "session-state.json").chmod(0o644)
    import os

    if os.geteuid() != 0:
        assert any("cannot be read" in p for p in v.problems)


def test_state_file_is_a_directory(tmp_path):
    d = tmp_path / ".scientific-analysis-session"
    (d / "session-state.json").mkdir(parents=True)
    v = AnalysisSource(tmp_path, tmp_dir=tmp_path / "x").derive("project", d, NOW)
    assert v.problems


def test_a_reader_bug_still_lists_the_session(tmp_path, monkeypatch):
    from ocr_tui.formats.analysis import model as A

    def boom(data, problems):
        raise RuntimeError("bug")

    from ocr_tui.core.engine import Engine
    from ocr_tui.core.project import Project
    from ocr_tui.formats.analysis.source import AnalysisSource

    write(tmp_path, example(), ".scientific-analysis-session")
    monkeypatch.setattr(A, "decode_state", boom)
    engine = Engine(Project(tmp_path), sources=[AnalysisSource(tmp_path, tmp_dir=tmp_path / "x")])
    (v,) = engine.scan()  # the engine catches a reader's bug: the session stays listed
    assert v.id == ".scientific-analysis-session" and v.framework == "analysis"  # its name
    assert v.problems == [
        "the Scientific analysis reader failed on this session: RuntimeError: bug"
    ]


_KEYS = sorted(EXAMPLE) + ["interview_progress", "user_approvals.phase_4", "config.num_chapters"]
_KEYS += ["phase", "agent", "status", "approved", "timestamp", "duration_seconds", "phase_3"]
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.sampled_from(["2026-02-04T14:30:22Z", "in_progress", "error", "x.md", "/etc/passwd"]),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(_KEYS) | st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.dictionaries(st.sampled_from(_KEYS), _JSON, max_size=12))
def test_fuzz_never_raises(tmp_path, state):
    d = write(tmp_path, json.dumps(state, allow_nan=True))
    src = AnalysisSource(tmp_path, tmp_dir=tmp_path / "x")
    v = src.derive("project", d, NOW)
    assert v.id == "project" and v.phase_total == 8
    assert not any(p.startswith("could not be read") for p in v.problems), v.problems
    src.expires(v)


def test_an_approval_key_that_only_looks_numeric_is_named_as_it_is(tmp_path) -> None:
    """`²` is a digit to str.isdigit, not to int (hypothesis found it): the key is shown."""
    from ocr_tui.formats.analysis.derive import gate_steps
    from ocr_tui.formats.analysis.model import Approval

    steps = gate_steps(
        {"phase_²": Approval(), "phase_2": Approval(), "x_" + "9" * 6000: Approval()}
    )
    labels = [s.label for s in steps]
    assert "approval: phase_²" in labels and any(
        lb.startswith("approval: phase 3") for lb in labels
    )
