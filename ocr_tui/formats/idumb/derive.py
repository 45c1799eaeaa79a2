"""iDumb's view rules (seed 004): from its decoded session file and the shared files (phase
checkpoints, halt contexts, execution metrics, v2 delegations) to a SessionView. Pure: no IO
here, the source reads the files. The shared files' facts and steps are `derive_shared.py`'s,
the brain's facts for the header `derive_brain.py`'s.

A session's state comes from idle time (`now - lastUpdated`): active < 1 h, resumable 1-48 h,
stale > 48 h, old > 168 h and archive-eligible > 720 h (advisory). Checkpoints, halts and
delegations are shown on the sessions whose lifetime holds them; metrics on the session they
name.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from msgspec import UNSET

from ocr_tui.core.lenient import created_updated, elapsed, when
from ocr_tui.core.textsafe import unsurrogate
from ocr_tui.core.timeutil import CLOCK_SKEW, fmt_ts, parse_ts
from ocr_tui.core.view import Fact, SessionView, Step
from ocr_tui.formats.idumb import model as M
from ocr_tui.formats.idumb.derive_shared import (
    checkpoint_views,
    delegation_views,
    halt_step,
    metrics_views,
)

FRAMEWORK = "idumb"
H = 3600.0
ACTIVE_H, RESUME_H, OLD_H, ARCHIVE_H = 1, 48, 168, 720
THRESHOLDS = (ACTIVE_H, RESUME_H, OLD_H, ARCHIVE_H)
SLACK = timedelta(minutes=1)  # a checkpoint written just before the session file is its own


# state word -> (its fact, its alert). No text measures idle time against `now`: a view is
# re-derived only when its state word changes, so a measured `idle 32s` would stand still;
# how long a session has been idle is its `last update` fact (a time the screens show as
# "… ago", live). `{until}` is a `fmt_ts` time too.
_IDLE_WORDS = {
    "active": ("active: updated within the hour", ""),
    "resumable": ("resumable in context until {until} (idle over 1h)", ""),
    "stale": (
        "stale: idle over 48h",
        "stale: idle over 48h; start fresh or confirm resume",
    ),
    "old": ("old: idle over 7 days", "old: idle over 7 days"),
    "archive-eligible": (
        "archive-eligible: idle over 30 days (advisory)",
        "archive-eligible: idle over 30 days (advisory)",
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
    until = fmt_ts(last + timedelta(hours=RESUME_H)) if last else "?"
    text, alert = _IDLE_WORDS.get(word, ("unknown (no time in the file)", ""))
    state_text = text.format(until=until)
    if alert:
        alerts.append(alert)
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
        badges.append("compacted")
        at = parse_ts(m.compactedAt)
        at_text = fmt_ts(at) if at else (m.compactedAt or "time unknown")
        size = context_size(m.contextSize)
        value = at_text + (f"; the context was {size}" if size else "")
        head.append(Fact(label="compacted", value=value, tone="warn"))

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


def context_size(raw: str | None) -> str | None:
    """iDumb's `contextSize` (written when the context window filled up) with its unit: a
    count is tokens (`185,283 tokens`); any other text (`90%`) is shown as written."""
    text = (raw or "").strip()
    if not text:
        return None
    return f"{int(text):,} tokens" if text.isdecimal() and len(text) < 16 else text


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
