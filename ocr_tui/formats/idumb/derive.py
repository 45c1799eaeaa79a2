"""iDumb's view rules (seed 004): from its decoded session file and the shared files (phase
checkpoints, halt contexts, execution metrics, v2 delegations) to a SessionView, and the
brain's facts for the header. Pure: no IO here, the source reads the files.

A session's state comes from idle time (`now - lastUpdated`): active < 1 h, resumable 1-48 h,
stale > 48 h, old > 168 h and archive-eligible > 720 h (advisory). Checkpoints, halts and
delegations are shown on the sessions whose lifetime holds them; metrics on the session they
name.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from msgspec import UNSET

from ocr_tui.core.lenient import created_updated, elapsed, when
from ocr_tui.core.textsafe import unsurrogate
from ocr_tui.core.timeutil import CLOCK_SKEW, fmt_ts, human_duration, parse_ts
from ocr_tui.core.view import Fact, SessionView, Step
from ocr_tui.formats.idumb import model as M

FRAMEWORK = "idumb"
H = 3600.0
ACTIVE_H, RESUME_H, OLD_H, ARCHIVE_H = 1, 48, 168, 720
THRESHOLDS = (ACTIVE_H, RESUME_H, OLD_H, ARCHIVE_H)
SLACK = timedelta(minutes=1)  # a checkpoint written just before the session file is its own


_IDLE_WORDS = {  # state word -> (its fact, its alert)
    "active": ("active (idle {idle})", ""),
    "resumable": ("resumable (idle {idle}; {left} left to resume in context)", ""),
    "stale": (
        "stale (idle {idle}, over 48 h)",
        "stale: idle {idle} (over 48 h); start fresh or confirm resume",
    ),
    "old": ("old (idle {idle}, over 7 days)", "old: idle {idle} (over 7 days)"),
    "archive-eligible": (
        "archive-eligible (idle {idle}, over 30 days; advisory)",
        "archive-eligible: idle {idle}, over 30 days (advisory)",
    ),
}


@dataclass
class Aux:
    """The files every session shares, read once per change."""

    checkpoints: list[M.Cp] = field(default_factory=list)
    halts: list[M.HaltRec] = field(default_factory=list)
    metrics: M.Metrics | None = None
    delegations: list[M.Delegation] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


@dataclass
class Read:
    """What the source read of one session: its metadata (None when unreadable), the copy
    chosen, that file's mtime, the shared files, and facts already found (its copies)."""

    meta: M.SessionMeta | None
    chosen: Path
    mtime: float | None
    aux: Aux
    facts: list[Fact] = field(default_factory=list)


