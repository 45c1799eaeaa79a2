"""msgspec Structs for iDumb's `.idumb/` files (OpenCode plugin, seed 004): the brain state,
session metadata, phase checkpoints, halt contexts, execution metrics and v2 delegations.

Lenient (no IO here): every field is optional and converted on its own with `strict=False`,
so a field of the wrong type is a problem on that field, not a lost session. Enums (framework,
anchor priority, history result, checkpoint status) are kept as free strings because real files
break them ("both", "SUCCESS: ..."). Fields that must be told apart from "absent" (the session's
`delegationDepth` / `parentSession`) default to `msgspec.UNSET`.
"""

from __future__ import annotations

import re
import types
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar

import msgspec

from ocr_tui.derive.timeutil import fmt_ts, human_duration, parse_ts
from ocr_tui.model.view import Fact, Step

MAX_DELEGATION_DEPTH = 3  # idumb-v2 src/schemas/delegation.ts
MAX_ERRORS = 20  # execution-metrics.ts limits.maxErrors
CHECKPOINT_STALE = timedelta(hours=48)  # checkpoint.ts marks older checkpoints stale on load
BRAIN_WARN_H, BRAIN_CRITICAL_H = 48, 168  # config.ts staleness defaults
HISTORY_SHOWN = 5


class Anchor(msgspec.Struct, kw_only=True):
    id: str | None = None
    created: str | None = None
    type: str | None = None
    content: str | None = None
    priority: str | None = None


class HistoryEntry(msgspec.Struct, kw_only=True):
    timestamp: str | None = None
    action: str | None = None
    agent: str | None = None
    result: str | None = None
    details: Any = None


class BrainState(msgspec.Struct, kw_only=True):
    version: str | None = None
    initialized: str | None = None
    framework: str | None = None
    phase: str | None = None
    lastValidation: str | None = None
    validationCount: int | None = None
    anchors: list[Anchor] = []
    history: list[HistoryEntry] = []


class SessionMeta(msgspec.Struct, kw_only=True):
    sessionId: str | None = None
    createdAt: str | None = None
    lastUpdated: str | None = None
    phase: str | None = None
    governanceLevel: str | None = None
    delegationDepth: int | None | msgspec.UnsetType = msgspec.UNSET
    parentSession: str | None | msgspec.UnsetType = msgspec.UNSET
    compactedAt: str | None = None
    contextSize: str | None = None
    resumedAt: str | None = None
    idleAt: str | None = None


class CheckpointExecution(msgspec.Struct, kw_only=True):
    tasksCompleted: list[str] = []
    tasksInProgress: list[str] = []
    tasksFailed: list[str] = []
    currentTask: str | None = None


class Checkpoint(msgspec.Struct, kw_only=True):
    id: str | None = None
    createdAt: str | None = None
    phase: str | None = None
    task: str | None = None
    type: str | None = None
    status: str | None = None
    execution: CheckpointExecution = msgspec.field(default_factory=CheckpointExecution)


class Halt(msgspec.Struct, kw_only=True):
    timestamp: str | None = None
    sessionId: str | None = None
    reason: str | None = None


class Iterations(msgspec.Struct, kw_only=True):
    plannerChecker: int | None = None
    validatorFix: int | None = None
    total: int | None = None


class Spawns(msgspec.Struct, kw_only=True):
    total: int | None = None
    byAgent: dict[str, int] = {}


class Errors(msgspec.Struct, kw_only=True):
    total: int | None = None
    byType: dict[str, int] = {}
    recent: list[str] = []


class Limits(msgspec.Struct, kw_only=True):
    maxErrors: int | None = None
    maxDelegationDepth: int | None = None


class Metrics(msgspec.Struct, kw_only=True):
    sessionId: str | None = None
    startedAt: str | None = None
    iterationCounts: Iterations = msgspec.field(default_factory=Iterations)
    agentSpawns: Spawns = msgspec.field(default_factory=Spawns)
    errors: Errors = msgspec.field(default_factory=Errors)
    limits: Limits = msgspec.field(default_factory=Limits)


class Delegation(msgspec.Struct, kw_only=True):
    id: str | None = None
    fromAgent: str | None = None
    toAgent: str | None = None
    taskId: str | None = None
    maxDepth: int | None = None
    status: str | None = None
    createdAt: Any = None  # epoch ms (v2) or an ISO string
    completedAt: Any = None
    expiresAt: Any = None


