"""The session list's cells: what each column holds for a session, in every format.

A cell is data (segments of text and a style name), compared to skip no-op updates; the table
turns it into `rich.text.Text` with foreground-only styles (the row owns the background). The
id cell is an `IdText`: it keeps the whole id and, where its column is narrower than the
widest id, drops the redundant prefix in every row alike, then elides the middle, never the
end (the part that tells sessions apart): `core.display.shorten_id`, as `status` does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable
from datetime import datetime

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text

from ocr_tui.core import columns, display, rounds
from ocr_tui.core.display import (  # noqa: F401 (the list's names for them)
    STARTED_ROOM,
    TEXT_CAP,
    activity_text,
    coarse_duration,
    flow_text,
    session_seconds,
    started_text,
)
from ocr_tui.core.registry import is_host
from ocr_tui.core.view import SessionView
from ocr_tui.ui import fmt

# A cell as data: segments of (text, style name or ""); compared to skip no-op updates.
Cell = tuple[tuple[str, str], ...]
DASH: Cell = (("—", "muted"),)
BAR_WIDTH = 8  # cells of the phase bar (the longest built-in workflow has 8 phases)
BAR_CELLS = BAR_WIDTH + 1  # the bar and the space after it, at the start of a phase cell
TICKING = ("round_time", "elapsed", "activity")  # the only columns time alone changes


def elide_id(text: str, width: int, *, drop: bool | None = None, keep: Collection[str] = ()) -> str:
    """`text` in `width` cells (`display.shorten_id`): whole when it fits; else without its
    redundant prefix, then elided in the middle keeping more of the end (`feat-li…ld-cache`),
    never cut at the end. `drop`: the table's choice for every row (its column is narrower
    than its widest id); None: this id's alone (whether it fits)."""
    if drop is None:
        drop = display.drops_prefix(text_width(text), width)
    return display.shorten_id(text, width, drop=drop, keep=keep)


class IdFit:
    """The table's ids, shared by its id cells: the widest (when the column is narrower,
    every row drops its prefix), those that keep it (`display.ambiguous`) and the widest
    once the prefixes go (`core`, what the column plans for then)."""

    def __init__(self) -> None:
        self.widest = 0
        self.core = 0
        self.keep: frozenset[str] = frozenset()

    def update(self, ids: Iterable[str], groups: Iterable[str] | None = None) -> bool:
        """The table holds `ids` (as its cells show them) now, each of the project in
        `groups` (several projects: ids that read the same in two projects are told apart
        by the Project column, so only those of one project keep their prefix); whether
        that changed what the cells draw."""
        ids = list(ids)
        groups = list(groups) if groups is not None else [""] * len(ids)
        cores = {sid: display.id_core(sid) for sid in ids}  # one pass: 10,000 rows, ~4 ms
        rows = set(zip(groups, ids, strict=True))  # (project, id): each row once
        counts = Counter((g, cores[sid]) for g, sid in rows)
        keep = frozenset(sid for g, sid in rows if counts[(g, cores[sid])] > 1)
        widest = max(map(text_width, cores), default=0)  # (cells: 日本語 is six)
        core = max((text_width(sid if sid in keep else c) for sid, c in cores.items()), default=0)
        changed = (widest, core, keep) != (self.widest, self.core, self.keep)
        self.widest, self.core, self.keep = widest, core, keep
        return changed


class IdText(Text):
    """The id cell: the whole id (`plain`), drawn to fit its column by `elide_id`, the same
    way in every row (`fit`: the table's)."""

    fit: IdFit | None = None

    def plain_form(self, width: int) -> Text | None:
        """The plain Text this cell draws in `width` cells (`row_painter.plain_cell`)."""
        fit = self.fit
        if not display.drops_prefix(fit.widest if fit else self.cell_len, width):
            return self
        style = self.spans[0].style if self.spans else self.style
        text = elide_id(self.plain, width, drop=True, keep=fit.keep if fit else ())
        return Text(text, style=style, no_wrap=True, end="")

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        fit = self.fit
        drop = display.drops_prefix(fit.widest if fit else self.cell_len, width)
        if not drop:
            yield from super().__rich_console__(console, options)
            return
        style = self.spans[0].style if self.spans else self.style
        keep = fit.keep if fit else ()
        text = elide_id(self.plain, width, drop=True, keep=keep)
        short = Text(text, style=style, no_wrap=True, end="")
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

    def plain_form(self, width: int) -> Text | None:
        if self.bar and (not self.bars.shown or self.cell_len > width):
            return self[self.bar :]
        return self

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.bar and (not self.bars.shown or self.cell_len > options.max_width):
            yield from self[self.bar :].__rich_console__(console, options)
        else:
            yield from super().__rich_console__(console, options)


