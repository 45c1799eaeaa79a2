"""The Scientific Analysis Architect's view rules (seed 003): from its decoded
`session-state.json` and `logs/errors.log` entries to a SessionView. Pure: no IO here (the
source reads the files and resolves documents).

Status words, the phase (0-7) and the human gates (3, 4, 6); a session `in_progress` or
`interrupted` is resumable for 72 h after its last update; a live phase with no update for
longer than its timeout is overdue, for longer than `stall_after` stalled.

The skill numbers its phases from 0; every text here numbers them from 1, as the timeline and
the list's `3/8` do (`phase_ref`): the skill's phase 2 is `phase 3 (Subsection Planning)`, its
gate `phase_3` the approval of `phase 4 (Structure Review)`. Times in facts are `fmt_ts`
stamps (the screens show them in their own convention); no text holds a duration measured
against `now` (it would stand still until the next change).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Protocol

from ocr_tui.core.lenient import blank_view, created_updated, elapsed, small_int
from ocr_tui.core.timeutil import CLOCK_SKEW, fmt_ts, human_duration, parse_ts
from ocr_tui.core.view import Fact, PhaseStep, SessionView, Step
from ocr_tui.formats.analysis.model import (
    GATES,
    PHASES,
    STATUSES,
    TIMEOUT_MINUTES,
    AgentRun,
    Approval,
    ErrorEntry,
    SessionState,
    merge_errors,
    phase_outputs,
    sort_ts,
)

FRAMEWORK = "analysis"
STATE = "session-state.json"
RESUME_WINDOW = timedelta(hours=72)
FUTURE_SLACK = CLOCK_SKEW  # a later time is named as in the future
_LIVE = ("initialized", "in_progress")  # no status: not known to run (a problem)


class Docs(Protocol):
    """Resolves an output path to a document (None: not found, counted in `missing`)."""

    missing: int

    def get(self, raw: str) -> str | None: ...


@dataclass
class Read:
    """What the source read of one session: the state (None when unreadable), the error log's
    entries, the state file's mtime and the documents' resolver."""

    state: SessionState | None
    log: list[ErrorEntry]
    mtime: float | None
    docs: Docs
    archived: bool = False  # in the project's archive, or a `*.archive` directory
    temp: bool = False  # one of the skill's fallback directories in the temp dir


def build(
    key: str, path: Path, now: datetime, read: Read, problems: list[str], stall_after: float
) -> tuple[SessionView, datetime | None]:
    """The view of one session from what the source read, and the next time at which time
    alone changes it (None: never)."""
    if read.state is None:  # no state, empty or half written: no phase to claim
        if not problems:  # the reader names why, when it knows
            problems.append(f"{STATE} could not be read: no phase is known")
        return blank_view(
            key, path, FRAMEWORK, "analysis", source=STATE, problems=problems,
            phase_total=len(PHASES),
        ), None  # fmt: skip
    st, docs = read.state, read.docs
    errors = merge_errors(st.errors, read.log)
    expiry: list[datetime] = []
    alerts: list[str] = []
    facts: list[Fact] = []
    badges: list[str] = []

    # --- status ---
    word = st.status if st.status in STATUSES else None
    if st.status is not None and word is None:
        problems.append(f"unknown status {st.status!r}: ignored")
    elif st.status is None:  # required: without it, running is not known either
        problems.append(f"{STATE} has no status")
    archived, temp = read.archived, read.temp

    # --- times ---
    names = ("created_at", "last_updated")
    created, updated, last, _ = created_updated(
        st.created_at, st.last_updated, names, problems, future=now + FUTURE_SLACK, mtime=read.mtime
    )
    expired = bool(word in ("in_progress", "interrupted") and last and now - last > RESUME_WINDOW)
    complete = word == "completed"
    closed = complete or word == "aborted" or archived or expired
    live = not closed and word in _LIVE

    # --- phase ---
    done = sorted({p for p in st.completed_phases or [] if 0 <= p < len(PHASES)})
    cur = st.current_phase
    if cur is None:
        cur = max(done) + 1 if done else 0
    elif not 0 <= cur <= len(PHASES):
        problems.append(f"current_phase {cur} is outside 0-7")
        cur = min(max(cur, 0), len(PHASES))
    if complete or cur >= len(PHASES):
        phase, phase_label, number = "complete", "Complete", len(PHASES)
    else:
        phase, phase_label = PHASES[cur]
        number = cur + 1
    in_phase = cur if cur < len(PHASES) else None

    # --- gates and the interview ---
    approvals = st.user_approvals
    waiting = False
    for gate in GATES:
        ap = approvals.get(f"phase_{gate}")
        if ap is not None:
            ok = ap.approved is True
            # no `approved` field: not decided (the gate's step says pending too)
            said = "approved" if ok else "pending" if ap.approved is None else "changes requested"
            value = f"{phase_ref(gate)}: {said}{at_text(ap.timestamp)}"
            tone = "good" if ok else "neutral" if ap.approved is None else "warn"
            facts.append(Fact(label="approval", value=value, tone=tone))
        if live and gate == in_phase and not (ap is not None and ap.approved is True):
            waiting = True
            wait_text = f"{phase_ref(gate)} needs your approval"
            facts.append(Fact(label="waiting on you", value=wait_text, tone="warn"))
    ip = st.interview_progress
    if ip is not None and ip.total_concerns:
        at = ip.current_index if ip.current_index is not None else ip.decisions_made
        shown_at = "?" if at is None else str(min(at, ip.total_concerns))  # not known: not 0
        concerns = f"{shown_at}/{ip.total_concerns} concerns"
        facts.append(Fact(label="interview", value=concerns, tone="neutral"))
        if in_phase == 6:
            badges.append(concerns)
            waiting = waiting or (live and at is not None and at < ip.total_concerns)

    # --- alerts by status and time ---
    where = phase_ref(in_phase) if in_phase is not None else "the end"
    if word == "interrupted":
        alerts.append(f"interrupted at {where}")
    elif word == "aborted":
        alerts.append(f"aborted at {where}")
    elif word == "error":
        alerts.append(f"error: stopped at {where}")
    if word in ("in_progress", "interrupted") and last is not None and not archived:
        if expired:
            alerts.append("no longer resumable: the last update is over 72h old")
        else:
            expiry.append(last + RESUME_WINDOW)
            facts.append(Fact(label="resumable until", value=fmt_ts(last + RESUME_WINDOW)))
    stalled = False
    if live and not waiting and last is not None and in_phase is not None:
        idle_s = (now - last).total_seconds()
        limit = TIMEOUT_MINUTES[in_phase] * 60
        if idle_s > limit:
            alerts.append(
                f"overdue: {where} has had no update for longer than its timeout "
                f"({human_duration(limit)})"
            )
        else:
            expiry.append(last + timedelta(seconds=limit))
        stalled = idle_s > stall_after
        if not stalled:
            expiry.append(last + timedelta(seconds=stall_after))

    # --- errors ---
    if errors:
        latest = max(enumerate(errors), key=lambda ie: (sort_ts(ie[1].timestamp), ie[0]))[1]
        text = error_text(latest)
        facts.append(Fact(label="errors", value=str(len(errors)), tone="bad"))
        facts.append(Fact(label="last error", value=text, tone="bad"))
        if word == "error" or (live and latest.phase == in_phase):
            alerts.append(f"error: {text}")

    # --- documents, agent runs, timeline ---
    per_phase = phase_outputs(st.outputs)
    phase_docs = {p: [d for d in (docs.get(x) for x in xs) if d] for p, xs in per_phase.items()}
    steps, runs_by_phase = run_steps(st.agent_execution_log, docs.get)
    given = st.completed_phases is not None
    timeline = phase_timeline(
        cur, done, given, complete, created, approvals, runs_by_phase, phase_docs
    )
    steps += gate_steps(approvals) + error_steps(errors)
    documents = list(dict.fromkeys(d for p in sorted(phase_docs) for d in phase_docs[p]))
    if docs.missing:
        facts.append(Fact(label="outputs missing", value=str(docs.missing), tone="warn"))

    # --- badges, facts, title ---
    if word not in (None, "in_progress", "completed"):
        badges.insert(0, word)
    if archived:
        badges.append("archived")
    if temp:
        badges.append("tmp")
    if st.config.num_chapters is not None:
        badges.append(f"{st.config.num_chapters} chapters")
    if st.version:
        badges.append(f"v{st.version}")
    # The title is what the session is about: the research question (the skill's own resume
    # prompt names a session by it), else the dataset; never a copy of the id (None instead).
    ctx = st.user_context
    goals, dataset = (ctx.research_goals or "").strip(), (ctx.dataset_description or "").strip()
    title = goals or dataset or None
    status = STATUS_WORDS.get(word or "", st.status or "unknown")
    tone = TONES.get(word, "warn")
    if closed and word == "in_progress":  # left in progress and never resumed: not running
        status, tone = "in progress when last written, not resumed since", "warn"
    head = [Fact(label="status", value=status, tone=tone)]
    if in_phase is not None:
        place = f"{in_phase + 1}/{len(PHASES)}"
        name = phase_name(in_phase) if 0 <= in_phase < len(PHASES) else None
        head.append(Fact(label="phase", value=f"{place} {name}" if name else place))
    else:
        head.append(Fact(label="phase", value="all done"))
    if done:
        head.append(Fact(label="phases done", value=number_ranges([p + 1 for p in done])))
    if goals and goals != title:
        head.append(Fact(label="goals", value=goals))
    if dataset and dataset != title:
        head.append(Fact(label="dataset", value=dataset))
    if st.session_id and st.session_id != key:  # the id says it otherwise
        head.append(Fact(label="session", value=st.session_id))
    if st.config.output_directory:
        head.append(Fact(label="output directory", value=st.config.output_directory))

    future = [t for t in expiry if t > now]
    view = SessionView(
        id=key, branch=None, source=STATE, status="closed" if closed else "active",
        workflow="analysis", phase=phase, phase_label=phase_label, phase_number=number,
        phase_total=len(PHASES), complete=complete, started_at=fmt_ts(created),
        updated_at=fmt_ts(updated), last_activity=fmt_ts(last), stalled=stalled,
        elapsed=elapsed(created, now if live else (updated or last), live), current_round=None,
        rounds=[], current_map_run=None, map_runs=[], problems=list(dict.fromkeys(problems)),
        path=str(path), timeline=timeline, documents=documents, framework=FRAMEWORK,
        title=title, badges=badges,
        summary=summary(st.agent_execution_log, in_phase), waiting=waiting, alerts=alerts,
        facts=head + facts, steps=steps,
    )  # fmt: skip
    return view, min(future, default=None)


TONES = {"completed": "good", "in_progress": "neutral", "initialized": "neutral"}
# The skill's status values in words (a value it does not define is shown as written).
STATUS_WORDS = {"in_progress": "in progress"}  # the others are words already
TONES |= {"interrupted": "warn", "aborted": "bad", "error": "bad"}


def at_text(raw: str | None) -> str:
    dt = parse_ts(raw)
    return f" at {fmt_ts(dt)}" if dt else ""


def phase_ref(n: int | None) -> str:
    """The skill's 0-based phase `n` as every text names it, 1-based as in the timeline:
    `phase 3 (Subsection Planning)`."""
    if n is None:
        return "phase ?"
    return f"phase {n + 1} ({phase_name(n)})" if 0 <= n < len(PHASES) else f"phase {n + 1}"


def number_ranges(numbers: list[int]) -> str:
    """`1, 2, 3, 5` -> `1–3, 5` (two in a row stay `1, 2`)."""
    runs: list[list[int]] = []
    for n in sorted(set(numbers)):
        if runs and runs[-1][-1] == n - 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(f"{r[0]}–{r[-1]}" if len(r) > 2 else ", ".join(map(str, r)) for r in runs)


def error_text(e: ErrorEntry) -> str:
    bits = [e.error_type or "error"]
    if e.agent:
        bits.append(e.agent)
    if e.phase is not None:
        bits.append(phase_ref(e.phase))
    text = " · ".join(bits)
    return f"{text}: {e.error_message}" if e.error_message else text


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
        where = phase_ref(r.phase) if r.phase is not None else None
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
        n = small_int(key.rpartition("_")[2], 4)
        label = f"approval: {phase_ref(n)}" if n is not None and n >= 0 else f"approval: {key}"
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


def phase_timeline(
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
    """The agents of the current phase (`phase`; none run yet: None, never an earlier
    phase's), else, the session done, of the latest phase that ran any: `4× notebook-
    generator, statistician-consultant`."""
    if not runs:
        return None
    if phase is not None:
        pick = [r for r in runs if r.phase == phase]
    else:
        pick = [r for r in runs if r.phase == runs[-1].phase]
    if not pick:
        return None
    counts = Counter(r.agent or "agent" for r in pick)
    return ", ".join(f"{n}× {a}" if n > 1 else a for a, n in counts.items())