class DelegationStore(msgspec.Struct, kw_only=True):
    version: str | None = None
    delegations: list[Delegation] = []


S = TypeVar("S", bound=msgspec.Struct)


def when(value: Any) -> datetime | None:
    """An ISO string, or epoch milliseconds (v2 delegations), as an aware UTC datetime."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(value / 1000.0, UTC)
        except (ValueError, OverflowError, OSError):
            return None
    return parse_ts(value) if isinstance(value, str) else None


def _optional(typ: Any) -> Any:
    if isinstance(typ, types.UnionType):
        rest = [a for a in typ.__args__ if a not in (type(None), msgspec.UnsetType)]
        if len(rest) == 1:
            return rest[0]
    return typ


def _struct_of(typ: Any) -> type[msgspec.Struct] | None:
    return typ if isinstance(typ, type) and issubclass(typ, msgspec.Struct) else None


def _convert(raw: Any, typ: Any) -> tuple[bool, Any]:
    if typ is str and isinstance(raw, int | float) and not isinstance(raw, bool):
        return True, str(raw)  # contextSize: 12345, or a number where text was meant
    try:
        return True, msgspec.convert(raw, typ, strict=False)
    except (msgspec.ValidationError, RecursionError, TypeError, ValueError):
        return False, None


def lenient(obj: Any, cls: type[S], where: str, problems: list[str]) -> S:
    """`obj` as `cls`, one field at a time: wrong types are dropped and named in `problems`;
    lists and dicts keep their good items. Dotted keys (`"execution.currentTask"`) are nested."""
    if not isinstance(obj, dict):
        if obj is not None:
            problems.append(f"{where or 'the file'} is not an object: ignored")
        return cls()
    obj = _undot(obj)
    values: dict[str, Any] = {}
    for f in msgspec.structs.fields(cls):
        if f.name not in obj:
            continue
        raw, name = obj[f.name], f"{where}.{f.name}" if where else f.name
        if raw is None:
            if f.default is msgspec.UNSET:
                values[f.name] = None  # present and null: shown as such
            continue
        typ = _optional(f.type)
        sub = _struct_of(typ)
        if sub is not None:
            values[f.name] = lenient(raw, sub, name, problems)
            continue
        origin, args = getattr(typ, "__origin__", None), getattr(typ, "__args__", ())
        if origin is list and args:
            if not isinstance(raw, list):
                problems.append(f"{name} is not a list: ignored")
                continue
            item = _struct_of(args[0])
            if item is not None:
                values[f.name] = [
                    lenient(x, item, f"{name}[{i}]", problems)
                    for i, x in enumerate(raw)
                    if isinstance(x, dict)
                ]
                bad = sum(1 for x in raw if not isinstance(x, dict))
            else:
                good = [_convert(x, args[0]) for x in raw]
                values[f.name] = [v for ok, v in good if ok]
                bad = len(raw) - len(values[f.name])
            if bad:
                problems.append(f"{name}: {bad} item(s) of the wrong type ignored")
            continue
        if origin is dict and len(args) == 2:
            if not isinstance(raw, dict):
                problems.append(f"{name} is not an object: ignored")
                continue
            conv = {str(k): _convert(v, args[1]) for k, v in raw.items()}
            values[f.name] = {k: v for k, (ok, v) in conv.items() if ok}
            if len(values[f.name]) < len(raw):
                problems.append(f"{name}: some values of the wrong type ignored")
            continue
        ok, value = _convert(raw, typ)
        if ok:
            values[f.name] = value
        else:
            problems.append(f"{name} has the wrong type ({type(raw).__name__}): ignored")
    return cls(**values)


def _undot(obj: dict) -> dict:
    """`{"execution.currentTask": "t"}` -> `{"execution": {"currentTask": "t"}}`; nested wins."""
    if not any(isinstance(k, str) and "." in k for k in obj):
        return obj
    out: dict = {k: v for k, v in obj.items() if not (isinstance(k, str) and "." in k)}
    for key, value in obj.items():
        if isinstance(key, str) and "." in key:
            head, _, rest = key.partition(".")
            if head not in out:
                out[head] = {}
            if isinstance(out[head], dict):
                out[head] = dict(out[head])
                out[head].setdefault(rest, value)
                out[head] = _undot(out[head])
    return out


def decode(data: bytes, cls: type[S], name: str, problems: list[str]) -> S | None:
    """One JSON file as `cls`, or None (with a problem) when it is not a JSON object."""
    try:
        obj = msgspec.json.decode(data)
    except (msgspec.DecodeError, RecursionError, UnicodeDecodeError) as exc:
        text = str(exc) or type(exc).__name__
        problems.append(f"{name} is not valid JSON ({text[:80]})")
        return None
    if cls is DelegationStore and isinstance(obj, list):
        obj = {"delegations": obj}  # a bare list of records
    if not isinstance(obj, dict):
        problems.append(f"{name} does not hold a JSON object")
        return None
    return lenient(obj, cls, "", problems)


# -- pure view rules (no IO): the source passes what it read ----------------------------------


@dataclass
class Cp:
    """One checkpoint file: `phase` is its directory's name, `name` its file stem."""

    phase: str
    name: str
    cp: Checkpoint | None
    at: datetime | None
    problems: list[str] = field(default_factory=list)


