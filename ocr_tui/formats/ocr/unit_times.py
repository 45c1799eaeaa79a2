"""When each review round and map run started and ended: `status --json`'s
`started_at` / `ended_at` of every round and map run, and what the Reviews view dates a round
by and the Round time counts from. Pure: from the session's listing and its stored state.

Best first, for a round N:
- started: ocr.db's `round_started` event for N (round 1: the session's creation, as OCR's
  `init` writes no round_started for it); state.json's `round_started_at` for its current round
  (round 1: `started_at`); else, guessed from file times, the round before's end (its final.md)
  or the round's earliest file;
- ended: ocr.db's `round_completed` event for N; else its final.md's (or round-meta.json's)
  modification time; None while it is not complete.

A map run the same: `map_started_at` (state.json, its current run), ocr.db's first map-only
phase entered after the run before ended (a map begun in a review session) or the session's
creation (a map session); its `map_completed` event, else map.md's (or map-meta.json's) time.

Times from file times are marked approximate (`~` on screen), as the phases' are.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from ocr_tui.core.timeutil import from_mtime, parse_ts
from ocr_tui.formats.ocr import phases as ph
from ocr_tui.formats.ocr.files import FileInfo, RoundFiles, RunFiles
from ocr_tui.formats.ocr.model import StoredState

Span = tuple[datetime | None, datetime | None, bool]  # (started, ended, approximate)


def _event_time(state: StoredState | None, kind: str, number: int) -> datetime | None:
    """The latest `kind` event's time for round (or run) `number`."""
    if state is None:
        return None
    times = [parse_ts(e.at) for e in state.events if e.type == kind and e.round == number]
    return max((t for t in times if t is not None), default=None)


def _mtime(info: FileInfo | None) -> datetime | None:
    return from_mtime(info.mtime) if info is not None else None


def _earliest(infos: Sequence[FileInfo]) -> datetime | None:
    return from_mtime(min(i.mtime for i in infos)) if infos else None


def _synthesis_time(files: dict[str, FileInfo], names: tuple[str, ...]) -> datetime | None:
    """The first of `names` written (the synthesis' files: round-meta.json before final.md)."""
    found = [files[n] for n in names if n in files]
    return _earliest(found)


def round_span(
    rnd: RoundFiles,
    before: RoundFiles | None,
    state: StoredState | None,
    complete: bool,
    current: bool,
) -> Span:
    """(started, ended, approximate) of a round; `before`: the round numbered one less;
    `current`: the session's current round (state.json's round_started_at is about it)."""
    approximate = False
    started: datetime | None = None
    if state is not None and state.source == "ocr.db":
        at = state.round_start(rnd.number)
        started = parse_ts(at) if at else None
        if started is None and rnd.number == 1:
            started = parse_ts(state.started_at)
    elif state is not None:
        if current and state.round_started_at:
            started = parse_ts(state.round_started_at)
        elif rnd.number == 1 and state.started_at:
            started = parse_ts(state.started_at)
    if started is None:
        prior = _synthesis_time(before.files, ("final.md",)) if before is not None else None
        own = [r.info for r in rnd.reviewers] + list(rnd.files.values())
        earliest = _earliest(own)
        started = prior if prior is not None else earliest
        if prior is not None and earliest is not None and earliest < prior:
            started = earliest  # not a file of the round before's: the round's own start
        approximate = started is not None
    ended: datetime | None = None
    if complete:
        ended = _event_time(state, "round_completed", rnd.number)
        if ended is None:
            ended = _synthesis_time(rnd.files, ("round-meta.json", "final.md"))
            approximate = approximate or ended is not None
    return started, ended, approximate


def map_start(
    state: StoredState | None, before_end: datetime | None, number: int, current: bool
) -> datetime | None:
    """When map run `number` started, as a store records it (None: it does not): state.json's
    `map_started_at` (its current run); ocr.db's first map-only phase entered after the run
    before ended (`before_end`), or, for run 1 of a map that no review went before, the
    session's creation. Before the run's directory exists too (its first phase)."""
    if state is None:
        return None
    if state.source != "ocr.db":
        return parse_ts(state.map_started_at) if current and state.map_started_at else None
    moves = [
        (t, e.phase)
        for e in state.events
        if e.phase and e.type == "phase_transition" and (t := parse_ts(e.at)) is not None
    ]
    started = min(
        (t for t, p in moves if ph.is_map_phase(p) and (before_end is None or t >= before_end)),
        default=None,
    )
    reviewed = any(p in ph.REVIEW_ONLY_KEYS and (started is None or t < started)
                   for t, p in moves)  # fmt: skip
    if number == 1 and not reviewed:  # a map from the session's creation (`init`)
        return parse_ts(state.started_at) or started
    return started


def run_span(
    run: RunFiles,
    before_end: datetime | None,
    state: StoredState | None,
    workflow_type: str | None,
    complete: bool,
    current: bool,
) -> Span:
    """(started, ended, approximate) of a map run; `before_end`: when the run before ended
    (its entries of phases are not this run's)."""
    approximate = False
    started = map_start(state, before_end, run.number, current)
    if started is None:
        started = before_end if before_end is not None else _earliest(list(run.files.values()))
        approximate = started is not None
    ended: datetime | None = None
    if complete:
        ended = _event_time(state, "map_completed", run.number)
        if ended is None:
            ended = _synthesis_time(run.files, ("map-meta.json", "map.md"))
            approximate = approximate or ended is not None
    return started, ended, approximate
