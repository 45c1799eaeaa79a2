"""iDumb's shared files as view parts (seed 004): phase checkpoints, halt contexts, v2
delegations and the execution metrics, as facts, steps, alerts and the times at which they
change. Pure: no IO here. `derive.build` puts them on the sessions whose lifetime holds them
(metrics: on the session they name); the source's header shows the rest.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime, timedelta

from ocr_tui.core.lenient import when
from ocr_tui.core.timeutil import fmt_ts, parse_ts
from ocr_tui.core.view import Fact, Step
from ocr_tui.formats.idumb import model as M


def checkpoint_status(c: M.Cp, now: datetime) -> str:
    """The stored status, re-derived: an unreadable file is corrupted, a valid one older than
    48 h is stale (stored files keep "valid")."""
    if c.cp is None:
        return "corrupted"
    if c.cp.status is None or not c.cp.status.strip():
        return "unknown"  # no status written: not known to be valid
    status = c.cp.status.strip()
    if status == "valid" and c.at is not None and now - c.at > M.CHECKPOINT_STALE:
        return "stale"
    return status


def checkpoint_views(
    cps: list[M.Cp], now: datetime, *, per_phase_only: bool = False
) -> tuple[list[Fact], list[Step], list[datetime]]:
    """A fact per phase (count, latest, its status), a step per checkpoint (newest first),
    and when a valid checkpoint turns stale."""
    facts: list[Fact] = []
    steps: list[Step] = []
    expiry: list[datetime] = []
    by_phase: dict[str, list[M.Cp]] = {}
    for c in cps:
        by_phase.setdefault(c.phase, []).append(c)
    for phase, items in sorted(by_phase.items()):
        items.sort(key=lambda c: (c.at or datetime.min.replace(tzinfo=UTC), c.name))
        latest = items[-1]
        st = checkpoint_status(latest, now)
        counts = Counter(checkpoint_status(c, now) for c in items)
        mix = ", ".join(f"{n} {w}" for w, n in sorted(counts.items()))
        tone = "good" if st == "valid" else "bad" if st == "corrupted" else "warn"
        value = f"{len(items)} ({mix}); the latest {st}, {fmt_ts(latest.at) or 'time unknown'}"
        facts.append(Fact(label=f"checkpoints {phase}", value=value, tone=tone))
    if per_phase_only:
        return facts, steps, expiry
    for c in sorted(cps, key=lambda c: c.at or datetime.min.replace(tzinfo=UTC), reverse=True):
        st = checkpoint_status(c, now)
        if st == "valid" and c.at is not None:
            expiry.append(c.at + M.CHECKPOINT_STALE)
        cp = c.cp or M.Checkpoint()
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
        key, label = f"checkpoint:{c.phase}/{c.name}", f"{c.phase}: {cp.task or c.name}"
        steps.append(Step(key=key, label=label, state=st, at=fmt_ts(c.at), detail="; ".join(bits)))
    return facts, steps, expiry


def halt_step(h: M.HaltRec) -> Step:
    detail = "; ".join([h.halt.reason or "no reason given", *h.problems])
    return Step(key=f"halt:{h.name}", label="emergency halt", state="halt", at=fmt_ts(h.at),
                detail=detail)  # fmt: skip


def delegation_views(
    dels: list[M.Delegation], now: datetime, *, summary_only: bool = False
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
        depth = M.MAX_DELEGATION_DEPTH - d.maxDepth if d.maxDepth is not None else None
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
        steps.append(Step(
            key=f"delegation:{d.id or len(steps)}", label=who, state=state, at=fmt_ts(created),
            ended=fmt_ts(done), seconds=seconds, detail="; ".join(bits),
        ))  # fmt: skip
    if dels:
        mix = ", ".join(f"{n} {w}" for w, n in sorted(words.items()))
        tone = "warn" if words.get("expired") else "neutral"
        facts.append(Fact(label="delegations", value=f"{len(dels)} ({mix})", tone=tone))
        if deepest is not None:
            facts.append(Fact(label="deepest delegation", value=f"depth {deepest}"))
    if summary_only:
        return facts, [], [], []
    return facts, steps, alerts, expiry


# The agent's name cannot start with whitespace, so `\s*` and it never share characters.
_RECENT = re.compile(r"^\[([^\]]{10,40})\]\s*([^:\s][^:]{0,79}):\s?(.*)$", re.S)


def metrics_views(m: M.Metrics) -> tuple[list[Fact], list[Step], list[str], str | None]:
    """Agent spawns by agent, errors by type against maxErrors, iteration counts; the recent
    errors as steps; the summary ("3× idumb-planner, 1× idumb-checker")."""
    facts: list[Fact] = []
    alerts: list[str] = []
    # A count neither written nor made of its parts is not known: `—`, never 0 (or green).
    by_agent = sorted(m.agentSpawns.byAgent.items(), key=lambda kv: (-kv[1], kv[0]))
    spawns = m.agentSpawns.total if m.agentSpawns.total is not None else (
        sum(n for _, n in by_agent) if by_agent else None
    )  # fmt: skip
    agents = ", ".join(f"{n}× {a}" for a, n in by_agent)
    said = "—" if spawns is None else f"{spawns}" + (f" ({agents})" if agents else "")
    facts.append(Fact(label="agent spawns", value=said))
    limit = m.limits.maxErrors if m.limits.maxErrors is not None else M.MAX_ERRORS
    total = m.errors.total if m.errors.total is not None else (
        sum(m.errors.byType.values()) if m.errors.byType else None
    )  # fmt: skip
    by_type = sorted(m.errors.byType.items(), key=lambda kv: -kv[1])
    kinds = ", ".join(f"{n}× {t}" for t, n in by_type)
    if total is None:
        facts.append(Fact(label="errors", value=f"— (limit {limit})"))
    else:
        tone = "bad" if total > limit else "warn" if total else "good"
        errors = f"{total} of {limit} allowed" + (f" ({kinds})" if kinds else "")
        facts.append(Fact(label="errors", value=errors, tone=tone))
        if total > limit:
            alerts.append(f"errors {total} over the limit of {limit}")
    it = m.iterationCounts

    def n(value: int | None) -> str:
        return "—" if value is None else str(value)

    counts = f"planner↔checker {n(it.plannerChecker)}, validator↔fix {n(it.validatorFix)}"
    facts.append(Fact(label="iterations", value=f"{counts}, total {n(it.total)}"))
    steps = []
    for i, line in enumerate(m.errors.recent):
        mt = _RECENT.match(line)
        at, kind, msg = (
            (parse_ts(mt.group(1)), mt.group(2), mt.group(3)) if mt else (None, "error", line)
        )
        steps.append(Step(key=f"error:{i}", label=kind, state="error", at=fmt_ts(at), detail=msg))
    return facts, steps, alerts, (agents or None)