def build(
    key: str, path: Path, now: datetime, read: Read, problems: list[str]
) -> tuple[SessionView, datetime | None]:
    """The view of one session (`read.chosen`: the copy updated last) and the next time at
    which time alone changes it (None: never)."""
    meta, aux, facts = read.meta, read.aux, read.facts
    m = meta or M.SessionMeta()
    sid = m.sessionId or key
    names = ("createdAt", "lastUpdated")
    created, updated, last, from_file = created_updated(
        m.createdAt, m.lastUpdated, names, problems, future=now + CLOCK_SKEW, mtime=read.mtime
    )
    if from_file and meta is not None:
        problems.append("no lastUpdated or createdAt: idle time from the file's time")
    idle = max(0.0, (now - last).total_seconds()) if last else None
    word, tone = idle_state(idle)
    active = word == "active"
    alerts: list[str] = []
    badges = [word] if word != "unknown" else []
    expiry: list[datetime] = []
    if last is not None:
        later = [last + timedelta(hours=h) for h in THRESHOLDS]
        expiry += [t for t in later if t > now]
    idle_text, left = human_duration(idle), human_duration(RESUME_H * H - (idle or 0))
    text, alert = _IDLE_WORDS.get(word, ("unknown (no time in the file)", ""))
    state_text = text.format(idle=idle_text, left=left)
    if alert:
        alerts.append(alert.format(idle=idle_text))
    head = [Fact(label="state", value=state_text, tone=tone)]
    if created:
        head.append(Fact(label="created", value=fmt_ts(created) or ""))
    if last:
        head.append(Fact(label="last update", value=fmt_ts(last) or ""))
    phase_text = (m.phase or "").strip()
    if phase_text:
        head.append(Fact(label="phase at creation", value=phase_text))
    head.append(Fact(label="session", value=sid))
    if m.governanceLevel:
        head.append(Fact(label="governance", value=m.governanceLevel))

    # -- delegation depth / parent: only where the file has them --
    if m.delegationDepth is not UNSET and m.delegationDepth is not None:
        d = m.delegationDepth
        head.append(
            Fact(label="delegation depth", value=str(d), tone="bad" if d >= 5 else "neutral")
        )
        if d > 0:
            badges.append(f"depth {d}")
        if d >= 5:
            alerts.append(f"delegation loop: depth {d} (5 or more)")
    if isinstance(m.parentSession, str) and m.parentSession:
        head.append(Fact(label="parent session", value=m.parentSession))

    # -- compaction --
    if m.compactedAt or m.contextSize:
        size = f" ({m.contextSize})" if m.contextSize else ""
        badges.append(f"compacted{size}")
        at = parse_ts(m.compactedAt)
        at_text = fmt_ts(at) if at else (m.compactedAt or "time unknown")
        head.append(Fact(label="compacted", value=f"{at_text}{size}", tone="warn"))

    # -- shared files: what happened during this session --
    start = (created or last or now) - SLACK
    end = now if active else (last or now) + SLACK
    steps: list[Step] = []
    mine = [c for c in aux.checkpoints if c.at is not None and start <= c.at <= end]
    if created is None and last is None:
        mine = []
    cp_facts, cp_steps, cp_exp = checkpoint_views(mine, now)
    facts += cp_facts
    steps += cp_steps
    expiry += cp_exp
    for h in aux.halts:
        if h.halt.sessionId == sid or (h.halt.sessionId is None and h.at and start <= h.at <= end):
            steps.append(halt_step(h))
            alerts.append(f"emergency halt: {h.halt.reason or 'no reason given'}")
            badges.append("halted")
    dels = [d for d in aux.delegations if (t := when(d.createdAt)) and start <= t <= end]
    d_facts, d_steps, d_alerts, d_exp = delegation_views(dels, now)
    facts += d_facts
    steps += d_steps
    alerts += d_alerts
    expiry += d_exp
    summary = None
    if aux.metrics is not None and aux.metrics.sessionId in (sid, key):
        mf, ms, ma, summary = metrics_views(aux.metrics)
        facts += mf
        steps += ms
        alerts += ma
    if summary is None and dels:
        summary = f"{len(dels)} delegation(s)"

    number, total, label = split_phase(phase_text)
    future = [t for t in expiry if t > now]
    view = SessionView(
        id=key, branch=None, source=unsurrogate(path.name),
        status="active" if word in ("active", "resumable", "unknown") else "closed",
        workflow="session", phase=phase_text or "unknown", phase_label=label or "unknown",
        phase_number=number, phase_total=total, complete=False, started_at=fmt_ts(created),
        updated_at=fmt_ts(updated), last_activity=fmt_ts(last), stalled=False,
        elapsed=elapsed(created or last, now if active else (last or now), active),
        current_round=None, rounds=[], current_map_run=None, map_runs=[],
        problems=list(dict.fromkeys(problems)), path=str(read.chosen), timeline=[],
        documents=[], framework=FRAMEWORK, title=None,  # no task or topic: not the phase again
        badges=list(dict.fromkeys(badges)), summary=summary, waiting=False,
        alerts=list(dict.fromkeys(alerts)), facts=head + facts, steps=steps,
    )  # fmt: skip
    return view, min(future, default=None)


def split_phase(text: str) -> tuple[int | None, int, str]:
    """(number, total, label) of iDumb's free-text phase, each said once: "2/4 (Phase 2:
    build)" is (2, 4, "Phase 2: build"). A leading position is taken out of the label when it
    is the phase's position or gives no total ("0/0 (Phase 0)" is (None, 0, "Phase 0"): a
    total of 0 is not known, not zero); any other text is the label as it is, and a text that
    is only a position is its own label."""
    number, total = M.phase_position(text)
    s = text.strip()
    n_end = _digits_end(s, 0)
    slash = _spaces_end(s, n_end)
    if n_end == 0 or slash >= len(s) or s[slash] != "/":
        return number, total, s
    t_start = _spaces_end(s, slash + 1)
    t_end = _digits_end(s, t_start)
    if t_end == t_start or (t_end < len(s) and s[t_end].isdecimal()):
        return number, total, s
    n, t = int(s[:n_end]), int(s[t_start:t_end])
    if (n, t) != (number, total) and t != 0:
        return number, total, s  # "13/12 ...", "0/4 ...": not a position; kept as written
    rest = s[t_end:].strip().lstrip("-–—:·,").strip()
    inner = rest[1:-1]
    if rest.startswith("(") and rest.endswith(")") and "(" not in inner and ")" not in inner:
        rest = inner.strip()
    return number, total, rest or s


def _digits_end(s: str, i: int) -> int:
    while i < len(s) and s[i].isdecimal():
        i += 1
    return i


