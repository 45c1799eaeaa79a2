"""Timestamps: parse every form OCR writes, print UTC `YYYY-MM-DDTHH:MM:SSZ` (no IO)."""

from __future__ import annotations

from datetime import UTC, datetime


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
    except ValueError:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return dt.astimezone(UTC)


def fmt_ts(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def from_mtime(mtime: float) -> datetime:
    return datetime.fromtimestamp(mtime, UTC)


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
