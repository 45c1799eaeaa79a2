"""The findings table's columns and cells (the findings screen's drawing, without a screen).

Cells are rich `Text` with foreground styles from the theme (`style(variable, bold=...)`,
e.g. `functools.partial(theme_style, widget)`); every string from disk passes `safe_line`.

The columns: severity (with `blocker` after it on a blocker's row), evolution (only when the
round has a round before it to evolve from), title, file:line, reviewers (and triage, when
ocr.db has any). `plan` shares the table's width: the short columns are as wide as their
words, the title, file and reviewers as wide as their longest text when that fits; when it
does not, the short columns take their short words and the room left is shared out, the
title getting the most, so that nothing is cut while another column has room to spare.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from ocr_tui.core.cells import clip_end, elide_path
from ocr_tui.core.states import UNKNOWN
from ocr_tui.core.textsafe import safe_line
from ocr_tui.formats.ocr.api import Finding, is_own

ThemeStyle = Callable[..., Style]

# Short columns first, so severity and evolution stay in view beside long paths.
LABELS = {
    "severity": "Severity",
    "evolution": "Evolution",
    "title": "Title",
    "where": "File:line",
    "reviewers": "Reviewers",
    "triage": "Triage",
}
# The short words of a table too narrow for every text in full: the title, file and
# reviewers get the room.
COMPACT_LABELS = {"severity": "Sev", "evolution": "Evol"}
FULL_LABELS = {key: LABELS[key] for key in COMPACT_LABELS}
SHORT = {
    "critical": "crit", "medium": "med", "resolved": "res", "pending": "pend",
    "acknowledged": "ack", "won't fix": "won't",
}  # fmt: skip
# A triage state in words where its stored spelling is not one (`user_finding_progress`).
TRIAGE_WORDS = {"wont_fix": "won't fix"}
SEVERITY_VAR = {"critical": "error", "high": "error", "medium": "warning", "low": "primary"}
BLOCKER = "blocker"  # after the severity, in the error colour: the word, never a glyph
FLEX = ("title", "where", "reviewers")  # the columns that share the room left
# Short of room, each flexible column gets up to its floor first, then the rest is shared in
# these proportions (a column whose text fits in less gives the rest to the others).
FLOOR = {"title": 12, "where": 12, "reviewers": 11}
WEIGHT = {"title": 4, "where": 3, "reviewers": 2}
REVIEWERS_STEP = 3  # short of room, the reviewers take up to this much more for a name
GAP = 2  # DataTable's cell padding: one cell each side of every column


def columns(evolution: bool, triage: bool) -> list[tuple[str, str]]:
    """The table's (key, label) columns: evolution when the round has a round before it (in
    round 1 it would say `—` on every row), triage when ocr.db has some."""
    keys = ["severity", *(["evolution"] if evolution else []), "title", "where", "reviewers"]
    keys += ["triage"] if triage else []
    return [(key, LABELS[key]) for key in keys]


def where(f: Finding) -> str:
    return safe_line(f.location.text())


def reviewers_text(f: Finding, width: int | None = None) -> str:
    """Every reviewer when they fit in `width` cells; else as many as fit and how many more
    (`principal-1, quality-1 & 2 more`: a count of people, unlike `+2` new findings)."""
    names = [safe_line(r) for r in f.reviewers]
    whole = ", ".join(names)
    if width is None or cell_len(whole) <= width:
        return whole
    for n in range(len(names) - 1, 0, -1):
        text = f"{', '.join(names[:n])} & {len(names) - n} more"
        if cell_len(text) <= width:
            return text
    if len(names) > 1 and cell_len(f"{len(names)} reviewers") <= width:
        return f"{len(names)} reviewers"
    return clip_end(whole, width)


class Plan(NamedTuple):
    """How the table's width is spent: the short words or not, and the cells of the title,
    file:line and reviewers columns."""

    compact: bool
    title: int
    where: int
    reviewers: int


def _share(room: int, need: dict[str, int], floor: dict[str, int]) -> dict[str, int]:
    """`room` cells among the flexible columns: each its floor (or its need, if less) first,
    then one cell at a time to the column furthest below its weighted share, none past its
    need (what is left over stays blank: every text is whole)."""
    got = {k: min(need[k], floor[k]) for k in need}
    rest = room - sum(got.values())
    while rest > 0:
        open_ = [k for k in need if got[k] < need[k]]
        if not open_:
            break
        k = min(open_, key=lambda k: (got[k] / WEIGHT[k], FLEX.index(k)))
        got[k] += 1
        rest -= 1
    return got


def _fixed_width(key: str, shown: Sequence[Finding], compact: bool) -> int:
    label = COMPACT_LABELS.get(key, LABELS[key]) if compact else LABELS[key]
    texts = [cell_text(key, f, compact) for f in shown]
    return max([cell_len(label), *(cell_len(t) for t in texts)])


def plan(shown: Sequence[Finding], room: int, keys: Sequence[str]) -> Plan:
    """The table's layout in `room` cells (its width, less a scrollbar), for the `keys`
    columns. Full words when every text then fits whole, else the short ones (`Sev`, `crit`,
    `res`, `ack`) and the room left shared out (`_share`; the title gets the most). A
    reviewers column whose names fit in less than its share gives the rest back."""
    fixed_keys = [k for k in keys if k not in FLEX]
    label = {k: cell_len(LABELS[k]) for k in FLEX}
    need = {
        "title": max([label["title"], *(cell_len(safe_line(f.title)) for f in shown)]),
        "where": max([label["where"], *(cell_len(where(f)) for f in shown)]),
        "reviewers": max([label["reviewers"], *(cell_len(reviewers_text(f)) for f in shown)]),
    }
    floor = {k: max(FLOOR[k], label[k]) for k in FLEX}
    for compact in (False, True):
        fixed = sum(_fixed_width(k, shown, compact) for k in fixed_keys)
        left = room - fixed - GAP * len(keys)
        if sum(need.values()) <= left:
            return Plan(compact, need["title"], need["where"], need["reviewers"])
    got = _share(left, need, floor)
    used = max(label["reviewers"], _reviewers_width(shown, got["reviewers"]))
    if used != got["reviewers"]:  # the names took a little more, or less: the others share
        got = _share(left, {**need, "reviewers": used}, {**floor, "reviewers": used})
    # A path loses whole directories (`elide_path`): the cells that leaves unused go back.
    paths = max([label["where"], *(cell_len(elide_path(where(f), got["where"])) for f in shown)])
    if paths < got["where"]:
        fixed = {"reviewers": got["reviewers"], "where": paths}
        got = _share(left, {**need, **fixed}, {**floor, **fixed})
    return Plan(True, got["title"], got["where"], got["reviewers"])


def _reviewers_width(shown: Sequence[Finding], share: int) -> int:
    """The cells the reviewers take given `share`: their texts step in width (one name more
    or less, `& 2 more`, `3 reviewers`): the widest step up to REVIEWERS_STEP cells past the
    share is taken (a name rather than a count), and a share the texts do not fill given back."""
    steps = {w for f in shown for w in _steps(f) if w <= share + REVIEWERS_STEP}
    width = max(steps, default=share)
    return max((cell_len(reviewers_text(f, width)) for f in shown), default=0)


def _steps(f: Finding) -> list[int]:
    """The widths at which `reviewers_text(f, width)` changes."""
    names = [safe_line(r) for r in f.reviewers]
    widths = [cell_len(", ".join(names))]
    widths += [cell_len(f"{len(names)} reviewers")] if len(names) > 1 else []
    for n in range(1, len(names)):
        widths.append(cell_len(f"{', '.join(names[:n])} & {len(names) - n} more"))
    return widths


def cell_text(key: str, f: Finding, compact: bool) -> str:
    """A short column's text: severity (and `blocker`), evolution, triage."""
    if key == "severity":
        sev = short(f.severity or UNKNOWN, compact)
        return f"{sev} {BLOCKER}" if f.blocker else sev
    if key == "evolution":
        return short(f.evolution or UNKNOWN, compact)  # no finding before it: not known
    if key == "triage":
        word = TRIAGE_WORDS.get(f.triage or "", f.triage or UNKNOWN)  # none: none recorded
        return short(safe_line(word), compact)
    raise KeyError(key)


