"""OCR's review rounds in words: a round's label and state, its verdict's tone and kind, the
change in findings from the round before, the blocker trend."""

from __future__ import annotations

from collections.abc import Sequence

from ocr_tui.core import display, rounds
from ocr_tui.core.registry import is_host
from ocr_tui.core.states import (  # noqa: F401 (shared names)
    PHASE_MARKS,
    STATES,
    glyph,
    session_state,
)
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import human_duration, human_relative, local_clock, zone_name  # noqa: F401
from ocr_tui.core.view import MapRun, Round, SessionView


def verdict_tone(verdict: str | None) -> str:
    """'good' (approve), 'bad' (changes requested, blocked) or 'neutral'."""
    if not verdict:
        return "neutral"
    v = verdict.upper()
    if any(w in v for w in ("CHANGES", "BLOCK", "REJECT", "FAIL", "NEEDS")):
        return "bad"
    if v.startswith(("APPROVE", "LGTM", "ACCEPT", "PASS", "SHIP")):
        return "good"
    return "neutral"


def twin_name(items: Sequence[Round | MapRun], item: Round | MapRun) -> str | None:
    """The directory name of a round or map run that shares its number with one listed
    before it (`round-01` after `round-1`: both are round 1), else None: what tells the two
    apart on screen."""
    for other in items:
        if other.path == item.path:
            return None
        if other.number == item.number:
            return safe_line(item.path.rsplit("/", 1)[-1])
    return None


def round_label(view: SessionView | None, rnd: Round) -> str:
    """`Round 2`, or `Round 2 (round-02)` for the second directory numbered 2."""
    twin = twin_name(view.rounds, rnd) if view is not None else None
    return f"Round {rnd.number}" + (f" ({twin})" if twin else "")


# A round's (or map run's) state, in the same words on every screen.
ROUND_STATES = {"done": "done", "open": "in progress", "stopped": "stopped"}


def round_state(complete: bool, view: SessionView | None) -> str:
    """`done` (its synthesis is written), `stopped` (not done, its session closed) or `open`
    (in progress): a key of ROUND_STATES."""
    if complete:
        return "done"
    return "stopped" if view is not None and view.status == "closed" else "open"


VERDICT_CLASSES = {
    "approve": ("APPROVE", "APPROVED", "LGTM"),
    "request": ("REQUEST CHANGES", "CHANGES REQUESTED", "BLOCK", "REJECT"),
    "discuss": ("NEEDS DISCUSSION", "NEEDS WORK"),
}


def verdict_kind(rnd: Round | None) -> str:
    """approve | request | discuss | progress (no final.md yet) | unknown."""
    if rnd is None:
        return "unknown"
    verdict = (rnd.verdict or "").upper()
    for kind, names in VERDICT_CLASSES.items():
        if any(verdict.startswith(name) for name in names):
            return kind
    return "unknown" if rnd.complete else "progress"


def timeline_unit(view: SessionView) -> str:
    """Whose phases an OCR session's timeline shows when it has had more than one round or
    map run: its current one, as the list's Rnd column says it (`R2`; `M1` after a review);
    "" otherwise."""
    if not is_host(view.framework):
        return ""
    if view.workflow == "map":
        several = view.current_map_run and (len(view.map_runs) > 1 or view.rounds)
    else:
        several = view.current_round and len(first_of_each_number(view.rounds)) > 1
    return display.round_text(view) if several else ""


def first_of_each_number(rounds: Sequence[Round]) -> list[Round]:
    """One round per number: the first directory (`round-1` before `round-01`), the one the
    next round's evolution is counted against."""
    seen: set[int] = set()
    out = []
    for rnd in rounds:
        if rnd.number not in seen:
            seen.add(rnd.number)
            out.append(rnd)
    return out


def findings_change(rnd: Round) -> list[tuple[str, str]]:
    """The change of a round's findings against the round before (`rounds.change_parts`)."""
    return rounds.change_parts(rnd)


TREND_ROUNDS = 4  # the blocker trend shows the last rounds only


def blockers_known(rnd: Round) -> bool:
    """Does the round have a blocker count yet (its synthesis named them, or one is already
    found)? Before that it has none to show, not zero."""
    return rnd.blockers is not None


def blocker_trend(rounds: Sequence[Round]) -> list[tuple[str, str]] | None:
    """`R1 3 blockers → R2 1 (2 resolved, 0 new)`: each round's blockers (distinct findings
    that block) and, against the round before, how many blockers were resolved and how many
    are new, as (text, tone) parts (tones: "" plain, "bad", "good", "warn", "muted"); a round
    whose findings are not all in resolves nothing: `R2 — (1 not re-reviewed yet)`. The last
    TREND_ROUNDS rounds, after `… ` when there are more. None without rounds; one muted part
    when no round has a blocker."""
    firsts = first_of_each_number(rounds)
    if not firsts:
        return None
    known = [r for r in firsts if blockers_known(r)]
    if not known:  # a round's blockers are the synthesis' to name: before it, not known
        return [("No synthesis yet: the round's blockers are not known.", "muted")]

    def moved(r: Round) -> bool:
        e = r.evolution
        return bool(r.blockers or (e and (e.resolved_blockers or e.pending_blockers)))

    if not any(moved(r) for r in firsts):
        if len(known) > 1:
            where = "any round"
        elif len(firsts) == 1:
            where = "this round"
        else:  # the others have no synthesis yet
            where = f"round {known[0].number}"
        return [(f"No blockers in {where}.", "muted")]
    shown = firsts[-TREND_ROUNDS:]
    parts: list[tuple[str, str]] = [("… ", "muted")] if len(shown) < len(firsts) else []
    for i, rnd in enumerate(shown):
        if i:
            parts.append((" → ", "muted"))
        e = rnd.evolution
        pending = e.pending_blockers if e is not None else 0
        if rnd.blockers is None:  # in progress: its blockers are not counted yet
            why = f"{pending} not re-reviewed yet" if pending else "no synthesis yet"
            parts += [(f"R{rnd.number} ", ""), (f"— ({why})", "muted")]
            continue
        parts += [(f"R{rnd.number} ", ""), (str(rnd.blockers), "bad" if rnd.blockers else "good")]
        if i == 0:
            parts.append((" blocker" if rnd.blockers == 1 else " blockers", ""))
        if not i or e is None:
            continue
        if e.resolved_blockers is None:  # found so far; the round before's not judged yet
            parts += [
                (" (", "muted"),
                (f"{e.new_blockers} new", "warn" if e.new_blockers else "muted"),
                (f", {pending} not re-reviewed yet" if pending else "", "muted"),
                (")", "muted"),
            ]
            continue
        parts += [
            (" (", "muted"),
            (f"{e.resolved_blockers} resolved", "good" if e.resolved_blockers else "muted"),
            (", ", "muted"),
            (f"{e.new_blockers} new", "warn" if e.new_blockers else "muted"),
            (")", "muted"),
        ]
    return parts
