"""msgspec Structs for the Scientific Analysis Architect's `session-state.json` (schema
1.0-2.1) and its `logs/errors.log` lines; the view rules are in `ocr_tui.formats.analysis.derive`.
Lenient: every field is optional and converted on its own, so one field of the wrong type is a
problem on that field, not a lost session (no IO here)."""

from __future__ import annotations

from typing import Any

import msgspec

from ocr_tui.core.lenient import S, Style
from ocr_tui.core.lenient import lenient as _lenient
from ocr_tui.core.textdecode import load_json
from ocr_tui.core.timeutil import fmt_ts, parse_ts

PHASES: tuple[tuple[str, str], ...] = (
    ("initialization", "Initialization"),
    ("birds-eye-planning", "Birds-Eye Planning"),
    ("subsection-planning", "Subsection Planning"),
    ("structure-review", "Structure Review"),
    ("plan-review", "Plan Review"),
    ("document-generation", "Document Generation"),
    ("fact-checking", "Statistical Fact-Checking"),
    ("audience-documents", "Audience Document Generation"),
)
GATES = (3, 4, 6)  # phases ending in a human approval (user_approvals.phase_N)
TIMEOUT_MINUTES = (5, 15, 20, 10, 15, 20, 30, 15)  # per phase (SKILL.md, error-handling.md)
STATUSES = ("initialized", "in_progress", "completed", "interrupted", "aborted", "error")
# Which outputs belong to which phase (the rollback pseudocode's table).
PHASE_OUTPUTS: dict[int, tuple[str, ...]] = {
    1: ("research_structure",),
    2: ("chapter_plans",),
    3: ("structure_review",),
    4: ("notebook_review",),
    5: ("analyses", "strategy_overview"),
    6: ("statistical_review", "corrections_manifest"),
    7: ("audience_documents",),
}


class Approval(msgspec.Struct, kw_only=True):
    approved: bool | None = None
    timestamp: str | None = None
    feedback: str | None = None
    changes_requested: list[str] = []


class Config(msgspec.Struct, kw_only=True):
    output_directory: str | None = None
    session_directory: str | None = None
    num_chapters: int | None = None


class UserContext(msgspec.Struct, kw_only=True):
    dataset_description: str | None = None
    research_goals: str | None = None


class ErrorEntry(msgspec.Struct, kw_only=True):
    timestamp: str | None = None
    phase: int | None = None
    agent: str | None = None
    error_type: str | None = None
    error_message: str | None = None
    retry_count: int | None = None
    resolution: str | None = None


class AgentRun(msgspec.Struct, kw_only=True):
    timestamp: str | None = None
    agent: str | None = None
    phase: int | None = None
    duration_seconds: float | None = None
    status: str | None = None
    output_files: list[str] = []


class InterviewProgress(msgspec.Struct, kw_only=True):
    current_index: int | None = None
    total_concerns: int | None = None
    decisions_made: int | None = None
    last_saved: str | None = None


class SessionState(msgspec.Struct, kw_only=True):
    version: str | None = None
    session_id: str | None = None
    created_at: str | None = None
    last_updated: str | None = None
    status: str | None = None
    current_phase: int | None = None
    completed_phases: list[int] | None = None
    user_approvals: dict[str, Approval] = {}
    config: Config = msgspec.field(default_factory=Config)
    outputs: dict[str, Any] = {}
    user_context: UserContext = msgspec.field(default_factory=UserContext)
    errors: list[ErrorEntry] = []
    agent_execution_log: list[AgentRun] = []
    interview_progress: InterviewProgress | None = None


ANALYSIS = Style()  # dotted keys folded at each level; nested items kept one by one


def lenient(obj: Any, cls: type[S], where: str, problems: list[str]) -> S:
    """`cls` from a decoded JSON object, one field at a time (see `ocr_tui.core.lenient`)."""
    return _lenient(obj, cls, where, problems, ANALYSIS)


def decode_state(data: bytes, problems: list[str]) -> SessionState | None:
    """The state in `data`, or None (with a problem) when it is not a JSON object."""
    ok, obj = load_json(data, "session-state.json", problems)
    if not ok:
        return None
    if not isinstance(obj, dict):
        problems.append("session-state.json does not hold a JSON object")
        return None
    return lenient(obj, SessionState, "", problems)


def decode_error_line(line: str) -> ErrorEntry | None:
    """One `logs/errors.log` line (same fields as `errors[]`), or None if unreadable."""
    ok, obj = load_json(line.encode("utf-8", "replace"), "errors.log", [])
    if not ok or not isinstance(obj, dict):
        return None
    return lenient(obj, ErrorEntry, "errors.log", [])


def sort_ts(raw: str | None) -> str:
    return fmt_ts(parse_ts(raw)) or ""


def merge_errors(state: list[ErrorEntry], log: list[ErrorEntry]) -> list[ErrorEntry]:
    """The state's errors, then the log's entries the state does not hold."""
    seen = {(sort_ts(e.timestamp), e.agent, e.error_type, e.error_message) for e in state}
    out = list(state)
    for e in log:
        k = (sort_ts(e.timestamp), e.agent, e.error_type, e.error_message)
        if k not in seen:
            seen.add(k)
            out.append(e)
    return out


def phase_outputs(outputs: dict[str, Any]) -> dict[int, list[str]]:
    """Output paths per phase (0 for keys the schema does not name); strings, lists of strings
    and objects of strings (`audience_documents`) are all accepted."""
    owner = {k: p for p, keys in PHASE_OUTPUTS.items() for k in keys}
    out: dict[int, list[str]] = {}
    for key, value in outputs.items():
        items = value if isinstance(value, list) else [value]
        if isinstance(value, dict):
            items = list(value.values())
        paths = [v for v in items if isinstance(v, str) and v.strip()]
        if paths:
            out.setdefault(owner.get(str(key), 0), []).extend(paths)
    return out
