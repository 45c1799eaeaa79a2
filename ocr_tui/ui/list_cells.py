"""The session list's cells: what each column holds for a session, in every format.

A cell is data (segments of text and a style name), compared to skip no-op updates; the table
turns it into `rich.text.Text` with foreground-only styles (the row owns the background). The
id cell is an `IdText`: it keeps the whole id and, where its column is narrower, drops the
date prefix or elides the middle, never the end (the part that tells sessions apart).
"""

from __future__ import annotations

import re
from datetime import datetime

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from ocr_tui.core.timeutil import human_duration
from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt

# A cell as data: segments of (text, style name or ""); compared to skip no-op updates.
Cell = tuple[tuple[str, str], ...]
DASH: Cell = (("—", "muted"),)
BAR_WIDTH = 8  # cells of the phase bar (the longest built-in workflow has 8 phases)
TEXT_CAP = 60  # no cell text from disk is longer (the column clips it further)
TICKING = ("round_time", "elapsed", "activity")  # the only columns time alone changes
# A format's only workflow: said by the format column already, so not in the flow column.
DEFAULT_FLOW = {"idumb": "session", "analysis": "analysis", "code": "code"}

# `2026-11-23-` (OCR), `261123-` (code workflow): the day, which the time columns show.
_DATE_PREFIX = re.compile(r"^(?:\d{4}-\d{2}-\d{2}|\d{6})[-_](?=.)")


def elide_id(text: str, width: int) -> str:
    """`text` in `width` cells: whole; else without its date prefix; else elided in the
    middle keeping more of the end (`feat-li…ld-cache`), never cut at the end."""
    if len(text) <= width:
        return text
    m = _DATE_PREFIX.match(text)
    if m:
        text = text[m.end() :]
        if len(text) <= width:
            return text
    if width <= 1:
        return "…"[:width]
    tail = (width - 1) * 3 // 5
    head = width - 1 - tail
    return f"{text[:head]}…{text[-tail:]}" if tail else f"{text[:head]}…"


class IdText(Text):
    """The id cell: the whole id (`plain`), drawn to fit its column by `elide_id`; carries
    the session id so `DataTable.sort` can order rows by key."""

    session_id: str

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        if self.cell_len <= width:
            yield from super().__rich_console__(console, options)
            return
        style = self.spans[0].style if self.spans else self.style
        short = Text(elide_id(self.plain, width), style=style, no_wrap=True, end="")
        yield from short.__rich_console__(console, options)


class Bars:
    """Whether the phase column draws its bars: the table's, shared by its phase cells."""

    shown = True


class PhaseText(Text):
    """The phase cell: where its column is narrower than its cells, the bars go first (the
    fraction says the same; in every row, so they line up), then the label is cut at its
    end."""

    bar: int = 0  # cells of the bar and its padding, at the start
    bars: Bars = Bars()

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.bar and (not self.bars.shown or self.cell_len > options.max_width):
            yield from self[self.bar :].__rich_console__(console, options)
        else:
            yield from super().__rich_console__(console, options)


def flow_text(view: SessionView) -> str:
    """The workflow when it says more than the format: OCR's review / map, the code
    workflow's `fast`; "" for a format's only workflow (`code code` said nothing)."""
    w, f = view.workflow, view.framework
    for name in (f, fmt.framework_short(f)):
        if w == name:
            return ""
        if w.startswith(name + ":"):
            return fmt.safe(w[len(name) + 1 :], 12)
    return "" if DEFAULT_FLOW.get(f) == w else fmt.safe(w, 12)


def session_seconds(view: SessionView, now: datetime) -> int | None:
    """The whole session's time, in every format: start to now while it runs, else to its
    end. OCR's own elapsed counts from the round's (or map run's) start; its end is the
    same."""
    el = view.elapsed
    start, since = fmt.ts(view.started_at), fmt.ts(el.since)
    if start is None or since is None or start >= since:
        return fmt.elapsed_seconds(view, now)
    if el.running:
        return max(0, int((now - start).total_seconds()))
    if el.seconds is None:
        return None
    return max(0, int((since - start).total_seconds()) + el.seconds)


def coarse_duration(seconds: int | None) -> str:
    """Whole minutes once past the first one (a running row changes once a minute)."""
    if seconds is not None and 60 <= seconds < 600:
        return f"{seconds // 60}m"
    return human_duration(seconds)


