"""What `ocr-tui status` prints without `--json`: a plain table of the sessions, or (`--oneline`)
the most relevant one in one short line for a tmux status bar. Terminal-safe: every text that
comes from the sessions' files passes through `safe_line`.

Each session's state is the one vocabulary of every screen and command (`core.states`): the
table's STATUS leads with its glyph, the problem lines with the problem glyph, the one line
with the glyph too. Its columns, cells and words are the dashboard's list's (`core.display`):
the same names (in upper case), the session's time as ELAPSED, the same plan of which columns
give way when the width is short, the same id shortening (the redundant prefix in every row,
then the middle, never the end). The one line adds details in a fixed order while they fit."""

from __future__ import annotations

import argparse
import os
import shutil
from collections.abc import Callable
from datetime import UTC, datetime

from rich.cells import cell_len

from ocr_tui.core import columns, display, registry, rounds
from ocr_tui.core.cells import clip_end, clip_words, take
from ocr_tui.core.cells import elide_middle as _elide_middle
from ocr_tui.core.registry import is_host
from ocr_tui.core.states import agent_stale, glyph, session_state
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import zone_name
from ocr_tui.core.view import Round, SessionView

ONELINE_WIDTH = 60  # a tmux status bar's share
GAP = 2  # spaces between the table's columns


# --- the width to fit --------------------------------------------------------------------------


def columns_arg(text: str) -> int:
    """`--max-width N`'s argparse type: a number of columns, 0 for no limit."""
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"not a number of columns: {text!r}")
    return value


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


def _round_bits(v: SessionView) -> tuple[str, int, Round | None]:
    """(`R2` or `M1`, reviewers, the round) of the current round, whose distinct findings
    `rounds.findings_text` says as `status --json` and `ocr-tui findings` count them (merged
    across reviewers; `—` before any is in). A map session's unit is its map run: no round's
    (`display.unit_round`)."""
    cur = display.unit_round(v)
    reviewers = len(cur.reviewers) if cur else 0
    return display.round_text(v) or "—", reviewers, cur


def status_cell(v: SessionView) -> str:
    """The session's state glyph (`core.states`, as the dashboard's list shows it), then the
    word that says why, where the glyph means more than the status: `⚠ stalled`, `◆ waiting
    on you`, `! stale agent` (each implies active), else the status (`● active`, `✓ closed`).
    The word comes first so a narrow column keeps it (`! stale`, never `! active`)."""
    state = session_state(v)
    if state == "stalled":
        words = "stalled"
    elif state == "input":
        # one phrase: a narrow column drops it whole, never to `waiting on` (`clip_words`)
        words = f"waiting{NBSP}on{NBSP}you"
    elif state == "alert" and not v.alerts and agent_stale(v):
        words = "stale agent"  # `! stale` in the least room
    else:
        words = safe_line(v.status)
    return f"{glyph(state)} {words}"


NBSP = "\u00a0"  # joins a phrase's words for `clip_words`; a space again when printed


BLANK = "—"  # "not known (yet)", as on every screen


def _verdict(v: SessionView, cur: Round | None) -> str:
    """The round's verdict (the list's Verdict cell); a map run has none."""
    if cur is not None and cur.verdict:
        return safe_line(cur.verdict)
    return BLANK


def row(v: SessionView, now: datetime) -> dict[str, str]:
    """Every cell of a session's row, by column key (`display.COLUMNS`): the list's cells, in
    the same words (the list's glyph column is STATUS' first cell)."""
    cur = display.unit_round(v)
    rnd, reviewers, findings = _round_bits(v)
    return {
        "project": safe_line(v.project) if v.project else BLANK,
        "id": safe_line(display.local_id(v)),
        "status": status_cell(v),
        "format": display.format_short(v.framework),
        "flow": display.flow_text(v) or BLANK,
        "phase": _phase(v),
        "round": rnd,
        "reviewers": str(reviewers) if cur else BLANK,
        "findings": rounds.findings_text(findings) if cur else BLANK,
        "verdict": _verdict(v, cur),
        "agents": display.agents_text(v) or BLANK,
        "needs": display.needs_text(v) or BLANK,
        "round_time": display.round_time_text(v, now),
        "elapsed": display.elapsed_text(v, now),
        "started": display.started_text(v, now),
        "activity": display.activity_text(v.last_activity, now),
    }


