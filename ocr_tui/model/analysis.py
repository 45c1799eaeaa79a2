"""msgspec Structs for the Scientific Analysis Architect's `session-state.json` (schema
1.0-2.1) and its `logs/errors.log` lines, and the pure pieces of its view. Lenient: every
field is optional and converted on its own, so one field of the wrong type is a problem on that
field, not a lost session (no IO here)."""

from __future__ import annotations

import functools
import types
from collections import Counter
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, TypeVar

import msgspec

from ocr_tui.derive.timeutil import fmt_ts, parse_ts
from ocr_tui.model.view import PhaseStep, Step

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


S = TypeVar("S", bound=msgspec.Struct)


def _undot(obj: dict) -> dict:
    """`{"config.num_chapters": 4}` -> `{"config": {"num_chapters": 4}}` (nested keys win)."""
    if not any(isinstance(k, str) and "." in k for k in obj):
        return obj
    out: dict = {k: v for k, v in obj.items() if not (isinstance(k, str) and "." in k)}
    for key, value in obj.items():
        if not (isinstance(key, str) and "." in key):
            continue
        head, _, rest = key.partition(".")
        if head not in out:
            out[head] = {}
        if isinstance(out[head], dict):
            out[head].setdefault(rest, value)
            out[head] = _undot(out[head])
    return out


def _one(value: Any, typ: Any, where: str, problems: list[str]) -> tuple[bool, Any]:
    try:
        return True, msgspec.convert(value, typ, strict=False)
    except (msgspec.ValidationError, RecursionError, TypeError, ValueError):
        shown = type(value).__name__
        problems.append(f"{where} has the wrong type ({shown}): ignored")
        return False, None


def lenient(obj: Any, cls: type[S], where: str, problems: list[str]) -> S:
    """Convert a decoded JSON object into `cls` one field at a time; a field of the wrong type
    is left at its default and named in `problems`. Lists and dicts of Structs keep their good
    items. Non-objects give the default instance."""
    if not isinstance(obj, dict):
        if obj is not None:
            problems.append(f"{where} is not an object: ignored")
        return cls()
    obj = _undot(obj)
    try:  # the common case: everything converts at once
        return msgspec.convert(obj, cls, strict=False)
    except (msgspec.ValidationError, RecursionError, TypeError, ValueError):
        pass
    values: dict[str, Any] = {}
    for f in _fields(cls):
        if f.name not in obj or obj[f.name] is None:
            continue
        raw, typ, name = obj[f.name], _optional(f.type), f"{where}.{f.name}" if where else f.name
        struct_type = _struct_of(typ)
        if struct_type is not None and isinstance(raw, dict):
            values[f.name] = lenient(raw, struct_type, name, problems)
            continue
        origin = getattr(typ, "__origin__", None)
        args = getattr(typ, "__args__", ())
        if origin is list and args and _struct_of(args[0]) is not None:
            if not isinstance(raw, list):
                problems.append(f"{name} is not a list: ignored")
                continue
            values[f.name] = [
                lenient(item, args[0], f"{name}[{i}]", problems)
                for i, item in enumerate(raw)
                if isinstance(item, dict) or _bad_item(item, f"{name}[{i}]", problems)
            ]
            continue
        if origin is dict and len(args) == 2 and _struct_of(args[1]) is not None:
            if not isinstance(raw, dict):
                problems.append(f"{name} is not an object: ignored")
                continue
            values[f.name] = {
                str(k): lenient(v, args[1], f"{name}.{k}", problems)
                for k, v in raw.items()
                if isinstance(v, dict) or _bad_item(v, f"{name}.{k}", problems)
            }
            continue
        if origin is list and args and isinstance(raw, list):
            # keep the items that convert: [0, 1, "two", 3] -> [0, 1, 3]
            good = [_one(x, args[0], "", []) for x in raw]
            values[f.name] = [v for k, v in good if k]
            if len(values[f.name]) < len(raw):
                problems.append(f"{name} has items of the wrong type: ignored them")
            continue
        ok, value = _one(raw, typ, name, problems)
        if ok:
            values[f.name] = value
    return cls(**values)


