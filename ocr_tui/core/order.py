"""The one order of sessions: by last activity, newest first, ties by id (`status`, `--json`,
`watch` and the list's default sort). Its own module: the list needs it before its first
frame, and the session store (`core.sessions`) only once the engine runs."""

from __future__ import annotations

from collections.abc import Iterable

from ocr_tui.core.view import SessionView

_TOP = 0x10FFFE  # a character's mirror: `_TOP - ord(c)`, in 1 .. _TOP
_END = chr(0x10FFFF)  # after every mirrored character: a text before its prefix
_ASCII = {i: _TOP - i for i in range(128)}  # (`str.translate`'s table for the usual case)


def descending(text: str) -> str:
    """`text` as a key that sorts it descending (a longer text before its prefix): each
    character mirrored, then one above them all. One string, compared in C (a tuple of an int
    per character was ~20 objects a row: 9 MB at 10,000 sessions)."""
    if text.isascii():
        return text.translate(_ASCII) + _END
    return "".join(chr(_TOP - ord(c)) for c in text) + _END


def activity_key(view: SessionView) -> tuple:
    """A session's place by last activity, newest first (unknown last), ties by id: the one
    order of `status`, `--json`, `watch` and the dashboard's list under its default sort
    (`last activity ▼`). An active session that has gone quiet moves down like any other; its
    glyph and status say it is stalled. Timestamps, never ages: the order moves with the data
    alone, never with the clock."""
    return (descending(view.last_activity or ""), view.id)


def newest_first(views: Iterable[SessionView]) -> list[SessionView]:
    """The sessions in `activity_key`'s order: by id, then (a stable sort) by last activity
    descending; 10x faster than sorting by the key's tuples (10,000 sessions: ~90 -> 9 ms)."""
    out = sorted(views, key=_id)
    out.sort(key=_activity, reverse=True)  # (stable: ties keep the ids' order)
    return out


def _id(view: SessionView) -> str:
    return view.id


def _activity(view: SessionView) -> str:
    return view.last_activity or ""
