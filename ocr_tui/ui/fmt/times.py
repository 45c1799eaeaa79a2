"""Times on screen, one convention from one formatter, `when`: local time with the zone named
(`19:33 UTC`), the absolute time first and, where there is room, how long ago in parentheses
(`19:33 UTC (12m ago)`); where there is none, the relative time alone (`12m ago`). Durations,
elapsed and stall times read the same on every screen."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date, datetime

from ocr_tui.core import display
from ocr_tui.core.states import (  # noqa: F401 (shared names)
    PHASE_MARKS,
    STATES,
    glyph,
    session_state,
)
from ocr_tui.core.timeutil import human_duration, human_relative, local_clock, zone_name  # noqa: F401
from ocr_tui.core.view import SessionView

duration = human_duration  # `45s`, `12m`, `1h 05m`; "—" for None


# One parser and one clock for every screen (core.display, core.timeutil).
ts = display.ts
elapsed_seconds = display.round_seconds  # OCR's round time: ticking while it runs


def elapsed_text(view: SessionView, now: datetime, *, coarse: bool = False) -> str:
    """`coarse` (the list): whole minutes once past the first one, so a running row changes
    once a minute, not every second (every change repaints the table; the detail pane and
    the session screen show the seconds)."""
    seconds = elapsed_seconds(view, now)
    if coarse and seconds is not None and 60 <= seconds < 600:
        return f"{seconds // 60}m"
    return human_duration(seconds)


def ticking_duration(seconds: int | None) -> str:
    """`42m 05s`, `1h 02m 05s`: shows the seconds, so a running clock visibly ticks."""
    if seconds is None:
        return "—"
    d, rest = divmod(max(0, int(seconds)), 86400)
    h, rest = divmod(rest, 3600)
    m, s = divmod(rest, 60)
    if d:
        return f"{d}d {h}h {m:02d}m"
    if h:
        return f"{h}h {m:02d}m {s:02d}s"
    return f"{m}m {s:02d}s" if m else f"{s}s"


# -- time: one convention, one formatter --------------------------------------------------------


def _absolute(at: datetime, now: datetime, zone: bool) -> str:
    return local_clock(at, now, zone=zone)


WHEN_ROOMS = ("full", "clock", "cell", "ago")


def when(value: str | datetime | None, now: datetime, room: str = "full") -> str:
    """A point in time as every screen shows it ("" when unknown): in the local zone, named.

    - `full` (where there is room): `19:33 UTC (12m ago)`, `Nov 17 19:33 UTC (6d ago)`,
      `2025-11-17 19:33 UTC (371d ago)`, `Nov 26 19:33 UTC (in 2d 23h)`;
    - `clock`: the absolute part alone, `19:33 UTC`;
    - `cell`: without the zone, for a column whose header names it (`When (UTC)`): `19:33`;
    - `ago` (a narrow column): the relative part alone, `12m ago`.

    The absolute time is `HH:MM` today, `Mon DD HH:MM` this year, `YYYY-MM-DD HH:MM` before.
    """
    at = value if isinstance(value, datetime) else ts(value)
    if at is None:
        return ""
    relative = human_relative((now - at).total_seconds())
    if room == "ago":
        return relative
    absolute = _absolute(at, now, zone=room != "cell")
    return f"{absolute} ({relative})" if room == "full" else absolute


def one_day(values: Sequence[str | None]) -> date | None:
    """The local date all these times fall on, when they share one (a column of them then
    says the clock alone, and its header the day: `day_text`)."""
    days = {at.astimezone().date() for v in values if (at := ts(v)) is not None}
    return days.pop() if len(days) == 1 else None


def day_text(day: date | None, now: datetime) -> str:
    """`Nov 21` (`2025-11-21` in another year); "" for today or no day."""
    today = now.astimezone().date()
    if day is None or day == today:
        return ""
    return f"{day:%b} {day.day}" if day.year == today.year else day.isoformat()


def clock_cell(value: str | None, now: datetime, clock_only: bool) -> str:
    """A time in a column whose header names the zone (and, `clock_only`, the day)."""
    at = ts(value)
    if at is None:
        return ""
    return f"{at.astimezone():%H:%M}" if clock_only else when(at, now, "cell")


_STAMP = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\b")


def times_in(text: str, now: datetime, room: str = "full") -> str:
    """`text` with each timestamp the formats write into a fact (`2026-11-23T19:33:19Z`, as
    `core.timeutil.fmt_ts` prints it) shown by `when`: `approved at 19:33 UTC (2m ago)`."""
    if "T" not in text:
        return text
    return _STAMP.sub(lambda m: when(m.group(0), now, room) or m.group(0), text)


started_at = display.started_at


def idle_seconds(view: SessionView, now: datetime) -> int | None:
    at = ts(view.last_activity)
    return None if at is None else max(0, int((now - at).total_seconds()))


def stall_text(view: SessionView, now: datetime, limit: float | None) -> str:
    """`no activity for 36m (limit 30m)`: how long a stalled session has been quiet, against
    `--stall-after` (`limit`, seconds; None: not known). In whole minutes, as the Activity
    column and the detail pane's `(1m ago)` count them (`display.coarse_duration`; `under a
    minute` before the first): the same length on every screen, whichever repaints by the
    second or by the minute."""
    idle = idle_seconds(view, now)
    if idle is None:
        text = "no activity"
    elif idle < 60:
        text = "no activity for under a minute"
    else:
        text = f"no activity for {display.coarse_duration(idle)}"
    return text + (f" (limit {human_duration(limit)})" if limit else "")