def _spaces_end(s: str, i: int) -> int:
    while i < len(s) and s[i].isspace():
        i += 1
    return i


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


def checkpoint_status(c: M.Cp, now: datetime) -> str:
    """The stored status, re-derived: an unreadable file is corrupted, a valid one older than
    48 h is stale (stored files keep "valid")."""
    if c.cp is None:
        return "corrupted"
    status = (c.cp.status or "valid").strip() or "valid"
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
        value = f"{len(items)} ({mix}); latest {fmt_ts(latest.at) or '?'} {st}"
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
    by_agent = sorted(m.agentSpawns.byAgent.items(), key=lambda kv: (-kv[1], kv[0]))
    spawns = m.agentSpawns.total if m.agentSpawns.total is not None else sum(n for _, n in by_agent)
    agents = ", ".join(f"{n}× {a}" for a, n in by_agent)
    facts.append(Fact(label="agent spawns", value=f"{spawns}" + (f" ({agents})" if agents else "")))
    limit = m.limits.maxErrors if m.limits.maxErrors is not None else M.MAX_ERRORS
    total = m.errors.total if m.errors.total is not None else sum(m.errors.byType.values())
    by_type = sorted(m.errors.byType.items(), key=lambda kv: -kv[1])
    kinds = ", ".join(f"{n}× {t}" for t, n in by_type)
    tone = "bad" if total > limit else "warn" if total else "good"
    errors = f"{total}/{limit}" + (f" ({kinds})" if kinds else "")
    facts.append(Fact(label="errors", value=errors, tone=tone))
    if total > limit:
        alerts.append(f"errors {total} over the limit of {limit}")
    it = m.iterationCounts
    counts = f"planner↔checker {it.plannerChecker or 0}, validator↔fix {it.validatorFix or 0}"
    facts.append(Fact(label="iterations", value=f"{counts}, total {it.total or 0}"))
    steps = []
    for i, line in enumerate(m.errors.recent):
        mt = _RECENT.match(line)
        at, kind, msg = (
            (parse_ts(mt.group(1)), mt.group(2), mt.group(3)) if mt else (None, "error", line)
        )
        steps.append(Step(key=f"error:{i}", label=kind, state="error", at=fmt_ts(at), detail=msg))
    return facts, steps, alerts, (agents or None)


def brain_facts(s: M.BrainState, now: datetime) -> tuple[list[Fact], list[str]]:
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
        unknown = "unknown (no lastValidation/initialized)"
        facts.append(Fact(label="brain age", value=unknown, tone="bad"))
        alerts.append("brain staleness unknown: no lastValidation or initialized time")
    else:
        hours = max(0.0, (now - since).total_seconds() / 3600.0)
        age = human_duration(hours * 3600)
        if hours >= M.BRAIN_CRITICAL_H:
            critical = f"{age} since {what} (critical)"
            facts.append(Fact(label="brain age", value=critical, tone="bad"))
            alerts.append(f"brain critically stale: {age} since {what} (over 168 h)")
        elif hours >= M.BRAIN_WARN_H:
            facts.append(Fact(label="brain age", value=f"{age} since {what} (stale)", tone="warn"))
            alerts.append(f"brain stale: {age} since {what} (over 48 h)")
        else:
            facts.append(Fact(label="brain age", value=f"{age} since {what}", tone="good"))
    pri = Counter((a.priority or "none").strip().lower() or "none" for a in s.anchors)
    order = ["critical", "high", "normal"]
    parts = [f"{pri[k]} {k}" for k in order if pri.get(k)]
    parts += [f"{n} {k}" for k, n in sorted(pri.items()) if k not in order]
    tone = "warn" if pri.get("critical") else "neutral"
    facts.append(Fact(label="anchors", value=", ".join(parts) if parts else "none", tone=tone))
    hist = s.history
    if hist:
        notable = [h for h in hist if (h.result or "").strip() != "pass"]
        recent = hist[-M.HISTORY_SHOWN :]
        n_recent = sum(1 for h in recent if (h.result or "").strip() != "pass")
        text = f"{len(hist)} entries, {len(notable)} not pass "
        text += f"({n_recent} in the last {len(recent)})"
        facts.append(Fact(label="history", value=text, tone="warn" if n_recent else "neutral"))
        for h in reversed(recent):
            ok = (h.result or "").strip() == "pass"
            at = fmt_ts(parse_ts(h.timestamp)) or "?"
            text = f"{at} {h.agent or '?'}: {h.action or '?'} → {h.result or '?'}"
            facts.append(Fact(label="  history", value=text, tone="neutral" if ok else "warn"))
    else:
        facts.append(Fact(label="history", value="none"))
    return facts, alerts
