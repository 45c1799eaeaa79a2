"""The code workflow's view rules (seed 002): from its decoded `state.json` (and the documents
the source found) to a SessionView. Pure: no IO here, the source resolves documents.

Progress k/6 counts skipped phases as done; the current phase is the first `in_progress` one,
else the first `pending` one. A phase `in_progress` whose last update is older than
`stall_after` is flagged "stalled?" (no text measures the idle time against `now`: the view
is re-derived only when the state changes, so the stall fact holds the time of the last update,
which the screens show as "… ago", live). Without `--auto` the workflow asks before each phase, so a
session between phases (none in progress, some done, some pending) waits on the user.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ocr_tui.core import lenient
from ocr_tui.core.lenient import span
from ocr_tui.core.timeutil import fmt_ts, from_mtime, human_duration
from ocr_tui.core.view import Fact, PhaseStep, SessionView, Step
from ocr_tui.formats.codeflow import model as C
from ocr_tui.formats.codeflow.model import Agents, Phase

FRAMEWORK = "code"
STATE = "state.json"
MAX_AGENTS = 32  # agent instances listed as steps per decision
DocOf = Callable[[str, bool], "str | None"]  # (name, from the project root) -> document


@dataclass
class Read:
    """What the source read of one session: the state (dotted keys folded; None when it could
    not be read), its mtime, a document resolver and the markdown files found."""

    state: dict | None
    mtime: float | None
    doc: DocOf
    markdown: list[str] = field(default_factory=list)


def blank(key: str, path: Path, problems: list[str]) -> SessionView:
    return lenient.blank_view(
        key, path, FRAMEWORK, "code", source=STATE, problems=problems,
        phase_total=len(C.PHASES), phase_label="Unknown",
    )  # fmt: skip


def build(
    key: str, path: Path, now: datetime, read: Read, problems: list[str], stall_after: float
) -> tuple[SessionView, bool]:
    """The view of one session from what the source read, and whether it can become stalled
    (a phase in progress: only then does time change the view)."""
    raw, mtime, doc_of = read.state, read.mtime, read.doc
    state = raw or {}
    top = C.lenient(state, C.CodeState, "", problems) if raw else C.CodeState()
    phases = C.read_phases(state.get("phases"), problems) if raw is not None else None
    if raw is not None and "phases" not in state:
        problems.append("state.json has no phases: no phase is known")  # not `0 of 6 done`
        phases = None
    decisions = C.read_decisions(state, problems)
    spec = C.read_spec(state.get("spec"), problems)
    day, slug = C.id_date(key)
    if day is None and top.id:
        day, slug = C.id_date(top.id)

    # --- times ---
    created = C.ts(top.created_at, "created_at", problems)
    updated = C.ts(top.updated_at, "updated_at", problems)
    stamps = [t for p in phases or () for t in (p.started, p.completed) if t is not None]
    started = created or min(stamps, default=None) or day
    if started is None and mtime is not None:
        started = from_mtime(mtime)
    last = max([t for t in (updated, *stamps) if t is not None], default=None)
    if updated is None and mtime is not None:  # no update time: the file's own counts too
        last = max(last, from_mtime(mtime)) if last is not None else from_mtime(mtime)

    # --- position ---
    facts: list[Fact] = []
    alerts: list[str] = []
    badges: list[str] = []
    mode = C.mode_of(top.workflow)
    auto = bool(top.auto_mode)
    if mode:
        badges.append(mode)
    if auto:
        badges.append("auto")
    if phases is None:
        view = blank(key, path, problems)
        view.title = top.task or (slug.replace("-", " ") if slug else None)
        view.badges = badges
        view.started_at = fmt_ts(started)
        view.updated_at = view.last_activity = fmt_ts(last)
        view.documents = list(read.markdown)
        return view, False
    done = sum(p.done for p in phases)
    complete = done == len(phases)
    running_phases = [p for p in phases if p.status == "in_progress" and not p.skipped]
    pending = [p for p in phases if not p.done and p.status == "pending"]
    current = (running_phases or pending or [None])[0]
    status = "closed" if complete else "active"

    # --- timeline and documents ---
    documents: list[str] = []
    if spec is not None:
        facts.append(_spec_fact(spec, documents, doc_of))
    timeline: list[PhaseStep] = []
    for p in phases:
        doc = None
        if p.report:
            doc = doc_of(p.report, False) or doc_of(p.report, True)
            if doc is None:
                problems.append(
                    f"{p.label.lower()} report {C._q(p.report)} not found in the project"
                )
            elif doc not in documents:
                documents.append(doc)
        if p.skipped:
            state_word = "skipped"
        elif p.done:
            state_word = "done"
        elif p is current or p.status == "in_progress":
            state_word = "current"
        else:
            state_word = "pending"
        end = p.completed if p.done else (now if p.status == "in_progress" else None)
        timeline.append(PhaseStep(
            key=p.key, label=p.label, number=p.number, state=state_word,
            at=fmt_ts(p.started), ended=fmt_ts(p.completed), seconds=span(p.started, end),
            document=doc,
        ))  # fmt: skip
        if p.status == "failed":
            alerts.append(f"{p.label} ended as {C._q(p.raw_status, 30)}")
    documents += [d for d in read.markdown if d not in documents]

    # --- agents ---
    steps = []
    by_key = {p.key: p for p in phases}
    for phase, agents in decisions.items():
        p = by_key.get(phase)
        name = p.label if p else phase
        facts.append(Fact(label=f"{name.lower()} agents", value=agents.summary))
        steps.extend(agent_steps(agents, p, timeline))
    summary = None
    if decisions:
        if current is not None and not complete:  # the phase under way's, or none yet
            chosen = decisions.get(current.key)
        else:  # done: the latest phase (in phase order) that has a decision
            chosen = list(decisions.values())[-1]
        summary = chosen.summary if chosen is not None else None

    # --- alerts ---
    skipped = sum(p.skipped for p in phases)
    # The list's `k/6` is the place of the phase under way; this counts what is done, in
    # words, so the two never read as two numberings of one thing.
    progress = f"{done} of {len(phases)} phases done" + (f" ({skipped} skipped)" if skipped else "")
    facts.insert(0, Fact(label="progress", value=progress, tone="good" if complete else "neutral"))
    kind = {"full": "full (/code)", "fast": "fast (/code:fast)"}.get(mode or "", mode or "—")
    facts.insert(1, Fact(label="mode", value=kind + (", auto" if auto else "")))
    if day is not None:
        facts.insert(
            2,
            Fact(label="date", value=day.strftime("%Y-%m-%d") + (f" · {slug}" if slug else "")),
        )
    stalled = waiting = False
    idle = span(last, now)
    if not complete and running_phases and idle is not None and idle > stall_after:
        stalled = True
        names = ", ".join(p.label for p in running_phases)
        limit = human_duration(stall_after)
        alerts.insert(0, f"stalled? {names} in progress, no activity for over {limit}")
    # `auto_mode` absent is not known to be off: no claim that it waits on you
    if not complete and not running_phases and done and pending and top.auto_mode is False:
        waiting = True
        facts.append(
            Fact(
                label="next",
                value=f"{pending[0].label}: waiting for your go-ahead",
                tone="warn",
            )
        )
    if stalled:
        quiet = f"no activity since {fmt_ts(last)} (limit {human_duration(stall_after)})"
        facts.append(Fact(label="stalled?", value=quiet, tone="warn"))

    # --- elapsed ---
    if complete:
        end = updated or max((p.completed for p in phases if p.completed), default=None)
        elapsed = lenient.elapsed(started, end, running=False)
    else:
        elapsed = lenient.elapsed(started, now, running=True)

    if complete:
        phase_key, phase_label = "complete", "Complete"
    else:
        assert current is not None  # not complete: some phase is neither done nor skipped
        phase_key, phase_label = current.key, current.label
    return SessionView(
        id=key, branch=None, source=STATE, status=status,
        workflow="code:fast" if mode == "fast" else "code",
        phase=phase_key, phase_label=phase_label, phase_number=done,
        phase_total=len(phases), complete=complete, started_at=fmt_ts(started),
        updated_at=fmt_ts(updated or last), last_activity=fmt_ts(last), stalled=stalled,
        elapsed=elapsed, current_round=None, rounds=[], current_map_run=None, map_runs=[],
        problems=problems, path=str(path), timeline=timeline, documents=documents,
        framework=FRAMEWORK,
        title=top.task or (slug.replace("-", " ") if slug else None),
        badges=badges, summary=summary, waiting=waiting, alerts=alerts, facts=facts,
        steps=steps,
    ), bool(running_phases and not complete)  # fmt: skip


def _spec_fact(spec: C.SpecRef, documents: list[str], doc_of: DocOf) -> Fact:
    doc = doc_of(spec.path, True) if spec.path else None
    parts = [spec.id or os.path.splitext(os.path.basename(spec.path or ""))[0] or "spec"]
    if spec.status:
        parts.append(f"({spec.status})")
    if spec.path:
        parts.append(f"· {spec.path}" + ("" if doc else " (not found)"))  # `—` is "not known"
    if doc:
        documents.append(doc)
    tone = "good" if spec.status == "done" else ("neutral" if doc or not spec.path else "warn")
    return Fact(label="spec", value=" ".join(parts), tone=tone)


def agent_steps(agents: Agents, p: Phase | None, timeline: list[PhaseStep]) -> list[Step]:
    """One step per agent instance, with its scope; times and report are its phase's."""
    step = next((s for s in timeline if p is not None and s.key == p.key), None)
    word = "planned"
    if step is not None and p is not None:
        if step.state == "current":
            word = "running" if p.status == "in_progress" else "planned"
        else:
            word = {"done": "done", "skipped": "skipped"}.get(step.state, "planned")
    n = min(max(agents.instances, len(agents.inputs)), MAX_AGENTS)
    out = []
    for i in range(n):
        out.append(
            Step(
                key=f"{agents.phase}-{i + 1}",
                label=f"{agents.phase} · {agents.agent} {i + 1}/{n}",
                state=word,
                at=step.at if step else None,
                ended=step.ended if step else None,
                seconds=step.seconds if step else None,
                detail=agents.inputs[i] if i < len(agents.inputs) else None,
                documents=[step.document] if step and step.document else [],
            )
        )
    return out
