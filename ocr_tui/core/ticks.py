"""When a text that shows time changes next: the screens wake then, not every second.

Every time on screen is counted from a few instants (a session's start, its round's start, its
last activity) and shown in whole seconds, minutes, hours or days (`core.timeutil`: `45s`,
`12m`, `1h 05m`, `3d 4h`, `12m ago`), or as a clock whose date shows once a day has turned. So
such a text can only change when a whole number of one of those units has passed since one
of its instants, or at local midnight: `next_change` returns the first of those instants at
which the text differs (by galloping and halving: a text, once changed, does not come back).
Exact for every formatter that floors to those units; one that did not would be caught up by
the cap (`MAX_WAIT`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from ocr_tui.core.display import ts
from ocr_tui.core.view import SessionView

UNITS_S = (1, 60, 3600, 86400)
MAX_WAIT = timedelta(minutes=1)  # the longest a screen waits between two looks at its times


def next_change(
    text_at: Callable[[datetime], object],
    origins: Iterable[datetime | None],
    now: datetime,
    *,
    horizon: timedelta = MAX_WAIT,
) -> datetime:
    """The first instant after `now` at which `text_at` says something else than at `now`,
    its times being counted from `origins`; `now + horizon` when none comes before that."""
    shown = text_at(now)
    end = now + horizon
    candidates = {_next_midnight(now)}
    for origin in origins:
        if origin is None:
            continue
        since = (now - origin).total_seconds()
        for unit, span in zip(UNITS_S, (60, 60, 24, 2), strict=True):
            # every whole unit for the next bigger one from now (`just now` turns into `10s
            # ago` at its tenth second, not its next), and around the origin itself (a time
            # ahead shows seconds again from a minute before it to a minute after), as far as
            # the horizon
            k = math.floor(since / unit)  # (its instant is after now when now is on it)
            for first, last in ((k, k + span), (max(k, -span), span)):
                for n in range(first, last + 1):
                    # (a microsecond on: a time ahead, `in 10s`, turns just after its boundary)
                    at = origin + timedelta(seconds=n * unit, microseconds=1)
                    if at >= end:
                        break
                    candidates.add(at)
    times = sorted(c for c in candidates if now < c < end)
    # Time only moves on: once the text has changed, it is not back to what it was. So the
    # first instant it differs is found by galloping then halving (a handful of looks, not
    # one per instant): the first instant first (a time in seconds changes at the next one),
    # then the last (a screen at rest: nothing changes before the horizon).
    if not times or text_at(times[0]) != shown:
        return times[0] if times else end
    last = len(times) - 1
    if text_at(times[last]) == shown:
        return end
    same, step = 0, 1  # times[same] says `shown`; times[last] does not
    while True:
        probe = min(same + step, last)
        if probe == last or text_at(times[probe]) != shown:
            break
        same, step = probe, step * 2
    lo, hi = same + 1, probe  # times[:lo] say `shown`; times[hi] does not
    while lo < hi:
        mid = (lo + hi) // 2
        if text_at(times[mid]) != shown:
            hi = mid
        else:
            lo = mid + 1
    return times[lo]


def _next_midnight(now: datetime) -> datetime:
    local = now.astimezone()
    tomorrow = (local + timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0)
    return tomorrow.astimezone(now.tzinfo)


def view_origins(view: SessionView) -> list[datetime | None]:
    """The instants a session's times on screen are counted from: its start, its round's (or
    map run's), its last activity and update, its phases' and rounds' starts and ends, its
    agents' starts and heartbeats."""
    stamps = [view.started_at, view.elapsed.since, view.last_activity, view.updated_at]
    for agent in view.agents:
        stamps += (agent.started_at, agent.heartbeat_at)
    for step in view.timeline:
        stamps += (step.at, step.ended)
    for run in (*view.rounds, *view.map_runs):
        stamps += (run.started_at, run.ended_at)
    return [ts(s) for s in dict.fromkeys(stamps) if s]
