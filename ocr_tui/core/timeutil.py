"""Timestamps: parse every form OCR writes, print UTC `YYYY-MM-DDTHH:MM:SSZ` (no IO); durations
and relative times in words (`12m`, `12m ago`, `in 2d 4h`). What the screens show of a point in
time is `ocr_tui.ui.fmt.when`'s convention, built on these."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

_DURATION = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*")
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def parse_ts(value: str | None) -> datetime | None:
    """ISO 8601 with `Z`, an offset, fractions, or no zone (UTC), and SQLite's
    `YYYY-MM-DD HH:MM:SS`. Returns an aware UTC datetime, or None if unparsable."""
    if not value or not isinstance(value, str):
        return None
    text = value.strip()
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        dt = datetime.fromisoformat(text)
        if dt.tzinfo is None:
            dt = dt.replace(tzinfo=UTC)
        # An offset can carry year 1 below year 1 (or year 9999 past 9999): OverflowError.
        return dt.astimezone(UTC)
    except (ValueError, OverflowError):
        return None


def fmt_ts(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    dt = dt.astimezone(UTC)
    # Not strftime's %Y: glibc prints year 1 as "1", not "0001".
    return (
        f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}Z"
    )


_MIN_MTIME = datetime(1, 1, 1, tzinfo=UTC)
_MAX_MTIME = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)


def from_mtime(mtime: float) -> datetime:
    """A file time as a UTC datetime, clamped to years 1-9999 (file systems store more)."""
    try:
        return datetime.fromtimestamp(mtime, UTC)
    except (ValueError, OverflowError, OSError):
        return _MAX_MTIME if mtime > 0 else _MIN_MTIME


def human_duration(seconds: float | int | None) -> str:
    """`45s`, `12m`, `1h 05m`, `3d 4h`."""
    if seconds is None:
        return "—"
    s = max(0, int(seconds))
    if s < 60:
        return f"{s}s"
    m, s = divmod(s, 60)
    if m < 60:
        return f"{m}m {s:02d}s" if m < 10 else f"{m}m"
    h, m = divmod(m, 60)
    if h < 24:
        return f"{h}h {m:02d}m"
    d, h = divmod(h, 24)
    return f"{d}d {h}h"


def human_ago(seconds: float | int | None) -> str:
    """`just now`, `45s ago`, `12m ago`, `3h ago`, `6d ago` (a time ahead: `just now`)."""
    if seconds is None:
        return "—"
    s = max(0, int(seconds))
    if s < 10:
        return "just now"
    if s < 60:
        return f"{s}s ago"
    if s < 3600:
        return f"{s // 60}m ago"
    if s < 86400:
        return f"{s // 3600}h ago"
    return f"{s // 86400}d ago"


def human_relative(seconds: float | int | None) -> str:
    """How long ago (`seconds` > 0: `12m ago`, as `human_ago`) or ahead (`in 12m`, `in 2d 4h`:
    `human_duration`'s words) a time is; within 10 s either way, `just now`."""
    if seconds is None:
        return "—"
    if seconds > -10:
        return human_ago(seconds)
    return f"in {human_duration(-seconds)}"


# How far ahead of our clock a recorded time may be before it is a problem ("in the future"):
# agents often run on another machine or in a container whose clock is a little off.
CLOCK_SKEW = timedelta(minutes=5)


def zone_name(now: datetime | None = None) -> str:
    """The local zone's abbreviation at `now` (`UTC`, `CET`, `+0530` where it has none)."""
    local = (now or datetime.now(UTC)).astimezone()
    return local.tzname() or local.strftime("%z")


def local_clock(at: datetime, now: datetime, *, zone: bool = True) -> str:
    """A point in time as a clock in the local zone: `HH:MM` today, `Mon DD HH:MM` this
    year, `YYYY-MM-DD HH:MM` before; the zone named after it unless `zone` is False (a column
    whose header names it)."""
    local, today = at.astimezone(), now.astimezone()
    if local.date() == today.date():
        text = local.strftime("%H:%M")
    elif local.year == today.year:
        text = local.strftime("%b %d %H:%M")
    else:
        text = f"{local.year:04d}-{local.month:02d}-{local.day:02d} {local:%H:%M}"
    return f"{text} {zone_name(local)}" if zone else text


def parse_duration(text: str, bare_unit: str) -> float | None:
    """`30m`, `90s`, `2h`, `1d` in seconds; a bare number counts in `bare_unit` (s, m, h, d).
    None when `text` is none of those."""
    m = _DURATION.fullmatch(text)
    if not m:
        return None
    return float(m.group(1)) * _UNIT_S[m.group(2) or bare_unit]
