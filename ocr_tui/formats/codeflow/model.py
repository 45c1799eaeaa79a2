"""msgspec Structs and pure normalisation for the LTVAI-Kit `/code` workflow's
`.claude/.docs/{id}/state.json` (seed 002). No IO here.

The format drifts from its own schema: the phase files write `delegating_decisions.{phase}` where
the schema says `dispatcher_decisions`, and the update operations are pseudo-JSON with dotted
paths (`"phases.research.status": "in_progress"`) that an LLM may write literally as flat keys.
`undot` folds dotted keys into nested objects (in file order: a later write wins), and every
field is converted on its own, so one field of the wrong type is a problem on that field only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import msgspec

from ocr_tui.core.lenient import S, Style, checked_ts, merge_dotted
from ocr_tui.core.lenient import lenient as _lenient

PHASES: tuple[tuple[str, str], ...] = (
    ("init", "Init"),
    ("research", "Research"),
    ("plan", "Plan"),
    ("implement", "Implement"),
    ("quality", "Quality"),
    ("review", "Review"),
)
PHASE_KEYS = tuple(k for k, _ in PHASES)
DECISION_KEYS = (  # later ones win: the phase files (what actually runs) write `delegating_`
    "dispatcher_decisions",
    "dispatcher_decision",
    "delegating_decisions",
    "delegating_decision",
)

_COMPLETED = {"completed", "complete", "done", "finished", "success", "succeeded", "ok", "passed"}
_RUNNING = {
    "in_progress",
    "in-progress",
    "inprogress",
    "in progress",
    "running",
    "active",
    "started",
    "ongoing",
    "working",
    "current",
}
_PENDING = {"pending", "todo", "to_do", "not_started", "not-started", "queued", "waiting", "new"}
_SKIPPED = {"skipped", "skip"}
_FAILED = {"failed", "failure", "error", "errored", "aborted", "cancelled", "canceled"}
_ID_DATE = re.compile(r"^(\d{2})(\d{2})(\d{2})(?:[-_](.*))?$")


class PhaseState(msgspec.Struct, kw_only=True):
    status: str | None = None
    skipped: bool | None = None
    report: str | None = None
    started_at: str | None = None
    completed_at: str | None = None


class SpecRef(msgspec.Struct, kw_only=True):
    id: str | None = None
    path: str | None = None
    status: str | None = None


class Decision(msgspec.Struct, kw_only=True):
    agent: str | None = None
    mode: str | None = None
    instances: int | None = None
    inputs: list[str] = []


class CodeState(msgspec.Struct, kw_only=True):
    id: str | None = None
    task: str | None = None
    workflow: str | None = None
    auto_mode: bool | None = None
    created_at: str | None = None
    updated_at: str | None = None


def _q(value: Any, limit: int = 60) -> str:
    text = value if isinstance(value, str) else repr(value)
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


CODE = Style(fold=False, deep=False, kind=True)  # dotted keys are merged once, up front
undot = merge_dotted


def lenient(obj: Any, cls: type[S], where: str, problems: list[str]) -> S:
    """`cls` from a decoded object, field by field (see `ocr_tui.core.lenient`). A string
    where an object belongs is not an error for the callers that accept shorthand (they handle
    it before calling)."""
    return _lenient(obj, cls, where, problems, CODE)


# --- one phase ---------------------------------------------------------------------------


@dataclass
class Phase:
    key: str
    label: str
    number: int
    status: str = "pending"  # "pending" | "in_progress" | "completed" | "failed"
    skipped: bool = False
    report: str | None = None
    started: datetime | None = None
    completed: datetime | None = None
    raw_status: str | None = None  # as written, when it was not one of the schema's words

    @property
    def done(self) -> bool:
        """Counts towards k/6: completed, skipped or failed (the format never blocks)."""
        return self.skipped or self.status in ("completed", "failed")


def _status(word: Any) -> str | None:
    if word is None:
        return "pending"
    if not isinstance(word, str):
        return None
    w = word.strip().lower()
    if w in _COMPLETED:
        return "completed"
    if w in _RUNNING:
        return "in_progress"
    if w in _PENDING or not w:
        return "pending"
    if w in _SKIPPED:
        return "skipped"
    if w in _FAILED:
        return "failed"
    return None


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "y")
    return bool(value) if isinstance(value, (bool, int, float)) else False


def ts(value: Any, where: str, problems: list[str]) -> datetime | None:
    if value == "":
        return None
    return checked_ts(value, where, problems, shown=_q)


def read_phase(key: str, raw: Any, problems: list[str]) -> Phase:
    number = PHASE_KEYS.index(key) + 1
    ph = Phase(key=key, label=PHASES[number - 1][1], number=number)
    where = f"phases.{key}"
    if isinstance(raw, str) or raw is None:  # shorthand: `"research": "completed"`
        raw = {"status": raw}
    if not isinstance(raw, dict):
        problems.append(f"{where} is not an object ({type(raw).__name__}): ignored")
        return ph
    skipped_raw = raw.get("skipped")
    rest = {k: v for k, v in raw.items() if k not in ("skipped", "status")}
    st = lenient(rest, PhaseState, where, problems)
    status = _status(raw.get("status"))
    if status is None:
        problems.append(f"{where}.status {_q(raw.get('status'))} is not a known status")
        status = "pending"
        ph.raw_status = str(raw.get("status"))
    if status == "skipped":
        status, ph.skipped = "completed", True
    if status == "failed":
        ph.raw_status = str(raw.get("status"))
    ph.status = status
    ph.skipped = ph.skipped or _truthy(skipped_raw)
    ph.report = st.report or None
    ph.started = ts(st.started_at, f"{where}.started_at", problems)
    ph.completed = ts(st.completed_at, f"{where}.completed_at", problems)
    if raw.get("status") is None and ph.completed is not None:
        ph.status = "completed"  # no status, but a completion time: it is done
    elif raw.get("status") is None and ph.started is not None:
        ph.status = "in_progress"  # begun, not completed
    return ph


def read_phases(raw: Any, problems: list[str]) -> list[Phase]:
    """The six phases; `phases` may be an object (the schema) or a list of objects with a
    `name`/`phase`/`key`/`id`."""
    if isinstance(raw, list):
        by_name: dict[str, Any] = {}
        for item in raw:
            if isinstance(item, dict):
                name = next((item[k] for k in ("name", "phase", "key", "id") if k in item), None)
                if isinstance(name, str):
                    by_name[name.strip().lower()] = item
        raw = by_name
    elif raw is not None and not isinstance(raw, dict):
        problems.append(f"phases is not an object ({type(raw).__name__}): ignored")
        raw = {}
    raw = raw or {}
    unknown = [k for k in raw if k not in PHASE_KEYS]
    if unknown:
        problems.append("unknown phases ignored: " + ", ".join(_q(k, 30) for k in unknown[:5]))
    return [read_phase(k, raw.get(k), problems) for k in PHASE_KEYS]


# --- dispatcher decisions ----------------------------------------------------------------


@dataclass
class Agents:
    phase: str
    agent: str
    mode: str | None
    instances: int
    inputs: list[str] = field(default_factory=list)

    @property
    def summary(self) -> str:
        text = f"{self.instances}× {self.agent}"
        return f"{text} ({self.mode})" if self.mode else text


def _one_decision(phase: str, raw: Any, problems: list[str]) -> Agents | None:
    where = f"dispatcher_decisions.{phase}"
    if raw is None:
        return None
    if isinstance(raw, str):  # shorthand: `"research": "scouter"`
        raw = {"agent": raw}
    if isinstance(raw, dict) and isinstance(raw.get("inputs"), str):
        raw = {**raw, "inputs": [raw["inputs"]]}
    d = lenient(raw, Decision, where, problems)
    if not isinstance(raw, dict):
        return None
    inputs = [i for i in d.inputs if i]
    n = d.instances if d.instances is not None and d.instances > 0 else (len(inputs) or 1)
    return Agents(phase, d.agent or "agent", d.mode or None, n, inputs)


def read_decisions(state: dict, problems: list[str]) -> dict[str, Agents]:
    """phase -> the agents the dispatcher chose, from every spelling of the key."""
    merged: dict[str, Any] = {}
    for name in DECISION_KEYS:
        raw = state.get(name)
        if raw is None:
            continue
        if not isinstance(raw, dict):
            problems.append(f"{name} is not an object ({type(raw).__name__}): ignored")
            continue
        for phase, dec in raw.items():
            if dec is not None:
                merged[str(phase)] = dec
    out: dict[str, Agents] = {}
    order = {k: i for i, k in enumerate(PHASE_KEYS)}
    for phase in sorted(merged, key=lambda p: (order.get(p, 99), p)):
        got = _one_decision(phase, merged[phase], problems)
        if got is not None:
            out[phase] = got
    return out


# --- the rest ------------------------------------------------------------------------------


def read_spec(raw: Any, problems: list[str]) -> SpecRef | None:
    if raw is None or raw == "":
        return None
    if isinstance(raw, str):  # shorthand: the path alone
        return SpecRef(path=raw)
    spec = lenient(raw, SpecRef, "spec", problems)
    return spec if isinstance(raw, dict) and (spec.id or spec.path) else None


def id_date(session_id: str) -> tuple[datetime | None, str | None]:
    """`260110-jwt-auth-refresh-token` -> (2026-01-10 00:00 UTC, "jwt-auth-refresh-token")."""
    m = _ID_DATE.match(session_id)
    if not m:
        return None, None
    yy, mm, dd, slug = m.groups()
    try:
        return datetime(2000 + int(yy), int(mm), int(dd), tzinfo=UTC), slug or None
    except ValueError:
        return None, slug or None


def mode_of(workflow: Any) -> str | None:
    """`full`, `fast`, None (missing) or the word as written (anything else)."""
    if not isinstance(workflow, str) or not workflow.strip():
        return None
    w = workflow.strip().lower().lstrip("/")
    if "fast" in w:
        return "fast"
    if w in ("code", "full", "code:full"):
        return "full"
    return workflow.strip()[:20]


def auto_of(value: Any) -> bool:
    return _truthy(value)