@dataclass
class HaltRec:
    name: str  # the `halt-{ms}` directory
    halt: Halt
    at: datetime | None
    problems: list[str] = field(default_factory=list)


def idle_state(idle: float | None) -> tuple[str, str]:
    """(state word, tone) for seconds idle: active < 1 h, resumable 1-48 h, stale > 48 h,
    old > 168 h, archive-eligible > 720 h."""
    if idle is None:
        return "unknown", "warn"
    hours = idle / 3600.0
    if hours < 1:
        return "active", "good"
    if hours < 48:
        return "resumable", "warn"
    if hours < 168:
        return "stale", "bad"
    if hours < 720:
        return "old", "bad"
    return "archive-eligible", "bad"


_FRACTION = re.compile(r"(\d{1,4})\s*/\s*(\d{1,4})")


def phase_position(text: str) -> tuple[int | None, int]:
    """iDumb's phase is free text; "2/5 (Phase 2)" gives (2, 5). Otherwise (None, 0): no
    phase ladder to draw."""
    m = _FRACTION.search(text or "")
    if m:
        n, total = int(m.group(1)), int(m.group(2))
        if 1 <= n <= total <= 99:
            return n, total
    return None, 0


def checkpoint_status(c: Cp, now: datetime) -> str:
    """The stored status, re-derived: an unreadable file is corrupted, a valid one older than
    48 h is stale (stored files keep "valid")."""
    if c.cp is None:
        return "corrupted"
    status = (c.cp.status or "valid").strip() or "valid"
    if status == "valid" and c.at is not None and now - c.at > CHECKPOINT_STALE:
        return "stale"
    return status


def checkpoint_views(
    cps: list[Cp], now: datetime, *, per_phase_only: bool = False
) -> tuple[list[Fact], list[Step], list[datetime]]:
    """A fact per phase (count, latest, its status), a step per checkpoint (newest first),
    and when a valid checkpoint turns stale."""
    facts: list[Fact] = []
    steps: list[Step] = []
    expiry: list[datetime] = []
    by_phase: dict[str, list[Cp]] = {}
    for c in cps:
        by_phase.setdefault(c.phase, []).append(c)
    for phase, items in sorted(by_phase.items()):
        items.sort(key=lambda c: (c.at or datetime.min.replace(tzinfo=UTC), c.name))
        latest = items[-1]
        st = checkpoint_status(latest, now)
        counts = Counter(checkpoint_status(c, now) for c in items)
        mix = ", ".join(f"{n} {w}" for w, n in sorted(counts.items()))
        tone = "good" if st == "valid" else "bad" if st == "corrupted" else "warn"
        value = f"{len(items)} ({mix}); latest {fmt_ts(latest.at) or '?'} {st}"
        facts.append(Fact(label=f"checkpoints {phase}", value=value, tone=tone))
    if per_phase_only:
        return facts, steps, expiry
    for c in sorted(cps, key=lambda c: c.at or datetime.min.replace(tzinfo=UTC), reverse=True):
        st = checkpoint_status(c, now)
        if st == "valid" and c.at is not None:
            expiry.append(c.at + CHECKPOINT_STALE)
        cp = c.cp or Checkpoint()
        ex = cp.execution
        bits = [f"{cp.type} checkpoint" if cp.type else "checkpoint"]
        if ex.tasksCompleted or ex.tasksInProgress or ex.tasksFailed:
            bits.append(
                f"tasks done {len(ex.tasksCompleted)}, in progress {len(ex.tasksInProgress)}, "
                f"failed {len(ex.tasksFailed)}"
            )
        if ex.currentTask:
            bits.append(f"current: {ex.currentTask}")
        if c.problems:
            bits.append("; ".join(c.problems))
        steps.append(
            Step(
                key=f"checkpoint:{c.phase}/{c.name}",
                label=f"{c.phase}: {cp.task or c.name}",
                state=st,
                at=fmt_ts(c.at),
                detail="; ".join(bits),
            )
        )
    return facts, steps, expiry


