"""Builders for the code-workflow tests: the seed's complete example, and writing sessions."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path

from ocr_tui.core.view import SessionView
from ocr_tui.formats.codeflow.source import CodeWorkflowSource

SID = "260110-jwt-auth-refresh-token"
NOW = datetime(2026, 1, 10, 16, 0, 0, tzinfo=UTC)


def _ph(status, report, started, completed, skipped=False) -> dict:
    return {
        "status": status,
        "skipped": skipped,
        "report": report,
        "started_at": started,
        "completed_at": completed,
    }


# The "Complete Example" of state-schema.md (seed 002), verbatim in content.
EXAMPLE = {
    "id": SID,
    "task": "Add JWT authentication with refresh token support",
    "workflow": "code",
    "auto_mode": False,
    "created_at": "2026-01-10T14:30:22Z",
    "updated_at": "2026-01-10T15:45:33Z",
    "spec": {
        "id": "jwt-auth-refresh-token",
        "path": ".claude/.specs/jwt-auth-refresh-token.md",
        "status": "approved",
    },
    "phases": {
        "init": _ph("completed", None, "2026-01-10T14:30:22Z", "2026-01-10T14:30:25Z"),
        "research": _ph(
            "completed", "research-report.md", "2026-01-10T14:30:25Z", "2026-01-10T14:35:15Z"
        ),
        "plan": _ph("completed", "plan-report.md", "2026-01-10T14:35:20Z", "2026-01-10T14:40:10Z"),
        "implement": _ph("completed", None, "2026-01-10T14:40:15Z", "2026-01-10T15:20:30Z"),
        "quality": _ph("completed", None, "2026-01-10T15:20:35Z", "2026-01-10T15:25:00Z"),
        "review": _ph(
            "completed", "review-report.md", "2026-01-10T15:25:05Z", "2026-01-10T15:45:33Z"
        ),
    },
    "dispatcher_decisions": {
        "research": {
            "agent": "scouter",
            "mode": "parallel",
            "instances": 2,
            "inputs": [
                "Search for existing authentication patterns and JWT implementations",
                "Find related API endpoints and middleware structure",
            ],
        },
        "review": {
            "agent": "reviewer",
            "mode": "single",
            "instances": 1,
            "inputs": ["Review all changes for security, performance, and code quality"],
        },
    },
}


def example() -> dict:
    return copy.deepcopy(EXAMPLE)


def in_research() -> dict:
    """The example stopped in research: init done, research in progress, the rest pending."""
    st = example()
    for name in ("plan", "implement", "quality", "review"):
        st["phases"][name] = _ph("pending", None, None, None)
    st["phases"]["research"] = _ph("in_progress", None, "2026-01-10T14:30:25Z", None)
    st["updated_at"] = "2026-01-10T14:31:00Z"
    del st["dispatcher_decisions"]["review"]
    return st


def session_dir(root: Path, sid: str = SID) -> Path:
    return root / ".claude" / ".docs" / sid


def write_state(root: Path, state: dict | bytes | str, sid: str = SID) -> Path:
    d = session_dir(root, sid)
    d.mkdir(parents=True, exist_ok=True)
    data = state if isinstance(state, bytes) else None
    if data is None:
        data = (state if isinstance(state, str) else json.dumps(state)).encode()
    (d / "state.json").write_bytes(data)
    return d


def write_docs(root: Path, sid: str = SID, spec: bool = True) -> None:
    d = session_dir(root, sid)
    d.mkdir(parents=True, exist_ok=True)
    for name in ("research", "plan", "review"):
        (d / f"{name}-report.md").write_text(f"# {name}\n")
    if spec:
        (root / ".claude" / ".specs").mkdir(parents=True, exist_ok=True)
        (root / ".claude" / ".specs" / "jwt-auth-refresh-token.md").write_text("# spec\n")


def derive(
    root: Path, sid: str = SID, now: datetime = NOW, **kw
) -> tuple[SessionView, CodeWorkflowSource]:
    src = CodeWorkflowSource(root, **kw)
    path = src.list_sessions()[sid]
    return src.derive(sid, path, now), src


def facts(view: SessionView) -> dict[str, str]:
    return {f.label: f.value for f in view.facts}