@functools.cache
def _fields(cls: type[msgspec.Struct]) -> tuple[msgspec.structs.FieldInfo, ...]:
    return msgspec.structs.fields(cls)


def _bad_item(item: Any, where: str, problems: list[str]) -> bool:
    if item is not None:
        problems.append(f"{where} is not an object: ignored")
    return False


def _optional(typ: Any) -> Any:
    """`X | None` -> X (the None case is handled before conversion)."""
    if isinstance(typ, types.UnionType):
        rest = [a for a in typ.__args__ if a is not type(None)]
        if len(rest) == 1:
            return rest[0]
    return typ


def _struct_of(typ: Any) -> type[msgspec.Struct] | None:
    if isinstance(typ, type) and issubclass(typ, msgspec.Struct):
        return typ
    return None


def decode_state(data: bytes, problems: list[str]) -> SessionState | None:
    """The state in `data`, or None (with a problem) when it is not a JSON object."""
    try:
        try:
            obj = msgspec.json.decode(data)
        except UnicodeDecodeError:
            obj = msgspec.json.decode(data.decode("utf-8", "replace").encode())
            problems.append("session-state.json is not valid UTF-8: bad bytes shown as \ufffd")
    except (msgspec.DecodeError, RecursionError) as exc:
        problems.append(f"session-state.json is not valid JSON ({_short(exc)})")
        return None
    if not isinstance(obj, dict):
        problems.append("session-state.json does not hold a JSON object")
        return None
    return lenient(obj, SessionState, "", problems)


def decode_error_line(line: bytes) -> ErrorEntry | None:
    """One `logs/errors.log` line (same fields as `errors[]`), or None if unreadable."""
    try:
        obj = msgspec.json.decode(line.decode("utf-8", "replace").encode())
    except (msgspec.DecodeError, RecursionError):
        return None
    if not isinstance(obj, dict):
        return None
    return lenient(obj, ErrorEntry, "errors.log", [])