def header(spec: columns.Spec) -> str:
    """The list's column name in upper case (`Needs`: NEEDS); STARTED names its zone."""
    name = spec.header.upper()
    return f"{name} ({zone_name()})" if spec.key == "started" else name


def _short_verdict(text: str, width: int) -> str:
    """A verdict in a VERDICT column planned short: its short form (`CHANGES`), then cut."""
    return clip_end(columns.short_verdict(text), width)


# How a cell is cut when its column is narrower (the id: `display.shorten_id`, below).
CUTS: dict[str, Callable[[str, int], str]] = {"status": clip_words, "verdict": _short_verdict}


def plan_columns(
    sessions: list[SessionView], now: datetime, width: int | None
) -> tuple[list[columns.Shown], list[dict[str, str]]]:
    """The columns shown (as the dashboard's list plans them: `columns.plan`, for the same
    formats and projects) and the rows' cells. `width` None: every column that applies, each
    as wide as its widest cell."""
    cells = [row(v, now) for v in sessions]
    formats = {v.framework for v in sessions}
    # A session's project is named only when several are read (one of them, `--session`,
    # still needs it said): then the column is there.
    projects = {v.project for v in sessions if v.project}
    natural: dict[str, int] = {}
    for r in cells:
        for key, text in r.items():
            if text != BLANK:
                natural[key] = max(natural.get(key, 0), cell_len(text))
    several = 2 if projects else 1
    specs = [s for s in columns.STATUS_COLUMNS if columns.applies(s, formats, several)]
    labels = {s.key: header(s) for s in specs}
    if width is None:
        widths = {s.key: max([cell_len(labels[s.key])] + [cell_len(r[s.key]) for r in cells])
                  for s in specs}  # fmt: skip
        return [columns.Shown(s.key, labels[s.key], widths[s.key]) for s in specs], cells
    keep = display.ambiguous([r["id"] for r in cells], [r["project"] for r in cells])
    natural["id_core"] = max((cell_len(display.shown_id(r["id"], True, keep)) for r in cells),
                             default=0)  # fmt: skip
    planned = columns.planned(formats, projects, phase_labels=registry.phase_labels)
    # Columns are GAP apart, the last with none after it.
    shown = columns.plan(
        specs, natural, width + GAP, labels=labels, planned=planned, padding=GAP, fill=False
    )
    return shown, cells


def table(
    sessions: list[SessionView], width: int | None = None, now: datetime | None = None
) -> str:
    """A plain table, fitted to `width` cells (None: nothing cut) as the dashboard's list
    is: the same columns by the same names (in upper case), the same cells, the same plan of
    which give way first when the width is short (`core.display`). STATUS is the state's
    glyph (as on every screen: `core.states`) and the status; RND, REV (reviewers), FIND
    (distinct findings), VERDICT and ROUND TIME are OCR's; FMT (when several formats are
    shown), AGENTS and NEEDS the other formats'; ELAPSED is the whole session's time. When
    the SESSION column is narrower than its widest id, every id loses its redundant prefix
    (its day, which STARTED says), then its middle. Then one line per problem, led by the
    problem glyph."""
    now = now or datetime.now(UTC)
    shown, cells = plan_columns(sessions, now, width)
    widest = max((cell_len(r["id"]) for r in cells), default=0)
    keep = display.ambiguous([r["id"] for r in cells], [r["project"] for r in cells])
    rows = [tuple(s.label for s in shown)]
    for r in cells:
        line = []
        for s in shown:
            text = r[s.key]
            if s.key == "id":
                drop = display.drops_prefix(widest, s.width)
                text = display.shorten_id(text, s.width, drop=drop, keep=keep)
            elif cell_len(text) > s.width:
                text = CUTS.get(s.key, clip_end)(text, s.width)
            line.append(text.replace(NBSP, " "))
        rows.append(tuple(line))
    lines = align(rows, width)
    for v in sessions:
        for p in v.problems:
            lines += wrap(f"{glyph('problem')} {safe_line(v.id)}: {safe_line(p)}", width)
    return "\n".join(lines)


