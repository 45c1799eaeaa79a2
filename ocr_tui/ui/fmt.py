"""Presentation helpers shared by the dashboard's screens and widgets: a session's state glyph,
times, the phase bar, verdicts, paths, labelled values, the markers' legend. Pure functions (no
IO, no Textual); everything from disk that comes out of here has been through
`ocr_tui.core.textsafe`. Helpers that need the theme or a widget are in `ocr_tui.ui.style`.

Times follow one convention, from one formatter, `when`: local time with the zone named
(`19:33 UTC`), the absolute time first and, where there is room, how long ago in parentheses
(`19:33 UTC (12m ago)`); where there is none, the relative time alone (`12m ago`). See `when`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path

from rich.cells import cell_len

from ocr_tui.core import display, rounds
from ocr_tui.core.cells import take
from ocr_tui.core.display import format_label, format_short
from ocr_tui.core.states import (  # noqa: F401 (shared names)
    PHASE_MARKS,
    STATES,
    glyph,
    session_state,
)
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import human_duration, human_relative, local_clock, zone_name  # noqa: F401
from ocr_tui.core.view import MapRun, Round, SessionView

# The formats' names: one table (core.display), for the list, status and every screen.
framework_short = format_short
framework_label = format_label
SEVERITY_KEYS = ("critical", "high", "medium", "low", "info")


duration = human_duration  # `45s`, `12m`, `1h 05m`; "—" for None


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


def clip(text: str, width: int) -> str:
    """Cut to `width` characters with an ellipsis."""
    return text if len(text) <= width else text[: max(0, width - 1)] + "…"


def safe(text: object, width: int | None = None) -> str:
    """Disk text for one line on screen: control characters made visible, then clipped."""
    out = safe_line(text)
    return clip(out, width) if width else out


def display_path(path: Path | str) -> str:
    """`~/code/proj` for paths under the home directory; made safe to print."""
    p = Path(path)
    try:
        home = Path(os.path.expanduser("~"))
        rel = p.relative_to(home)
        text = "~" if str(rel) == "." else f"~{os.sep}{rel}"
    except ValueError:
        text = str(p)
    return safe_line(text)


def home_paths(text: str) -> str:
    """`text` with the home directory written `~` where a path starts with it (a fact's
    `/home/me/proj/out` reads `~/proj/out`, as `display_path` shows paths)."""
    home = os.path.expanduser("~").rstrip(os.sep)
    if not home or home == "~" or home not in text:
        return text
    sep = re.escape(os.sep)
    return re.sub(rf"(?<![\w.{sep}]){re.escape(home)}(?=$|{sep}|\s)", "~", text)


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


def timeline_unit(view: SessionView) -> str:
    """Whose phases an OCR session's timeline shows when it has had more than one round or
    map run: its current one, as the list's Rnd column says it (`R2`; `M1` after a review);
    "" otherwise."""
    if view.framework != "ocr":
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


# NO-BREAK SPACE: words joined by it wrap as one (`2 critical`, never `2` / `critical`) in a
# FitTable's cells, which draw it as a space (`ui.phrases`: Rich alone would break at it).
KEEP_TOGETHER = "\u00a0"


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


def words(raw: str) -> str:
    """A format's enum value in words: `in_progress` -> `in progress` (made safe)."""
    return safe_line(raw).replace("_", " ").strip()


# -- labelled values: labels sized to their content, values wrapped at words -------------------


def clip_cells(text: str, width: int) -> str:
    """Cut to `width` terminal cells, ending in `…` when cut (wide characters count two)."""
    if cell_len(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    return take(text, width - 1).rstrip() + "…"


def wrap(text: str, width: int) -> list[str]:
    """`text` (one line) in lines of at most `width` cells, broken at spaces only: a word
    longer than a line (an id, a path) is never split across lines, it ends in `…`."""
    width = max(1, width)
    lines: list[str] = []
    line = ""
    for word in text.split():
        word = clip_cells(word, width)
        if not line:
            line = word
        elif cell_len(line) + 1 + cell_len(word) <= width:
            line += " " + word
        else:
            lines.append(line)
            line = word
    lines.append(line)
    return lines


MIN_VALUE = 16  # below this the values go under their labels


def label_width(labels: Sequence[str]) -> int:
    """The label column: as wide as the longest label (labels are never cut beside values)."""
    return max((cell_len(x) for x in labels), default=0)


def labelled_lines(rows: Sequence[tuple[str, str]], width: int) -> list[tuple[int, str, str]]:
    """Label/value rows laid out in `width` cells, as `(row index, label cell, value line)`:
    the label column is as wide as the longest label (`label_width`), each value wraps at
    words under itself (the label cell is blank on its further lines). Where that would leave
    the values fewer than MIN_VALUE cells, each label gets a line of its own and its value
    follows, indented by 2."""
    lw = label_width([label for label, _ in rows])
    out: list[tuple[int, str, str]] = []
    stacked = width - lw - 1 < MIN_VALUE
    for i, (label, value) in enumerate(rows):
        if stacked:
            out.append((i, clip_cells(label, width), ""))
            out += [(i, "  ", line) for line in wrap(value, width - 2)]
            continue
        cell = label + " " * (lw - cell_len(label) + 1)
        for j, line in enumerate(wrap(value, width - lw - 1)):
            out.append((i, cell if j == 0 else " " * (lw + 1), line))
    return out


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
