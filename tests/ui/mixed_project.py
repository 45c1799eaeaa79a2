"""A project holding every format at once, at the fixed clock (2026-03-10 15:00 UTC): an OCR
review (the UI tests' sample project), a finished and a running code workflow, a scientific
analysis waiting at its plan-review gate, and iDumb with its brain state and two sessions."""

from __future__ import annotations

import json
from pathlib import Path

from ocr_tui.core.project import Project

from .builders import sample_project


def _json(path: Path, obj: object) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, indent=2))


def _phase(status: str, start: str | None, end: str | None, report=None, skipped=False):
    return {"status": status, "skipped": skipped, "report": report,
            "started_at": start, "completed_at": end}  # fmt: skip


def mixed_project(root: Path) -> Project:
    project = sample_project(root)
    docs = root / ".claude" / ".docs"
    done = docs / "260310-jwt-auth-refresh-token"
    _json(done / "state.json", {
        "id": "260310-jwt-auth-refresh-token", "task": "Add JWT authentication with refresh",
        "workflow": "code", "auto_mode": False,
        "created_at": "2026-03-10T09:30:22Z", "updated_at": "2026-03-10T10:45:33Z",
        "spec": {"id": "jwt", "path": ".claude/.specs/jwt.md", "status": "approved"},
        "phases": {
            "init": _phase("completed", "2026-03-10T09:30:22Z", "2026-03-10T09:30:25Z"),
            "research": _phase("completed", "2026-03-10T09:30:25Z", "2026-03-10T09:35:15Z",
                               "research-report.md"),
            "plan": _phase("completed", "2026-03-10T09:35:20Z", "2026-03-10T09:40:10Z",
                           "plan-report.md"),
            "implement": _phase("completed", "2026-03-10T09:40:15Z", "2026-03-10T10:20:30Z"),
            "quality": _phase("completed", None, "2026-03-10T10:20:35Z", skipped=True),
            "review": _phase("completed", "2026-03-10T10:25:05Z", "2026-03-10T10:45:33Z",
                             "review-report.md"),
        },
        "dispatcher_decisions": {
            "research": {"agent": "scouter", "mode": "parallel", "instances": 2,
                         "inputs": ["Search auth patterns", "Find API middleware"]},
            "review": {"agent": "reviewer", "mode": "single", "instances": 1,
                       "inputs": ["Review all changes"]},
        },
    })  # fmt: skip
    for name in ("research-report.md", "plan-report.md", "review-report.md"):
        (done / name).write_text(f"# {name}\n\nFindings of the phase.\n")
    (root / ".claude" / ".specs").mkdir(parents=True)
    (root / ".claude" / ".specs" / "jwt.md").write_text("# JWT spec\n")
    live = docs / "260310-rate-limiter"
    _json(live / "state.json", {
        "id": "260310-rate-limiter", "task": "Add a rate limiter", "workflow": "code:fast",
        "auto_mode": True, "created_at": "2026-03-10T14:40:00Z",
        "updated_at": "2026-03-10T14:58:00Z", "spec": None,
        "phases": {
            "init": _phase("completed", "2026-03-10T14:40:00Z", "2026-03-10T14:40:03Z"),
            "research": _phase("completed", "2026-03-10T14:40:03Z", "2026-03-10T14:47:00Z",
                               "research-report.md"),
            "plan": _phase("in_progress", "2026-03-10T14:47:05Z", None),
            "implement": _phase("pending", None, None),
            "quality": _phase("pending", None, None),
            "review": _phase("pending", None, None),
        },
        "delegating_decisions.research": {"agent": "scouter", "mode": "parallel",
                                          "instances": 3, "inputs": ["a", "b", "c"]},
    })  # fmt: skip
    (live / "research-report.md").write_text("# Research\n\nThree scouts reported.\n")
    _json(root / ".scientific-analysis-session" / "session-state.json", {
        "version": "2.1", "session_id": "session-20260310-143022-12345",
        "created_at": "2026-03-10T14:30:22Z", "last_updated": "2026-03-10T14:55:00Z",
        "status": "in_progress", "current_phase": 4, "completed_phases": [0, 1, 2, 3],
        "user_approvals": {"phase_3": {"approved": True, "timestamp": "2026-03-10T14:50:00Z",
                                       "feedback": "Looks good", "changes_requested": []}},
        "config": {"output_directory": str(root), "num_chapters": 5},
        "user_context": {"dataset_description": "RNA-seq of aging mouse liver"},
        "errors": [],
        "agent_execution_log": [
            {"timestamp": "2026-03-10T14:35:00Z", "agent": "research-architect", "phase": 1,
             "duration_seconds": 245.3, "status": "success", "output_files": []},
            {"timestamp": "2026-03-10T14:45:00Z", "agent": "analysis-planner", "phase": 2,
             "duration_seconds": 520.1, "status": "success", "output_files": []},
        ],
    })  # fmt: skip
    _json(root / ".idumb" / "brain" / "state.json", {
        "version": "0.3.1", "initialized": "2026-03-01T10:00:00Z", "framework": "both",
        "phase": "2/4 (Phase 2: build)", "lastValidation": "2026-03-07T09:00:00Z",
        "validationCount": 12,
        "anchors": [{"id": "anchor-1", "created": "2026-03-05T10:00:00Z",
                     "type": "governance-violation", "content": "x", "priority": "critical"}],
        "history": [{"timestamp": "2026-03-09T10:00:00Z", "action": "validate",
                     "agent": "idumb-validator", "result": "SUCCESS: all good"}],
    })  # fmt: skip
    for sid, created, updated in (
        ("ses_3d0fdbb84ffeAN7FeCuPSp5ZW7", "2026-03-10T14:20:00Z", "2026-03-10T14:52:00Z"),
        ("ses_3d0fdbb93ffeQm2ZkQ8s1XxYzA", "2026-03-06T10:00:00Z", "2026-03-06T12:00:00Z"),
    ):
        _json(root / ".idumb" / "sessions" / f"{sid}.json", {
            "sessionId": sid, "createdAt": created, "lastUpdated": updated, "phase": "init",
            "governanceLevel": "standard",
            "language": {"communication": "english", "documents": "english"},
        })  # fmt: skip
    return project
