"""Scientific Analysis Architect sessions (seed 003): the schema document's example and the
rules the dashboard derives from it (phases, gates, statuses, errors, the 72-hour window)."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ocr_tui.formats.analysis.source import AnalysisSource

# The example from references/session-schema.md (seed 003), verbatim but for the paths.
EXAMPLE = {
    "version": "2.0",
    "session_id": "session-20260204-143022-12345",
    "created_at": "2026-02-04T14:30:22Z",
    "last_updated": "2026-02-04T15:02:45Z",
    "status": "in_progress",
    "current_phase": 4,
    "completed_phases": [0, 1, 2, 3],
    "user_approvals": {
        "phase_3": {
            "approved": True,
            "timestamp": "2026-02-04T14:55:00Z",
            "feedback": None,
            "changes_requested": [],
        }
    },
    "config": {
        "output_directory": "/Users/researcher/projects/rnaseq-analysis",
        "session_directory": "/Users/researcher/projects/rnaseq-analysis/"
        ".scientific-analysis-session",
        "num_chapters": 4,
    },
    "outputs": {
        "research_structure": "research-structure.md",
        "chapter_plans": [
            "chapter1-notebook-plans.md",
            "chapter2-notebook-plans.md",
            "chapter3-notebook-plans.md",
            "chapter4-notebook-plans.md",
        ],
        "structure_review": "structure-review-report.md",
        "notebook_review": None,
        "analyses": [],
        "strategy_overview": None,
        "statistical_review": None,
        "corrections_manifest": None,
    },
    "user_context": {
        "dataset_description": "Single-cell RNA-seq of mouse brain tissue. 50,000 cells across "
        "4 conditions: wild-type young, wild-type old, mutant young, mutant old.",
        "research_goals": "Identify cell type markers and find differentially expressed genes "
        "between conditions to understand aging effects.",
        "biological_context": {
            "cell_types_of_interest": "neurons, astrocytes, microglia",
            "genes_of_interest": "inflammation markers, synaptic genes",
        },
    },
    "errors": [],
    "agent_execution_log": [
        {
            "timestamp": "2026-02-04T14:32:15Z",
            "agent": "research-architect",
            "phase": 1,
            "duration_seconds": 245.3,
            "status": "success",
            "output_files": ["research-structure.md"],
        },
        {
            "timestamp": "2026-02-04T14:38:00Z",
            "agent": "analysis-planner",
            "phase": 2,
            "duration_seconds": 520.1,
            "status": "success",
            "output_files": [
                "chapter1-notebook-plans.md",
                "chapter2-notebook-plans.md",
                "chapter3-notebook-plans.md",
                "chapter4-notebook-plans.md",
            ],
        },
    ],
}
NOW = datetime(2026, 2, 4, 15, 10, tzinfo=UTC)
LAST = datetime(2026, 2, 4, 15, 2, 45, tzinfo=UTC)


def example(**changes) -> dict:
    state = copy.deepcopy(EXAMPLE)
    state.update(changes)
    return state


def write(root: Path, state: dict | bytes | str, where: str = ".scientific-analysis-session"):
    d = root / where
    d.mkdir(parents=True, exist_ok=True)
    f = d / "session-state.json"
    if isinstance(state, dict):
        f.write_text(json.dumps(state))
    elif isinstance(state, str):
        f.write_text(state)
    else:
        f.write_bytes(state)
    return d


def view(root: Path, state, now: datetime = NOW, key: str = "project", **kw):
    src = AnalysisSource(root, tmp_dir=root / "no-tmp")
    where = kw.pop("where", ".scientific-analysis-session")
    d = write(root, state, where)
    return src, src.derive(key, d, now)


def fact(v, label: str) -> str | None:
    return next((f.value for f in v.facts if f.label == label), None)


# --- the seed example -----------------------------------------------------------------------


def test_example_phase_gate_and_title(tmp_path):
    src, v = view(tmp_path, example())
    assert (v.framework, v.workflow, v.source) == ("analysis", "analysis", "session-state.json")
    assert (v.phase, v.phase_label, v.phase_number, v.phase_total) == (
        "plan-review",
        "Plan Review",
        5,
        8,
    )
    assert v.status == "active" and not v.complete
    assert v.waiting  # phase 4 is a gate and user_approvals.phase_4 is missing
    assert v.title.startswith("Identify cell type markers")  # the research question
    assert fact(v, "dataset").startswith("Single-cell RNA-seq of mouse brain tissue")
    assert fact(v, "session") == EXAMPLE["session_id"]  # derived under another key: named
    assert "4 chapters" in v.badges and "v2.0" in v.badges
    assert [s.state for s in v.timeline] == ["done"] * 4 + ["current"] + ["pending"] * 3
    assert [s.number for s in v.timeline] == list(range(1, 9))
    assert v.timeline[1].seconds == 245 and v.timeline[2].seconds == 520
    assert v.timeline[1].ended == "2026-02-04T14:36:20Z"
    assert v.timeline[3].ended == "2026-02-04T14:55:00Z"  # the gate's approval
    assert v.started_at == "2026-02-04T14:30:22Z" and v.updated_at == "2026-02-04T15:02:45Z"
    assert v.elapsed.running and v.elapsed.since == "2026-02-04T14:30:22Z"
    assert v.alerts == [] and v.problems == [] and not v.stalled
    # One numbering: the skill's 0-based phase 4 and gate `phase_3` are named as
    # the timeline numbers them, 5 and 4; the status is in words.
    assert fact(v, "approval") == "phase 4 (Structure Review): approved at 2026-02-04T14:55:00Z"
    assert fact(v, "waiting on you") == "phase 5 (Plan Review) needs your approval"
    # The list's own words (`5/8 Plan Review`): no "phase phase 5 (…)" under the label phase.
    assert fact(v, "phase") == "5/8 Plan Review" == f"{v.phase_number}/8 Plan Review"
    assert fact(v, "phases done") == "1–4" and fact(v, "status") == "in progress"
    assert fact(v, "gate 3") is None and fact(v, "completed phases") is None
    runs = [s for s in v.steps if s.key.startswith("run-")]
    assert [(s.label, s.state, s.seconds) for s in runs] == [
        ("research-architect", "success", 245.3),
        ("analysis-planner", "success", 520.1),
    ]
    assert runs[0].ended == "2026-02-04T14:36:20Z"
    gate = next(s for s in v.steps if s.key == "gate-phase_3")
    assert gate.state == "approved" and gate.at == "2026-02-04T14:55:00Z"
    assert gate.label == "approval: phase 4 (Structure Review)"
    assert runs[0].detail.startswith("phase 2 (Birds-Eye Planning)")
    # Waiting on the human: no overdue or stall clock, only the 72-hour resume window.
    assert src.expires(v) == LAST + timedelta(hours=72)


def test_example_documents_only_existing_files_inside(tmp_path):
    d = tmp_path / ".scientific-analysis-session"
    d.mkdir()
    (d / "research-structure.md").write_text("# s")
    (tmp_path / "chapter1-notebook-plans.md").write_text("# c1")  # in the project root
    _, v = view(tmp_path, example())
    assert v.documents == ["research-structure.md", "../chapter1-notebook-plans.md"]
    assert v.timeline[1].document == "research-structure.md"
    assert v.timeline[2].document == "../chapter1-notebook-plans.md"
    run1 = next(s for s in v.steps if s.key == "run-1")
    assert run1.documents == ["research-structure.md"]
    assert fact(v, "outputs missing") == "4"


def test_absolute_outputs_inside_root_or_session_only(tmp_path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.md"
    outside.write_text("x")
    inside = tmp_path / "docs" / "plan.md"
    inside.parent.mkdir()
    inside.write_text("x")
    (tmp_path / "link.md").symlink_to(outside)
    (tmp_path / "corrections-manifest.json").write_text("{}")
    state = example(
        outputs={
            "corrections_manifest": "corrections-manifest.json",  # not markdown: not a document
            "research_structure": str(inside),
            "chapter_plans": [str(outside), "../../../../../../etc/passwd", "link.md"],
        }
    )
    _, v = view(tmp_path, state)
    assert v.documents == ["../docs/plan.md"]


def test_gate_approved_then_overdue_by_phase_timeout(tmp_path):
    ok = {"approved": True, "timestamp": "2026-02-04T15:00:00Z", "changes_requested": []}
    state = example(user_approvals={**EXAMPLE["user_approvals"], "phase_4": ok})
    src, v = view(tmp_path, state)
    assert not v.waiting and v.alerts == []
    assert src.expires(v) == LAST + timedelta(minutes=15)  # phase 4's timeout
    late = LAST + timedelta(minutes=16)
    v2 = src.derive("project", tmp_path / ".scientific-analysis-session", late)
    assert any(a.startswith("overdue: phase 5 (Plan Review)") for a in v2.alerts)
    assert not v2.stalled and src.expires(v2) == LAST + timedelta(minutes=30)
    v3 = src.derive("project", tmp_path / ".scientific-analysis-session", LAST + timedelta(hours=1))
    assert v3.stalled


def test_gate_not_approved_is_waiting(tmp_path):
    no = {"approved": False, "changes_requested": ["merge chapters 3 and 4"]}
    state = example(current_phase=3, completed_phases=[0, 1, 2], user_approvals={"phase_3": no})
    _, v = view(tmp_path, state)
    assert v.waiting and v.phase_label == "Structure Review"
    gate = next(s for s in v.steps if s.key == "gate-phase_3")
    assert gate.state == "changes requested" and "merge chapters 3 and 4" in gate.detail


@pytest.mark.parametrize("phase", [0, 1, 2, 5, 7])
def test_non_gate_phases_are_not_waiting(tmp_path, phase):
    state = example(current_phase=phase, completed_phases=list(range(phase)))
    _, v = view(tmp_path, state)
    assert not v.waiting and v.phase_number == phase + 1


def test_interview_progress_concerns(tmp_path):
    ip = {"current_index": 2, "total_concerns": 5, "decisions_made": 2}
    state = example(current_phase=6, completed_phases=[0, 1, 2, 3, 4, 5], interview_progress=ip)
    _, v = view(tmp_path, state)
    assert v.waiting and "2/5 concerns" in v.badges and fact(v, "interview") == "2/5 concerns"
    assert v.phase_label == "Statistical Fact-Checking"
    done = {"current_index": 5, "total_concerns": 5}
    ok = {"approved": True}
    approvals = {"phase_3": ok, "phase_4": ok, "phase_6": ok}
    _, v = view(tmp_path, {**state, "interview_progress": done, "user_approvals": approvals})
    assert not v.waiting and "5/5 concerns" in v.badges


# --- the six statuses and the 72-hour window -------------------------------------------------


@pytest.mark.parametrize(
    ("status", "shown", "complete", "alert"),
    [
        ("initialized", "active", False, None),
        ("in_progress", "active", False, None),
        ("completed", "closed", True, None),
        ("interrupted", "active", False, "interrupted at phase 5 (Plan Review)"),
        ("aborted", "closed", False, "aborted at phase 5 (Plan Review)"),
        ("error", "active", False, "error: stopped at phase 5 (Plan Review)"),
    ],
)
def test_statuses(tmp_path, status, shown, complete, alert):
    _, v = view(tmp_path, example(status=status))
    assert (v.status, v.complete) == (shown, complete)
    assert (alert in v.alerts) if alert else v.alerts == []
    assert fact(v, "status") == status.replace("_", " ")  # `in progress`, not `in_progress`
    assert v.waiting == (status in ("initialized", "in_progress"))
    assert v.elapsed.running == (status in ("initialized", "in_progress"))
    if not v.elapsed.running:
        assert v.elapsed.seconds == int(
            (LAST - datetime(2026, 2, 4, 14, 30, 22, tzinfo=UTC)).total_seconds()
        )
    if complete:
        assert (v.phase, v.phase_label, v.phase_number) == ("complete", "Complete", 8)
        assert all(s.state == "done" for s in v.timeline)


def test_completed_after_last_checkpoint(tmp_path):
    state = example(status="completed", current_phase=8, completed_phases=list(range(8)))
    _, v = view(tmp_path, state)
    assert v.complete and v.status == "closed" and v.problems == [] and v.phase_number == 8


@pytest.mark.parametrize("status", ["in_progress", "interrupted"])
def test_resume_window_72_hours(tmp_path, status):
    src, v = view(tmp_path, example(status=status), now=LAST + timedelta(hours=71))
    assert v.status == "active" and fact(v, "resumable until") == "2026-02-07T15:02:45Z"
    assert src.expires(v) == LAST + timedelta(hours=72)
    v = src.derive("project", tmp_path / ".scientific-analysis-session", LAST + timedelta(hours=73))
    assert v.status == "closed" and not v.waiting
    assert any(a.startswith("no longer resumable") for a in v.alerts)
    assert src.expires(v) is None


def test_completed_has_no_resume_window(tmp_path):
    _, v = view(tmp_path, example(status="completed"), now=LAST + timedelta(days=10))
    assert v.alerts == [] and fact(v, "resumable until") is None


def test_archive_is_history(tmp_path):
    src, v = view(
        tmp_path,
        example(status="interrupted"),
        key="project.archive",
        where=".scientific-analysis-session.archive",
    )
    assert v.status == "closed" and "archived" in v.badges and not v.waiting
    assert "interrupted at phase 5 (Plan Review)" in v.alerts
    assert src.expires(v) is None


def test_rollback_gap_is_skipped(tmp_path):
    _, v = view(tmp_path, example(current_phase=4, completed_phases=[0, 1, 3]))
    assert [s.state for s in v.timeline[:5]] == ["done", "done", "skipped", "done", "current"]


def test_missing_completed_phases_inferred(tmp_path):
    state = example()
    del state["completed_phases"]
    _, v = view(tmp_path, state)
    assert [s.state for s in v.timeline[:5]] == ["done"] * 4 + ["current"]


# --- errors ---------------------------------------------------------------------------------

ERR1 = {
    "timestamp": "2026-02-04T14:40:00Z",
    "phase": 2,
    "agent": "statistician-consultant",
    "error_type": "timeout",
    "error_message": "Agent exceeded 5 minute timeout",
    "retry_count": 2,
    "resolution": "user_escalation",
}
ERR2 = {
    "timestamp": "2026-02-04T15:01:00Z",
    "phase": 4,
    "agent": "notebook-reviewer",
    "error_type": "validation",
    "error_message": "chapter 3 review missing",
    "retry_count": 1,
    "resolution": "retried",
}


def test_errors_count_latest_and_log_tail(tmp_path):
    d = write(tmp_path, example(errors=[ERR1]))
    (d / "logs").mkdir()
    lines = [json.dumps({**ERR1, "session_id": "x"}), "not json", json.dumps(ERR2), "[1]", ""]
    (d / "logs" / "errors.log").write_text("\n".join(lines))
    src = AnalysisSource(tmp_path, tmp_dir=tmp_path / "no-tmp")
    v = src.derive("project", d, NOW)
    assert fact(v, "errors") == "2"  # the log's copy of ERR1 is not counted twice
    latest = "validation · notebook-reviewer · phase 5 (Plan Review): chapter 3 review missing"
    assert fact(v, "last error") == latest
    assert f"error: {latest}" in v.alerts  # the error is in the current phase
    assert any("errors.log: 2 line(s)" in p for p in v.problems)
    errs = [s for s in v.steps if s.state == "error"]
    assert len(errs) == 2 and "retries 2, user_escalation" in errs[0].detail


def test_old_error_is_a_fact_not_an_alert(tmp_path):
    _, v = view(tmp_path, example(errors=[ERR1]))
    assert fact(v, "errors") == "1" and v.alerts == []


def test_huge_error_log_is_tailed(tmp_path):
    d = write(tmp_path, example())
    (d / "logs").mkdir()
    line = json.dumps(ERR2) + "\n"
    (d / "logs" / "errors.log").write_text(line * 20_000)  # ~4 MB
    v = AnalysisSource(tmp_path, tmp_dir=tmp_path / "x").derive("project", d, NOW)
    assert fact(v, "errors") == "1" and v.problems == []


# --- agents ---------------------------------------------------------------------------------


def test_agent_runs_failure_timeout_and_summary(tmp_path):
    runs = [
        {"agent": "notebook-reviewer", "phase": 4, "duration_seconds": 60, "status": "success"},
        {"agent": "notebook-reviewer", "phase": 4, "duration_seconds": 300, "status": "timeout"},
        {"agent": "notebook-reviewer", "phase": 4, "duration_seconds": 5, "status": "failure"},
    ]
    state = example(agent_execution_log=EXAMPLE["agent_execution_log"] + runs)
    _, v = view(tmp_path, state)
    assert v.summary == "3× notebook-reviewer"
    assert [s.state for s in v.steps if s.key.startswith("run-")][2:] == [
        "success",
        "timeout",
        "failure",
    ]
    assert v.timeline[4].seconds == 365
