"""What `ocr-tui status` prints without `--json`: a plain table of the sessions, or (`--oneline`)
the most relevant one in one short line for a tmux status bar. Terminal-safe: every text that
comes from the sessions' files passes through `safe_line`.

Each session's state is the one vocabulary of every screen and command (`core.states`): the
table's STATUS leads with its glyph, the problem lines with the problem glyph, the one line
with the glyph too. Both fit a width (`fit_widths`, `oneline`): the table gives up its least
useful columns and cuts long cells (ids in the middle, so a branch name stays readable), the
one line drops details in a fixed order."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass

from rich.cells import cell_len

from ocr_tui.core.cells import clip_end, clip_words, take  # noqa: F401 (their users here)
from ocr_tui.core.cells import elide_middle as _elide_middle
from ocr_tui.core.states import glyph, session_state
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import human_duration
from ocr_tui.core.view import SessionView

ONELINE_WIDTH = 60  # a tmux status bar's share
GAP = 2  # spaces between the table's columns


# --- the width to fit --------------------------------------------------------------------------


def output_width(stream, environ: dict[str, str] | None = None) -> int | None:
    """The width the table fits by default: the terminal's when `stream` is one (COLUMNS, when
    set, wins, as `shutil.get_terminal_size` has it); through a pipe or into a file, COLUMNS
    when it is set (as `ls` does), else None: nothing is cut, so `status | less -S` and `grep`
    see every cell whole."""
    environ = os.environ if environ is None else environ
    columns = _positive_int(environ.get("COLUMNS"))
    try:
        tty = bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        tty = False
    if not tty:
        return columns
    return columns or _positive_int(shutil.get_terminal_size().columns)


def _positive_int(text: object) -> int | None:
    try:
        value = int(str(text))
    except ValueError:
        return None
    return value if value > 0 else None


# --- cutting text to a number of cells ---------------------------------------------------------


def elide_middle(text: str, width: int) -> str:
    """`text` in `width` cells by dropping its middle: it keeps its end, the part of an id that
    names the branch (`2026…feature-login-page`), and a little of its start (4 cells at most)."""
    return _elide_middle(text, width, head_max=4)


# --- the table ---------------------------------------------------------------------------------


def _round_bits(v: SessionView) -> tuple[str, int, int]:
    """(`R2`, reviewers, distinct findings) of the current round: the findings as `status
    --json` and `ocr-tui findings` count them (merged across reviewers)."""
    cur = v.current
    reviewers = len(cur.reviewers) if cur else 0
    findings = cur.findings if cur else 0
    return (f"R{v.current_round}" if v.current_round else "—"), reviewers, findings


def _elapsed(v: SessionView) -> str:
    return human_duration(v.elapsed.seconds) if v.elapsed.seconds is not None else "—"


def status_cell(v: SessionView) -> str:
    """The session's state glyph (`core.states`, as the dashboard's list shows it), then its
    status and what qualifies it."""
    words = safe_line(v.status)
    words += " stalled" if v.stalled else ""
    words += " waiting on you" if v.waiting else ""
    return f"{glyph(session_state(v))} {words}"


@dataclass(frozen=True)
class Fit:
    """How a column gives way when the table is too wide: cut with `cut` down to `comfort`
    cells, then (once the columns in DROP_BEFORE_SQUEEZE are gone) down to `least`."""

    least: int
    comfort: int
    cut: Callable[[str, int], str] = clip_end


# The columns that may be cut, and how. The others are short (a count, `R2`, `12m`) and are
# dropped whole, never cut.
FITS: dict[str, Fit] = {
    "SESSION": Fit(16, 28, elide_middle),
    "STATUS": Fit(8, 16, clip_words),
    "PHASE": Fit(12, 24),
    "VERDICT": Fit(8, 16),
    "AGENTS": Fit(10, 20),
    "ALERT": Fit(12, 30),
}
# What goes first when even the cut cells do not fit: first what says least (WORKFLOW is
# nearly always `review`; REV and AGENTS are detail), then, once the cut columns are at their
# least, the rest from the least to the most telling. SESSION and STATUS stay.
DROP_BEFORE_SQUEEZE = ("WORKFLOW", "REV", "AGENTS")
DROP_AFTER_SQUEEZE = ("ROUND", "FIND", "VERDICT", "ALERT", "FORMAT", "ELAPSED", "PHASE")
# Who gets the room left once the table fits, in this order: each up to its comfort, then
# each up to its widest cell.
GROW = ("SESSION", "PHASE", "ALERT", "STATUS", "VERDICT", "AGENTS")


def fit_widths(rows: list[tuple[str, ...]], width: int | None) -> list[int | None]:
    """Each column's width for `width` cells (None: dropped), from the rows' cells (the first
    row is the header, which names the columns). `width` None: every column at its widest."""
    head = rows[0]
    natural = [max(cell_len(r[i]) for r in rows) for i in range(len(head))]
    if width is None or _need(natural) <= width:
        return list(natural)
    index = {name: i for i, name in enumerate(head)}

    def floors(level: str) -> list[int | None]:
        out: list[int | None] = []
        for name, wide in zip(head, natural, strict=True):
            fit = FITS.get(name)
            if fit is None:
                out.append(wide)
            else:
                least = fit.comfort if level == "comfort" else fit.least
                out.append(min(wide, max(least, cell_len(name))))
        return out

    steps: list[tuple[str, str | None]] = [("comfort", None)]
    steps += [("comfort", name) for name in DROP_BEFORE_SQUEEZE]
    steps += [("least", None)]
    steps += [("least", name) for name in DROP_AFTER_SQUEEZE]
    dropped: set[int] = set()
    widths = floors("comfort")
    for level, drop in steps:
        if drop is not None:
            if drop not in index:
                continue
            dropped.add(index[drop])
        widths = [None if i in dropped else w for i, w in enumerate(floors(level))]
        if _need(widths) <= width:
            break
    spare = width - _need(widths)
    for level in ("comfort", "natural"):  # first each to its comfort, then each to its widest
        for name in GROW:
            i = index.get(name)
            w = widths[i] if i is not None else None
            if w is None or spare <= 0:
                continue
            goal = natural[i] if level == "natural" else min(natural[i], FITS[name].comfort)
            more = max(0, min(spare, goal - w))
            widths[i] = w + more
            spare -= more
    return widths


def _need(widths: list[int | None]) -> int:
    kept = [w for w in widths if w is not None]
    return sum(kept) + GAP * max(0, len(kept) - 1)


def align(rows: list[tuple[str, ...]], width: int | None = None) -> list[str]:
    """Rows of cells (already safe to print; the first one the header) as lines of
    left-aligned columns, two spaces apart, fitted to `width` cells (see `fit_widths`):
    every line at most `width` cells long. None: nothing cut."""
    if not rows:
        return []
    widths = fit_widths(rows, width)
    cuts = [FITS[name].cut if name in FITS else clip_end for name in rows[0]]
    lines = []
    for r in rows:
        cells = []
        for cell, w, cut in zip(r, widths, cuts, strict=True):
            if w is None:
                continue
            text = cut(cell, w)
            cells.append(text + " " * (w - cell_len(text)))
        line = (" " * GAP).join(cells).rstrip()
        lines.append(line if width is None else clip_end(line, width))
    return lines


def wrap(text: str, width: int | None, indent: str = "  ") -> list[str]:
    """`text` in lines of at most `width` cells, broken between words (a word longer than a
    line is cut), the lines after the first indented. None: one line."""
    if width is None or cell_len(text) <= width:
        return [text]
    lines: list[str] = []
    rest = text
    while rest:
        room = max(1, width - (cell_len(indent) if lines else 0))
        if cell_len(rest) <= room:
            lines.append(rest)
            break
        chunk = take(rest, room) or rest[0]
        space = chunk.rfind(" ")
        if rest[len(chunk)] != " " and space > 0:
            chunk = chunk[:space]
        lines.append(chunk.rstrip(" "))
        rest = rest[len(chunk) :].lstrip(" ")
    return [lines[0], *(indent + ln for ln in lines[1:])]


def table(sessions: list[SessionView], width: int | None = None) -> str:
    """A plain table, fitted to `width` cells (None: nothing cut). Each column means one thing
    in every format, or is "—": STATUS is the state's glyph (as on every screen: `core.states`)
    and the status; ROUND, REV (reviewers), FIND (distinct findings) and VERDICT are the
    current round's (OCR); when the project holds other formats, FORMAT leads and AGENTS (a
    format's agents summary) and ALERT (its first alert) close, "—" for OCR sessions. Then one
    line per problem, led by the problem glyph."""
    mixed = any(v.framework != "ocr" for v in sessions)
    head = ("SESSION", "STATUS", "WORKFLOW", "PHASE", "ROUND", "REV", "FIND", "VERDICT", "ELAPSED")
    if mixed:
        head = ("FORMAT", *head, "AGENTS", "ALERT")
    rows = [head]
    for v in sessions:
        rnd, reviewers, findings = _round_bits(v)
        cur = v.current
        row = [
            safe_line(v.id),
            status_cell(v),
            safe_line(v.workflow),
            _phase(v),
            rnd,
            str(reviewers) if v.current_round else "—",
            str(findings) if v.current_round else "—",
            safe_line(cur.verdict) if cur and cur.verdict else "—",
            _elapsed(v),
        ]
        if mixed:
            row = [safe_line(v.framework), *row, safe_line(v.summary or "—"), _alert(v)]
        rows.append(tuple(row))
    lines = align(rows, width)
    for v in sessions:
        for p in v.problems:
            lines += wrap(f"{glyph('problem')} {safe_line(v.id)}: {safe_line(p)}", width)
    return "\n".join(lines)


def _phase(v: SessionView) -> str:
    """The phase the session is in: its position among the workflow's phases, and its label.
    The position is the timeline's current phase (the code workflow's `phase_number` counts
    the phases done, one less), else `phase_number`; none when the format gives no ladder
    (iDumb's free-text phase), and not twice when the label starts with it (iDumb's "2/4 ...")."""
    label = safe_line(v.phase_label)
    position = _position(v)
    if position is None:
        return label
    return label if label.startswith(position) else f"{position} {label}"


def _position(v: SessionView) -> str | None:
    if not v.phase_total:
        return None
    current = next((s.number for s in v.timeline if s.state == "current"), None)
    number = current if current is not None else v.phase_number
    return f"{number or '?'}/{v.phase_total}"


def _alert(v: SessionView) -> str:
    if not v.alerts:
        return "—"
    more = f" (+{len(v.alerts) - 1} more)" if len(v.alerts) > 1 else ""
    return safe_line(v.alerts[0]) + more


# --- the one line --------------------------------------------------------------------------------

DATED_ID = re.compile(r"\d{4}-\d{2}-\d{2}-(?=.)")
NEVER = 99  # a part no level leaves out
# The levels of `--oneline`, each leaving out more than the one before, until the line fits:
KIND_REVIEW = 1  # the kind word when it is OCR's usual `review`
DATE = 2  # an id's `YYYY-MM-DD-` prefix (what is left is the branch)
REVIEWERS = 3  # the reviewer count
SHORT_PHASE = 4  # the phase label cut to 16 cells (its position kept); other kinds' words
VERDICT = 5  # the verdict, the agents summary, the first alert
ROUND = 6  # the round (or map run); the phase down to its position alone
FINDINGS = 7  # the findings count, the problem count
LEVELS = 8


def oneline(sessions: list[SessionView], width: int | None = ONELINE_WIDTH) -> str:
    """The most relevant session (newest running, else newest) in one line of at most `width`
    cells (None: no limit): its state glyph, id and phase, then its round, reviewers,
    findings, verdict, elapsed time and problems. When the whole line is too long, details go
    in a fixed order (see the levels above), then the id is cut in the middle, then the end."""
    if not sessions:
        return "ocr: no sessions"
    running = [v for v in sessions if v.running]
    pick = max(running or sessions, key=lambda v: v.last_activity or "")
    line = ""
    for level in range(LEVELS):
        line = _oneline(pick, level)
        if width is None or cell_len(line) <= width:
            return line
    # Still too long: the id gives way (in the middle), then the line's end.
    sid = _id(pick, LEVELS - 1)
    short = elide_middle(sid, max(8, cell_len(sid) - (cell_len(line) - width)))
    return clip_end(_oneline(pick, LEVELS - 1, short), width)


def _id(v: SessionView, level: int) -> str:
    sid = safe_line(v.id)
    return DATED_ID.sub("", sid, count=1) if level >= DATE else sid


def _oneline(v: SessionView, level: int, sid: str | None = None) -> str:
    rnd, reviewers, findings = _round_bits(v)
    if v.framework == "ocr":
        kind, kind_goes = safe_line(v.workflow), KIND_REVIEW if v.workflow == "review" else ROUND
    else:
        kind, kind_goes = f"{safe_line(v.framework)}:{safe_line(v.workflow)}", SHORT_PHASE
    head = [glyph(session_state(v)), _id(v, level) if sid is None else sid]
    if level < kind_goes:
        head.append(kind)
    phase = _phase(v)
    position = _position(v)
    if level >= ROUND and position is not None:
        phase = position
    elif level >= SHORT_PHASE:
        phase = clip_end(phase, 16)
    head.append(phase)
    parts: list[tuple[str, int]] = []  # (text, the level from which it is left out)
    if v.framework != "ocr":
        parts += [(safe_line(x), VERDICT) for x in (v.summary, *v.alerts[:1]) if x]
        if v.waiting:
            parts.append(("waiting on you", NEVER))
    elif v.workflow == "review" or v.rounds:
        parts.append((rnd, ROUND))
        parts.append((f"{reviewers} reviewer{'s' if reviewers != 1 else ''}", REVIEWERS))
        parts.append((f"{findings} finding{'s' if findings != 1 else ''}", FINDINGS))
        cur = v.current
        if cur and cur.verdict:
            parts.append((safe_line(cur.verdict), VERDICT))
    elif v.current_map_run:
        parts.append((f"run {v.current_map_run}", ROUND))
    parts.append((_elapsed(v) + (" stalled" if v.stalled else ""), NEVER))
    if v.problems:
        n = len(v.problems)
        parts.append((f"{n} problem{'s' if n != 1 else ''}", FINDINGS))
    kept = [text for text, goes in parts if level < goes]
    return " · ".join([" ".join(x for x in head if x), *kept])
