"""The one derivation: a session's files + its stored state -> SessionView (no IO).

Every rule here is written down for users in the README ("What each field means").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import msgspec

from ocr_tui.core.source import DEFAULT_STALL_AFTER
from ocr_tui.core.textsafe import has_control, safe_line
from ocr_tui.core.timeutil import CLOCK_SKEW, fmt_ts, from_mtime, parse_ts
from ocr_tui.core.view import (
    Elapsed,
    LogEvent,
    MapRun,
    MapSection,
    Note,
    PhaseStep,
    Reviewer,
    Round,
    RunningAgent,
    SessionView,
)
from ocr_tui.formats.ocr import phases as ph
from ocr_tui.formats.ocr.files import RoundFiles, RunFiles, SessionFiles, synthesis
from ocr_tui.formats.ocr.map_sections import RunMap, with_progress
from ocr_tui.formats.ocr.markdown import reviewer_label
from ocr_tui.formats.ocr.model import StoredState
from ocr_tui.formats.ocr.unit_times import Span, map_start, round_span, run_span

_DATE_PREFIX = re.compile(r"^\d{4}-\d{2}-\d{2}-(.+)$")
_STATUSES = ("active", "closed")
_TEXT_FIELDS = (
    "branch", "workflow_type", "status", "current_phase", "started_at", "round_started_at",
    "map_started_at", "updated_at",
)  # fmt: skip
# Before this, a time is not one OCR wrote (the Unix epoch; file times can be negative).
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def _q(value: object) -> str:
    return "'" + safe_line(value)[:80] + "'"


def _artifact_phase(files: SessionFiles, workflow: str, rnd: RoundFiles | None, run) -> str:
    root = files.root_files
    if workflow == ph.MAP:
        rf = run.files if run else {}
        if "map.md" in rf:
            return "complete"
        if "requirements-mapping.md" in rf:
            return "synthesis"
        if "flow-analysis.md" in rf:
            return "requirements-mapping"
        if "topology.md" in rf:
            return "flow-analysis"
        if "discovered-standards.md" in root:
            return "topology"
        return "map-context"
    if rnd is not None:
        if "final.md" in rnd.files:
            return "complete"
        if "discourse.md" in rnd.files:
            return "synthesis"
        if rnd.reviewers:
            return "reviews"
    if "context.md" in root:
        return "analysis"
    if "discovered-standards.md" in root:
        return "change-context"
    return "context"


def _workflow(stored: str | None, raw_phase: str | None, files: SessionFiles) -> str:
    """Which workflow the session is in. The stored workflow_type is written once, by the
    `ocr state init` that creates the session: upstream never changes it when a map starts in a
    review session (bug B6) or a review in a map session (`init` on an existing session
    re-opens it at `context`). So it names the session's first workflow, and the files or a
    later phase key can prove otherwise."""
    if raw_phase is not None:
        keyed = ph.workflow_of_phase(raw_phase)
        if keyed is not None:  # a key only one workflow has: the latest write, always right
            return keyed
        key = ph.canonical_phase(raw_phase)
        if key == "context":
            # Both workflows start at `context`, but only a review re-opens an existing session
            # there (a map switches with `transition --phase map-context`): `rounds/` means a
            # review has started, even inside a map session.
            if files.has_rounds_dir:
                return ph.REVIEW
        elif key in ph.SHARED_KEYS:  # synthesis, complete: whose files are at that phase?
            at = _workflow_at(files, done=key == ph.COMPLETE)
            if at is not None:
                return at
    if stored is not None:
        return stored
    return ph.MAP if files.has_map_dir and not files.has_rounds_dir else ph.REVIEW


def _workflow_at(files: SessionFiles, *, done: bool) -> str | None:
    """The workflow whose files are at synthesis (`done` False: its latest round or run has no
    final.md / map.md yet) or complete (`done`: it has one), or None when the files do not
    tell. Only one workflow with a directory is that one; with both, the one whose state fits,
    else the one that finished last."""
    has = {ph.REVIEW: files.has_rounds_dir, ph.MAP: files.has_map_dir}
    present = [w for w in ph.WORKFLOWS if has[w]]
    if len(present) < 2:
        return present[0] if present else None
    last_round, last_run = _latest(files.rounds), _latest(files.map_runs)
    r_final = last_round.files.get("final.md") if last_round else None
    m_final = last_run.files.get("map.md") if last_run else None
    finished = {ph.REVIEW: r_final, ph.MAP: m_final}
    fits = [w for w in ph.WORKFLOWS if (finished[w] is not None) == done]
    if len(fits) == 1:
        return fits[0]
    if r_final is not None and m_final is not None and r_final.mtime != m_final.mtime:
        return ph.REVIEW if r_final.mtime > m_final.mtime else ph.MAP
    return None


def derive_session(
    files: SessionFiles,
    state: StoredState | None,
    *,
    now: datetime,
    stall_after: float = DEFAULT_STALL_AFTER,
    problems: list[str] | None = None,
    pid_alive: Callable[[int], bool] | None = None,
) -> SessionView:
    """Apply the derivation rules. `problems` are the readers' (e.g. an unreadable store);
    `pid_alive` tells whether a process runs on this machine (None: unknown)."""
    problems = list(problems or []) + list(files.problems)
    if state is not None:
        problems += state.problems

    if state is not None:
        for name in _TEXT_FIELDS:
            value = getattr(state, name)
            if isinstance(value, str) and has_control(value):
                problems.append(
                    f"{state.source}'s {name} holds control characters (shown as symbols)"
                )

    # --- workflow ---
    raw_phase = state.current_phase if state and state.current_phase else None
    workflow: str | None = None
    if state and state.workflow_type is not None:
        if state.workflow_type in ph.WORKFLOWS:
            workflow = state.workflow_type
        else:
            problems.append(f"unknown workflow_type {_q(state.workflow_type)}: ignored")
    workflow = _workflow(workflow, raw_phase, files)
    key = ph.workflow_phase(workflow, raw_phase) if raw_phase else None
    phase_list = ph.PHASES[workflow]

    # --- rounds and runs (the filesystem is the truth) ---
    triage = dict(state.round_triage) if state else {}
    done = completed_rounds(state)
    highest_round = files.rounds[-1].number if files.rounds else None
    first_of = {}
    for rf in files.rounds:
        first_of.setdefault(rf.number, rf)
    rounds = [
        _round_view(
            rf, triage.get(rf.number), done,
            round_span(rf, first_of.get(rf.number - 1), state, rf.is_complete(done),
                       rf.number == highest_round),
        )
        for rf in files.rounds
    ]  # fmt: skip
    state_round = _positive(state.current_round) if state else None
    if highest_round is not None:
        current_round = highest_round
        if state_round is not None and state_round > highest_round:
            problems.append(
                f"state names round {state_round}, "
                f"but the highest round directory is round-{highest_round}"
            )
    elif workflow == ph.MAP and not files.has_rounds_dir:
        current_round = None
    else:
        current_round = state_round or 1
    current_rf = _latest(files.rounds)

    stored_maps = dict(state.map_runs) if state else {}
    mapped = completed_rounds(state, "map_completed")  # the `round` column holds the run
    runs: list[MapRun] = []
    before_end: datetime | None = None
    top_run = files.map_runs[-1].number if files.map_runs else None
    for r in files.map_runs:
        # map.md, or OCR records it as done (`ocr state map-complete`'s map_completed event)
        run_done = "map.md" in r.files or r.number in mapped
        begun, ended, guessed = run_span(
            r, before_end, state, state.workflow_type if state else None, run_done,
            r.number == top_run,
        )  # fmt: skip
        before_end = ended or before_end
        runs.append(
            MapRun(
                number=r.number,
                complete=run_done,
                files=r.topology_files,
                path=r.rel,
                documents=[f"{r.rel}/{n}" for n in sorted(r.files) if n.endswith(".md")],
                sections=_sections(
                    run_map(r.sections, stored_maps.get(r.number)), r.number in stored_maps
                ),
                started_at=fmt_ts(begun),
                ended_at=fmt_ts(ended),
                approximate=guessed,
            )
        )
    if files.map_runs:
        current_map_run = files.map_runs[-1].number
    elif workflow == ph.MAP:
        current_map_run = (_positive(state.current_map_run) if state else None) or 1
    else:
        current_map_run = None
    current_run = _latest(files.map_runs)

    # --- phase ---
    if key is None:
        key = _artifact_phase(files, workflow, current_rf, current_run)
    number = ph.phase_index(workflow, key)
    if number is None:
        number = state.phase_number if state else None
        problems.append(f"unknown {workflow} phase {_q(key)}")
    label = ph.phase_label(workflow, key)
    complete = key == ph.COMPLETE

    # --- status ---
    status: str | None = None
    if state and state.status is not None:
        if state.status in _STATUSES:
            status = state.status
        else:
            problems.append(f"unknown status {_q(state.status)}: ignored")
    if status is None:
        status = "closed" if complete else "active"
    running = status == "active" and not complete

    # --- times ---
    def ts(field: str, value: str | None) -> datetime | None:
        if value is None:
            return None
        dt = parse_ts(value)
        if dt is None:
            problems.append(f"{field} {_q(value)} is not a timestamp")
        elif dt < _EPOCH:
            problems.append(f"{field} {fmt_ts(dt)} is before 1970")
        return dt

    started = ts("started_at", state.started_at) if state else None
    updated = ts("updated_at", state.updated_at) if state else None
    newest_file = from_mtime(files.newest_mtime) if files.newest_mtime is not None else None
    if files.oldest_mtime is not None and files.oldest_mtime < 0:
        problems.append(f"a file's modification time {fmt_ts(from_mtime(files.oldest_mtime))} "
                        "is before 1970")  # fmt: skip
    last = max((t for t in (updated, newest_file) if t is not None), default=None)

    since_raw: str | None = None
    since_field = "started_at"
    if runs:
        run_start = runs[-1].started_at if not runs[-1].approximate else None
    else:  # its first phase: no run directory yet, the store may say when it began
        run_start = fmt_ts(map_start(state, None, current_map_run or 1, True))
    if state:
        round_start = state.round_start(current_round)
        if workflow == ph.MAP and state.map_started_at:
            since_raw, since_field = state.map_started_at, "map_started_at"
        elif workflow == ph.MAP and run_start:  # ocr.db: its first map phase (item 5)
            since_raw, since_field = run_start, "the map run's start"
        elif workflow == ph.REVIEW and round_start:
            since_raw, since_field = round_start, "round_started_at"
        else:
            since_raw = state.started_at
    if since_raw is not None:
        since = started if since_field == "started_at" else ts(since_field, since_raw)
    else:
        # No timestamp in the state (or no state): the session's earliest file.
        since = from_mtime(files.oldest_mtime) if files.oldest_mtime is not None else None
        since_field = "earliest file time"
    seconds: int | None = None  # stays None when the start is unparsable (a problem above)
    if since is not None:
        end = now if running else (updated or last or now)
        if since > now + CLOCK_SKEW:
            problems.append(f"{since_field} {fmt_ts(since)} is in the future")
            seconds = 0
        else:
            seconds = max(0, int((end - since).total_seconds()))
    for name, value in (("updated_at", updated), ("started_at", started)):
        if value is not None and value > now + CLOCK_SKEW and name != since_field:
            problems.append(f"{name} {fmt_ts(value)} is in the future")
    stalled = bool(running and last is not None and (now - last).total_seconds() > stall_after)

    # --- branch ---
    branch = state.branch if state and state.branch else None
    if branch is None:
        m = _DATE_PREFIX.match(files.id)
        branch = m.group(1) if m else None

    timeline = _timeline(workflow, key, number, complete, state, now=now, running=running)
    if not (state and state.source == "ocr.db" and state.phase_times):
        timeline = _file_times(timeline, files, current_rf, current_run, since, key, now, running)
    timeline = _skipped(timeline, workflow, current_rf, current_run)

    return SessionView(
        id=files.id,
        branch=branch,
        source=state.source if state else "files",
        status=status,
        workflow=workflow,
        phase=key,
        phase_label=label,
        phase_number=number,
        phase_total=len(phase_list),
        complete=complete,
        started_at=fmt_ts(started),
        updated_at=fmt_ts(updated),
        last_activity=fmt_ts(last),
        stalled=stalled,
        elapsed=Elapsed(since=fmt_ts(since), seconds=seconds, running=running),
        current_round=current_round,
        rounds=rounds,
        current_map_run=current_map_run,
        map_runs=runs,
        problems=_dedupe(problems),
        path=str(files.path),
        timeline=timeline,
        events=_events(state),
        agents=_agents(state, now, pid_alive),
        notes=[
            Note(
                target=n.target,
                text=n.text,
                at=_utc(n.at),
                round=n.round,
                run=n.run,
                section=n.section,
                key=n.key,
            )  # fmt: skip
            for n in (state.notes if state else ())
        ],
        documents=sorted(n for n in files.root_files if n.endswith(".md")),
    )


def completed_rounds(state: StoredState | None, kind: str = "round_completed") -> frozenset[int]:
    """The rounds the store records as completed (its round_completed events; map runs:
    `map_completed`)."""
    if state is None:
        return frozenset()
    return frozenset(e.round for e in state.events if e.type == kind and e.round and e.round > 0)


def _round_view(rf: RoundFiles, triage: str | None, done: frozenset[int], span: Span) -> Round:
    verdict, counts = synthesis(rf)
    begun, ended, guessed = span
    tally = rf.tally  # counted by `tally.tally_rounds` (IO) before the derivation
    return Round(
        number=rf.number,
        complete=rf.is_complete(done),
        discourse="discourse.md" in rf.files,
        verdict=verdict,
        counts=counts,
        reviewers=[
            Reviewer(
                name=r.name,
                label=reviewer_label(r.name),
                findings=r.severity.total(),
                severity=r.severity,
                path=r.rel,
            )
            for r in rf.reviewers
        ],
        findings=tally.findings if tally else None,
        blockers=tally.blockers if tally else None,
        open_blockers=tally.open_blockers if tally else 0,
        evolution=tally.evolution if tally else None,
        path=rf.rel,
        triage=triage,
        started_at=fmt_ts(begun),
        ended_at=fmt_ts(ended),
        approximate=guessed,
    )


def _timeline(
    workflow: str,
    key: str,
    number: int | None,
    complete: bool,
    state: StoredState | None,
    *,
    now: datetime,
    running: bool,
) -> list[PhaseStep]:
    """The workflow's phases with their state, and, where the store records it, when each
    was entered (its first time in the current round), when it ended (when the next phase
    was actually entered) and how long it took (the current one: growing while it runs)."""
    entered: dict[str, datetime] = {}
    if state:
        for raw, at in _workflow_times(workflow, state.phase_times):
            dt = parse_ts(at)
            if dt is not None:
                entered.setdefault(ph.workflow_phase(workflow, raw), dt)
        if state.source == "state.json" and state.updated_at and key not in entered:
            dt = parse_ts(state.updated_at)
            if dt is not None:
                entered[key] = dt
    starts = sorted(set(entered.values()))
    steps = []
    for i, (k, label) in enumerate(ph.PHASES[workflow], start=1):
        if complete or (number is not None and i < number):
            st = "done"
        elif k == key:
            st = "current"
        else:
            st = "pending"
        at = entered.get(k)
        ended = next((t for t in starts if at is not None and t > at), None)
        seconds = None
        if at is not None and ended is not None:
            seconds = int((ended - at).total_seconds())
        elif at is not None and k == key and running:
            seconds = max(0, int((now - at).total_seconds()))
        steps.append(
            PhaseStep(
                key=k,
                label=label,
                number=i,
                state=st,
                at=fmt_ts(at),
                ended=fmt_ts(ended),
                seconds=seconds,
            )  # fmt: skip
        )
    return steps


# A phase whose file a run can go past without: `--quick` skips discourse; a map without
# requirements has no requirements mapping (ocr-format.md §3.1, §3.2).
_SKIPPABLE = {"discourse": ("round", "discourse.md"),
              "requirements-mapping": ("run", "requirements-mapping.md")}  # fmt: skip


def _skipped(
    steps: list[PhaseStep], workflow: str, rnd: RoundFiles | None, run: RunFiles | None
) -> list[PhaseStep]:
    """A phase the run went past without writing its file was skipped, not done (OCR's own
    progress ticks discourse only when discourse.md exists; its dashboard says skipped)."""
    out = []
    for step in steps:
        where, name = _SKIPPABLE.get(step.key, (None, None))
        unit = rnd if where == "round" else run if where == "run" else None
        if step.state == "done" and unit is not None and name not in unit.files:
            step = msgspec.structs.replace(
                step, state="skipped", at=None, ended=None, seconds=None, approximate=False
            )
        out.append(step)
    return out


def run_map(from_files: RunMap | None, stored: RunMap | None) -> RunMap | None:
    """A map run's sections: map-meta.json's or map.md's (`from_files`), else ocr.db's
    (`stored`); what the user marked reviewed comes from ocr.db when it has the run."""
    if from_files is None:
        return stored
    if stored is None:
        return from_files
    done = {(s.number, f.path) for s in stored.sections for f in s.files if f.reviewed}
    return with_progress(from_files, done)


def _sections(run: RunMap | None, marked: bool) -> list[MapSection]:
    """The run's sections; `reviewed` None when ocr.db has no record of the run (`marked`):
    the marks live there alone, so without it they are not known, not 0."""
    if run is None:
        return []
    return [
        MapSection(
            number=s.number,
            title=s.title,
            files=len(s.files),
            reviewed=s.reviewed if marked else None,
        )  # fmt: skip
        for s in run.sections
    ]


# The file each phase writes last (ocr-format.md §3.1, §3.2): its modification time is about
# when the phase ended and the next began. `analysis` appends to change-context's context.md.
_PHASE_FILES = {
    "context": ("root", "discovered-standards.md"),
    "analysis": ("root", "context.md"),
    "reviews": ("reviews", None),
    "discourse": ("round", "discourse.md"),
    "synthesis": ("round", "final.md"),
    "map-context": ("root", "discovered-standards.md"),
    "topology": ("run", "topology.md"),
    "flow-analysis": ("run", "flow-analysis.md"),
    "requirements-mapping": ("run", "requirements-mapping.md"),
}


def _file_times(
    steps: list[PhaseStep],
    files: SessionFiles,
    rnd: RoundFiles | None,
    run: RunFiles | None,
    since: datetime | None,
    key: str,
    now: datetime,
    running: bool,
) -> list[PhaseStep]:
    """Where no store records when phases began (state.json eras, files only): guess it from
    the files each phase wrote (its end, and the next one's start), the first phase from the
    session's (or round's) start, the current one from state.json's updated_at when nothing
    else says. Every time so guessed is marked approximate."""
    ended: dict[str, datetime] = {}
    for step in steps:
        where, name = _PHASE_FILES.get(step.key, (None, None))
        if where == "root":
            info = files.root_files.get(name)
        elif where == "round" and rnd is not None:
            info = rnd.files.get(name)
        elif where == "run" and run is not None:
            info = run.files.get(name)
        elif where == "reviews" and rnd is not None and rnd.reviewers:
            info = max((r.info for r in rnd.reviewers), key=lambda i: i.mtime)
        else:
            info = None
        if info is not None and step.state != "pending":
            end = from_mtime(info.mtime)
            if since is None or end >= since:  # not a file of an earlier round
                ended[step.key] = end
    out, start = [], since if steps and steps[0].state != "pending" else None
    for step in steps:
        end = ended.get(step.key)
        # state.json's updated_at for the current phase (`_timeline`) when no file says more
        at = start if step.state != "pending" and start is not None else parse_ts(step.at)
        if at is not None and end is not None and end < at:
            at = None  # a file older than the phase's start: nothing to say
        seconds = int((end - at).total_seconds()) if at and end else None
        if at is not None and end is None and step.key == key and running:
            seconds = max(0, int((now - at).total_seconds()))
        guessed = at is not None or end is not None
        out.append(
            msgspec.structs.replace(
                step, at=fmt_ts(at), ended=fmt_ts(end), seconds=seconds, approximate=guessed
            )
        )
        start = end  # the next phase began when this one's file was written, if known
    return out


def _workflow_times(
    workflow: str, times: tuple[tuple[str, str], ...]
) -> tuple[tuple[str, str], ...]:
    """The phase entries of `workflow`'s run: a session that reviewed and then mapped (or the
    other way) has both in its events, and `context`, `synthesis` and `complete` belong to
    both. A map's run starts at its first map-only phase; a review's are the others."""
    if workflow == ph.MAP:
        start = next((i for i, (raw, _) in enumerate(times) if ph.is_map_phase(raw)), None)
        return times if start is None else times[start:]
    return tuple(t for t in times if not ph.is_map_phase(t[0]))


def _events(state: StoredState | None) -> list[LogEvent]:
    if state is None:
        return []
    return [
        LogEvent(type=e.type, phase=e.phase, round=e.round, at=_utc(e.at), meta=e.meta)
        for e in state.events
    ]


HEARTBEAT_STALE_S = 60  # OCR's own default (`runtime.agent_heartbeat_seconds`)


def _agents(
    state: StoredState | None, now: datetime, pid_alive: Callable[[int], bool] | None
) -> list[RunningAgent]:
    if state is None:
        return []
    out = []
    for a in state.agents:
        beat = parse_ts(a.heartbeat_at)
        signs = []
        if beat is not None:
            signs.append((now - beat).total_seconds() > HEARTBEAT_STALE_S)
        if a.pid is not None and pid_alive is not None:
            signs.append(not pid_alive(a.pid))
        out.append(
            RunningAgent(
                command=a.command,
                started_at=_utc(a.started_at),
                pid=a.pid,
                heartbeat_at=fmt_ts(beat),
                persona=a.persona,
                model=a.model,
                stale=any(signs) if signs else None,
            )  # fmt: skip
        )
    return out


def heartbeat_due(view: SessionView) -> datetime | None:
    """When the first running agent's heartbeat turns stale with nothing written (for the
    engine's re-derivation), if one is fresh now."""
    dues = [
        beat + timedelta(seconds=HEARTBEAT_STALE_S + 1)
        for a in view.agents
        if not a.stale and (beat := parse_ts(a.heartbeat_at)) is not None
    ]
    return min(dues, default=None)


def _utc(value: str | None) -> str | None:
    dt = parse_ts(value)
    return fmt_ts(dt) if dt is not None else None


def _latest(items: list[RoundFiles] | list[RunFiles]):
    """The highest-numbered round (or run): of two directories with that number (`round-02`
    beside `round-2`) the one read first, the spelling OCR writes. `items` are in numeric
    order (`ocr_fs.read_session`)."""
    if not items:
        return None
    top = items[-1].number
    return next(item for item in items if item.number == top)


def _positive(n: int | None) -> int | None:
    """Round and run numbers start at 1: a stored 0 or negative number counts as absent."""
    return n if n is not None and n > 0 else None


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