class VerdictText(Text):
    """The verdict cell: in a column planned at the verdicts' short form, the short form
    (`REQUEST CHANGES` → `CHANGES`, `columns.short_verdict`), in its colour."""

    def plain_form(self, width: int) -> Text | None:
        return self if self.cell_len <= width else None  # (the short form: Rich's way)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if self.cell_len > options.max_width:
            short = columns.short_verdict(self.plain)
            if short != self.plain:
                style = self.spans[0].style if self.spans else self.style
                text = Text(short, style=style, no_wrap=True, end="", overflow="ellipsis")
                yield from text.__rich_console__(console, options)
                return
        yield from super().__rich_console__(console, options)


def needs_cell(view: SessionView) -> Cell:
    """What needs attention: a gate waiting on you, else the first alert."""
    text = display.needs_text(view)
    return ((fmt.clip(text, TEXT_CAP), "bad"),) if text else DASH


def round_cell(view: SessionView) -> Cell:
    """`R2` (review round 2) or `M1` (map run 1): the unit the session is in."""
    text = display.round_text(view)
    return ((text, ""),) if text else DASH


def verdict_cell(verdict: str | None) -> Cell:
    if not verdict:
        return DASH
    tone = fmt.verdict_tone(verdict)
    return ((fmt.safe(verdict, TEXT_CAP), {"good": "good", "bad": "bad"}.get(tone, "")),)


BAR_PARTS = 3  # a phase cell's segments that draw its bar


def phase_label_width(cell: Cell) -> int:
    """A phase cell's width without its bar: what the column's cells want (the bar is planned
    apart: `columns.plan`)."""
    return cell_width(cell[BAR_PARTS:])


def phase_cell(view: SessionView) -> Cell:
    """The bar and the fraction give the place among the phases (the same in every format);
    the label the phase's name, without a place it starts with (iDumb's free text)."""
    fraction, label = fmt.phase_parts(view)
    done, todo = fmt.phase_bar(fmt.phase_position(view), view.phase_total)
    pad = " " * max(0, BAR_WIDTH - view.phase_total)
    return (
        (done, "bar-done"),
        (todo, "bar-todo"),
        (f"{pad} ", "muted"),  # the first three (BAR_PARTS): the bar, dropped when narrow
        (f"{fraction:>3} ", "muted"),
        (fmt.safe(label, TEXT_CAP), ""),
    )


def row_cells(view: SessionView, now: datetime) -> dict[str, Cell]:
    """Every cell of a session's row; the table shows the columns that apply and fit."""
    state = fmt.session_state(view)
    ocr = is_host(view.framework)
    # A map session's row says its map run, never the review round it had before.
    current = display.unit_round(view)
    flow = flow_text(view)
    cells: dict[str, Cell] = {
        "state": ((fmt.glyph(state), state),),
        "project": ((fmt.safe(view.project), "muted"),) if view.project else DASH,
        "id": ((fmt.safe(display.local_id(view)), ""),),
        "format": ((display.format_short(view.framework), "muted"),),
        "flow": ((flow, ""),) if flow else DASH,
        "phase": phase_cell(view),
        "round": round_cell(view) if ocr else DASH,
        "reviewers": ((str(len(current.reviewers)), ""),) if current else DASH,
        # a round's distinct findings, as `findings` and the round's screen count them
        "findings": ((rounds.findings_text(current), ""),) if current else DASH,
        # a map run has no verdict (its files are the detail pane's and --oneline's)
        "verdict": verdict_cell(current.verdict if current else None),
        "agents": agents_cell(view),
        "needs": needs_cell(view),
        "started": ((started_text(view, now), "muted"),),
    }
    cells.update(clock_cells(view, now))
    return cells


def agents_cell(view: SessionView) -> Cell:
    text = display.agents_text(view)
    if not text:
        return DASH
    tone = "bad" if display.agents_stale(view) else "muted" if view.summary else ""
    return ((fmt.clip(text, TEXT_CAP), tone),)


def clock_cells(view: SessionView, now: datetime) -> dict[str, Cell]:
    """The cells time alone changes (TICKING)."""
    tone = "" if view.elapsed.running else "muted"
    return {
        "round_time": ((display.round_time_text(view, now), tone),),
        "elapsed": ((display.elapsed_text(view, now), tone),),
        "activity": ((activity_text(view.last_activity, now), ""),),
    }


def cell_width(cell: Cell) -> int:
    """The cell's width in terminal cells: a wide character (日本語, most emoji) takes two."""
    return sum(text_width(text) for text, _ in cell)


def text_width(text: str) -> int:
    """`cell_len`, with ASCII (nearly every cell: 3x faster on 10,000 rows) counted by len."""
    return len(text) if text.isascii() else cell_len(text)


def is_blank(cell: Cell) -> bool:
    return cell == DASH or not any(text for text, _ in cell)