def align(rows: list[tuple[str, ...]], width: int | None = None) -> list[str]:
    """Rows of cells (already safe to print and cut to their columns; the first one the
    header) as lines of left-aligned columns, two spaces apart, each as wide as its widest
    cell; every line at most `width` cells long (None: nothing cut)."""
    if not rows:
        return []
    widths = [max(cell_len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [cell + " " * (w - cell_len(cell)) for cell, w in zip(r, widths, strict=True)]
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


# --- the one line --------------------------------------------------------------------------------

# `--oneline` starts from its least (the state glyph, the id without its date, the phase's
# position, Elapsed, what needs you) and adds the details in this order while the line fits,
# stopping at the first that does not, so a narrower limit only ever leaves out more:
FINDINGS = "findings"  # the findings count, the problem count
PHASE = "phase"  # the phase label, cut to PHASE_SHORT cells (its position kept)
ROUND = "round"  # the round (or map run)
VERDICT = "verdict"  # the verdict; other formats: the agents summary, the first alert
PHASE_WHOLE = "phase whole"  # the phase label whole
KIND = "kind"  # the kind word (`map`; other formats': `code fast`), but OCR's usual `review`
REVIEWERS = "reviewers"  # the reviewer count
DATE = "date"  # an id's redundant prefix (`display.id_core`: what is left is the branch)
KIND_REVIEW = "review"  # the kind word when it is OCR's usual `review`
ADDS = (FINDINGS, PHASE, ROUND, VERDICT, PHASE_WHOLE, KIND, REVIEWERS, DATE, KIND_REVIEW)
ALWAYS = "always"  # a part never left out (Elapsed, what needs you)
PHASE_SHORT = 12  # the phase as the PHASE detail adds it: `4/8 Paralle…`
LABEL_LEAST = 4  # cells of the phase label worth showing, `…` included


def oneline(
    sessions: list[SessionView], width: int | None = ONELINE_WIDTH, now: datetime | None = None
) -> str:
    """The most relevant session (newest running, else newest) in one line of at most `width`
    cells (None: no limit), in the list's words: its state glyph, id, format and flow, phase,
    then its round (`R2`, `M1`), reviewers, findings, verdict (or what needs you), Elapsed
    (the whole session's time) and problems. The details come in the order of `ADDS` while
    they fit; the room the first one that does not fit leaves goes to the phase label (cut at
    its end). When even the least line is too long, the id is cut in the middle, then the
    line's end."""
    now = now or datetime.now(UTC)
    if not sessions:
        return "ocr: no sessions"
    running = [v for v in sessions if v.running]
    pick = max(running or sessions, key=lambda v: v.last_activity or "")
    if width is None:
        return _oneline(pick, set(ADDS), now)
    adds: set[str] = set()
    line = _oneline(pick, adds, now)
    if cell_len(line) > width:  # the id gives way (in the middle), then the line's end
        sid = _id(pick, adds)
        short = elide_middle(sid, max(8, cell_len(sid) - (cell_len(line) - width)))
        return clip_end(_oneline(pick, adds, now, short), width)
    for add in ADDS:
        longer = _oneline(pick, adds | {add}, now)
        if cell_len(longer) > width:
            break
        adds.add(add)
        line = longer
    else:
        return line
    return _fill_phase(pick, adds, now, line, width)


def _fill_phase(v: SessionView, adds: set[str], now: datetime, line: str, width: int) -> str:
    """`line` with the phase label taking the room left (once the findings are in, and while
    the label is cut), up to the whole label."""
    spare = width - cell_len(line)
    if spare <= 0 or FINDINGS not in adds or PHASE_WHOLE in adds:
        return line
    position = _position(v)
    shown = _phase_text(v, adds)
    room = cell_len(shown) + spare + (0 if shown else -1)  # no phase yet: its space too
    if PHASE not in adds and room < cell_len(position or "") + 1 + LABEL_LEAST:
        return line
    filled = _oneline(v, adds | {PHASE}, now, phase_cells=room)
    return filled if cell_len(filled) <= width else line


def _id(v: SessionView, adds: set[str]) -> str:
    """The id, without its date until DATE is added; with several projects led by its
    project's name (`api/main`)."""
    sid = safe_line(display.local_id(v))
    sid = sid if DATE in adds else display.id_core(sid)
    return f"{safe_line(v.project)}/{sid}" if v.project else sid


def _phase_text(v: SessionView, adds: set[str], cells: int | None = None) -> str:
    """The phase as the line shows it: whole, cut (to `cells`, else PHASE_SHORT), or its
    position alone (a format with no ladder of phases: its label cut)."""
    phase = _phase(v)
    position = _position(v)
    if PHASE_WHOLE in adds:
        return phase
    if PHASE in adds or position is None:
        cut = clip_end(phase, cells or PHASE_SHORT)
        return cut if cut == phase else cut[:-1].rstrip() + "…"  # not `Parallel …`
    return position


def _oneline(
    v: SessionView,
    adds: set[str],
    now: datetime,
    sid: str | None = None,
    phase_cells: int | None = None,
) -> str:
    rnd, reviewers, findings = _round_bits(v)
    flow = display.flow_text(v)
    if is_host(v.framework):
        kind, kind_add = flow, KIND_REVIEW if v.workflow == "review" else KIND
    else:  # the Fmt and Flow columns' words: `code fast`, `analysis`
        kind = " ".join(x for x in (display.format_short(v.framework), flow) if x)
        kind_add = KIND
    head = [glyph(session_state(v)), _id(v, adds) if sid is None else sid]
    if kind_add in adds:
        head.append(kind)
    head.append(_phase_text(v, adds, phase_cells))
    parts: list[tuple[str, str]] = []  # (text, the detail it is)
    if not is_host(v.framework):
        parts += [(safe_line(v.summary), VERDICT)] if v.summary else []
        needs = display.needs_text(v)  # `your approval` stays: it is what needs you
        parts += [(needs, ALWAYS if v.waiting else VERDICT)] if needs else []
    elif not display.is_map(v) and (v.workflow == "review" or v.rounds):
        parts.append((rnd, ROUND))
        if findings is not None:  # no round directory yet: no reviewers, no findings to say
            parts.append((f"{reviewers} reviewer{'s' if reviewers != 1 else ''}", REVIEWERS))
        if findings is not None:  # `— findings`: nothing is in yet
            parts.append((f"{rounds.findings_text(findings)} findings", FINDINGS))
        cur = display.unit_round(v)
        if cur and cur.verdict:
            parts.append((safe_line(cur.verdict), VERDICT))
    elif v.current_map_run:
        parts.append((rnd, ROUND))
        if display.map_run_text(v):
            parts.append((display.map_run_text(v), VERDICT))
    parts.append((display.elapsed_text(v, now) + (" stalled" if v.stalled else ""), ALWAYS))
    if v.problems:
        n = len(v.problems)
        parts.append((f"{n} problem{'s' if n != 1 else ''}", FINDINGS))
    kept = [text for text, what in parts if what == ALWAYS or what in adds]
    return " · ".join([" ".join(x for x in head if x), *kept])
