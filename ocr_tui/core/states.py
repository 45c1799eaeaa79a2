"""A session's state in one word and one glyph, for every screen and every command.

One vocabulary: the list's glyph, the detail pane's, the session screen's, the
`?` legend, `status` and `--oneline` all come from here. Precedence is the order of STATES:
what needs the user outranks what is merely so (an interrupted session that was closed shows
`!`, not `✓`). Pure; no Textual.
"""

from __future__ import annotations

from ocr_tui.core.view import SessionView

# state -> (glyph, legend). Order is the legend's order and the precedence (first wins).
STATES: dict[str, tuple[str, str]] = {
    "offline": ("⊘", "host unreachable: its connection is lost; the last state known is shown"),
    "problem": ("✗", "problem: a file is unreadable or inconsistent (see the detail pane)"),
    "input": ("◆", "waiting on you: an approval gate needs a person"),
    "stalled": ("⚠", "stalled: running, but nothing changed for longer than --stall-after"),
    "alert": (
        "!",
        "needs attention: interrupted, an error, an agent gone stale... (see the detail pane)",
    ),
    "running": ("●", "running: the review or map is in progress"),
    "waiting": ("◐", "finished, not closed: the work is done, the session is still open"),
    "closed": ("✓", "closed"),
    "loading": ("…", "reading: not read yet (start-up reads the newest sessions first)"),
}


def session_state(view: SessionView) -> str:
    """One of STATES' keys: the first that holds, in STATES' order (reading comes first: a
    stand-in row has nothing else to say)."""
    if view.offline:
        return "offline"  # nothing shown of it is known to be current
    if view.source == "loading":
        return "loading"
    if view.problems:
        return "problem"
    if view.waiting and view.status != "closed":
        return "input"
    if view.stalled and view.status != "closed":
        return "stalled"
    if view.alerts:
        return "alert"  # attention outranks closed: an interrupted session is not done
    if view.status != "closed" and agent_stale(view):
        return "alert"  # an agent command's heartbeat stopped, or its process is gone
    if view.status == "closed":
        return "closed"
    if view.complete:
        return "waiting"
    return "running"


def agent_stale(view: SessionView) -> bool:
    """An agent command of the session has gone quiet (no heartbeat for a minute, or its
    process gone): OCR's "stale", said by the glyph (`!`) and the Status words at every width,
    not only by the Agents column, the first to give way."""
    return any(a.stale for a in view.agents)


def glyph(state: str) -> str:
    return STATES[state][0]


# -- marks: one glyph per meaning, in every screen ---------------------------------------------

# A phase's mark in a timeline, and a round's or map run's beside it: `current` marks the
# session's current phase, round and map run alike (one glyph for "current"); `pending` is
# "still to come" and nothing else (a count of zero is written `0`, never `·`). `stopped` and
# `unreached`: the phase a session closed early was in, and those it never reached.
PHASE_MARKS: dict[str, str] = {
    "done": "✓",
    "current": "▶",
    "pending": "·",
    "skipped": "⤼",
    "stopped": "■",
    "unreached": "–",
}
CURRENT = PHASE_MARKS["current"]  # the current phase, round or map run
TO_COME = PHASE_MARKS["pending"]  # a phase (or round) still to come
UNKNOWN = "—"  # not known (yet)