def halt_step(h: HaltRec) -> Step:
    return Step(
        key=f"halt:{h.name}",
        label="emergency halt",
        state="halt",
        at=fmt_ts(h.at),
        detail="; ".join([h.halt.reason or "no reason given", *h.problems]),
    )


def delegation_views(
    dels: list[Delegation], now: datetime, *, summary_only: bool = False
) -> tuple[list[Fact], list[Step], list[str], list[datetime]]:
    """v2 delegation records: depth = 3 - maxDepth, expired = now > expiresAt while open."""
    facts: list[Fact] = []
    steps: list[Step] = []
    alerts: list[str] = []
    expiry: list[datetime] = []
    words: Counter[str] = Counter()
    deepest = None
    for d in dels:
        created, done, exp = when(d.createdAt), when(d.completedAt), when(d.expiresAt)
        state = (d.status or "unknown").strip() or "unknown"
        if state in ("pending", "accepted", "unknown") and exp is not None:
            if now > exp:
                state = "expired"
            else:
                expiry.append(exp + timedelta(seconds=1))
        words[state] += 1
        depth = MAX_DELEGATION_DEPTH - d.maxDepth if d.maxDepth is not None else None
        if depth is not None:
            deepest = depth if deepest is None else max(deepest, depth)
        who = f"{d.fromAgent or '?'} → {d.toAgent or '?'}"
        if state == "expired" and (d.status or "") != "expired":
            alerts.append(f"delegation {who} expired without a result")
        bits = [f"task {d.taskId}" if d.taskId else "no task id"]
        if depth is not None:
            bits.append(f"depth {depth}")
        if exp is not None:
            bits.append(f"expires {fmt_ts(exp)}")
        seconds = (done - created).total_seconds() if done and created else None
        steps.append(
            Step(
                key=f"delegation:{d.id or len(steps)}",
                label=who,
                state=state,
                at=fmt_ts(created),
                ended=fmt_ts(done),
                seconds=seconds,
                detail="; ".join(bits),
            )
        )
    if dels:
        mix = ", ".join(f"{n} {w}" for w, n in sorted(words.items()))
        tone = "warn" if words.get("expired") else "neutral"
        facts.append(Fact(label="delegations", value=f"{len(dels)} ({mix})", tone=tone))
        if deepest is not None:
            facts.append(Fact(label="deepest delegation", value=f"depth {deepest}"))
    if summary_only:
        return facts, [], [], []
    return facts, steps, alerts, expiry


_RECENT = re.compile(r"^\[([^\]]{10,40})\]\s*([^:]{1,80}):\s?(.*)$", re.S)