def needs_cell(view: SessionView) -> Cell:
    """What needs attention: a gate waiting on you, else the first alert."""
    if view.waiting:
        return (("your approval", "bad"),)
    if view.alerts:
        return ((fmt.safe(view.alerts[0], TEXT_CAP), "bad"),)
    return DASH


def round_cell(view: SessionView) -> Cell:
    """`R2` (review round 2) or `M1` (map run 1): the unit the session is in."""
    if view.workflow == "map" and view.current_map_run:
        return ((f"M{view.current_map_run}", ""),)
    return ((f"R{view.current_round}", ""),) if view.current_round else DASH


def verdict_cell(verdict: str | None) -> Cell:
    if not verdict:
        return DASH
    tone = fmt.verdict_tone(verdict)
    return ((fmt.safe(verdict, TEXT_CAP), {"good": "good", "bad": "bad"}.get(tone, "")),)


def phase_cell(view: SessionView) -> Cell:
    """The bar and the fraction give the place among the phases (the same in every format);
    the label the phase's name, without a place it starts with (iDumb's free text)."""
    fraction, label = fmt.phase_parts(view)
    done, todo = fmt.phase_bar(fmt.phase_position(view), view.phase_total)
    pad = " " * max(0, BAR_WIDTH - view.phase_total)
    return (
        (done, "bar-done"),
        (todo, "bar-todo"),
        (f"{pad} ", "muted"),  # the first three: the bar (PhaseText drops it when narrow)
        (f"{fraction:>3} ", "muted"),
        (fmt.safe(label, TEXT_CAP), ""),
    )


def row_cells(view: SessionView, now: datetime) -> dict[str, Cell]:
    """Every cell of a session's row; the table shows the columns that apply and fit."""
    state = fmt.session_state(view)
    ocr = view.framework == "ocr"
    current = view.current if ocr else None
    flow = flow_text(view)
    cells: dict[str, Cell] = {
        "state": ((fmt.glyph(state), state),),
        "id": ((fmt.safe(view.id), ""),),
        "format": ((fmt.framework_short(view.framework), "muted"),),
        "flow": ((flow, ""),) if flow else DASH,
        "phase": phase_cell(view),
        "round": round_cell(view) if ocr else DASH,
        "reviewers": ((str(len(current.reviewers)), ""),) if current else DASH,
        # a round's distinct findings, as `findings` and the round's screen count them
        "findings": ((str(current.findings), ""),) if current else DASH,
        "verdict": verdict_cell(current.verdict if current else None),
        "agents": ((fmt.safe(view.summary, TEXT_CAP), "muted"),) if view.summary else DASH,
        "needs": needs_cell(view),
        "started": ((started_text(view, now), "muted"),),
    }
    cells.update(clock_cells(view, now))
    return cells


def clock_cells(view: SessionView, now: datetime) -> dict[str, Cell]:
    """The cells time alone changes (TICKING)."""
    tone = "" if view.elapsed.running else "muted"
    return {
        "round_time": ((fmt.elapsed_text(view, now, coarse=True), tone),),
        "elapsed": ((coarse_duration(session_seconds(view, now)), tone),),
        "activity": ((activity_text(view.last_activity, now), ""),),
    }


STARTED_ROOM = 12  # the started column's widest cell (list_layout's cap)


def started_text(view: SessionView, now: datetime) -> str:
    """`fmt.when`'s clock time without the zone (the column header names it): `14:02` today,
    `Mar 10 14:02` this year, the date alone (`2025-11-17`) before; "—" when not known."""
    text = fmt.when(fmt.started_at(view), now, "cell")
    if len(text) > STARTED_ROOM:
        text = text.split()[0]
    return text or "—"


def activity_text(value: str | None, now: datetime) -> str:
    """`fmt.when`'s relative time (`12m ago`), without a seconds count: the text changes at
    10 s and then once a minute (a cell changing every second repaints the whole list: ~6 %
    of a core with three sessions active)."""
    at = fmt.ts(value)
    if at is None:
        return "—"
    if 10 <= (now - at).total_seconds() < 60:
        return "<1m ago"
    return fmt.when(at, now, "ago")


def cell_width(cell: Cell) -> int:
    return sum(len(text) for text, _ in cell)


def is_blank(cell: Cell) -> bool:
    return cell == DASH or not any(text for text, _ in cell)
