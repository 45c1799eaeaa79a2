"""The legend of what the session and round screens draw: every mark, where it is drawn and
what it means (the `?` screen lists them, as it lists the states)."""

from __future__ import annotations

from ocr_tui.core.states import (  # noqa: F401 (shared names)
    PHASE_MARKS,
    STATES,
    glyph,
    session_state,
)
from ocr_tui.core.timeutil import human_duration, human_relative, local_clock, zone_name  # noqa: F401

# -- markers: the legend of what the session and round screens draw ----------------------------

# mark -> (where it is drawn, what it means): the `?` screen lists them, as it lists STATES.
MARKERS: dict[str, tuple[str, str]] = {
    "▶": ("Rounds, Phases", "the current phase, round or map run"),
    "+2": ("Rounds, Findings", "2 findings are new since the round before"),
    "−3": ("Rounds, Findings", "3 findings of the round before are resolved in this one"),
    "=": ("Rounds, Findings", "no finding new and none resolved since the round before"),
    "?2": (
        "Rounds, Findings",
        "2 findings of the round before not re-reviewed yet (the round has no synthesis yet:"
        " nothing is resolved before its findings are all in)",
    ),
    "1 / 3 / 6": (
        "Rounds, Blk/Fix/Sug",
        "blockers / should fix / suggestions of the round's synthesis (blockers: never fewer"
        " than its critical findings and the blockers it names)",
    ),
    "█▇▆··": (
        "Rounds, Reported",
        "the reviewers' findings by severity (critical and high, medium, low and info), "
        "counted beside the bar; the longest bar is the round with the most",
    ),
    "high 3 ██▋": (
        "Round by severity",
        "a round's findings of each severity as the reviewers reported them; the longest bar "
        "is the session's largest count, so rounds compare",
    ),
    "~": ("Phases", "approximate: a time guessed from the files a phase wrote, not recorded"),
    "██▌": ("Phases", "the phase's time against the longest phase's"),
    "● pid 4049": ("Running agents", "an agent command running, its process on this machine"),
    "⚠ stale": (
        "Running agents",
        "no heartbeat for 60 s, or (`pid … gone`) its process is not on this machine",
    ),
    "███░░ 3/5": ("Map run, Sections", "the files you marked reviewed, of the section's files"),
    "✓ ·": ("Map run, Files", "reviewed / not yet (your marks in OCR's dashboard)"),
    PHASE_MARKS["skipped"]: ("Phases", "a phase the session skipped"),
    PHASE_MARKS["stopped"]: ("Phases", "the phase a session was in when it was closed early"),
    PHASE_MARKS["unreached"]: ("Phases", "a phase a session closed early never reached"),
    "—": ("every table", "not known (yet)"),
}
