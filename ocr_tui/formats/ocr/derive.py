"""The one derivation: a session's files + its stored state -> SessionView (no IO).

`derive_session` checks what the store says (unknown values and impossible times become the
session's problems) and puts the view together from the parts, each derived in its own module:
the workflow and the phase the files show (derive_workflow.py), the rounds (derive_rounds.py),
the map runs (derive_maps.py), the phase timeline (derive_timeline.py) and the store's event
log, running agents and notes (derive_records.py); the status, elapsed time and branch here.

Every rule here is written down for users in the README ("What each field means").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import NamedTuple

from ocr_tui.core.source import DEFAULT_STALL_AFTER
from ocr_tui.core.textsafe import has_control, safe_line
from ocr_tui.core.timeutil import CLOCK_SKEW, fmt_ts, from_mtime, parse_ts
from ocr_tui.core.view import Elapsed, MapRun, SessionView
from ocr_tui.formats.ocr import derive_records as records
from ocr_tui.formats.ocr import phases as ph
from ocr_tui.formats.ocr.derive_maps import current_map_run, map_runs
from ocr_tui.formats.ocr.derive_rounds import current_round, round_views
from ocr_tui.formats.ocr.derive_timeline import session_timeline
from ocr_tui.formats.ocr.derive_workflow import artifact_phase, latest, session_workflow
from ocr_tui.formats.ocr.files import SessionFiles
from ocr_tui.formats.ocr.model import StoredState
from ocr_tui.formats.ocr.unit_times import map_start

FRAMEWORK = "ocr"  # the key of its sessions (`OcrSource.framework`)

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
    problems = _read_problems(files, state, problems)

    raw_phase = state.current_phase if state and state.current_phase else None
    workflow = session_workflow(_stored_workflow(state, problems), raw_phase, files)
    key = ph.workflow_phase(workflow, raw_phase) if raw_phase else None

    # rounds and runs: the filesystem is the truth
    rounds = round_views(files, state)
    round_now = current_round(files, state, workflow, problems)
    current_rf = latest(files.rounds)
    runs = map_runs(files, state)
    run_now = current_map_run(files, state, workflow)
    current_run = latest(files.map_runs)

    if key is None:
        key = artifact_phase(files, workflow, current_rf, current_run)
    number = ph.phase_index(workflow, key)
    if number is None:
        number = state.phase_number if state else None
        problems.append(f"unknown {workflow} phase {_q(key)}")
    complete = key == ph.COMPLETE
    status = _status(state, complete, problems)
    running = status == "active" and not complete
    times = _times(
        files, state, workflow, runs, round_now, run_now,
        now=now, running=running, stall_after=stall_after, problems=problems,
    )  # fmt: skip
    timeline = session_timeline(
        workflow, key, number, complete, state, files, current_rf, current_run, times.since,
        now=now, running=running,
    )  # fmt: skip

    return SessionView(
        framework=FRAMEWORK,
        id=files.id,
        branch=_branch(files, state),
        source=state.source if state else "files",
        status=status,
        workflow=workflow,
        phase=key,
        phase_label=ph.phase_label(workflow, key),
        phase_number=number,
        phase_total=len(ph.PHASES[workflow]),
        complete=complete,
        started_at=fmt_ts(times.started),
        updated_at=fmt_ts(times.updated),
        last_activity=fmt_ts(times.last),
        stalled=times.stalled,
        elapsed=Elapsed(since=fmt_ts(times.since), seconds=times.seconds, running=running),
        current_round=round_now,
        rounds=rounds,
        current_map_run=run_now,
        map_runs=runs,
        problems=_dedupe(problems),
        path=str(files.path),
        timeline=timeline,
        events=records.events(state),
        agents=records.agents(state, now, pid_alive),
        notes=records.notes(state),
        documents=sorted(n for n in files.root_files if n.endswith(".md")),
    )


def _read_problems(
    files: SessionFiles, state: StoredState | None, problems: list[str] | None
) -> list[str]:
    """The readers' problems, the files' and the store's, and a stored text field that holds
    control characters."""
    problems = list(problems or []) + list(files.problems)
    if state is not None:
        problems += state.problems
        for name in _TEXT_FIELDS:
            value = getattr(state, name)
            if isinstance(value, str) and has_control(value):
                problems.append(
                    f"{state.source}'s {name} holds control characters (shown as symbols)"
                )
    return problems


def _stored_workflow(state: StoredState | None, problems: list[str]) -> str | None:
    """The store's workflow_type, when it is one OCR has."""
    if state and state.workflow_type is not None:
        if state.workflow_type in ph.WORKFLOWS:
            return state.workflow_type
        problems.append(f"unknown workflow_type {_q(state.workflow_type)}: ignored")
    return None


def _status(state: StoredState | None, complete: bool, problems: list[str]) -> str:
    """The store's status when it is one OCR has; else closed when complete, active if not."""
    if state and state.status is not None:
        if state.status in _STATUSES:
            return state.status
        problems.append(f"unknown status {_q(state.status)}: ignored")
    return "closed" if complete else "active"


class _Times(NamedTuple):
    started: datetime | None
    updated: datetime | None
    last: datetime | None  # the last activity: updated_at or the newest file
    since: datetime | None  # when the current round (map run, else session) began
    seconds: int | None  # elapsed since then
    stalled: bool


def _times(
    files: SessionFiles,
    state: StoredState | None,
    workflow: str,
    runs: list[MapRun],
    round_now: int | None,
    run_now: int | None,
    *,
    now: datetime,
    running: bool,
    stall_after: float,
    problems: list[str],
) -> _Times:
    """The session's times, each a problem when it is no timestamp, before 1970 or (started,
    updated, the elapsed time's start) in the future."""

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

    since_raw, since_field = _since(state, workflow, runs, round_now, run_now)
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
    return _Times(started, updated, last, since, seconds, stalled)


def _since(
    state: StoredState | None,
    workflow: str,
    runs: list[MapRun],
    round_now: int | None,
    run_now: int | None,
) -> tuple[str | None, str]:
    """(the stored time the elapsed time counts from, the field it is in): the current map
    run's or round's start, else the session's; (None, …) when the store says none."""
    since_raw: str | None = None
    since_field = "started_at"
    if runs:
        run_start = runs[-1].started_at if not runs[-1].approximate else None
    else:  # its first phase: no run directory yet, the store may say when it began
        run_start = fmt_ts(map_start(state, None, run_now or 1, True))
    if state:
        round_start = state.round_start(round_now)
        if workflow == ph.MAP and state.map_started_at:
            since_raw, since_field = state.map_started_at, "map_started_at"
        elif workflow == ph.MAP and run_start:  # ocr.db: its first map phase
            since_raw, since_field = run_start, "the map run's start"
        elif workflow == ph.REVIEW and round_start:
            since_raw, since_field = round_start, "round_started_at"
        else:
            since_raw = state.started_at
    return since_raw, since_field


def _branch(files: SessionFiles, state: StoredState | None) -> str | None:
    """The stored branch, else the session id's after its date (`2026-01-02-fix-x`)."""
    if state and state.branch:
        return state.branch
    m = _DATE_PREFIX.match(files.id)
    return m.group(1) if m else None


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(items))
