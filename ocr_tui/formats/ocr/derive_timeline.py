"""A session's timeline: the workflow's phases, each done, current, pending or skipped, with
when it began and ended where anything says.

ocr.db's phase events say it exactly. Where no store records the phases (state.json eras,
files only) the times are guessed from the files each phase writes last and marked
approximate. A phase the run went past without writing its file (discourse under `--quick`, a
map without requirements) was skipped. Pure; no IO.
"""

from __future__ import annotations

from datetime import datetime

import msgspec

from ocr_tui.core.timeutil import fmt_ts, from_mtime, parse_ts
from ocr_tui.core.view import PhaseStep
from ocr_tui.formats.ocr import phases as ph
from ocr_tui.formats.ocr.files import RoundFiles, RunFiles, SessionFiles
from ocr_tui.formats.ocr.model import StoredState


def session_timeline(
    workflow: str,
    key: str,
    number: int | None,
    complete: bool,
    state: StoredState | None,
    files: SessionFiles,
    rnd: RoundFiles | None,
    run: RunFiles | None,
    since: datetime | None,
    *,
    now: datetime,
    running: bool,
) -> list[PhaseStep]:
    """The timeline of the session at phase `key` (number `number`) of its current round
    `rnd` or map run `run`, which began at `since`."""
    timeline = _stored_times(workflow, key, number, complete, state, now=now, running=running)
    if not (state and state.source == "ocr.db" and state.phase_times):
        timeline = _file_times(timeline, files, rnd, run, since, key, now, running)
    return _skipped(timeline, rnd, run)


def _stored_times(
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
    steps: list[PhaseStep], rnd: RoundFiles | None, run: RunFiles | None
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
        # state.json's updated_at for the current phase (`_stored_times`) when no file says more
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