SELECTED = "● "  # before the title of a finding selected with space


def finding_cells(
    f: Finding, layout: Plan, style: ThemeStyle, keys: Sequence[str], selected: bool = False
) -> list[Text]:
    """One row, a cell for each of `keys` (`columns`' keys), laid out as `layout` says;
    `selected`: the title starts with SELECTED (in its width)."""
    muted = style("foreground-muted")
    resolved = not is_own(f)  # the round before's (resolved, or pending: muted alike)
    compact = layout.compact
    cells = []
    for key in keys:
        if key == "severity":
            var = SEVERITY_VAR.get(f.severity or "")
            sev_style = muted if resolved or var is None else style(var, bold=True)
            cell = Text(short(f.severity or UNKNOWN, compact), style=sev_style)
            if f.blocker:
                cell.append(" ")
                cell.append(BLOCKER, style=muted if resolved else style("error", bold=True))
        elif key == "evolution":
            text = cell_text(key, f, compact)
            cell = Text(text, style=muted if f.evolution in (None, "resolved", "pending") else "")
        elif key == "title":
            if selected:
                cell = Text(SELECTED, style=style("accent", bold=True))
                cell.append(clip_end(safe_line(f.title), max(layout.title - 2, 1)))
            else:
                title = clip_end(safe_line(f.title), layout.title)
                cell = Text(title, style=muted if resolved else "")
        elif key == "where":
            # narrow: the file's name and line, not the folder it starts with
            # directories go from the middle; the file's name and line stay whole
            cell = Text(elide_path(where(f), layout.where), style=muted)
        elif key == "reviewers":
            cell = Text(reviewers_text(f, layout.reviewers))
        else:  # triage
            cell = Text(cell_text(key, f, compact), style="" if f.triage else muted)
        cells.append(cell)
    return cells


def short(word: str, compact: bool) -> str:
    return SHORT.get(word, word) if compact else word