def _short(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 80 else text[:77] + "..."


# --- pure pieces of the view (no IO; the source resolves documents) --------------------------

TONES = {"completed": "good", "in_progress": "neutral", "initialized": "neutral"}
TONES |= {"interrupted": "warn", "aborted": "bad", "error": "bad"}


def at_text(raw: str | None) -> str:
    dt = parse_ts(raw)
    return f" at {fmt_ts(dt)}" if dt else ""


def sort_ts(raw: str | None) -> str:
    return fmt_ts(parse_ts(raw)) or ""


def error_text(e: ErrorEntry) -> str:
    bits = [e.error_type or "error"]
    if e.agent:
        bits.append(e.agent)
    if e.phase is not None:
        bits.append(f"phase {e.phase}")
    text = " · ".join(bits)
    return f"{text}: {e.error_message}" if e.error_message else text


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


def run_steps(
    runs: list[AgentRun], doc: Callable[[str], str | None]
) -> tuple[list[Step], dict[int, list[AgentRun]]]:
    steps: list[Step] = []
    by_phase: dict[int, list[AgentRun]] = {}
    for i, r in enumerate(runs, start=1):
        if r.phase is not None:
            by_phase.setdefault(r.phase, []).append(r)
        start = parse_ts(r.timestamp)
        dur = (
            r.duration_seconds
            if r.duration_seconds is not None and r.duration_seconds >= 0
            else None
        )
        end = start + timedelta(seconds=dur) if start and dur is not None else None
        where = f"phase {r.phase} ({phase_name(r.phase)})" if r.phase is not None else None
        files = ", ".join(r.output_files)
        detail = " · ".join(x for x in (where, files) if x) or None
        documents = [d for d in (doc(f) for f in r.output_files) if d]
        steps.append(
            Step(
                key=f"run-{i}",
                label=r.agent or "agent",
                state=r.status or "unknown",
                at=fmt_ts(start),
                ended=fmt_ts(end),
                seconds=dur,
                detail=detail,
                documents=list(dict.fromkeys(documents)),
            )
        )
    return steps, by_phase


def phase_name(n: int | None) -> str:
    return PHASES[n][1] if n is not None and 0 <= n < len(PHASES) else "?"


def gate_steps(approvals: dict[str, Approval]) -> list[Step]:
    steps = []
    for key in sorted(approvals):
        ap = approvals[key]
        n = key.rpartition("_")[2]
        label = f"approval {n} ({phase_name(int(n))})" if n.isdigit() else f"approval {key}"
        bits = [ap.feedback] if ap.feedback else []
        bits += [f"change: {c}" for c in ap.changes_requested]
        state = "approved" if ap.approved is True else "changes requested"
        if ap.approved is None:
            state = "pending"
        steps.append(
            Step(
                key=f"gate-{key}",
                label=label,
                state=state,
                at=fmt_ts(parse_ts(ap.timestamp)),
                detail="; ".join(bits) or None,
            )
        )
    return steps


def error_steps(errors: list[ErrorEntry]) -> list[Step]:
    steps = []
    for i, e in enumerate(errors, start=1):
        extra = []
        if e.retry_count is not None:
            extra.append(f"retries {e.retry_count}")
        if e.resolution:
            extra.append(e.resolution)
        detail = error_text(e) + (f" ({', '.join(extra)})" if extra else "")
        steps.append(
            Step(
                key=f"error-{i}",
                label=e.error_type or "error",
                state="error",
                at=fmt_ts(parse_ts(e.timestamp)),
                detail=detail,
            )
        )
    return steps


def timeline(
    cur: int,
    done: list[int],
    given: bool,
    complete: bool,
    created: datetime | None,
    approvals: dict[str, Approval],
    runs: dict[int, list[AgentRun]],
    docs: dict[int, list[str]],
) -> list[PhaseStep]:
    """One step per phase 0-7: done (in `completed_phases`, or before the current phase when
    that list is absent), current, skipped (before the current phase, not completed), pending.
    Times and durations come from the phase's agent runs and its gate's approval."""
    steps = []
    for i, (key, label) in enumerate(PHASES):
        if complete or i in done or (not given and i < cur):
            state = "done"
        elif i == cur:
            state = "current"
        elif i < cur:
            state = "skipped"
        else:
            state = "pending"
        starts = [t for t in (parse_ts(r.timestamp) for r in runs.get(i, [])) if t]
        durs = [r.duration_seconds for r in runs.get(i, []) if r.duration_seconds is not None]
        ends = [
            parse_ts(r.timestamp) + timedelta(seconds=max(0.0, r.duration_seconds))  # type: ignore[operator]
            for r in runs.get(i, [])
            if parse_ts(r.timestamp) and r.duration_seconds is not None
        ]
        ap = approvals.get(f"phase_{i}")
        if ap is not None and parse_ts(ap.timestamp) and state == "done":
            ends.append(parse_ts(ap.timestamp))  # type: ignore[arg-type]
        prev = steps[-1].ended if steps else fmt_ts(created)
        at = fmt_ts(min(starts)) if starts else prev
        steps.append(
            PhaseStep(
                key=key,
                label=label,
                number=i + 1,
                state=state,
                at=at if state in ("done", "current") else None,
                ended=fmt_ts(max(ends)) if ends and state != "current" else None,
                seconds=int(sum(max(0.0, d) for d in durs)) if durs else None,
                document=(docs.get(i) or [None])[0],
            )
        )
    return steps


def summary(runs: list[AgentRun], phase: int | None) -> str | None:
    """The agents of the current phase (else of the latest phase that ran any): `4× notebook-
    generator, statistician-consultant`."""
    if not runs:
        return None
    pick = [r for r in runs if r.phase == phase and phase is not None] or [
        r for r in runs if r.phase == runs[-1].phase
    ]
    counts = Counter(r.agent or "agent" for r in pick)
    return ", ".join(f"{n}× {a}" if n > 1 else a for a, n in counts.items())
