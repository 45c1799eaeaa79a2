"""A session's phase as the list and the screens show it: `4/8`, a bar, the phase's name; the
style of a format's own state word."""

from __future__ import annotations

import re

from ocr_tui.core.states import (  # noqa: F401 (shared names)
    PHASE_MARKS,
    STATES,
    glyph,
    session_state,
)
from ocr_tui.core.timeutil import human_duration, human_relative, local_clock, zone_name  # noqa: F401
from ocr_tui.core.view import SessionView

TONES = {"good": "$text-success", "warn": "$text-warning", "bad": "$text-error"}


def state_tone_style(word: str) -> str:
    """A style for a format's own state word (success, failure, stale...)."""
    w = word.lower()
    if w in ("success", "completed", "done", "valid", "pass", "approved", "accepted"):
        return "$text-success"
    if w in ("failure", "failed", "error", "timeout", "corrupted", "rejected", "fail"):
        return "$text-error"
    if w in ("stale", "expired", "pending", "partial", "warn", "interrupted"):
        return "$text-warning"
    return "$text-muted"


def phase_bar(number: int | None, total: int) -> tuple[str, str]:
    """(done part, pending part) of a one-cell-per-phase bar."""
    total = min(max(total, 0), 12)  # a format with very many phases still fits its column
    done = min(max(number or 0, 0), total)
    return "▰" * done, "▱" * (total - done)


def phase_position(view: SessionView) -> int | None:
    """The session's place among its workflow's phases, the same in every format (and as
    `status` gives it): the timeline's current phase, else `phase_number` (the code
    workflow's `phase_number` counts the phases done, one less than the running one)."""
    current = next((s.number for s in view.timeline if s.state == "current"), None)
    return current if current is not None else view.phase_number


def phase_fraction(view: SessionView) -> str:
    """`3/8`; `?/8` when the place is not known; "" when the number of phases is not known
    (iDumb's free-text phase): a total of 0 is unknown, never shown as `/0`."""
    if view.phase_total <= 0:
        return ""
    n = phase_position(view)
    return f"{'?' if n is None else n}/{view.phase_total}"


_FRACTION_IN = re.compile(r"(?<![\d/])(\d+)\s*/\s*(\d+)(?![\d/])")


def phase_parts(view: SessionView) -> tuple[str, str]:
    """(fraction, label) of the phase, each thing said once: a label that starts with the
    place (`2/4 (Phase 2: build)`) loses it; one that holds it further in keeps it, and the
    fraction is left out. Both raw: pass them through `safe`."""
    fraction, label = phase_fraction(view), view.phase_label.strip()
    if not fraction:
        return "", label
    m = _FRACTION_IN.search(label)
    if m is None or f"{m.group(1)}/{m.group(2)}" != fraction:
        return fraction, label
    if m.start() > 0:
        return "", label
    rest = label[m.end() :].strip().lstrip("-–—:·,").strip()
    if rest.startswith("(") and rest.endswith(")") and not re.search(r"[()]", rest[1:-1]):
        rest = rest[1:-1].strip()
    return fraction, rest


def phase_text(view: SessionView, *, label: bool = True) -> str:
    """`3/8 Plan Review`, `Phase 0` (no known total), `?/8 Analysis`; without `label`, the
    fraction alone ("" when the total is not known). Raw: pass it through `safe`."""
    if not label:
        return phase_fraction(view)
    return " ".join(x for x in phase_parts(view) if x)