def metrics_views(m: Metrics) -> tuple[list[Fact], list[Step], list[str], str | None]:
    """Agent spawns by agent, errors by type against maxErrors, iteration counts; the recent
    errors as steps; the summary ("3× idumb-planner, 1× idumb-checker")."""
    facts: list[Fact] = []
    alerts: list[str] = []
    by_agent = sorted(m.agentSpawns.byAgent.items(), key=lambda kv: (-kv[1], kv[0]))
    spawns = m.agentSpawns.total if m.agentSpawns.total is not None else sum(n for _, n in by_agent)
    agents = ", ".join(f"{n}× {a}" for a, n in by_agent)
    facts.append(Fact(label="agent spawns", value=f"{spawns}" + (f" ({agents})" if agents else "")))
    limit = m.limits.maxErrors if m.limits.maxErrors is not None else MAX_ERRORS
    total = m.errors.total if m.errors.total is not None else sum(m.errors.byType.values())
    kinds = ", ".join(
        f"{n}× {t}" for t, n in sorted(m.errors.byType.items(), key=lambda kv: -kv[1])
    )
    tone = "bad" if total > limit else "warn" if total else "good"
    facts.append(
        Fact(label="errors", value=f"{total}/{limit}" + (f" ({kinds})" if kinds else ""), tone=tone)
    )
    if total > limit:
        alerts.append(f"errors {total} over the limit of {limit}")
    it = m.iterationCounts
    facts.append(
        Fact(
            label="iterations",
            value=f"planner↔checker {it.plannerChecker or 0}, validator↔fix "
            f"{it.validatorFix or 0}, total {it.total or 0}",
        )
    )
    steps = []
    for i, line in enumerate(m.errors.recent):
        mt = _RECENT.match(line)
        at, kind, msg = (
            (parse_ts(mt.group(1)), mt.group(2), mt.group(3)) if mt else (None, "error", line)
        )
        steps.append(Step(key=f"error:{i}", label=kind, state="error", at=fmt_ts(at), detail=msg))
    return facts, steps, alerts, (agents or None)


def brain_facts(s: BrainState, now: datetime) -> tuple[list[Fact], list[str]]:
    """The header's facts and alerts from the brain state."""
    facts = [
        Fact(label="framework", value=s.framework or "unknown"),
        Fact(label="phase", value=s.phase or "unknown"),
    ]
    alerts: list[str] = []
    if s.version:
        facts.append(Fact(label="version", value=s.version))
    facts.append(Fact(label="validations", value=str(s.validationCount or 0)))
    since = parse_ts(s.lastValidation) or parse_ts(s.initialized)
    what = "last validation" if parse_ts(s.lastValidation) else "initialization"
    if since is None:
        facts.append(
            Fact(label="brain age", value="unknown (no lastValidation/initialized)", tone="bad")
        )
        alerts.append("brain staleness unknown: no lastValidation or initialized time")
    else:
        hours = max(0.0, (now - since).total_seconds() / 3600.0)
        age = human_duration(hours * 3600)
        if hours >= BRAIN_CRITICAL_H:
            facts.append(
                Fact(label="brain age", value=f"{age} since {what} (critical)", tone="bad")
            )
            alerts.append(f"brain critically stale: {age} since {what} (over 168 h)")
        elif hours >= BRAIN_WARN_H:
            facts.append(Fact(label="brain age", value=f"{age} since {what} (stale)", tone="warn"))
            alerts.append(f"brain stale: {age} since {what} (over 48 h)")
        else:
            facts.append(Fact(label="brain age", value=f"{age} since {what}", tone="good"))
    pri = Counter((a.priority or "none").strip().lower() or "none" for a in s.anchors)
    order = ["critical", "high", "normal"]
    parts = [f"{pri[k]} {k}" for k in order if pri.get(k)]
    parts += [f"{n} {k}" for k, n in sorted(pri.items()) if k not in order]
    facts.append(
        Fact(
            label="anchors",
            value=", ".join(parts) if parts else "none",
            tone="warn" if pri.get("critical") else "neutral",
        )
    )
    hist = s.history
    if hist:
        notable = [h for h in hist if (h.result or "").strip() != "pass"]
        recent = hist[-HISTORY_SHOWN:]
        n_recent = sum(1 for h in recent if (h.result or "").strip() != "pass")
        facts.append(
            Fact(
                label="history",
                value=f"{len(hist)} entries, {len(notable)} not pass "
                f"({n_recent} in the last {len(recent)})",
                tone="warn" if n_recent else "neutral",
            )
        )
        for h in reversed(recent):
            ok = (h.result or "").strip() == "pass"
            at = fmt_ts(parse_ts(h.timestamp)) or "?"
            text = f"{at} {h.agent or '?'}: {h.action or '?'} → {h.result or '?'}"
            facts.append(Fact(label="  history", value=text, tone="neutral" if ok else "warn"))
    else:
        facts.append(Fact(label="history", value="none"))
    return facts, alerts
