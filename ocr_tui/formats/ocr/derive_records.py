"""What the store records beyond phases and rounds, as the view shows it: its event log, the
agents it says are running (stale when their heartbeat is old or their process is gone) and
the user's notes. Times are normalised to UTC; nothing else is changed. Pure; no IO.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from ocr_tui.core.timeutil import fmt_ts, parse_ts
from ocr_tui.core.view import LogEvent, Note, RunningAgent, SessionView
from ocr_tui.formats.ocr.model import StoredState

HEARTBEAT_STALE_S = 60  # OCR's own default (`runtime.agent_heartbeat_seconds`)


def events(state: StoredState | None) -> list[LogEvent]:
    if state is None:
        return []
    return [
        LogEvent(type=e.type, phase=e.phase, round=e.round, at=_utc(e.at), meta=e.meta)
        for e in state.events
    ]


def agents(
    state: StoredState | None, now: datetime, pid_alive: Callable[[int], bool] | None
) -> list[RunningAgent]:
    """The running agents; `pid_alive` tells whether a process runs on this machine (None:
    unknown)."""
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


def gone(agent: RunningAgent, now: datetime) -> bool:
    """Is a stale agent stale because its process is not on this machine (its heartbeat is
    fresh), rather than because its heartbeat is old? (`agents`' two signs, told apart.)"""
    beat = parse_ts(agent.heartbeat_at)
    fresh = beat is not None and (now - beat).total_seconds() <= HEARTBEAT_STALE_S
    return bool(agent.stale and agent.pid is not None and fresh)


def notes(state: StoredState | None) -> list[Note]:
    return [
        Note(
            target=n.target,
            text=n.text,
            at=_utc(n.at),
            round=n.round,
            run=n.run,
            section=n.section,
            key=n.key,
            id=n.id,
        )  # fmt: skip
        for n in (state.notes if state else ())
    ]


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
