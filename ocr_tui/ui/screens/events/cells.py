"""The event log's rows without a screen: OCR's `orchestration_events`
(`SessionView.events`, the last 200, oldest first) in human words.

`14:02  phase     entered Parallel Reviews (4/8)`
`14:20  round     round 2 completed   REQUEST CHANGES · 2 blockers · 3 should fix · 5 suggestions`

The event's kind is named in words (`session_created` → `session created`); an event type
ocr-tui does not know is shown by its own name, its metadata as `key value` pairs. Every string
from disk passes `safe_line`; a metadata value that is not a string or a number is left out.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from rich.style import Style
from rich.text import Text

from ocr_tui.core.states import UNKNOWN
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import LogEvent, PhaseStep
from ocr_tui.ui import fmt

ThemeStyle = Callable[..., Style]

COLUMNS = [("at", "When"), ("what", "Event"), ("details", "Details")]
FLEX = ("what", "details")
DETAIL_CHARS = 200

# round_completed's counts (ocr-format.md §2.2), in the words the rounds table uses.
ROUND_COUNTS = (
    ("blocker_count", "blocker", "blockers"),
    ("should_fix_count", "should fix", "should fix"),
    ("suggestion_count", "suggestion", "suggestions"),
    ("reviewer_count", "reviewer", "reviewers"),
    ("total_finding_count", "finding reported", "findings reported"),  # by all reviewers
)
MAP_COUNTS = (("section_count", "section", "sections"), ("file_count", "file", "files"))
KNOWN_META = {k for k, *_ in ROUND_COUNTS + MAP_COUNTS} | {"verdict", "source"}


def labels(events: Sequence[LogEvent], now: datetime) -> dict[str, str]:
    """`When (UTC)`; `When (Nov 21, UTC)` when every event is of that day (the cells then
    say the clock alone)."""
    day = fmt.day_text(fmt.one_day([e.at for e in events]), now)
    return {"at": f"When ({day + ', ' if day else ''}{fmt.zone_name(now)})"}


def _count(meta: dict, key: str, one: str, many: str) -> str | None:
    value = meta.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return f"{value} {one if value == 1 else many}"


def _value(value: object) -> str | None:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float | str):
        return safe_line(value)[:DETAIL_CHARS]
    return None


def phase_name(phase: str | None, steps: Sequence[PhaseStep]) -> str:
    """A phase's label as the timeline shows it (`4 Parallel Reviews`), else its key in
    words."""
    if not phase:
        return UNKNOWN
    step = next((s for s in steps if s.key == phase), None)
    return f"{step.number} {safe_line(step.label)}" if step else fmt.words(phase)


def event_what(event: LogEvent, steps: Sequence[PhaseStep]) -> str:
    """The event in words."""
    rnd = f" {event.round}" if event.round is not None else ""
    match event.type:
        case "phase_transition":
            return f"entered {phase_name(event.phase, steps)}"
        case "round_started":
            return f"round{rnd} started"
        case "round_completed":
            return f"round{rnd} completed"
        case "map_completed":
            return f"map run{rnd} completed"
        case "session_created" | "session_resumed" | "session_closed" | "session_synced":
            return fmt.words(event.type)
    return fmt.words(event.type) or "event"


def event_details(event: LogEvent) -> str:
    """The metadata in words: a round's verdict and counts, a map's sections and files; for
    other events every `key value` pair; `source` last (`from filesystem backfill`)."""
    meta = event.meta or {}
    parts: list[str] = []
    if event.type == "phase_transition" and event.round is not None:
        parts.append(f"round {event.round}")
    if event.type == "round_completed":
        verdict = _value(meta.get("verdict"))
        parts += [verdict] if verdict else []
        parts += [c for k, one, many in ROUND_COUNTS if (c := _count(meta, k, one, many))]
    elif event.type == "map_completed":
        parts += [c for k, one, many in MAP_COUNTS if (c := _count(meta, k, one, many))]
    for key, value in meta.items():
        if key in KNOWN_META and event.type in ("round_completed", "map_completed"):
            continue
        if key == "source":
            continue
        shown = _value(value)
        if shown is not None:
            parts.append(f"{fmt.words(str(key))} {shown}")
    source = _value(meta.get("source"))
    if source:
        parts.append(f"from {fmt.words(source)}")
    return " · ".join(parts)[:DETAIL_CHARS]


PHRASE = 24  # a phrase this short wraps whole: `1 should fix`, never `1 should` / `fix`


def unbroken(details: str) -> str:
    """`details` wrapped by a narrow column between its ` · ` phrases, not inside a short one."""
    return " · ".join(
        p.replace(" ", fmt.KEEP_TOGETHER) if len(p) <= PHRASE else p for p in details.split(" · ")
    )


KIND_VAR = {
    "round_completed": "success",
    "session_closed": "foreground-muted",
    "phase_transition": "accent",
}


def event_rows(
    events: Sequence[LogEvent], steps: Sequence[PhaseStep], now: datetime, style: ThemeStyle
) -> list[tuple[str, list[Text]]]:
    """Newest first (the log reads down into the past); keyed by position from the oldest, so
    a new event adds one row at the top and the others keep their keys."""
    muted = style("foreground-muted")
    clock_only = fmt.one_day([e.at for e in events]) is not None
    rows = []
    for i, event in enumerate(events):
        at = fmt.clock_cell(event.at, now, clock_only)
        what = Text(event_what(event, steps), style=style(KIND_VAR.get(event.type, "")))
        rows.append(
            (
                str(i),
                [
                    Text(at or UNKNOWN, style="" if at else muted),
                    what,
                    Text(unbroken(event_details(event))),
                ],
            )
        )
    return rows[::-1]
