"""The findings table's columns and cells (the findings screen's drawing, without a screen).

Cells are rich `Text` with foreground styles from the theme (`style(variable, bold=...)`,
e.g. `functools.partial(theme_style, widget)`); every string from disk passes `safe_line`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from rich.style import Style
from rich.text import Text

from ocr_tui.core.cells import clip_end, elide_middle
from ocr_tui.core.textsafe import safe_line
from ocr_tui.formats.ocr.finding import Finding

ThemeStyle = Callable[..., Style]

# Short columns first, so severity, blocker and evolution stay in view beside long paths.
COLUMNS = [
    ("severity", "Severity"),
    ("blocker", "Blocker"),
    ("evolution", "Evolution"),
    ("title", "Title"),
    ("where", "File:line"),
    ("reviewers", "Reviewers"),
]
TRIAGE_COLUMN = ("triage", "Triage")
# Below COMPACT_BELOW columns the short columns use short words: the title and file get the room.
COMPACT_BELOW = 110
COMPACT_LABELS = {"severity": "Sev", "blocker": "B", "evolution": "Evol"}
FULL_LABELS = {key: label for key, label in COLUMNS if key in COMPACT_LABELS}
SHORT = {"critical": "crit", "medium": "med", "resolved": "res"}
SEVERITY_VAR = {"critical": "error", "high": "error", "medium": "warning", "low": "primary"}
TITLE_MIN, TITLE_SHARE, TITLE_MAX = 24, 40, 72  # the title and file columns share the rest
WHERE_MIN = 20
REVIEWERS_MIN, REVIEWERS_MAX = 14, 28


def where(f: Finding) -> str:
    return safe_line(f.location.text())


def reviewers_text(f: Finding, width: int = REVIEWERS_MAX) -> str:
    """`principal-1, quality-1 +2`: as many names as fit, then how many more."""
    names = [safe_line(r) for r in f.reviewers]
    for n in range(len(names), 0, -1):
        more = f" +{len(names) - n}" if n < len(names) else ""
        text = ", ".join(names[:n]) + more
        if len(text) <= width:
            return text
    return elide_middle(", ".join(names), width)


class Widths(NamedTuple):
    title: int
    where: int
    reviewers: int


def column_widths(shown: list[Finding], width: int, triage: bool) -> Widths:
    """Cells for the title, file:line and reviewers columns in a terminal `width` wide. The
    short columns are as wide as their text; the reviewers as their names up to REVIEWERS_MAX
    (less, down to REVIEWERS_MIN, when the title and file would get less than their minimum);
    the title and the file share the rest: the title first up to TITLE_SHARE, the file next
    (elided in the middle), then the title again up to TITLE_MAX."""
    others = 4 + 1 + 4 if width < COMPACT_BELOW else 8 + 7 + 9  # severity, blocker, evolution
    if triage:
        others += max((len(safe_line(f.triage or "")) for f in shown), default=0) or 6
    pad = 2 * (len(COLUMNS) + triage) + 4 + 2  # cell padding, pane border and padding, scrollbar
    avail = width - others - pad
    reviewers = min(REVIEWERS_MAX, max((len(reviewers_text(f)) for f in shown), default=0) or 9)
    if avail - reviewers < TITLE_MIN + WHERE_MIN:
        reviewers = max(REVIEWERS_MIN, min(reviewers, avail - TITLE_MIN - WHERE_MIN))
    free = max(avail - reviewers, 2 * 12)
    title_min = min(TITLE_MIN, free // 2)
    where_min = min(WHERE_MIN, free - title_min)
    title_need = max((len(safe_line(f.title)) for f in shown), default=5)
    where_need = max((len(where(f)) for f in shown), default=9)
    title = min(title_need, max(title_min, min(TITLE_SHARE, free - where_need)))
    where_width = max(where_min, min(where_need, free - title))
    title = min(title_need, TITLE_MAX, max(title, free - where_width))
    return Widths(title, where_width, reviewers)


def finding_cells(
    f: Finding, widths: Widths, style: ThemeStyle, triage: bool, compact: bool = False
) -> list[Text]:
    """One row: severity, blocker, evolution, title, file:line, reviewers (and triage);
    `compact`: the short words of a narrow terminal (`crit`, `●`, `res`)."""
    muted = style("foreground-muted")
    resolved = f.evolution == "resolved"
    var = SEVERITY_VAR.get(f.severity or "")
    sev_style = muted if resolved or var is None else style(var, bold=True)
    title = clip_end(safe_line(f.title), widths.title)
    cells = [
        Text(short(f.severity or "—", compact), style=sev_style),
        Text(
            ("●" if compact else "blocker") if f.blocker else "", style="" if f.blocker else muted
        ),
        Text(
            short(f.evolution or "—", compact),  # no round before: not known
            style=muted if f.evolution in (None, "resolved") else "",
        ),
        Text(title, style=muted if resolved else ""),
        Text(elide_middle(where(f), widths.where), style=muted),
        Text(reviewers_text(f, widths.reviewers)),
    ]
    if triage:
        cells.append(Text(safe_line(f.triage or ""), style="" if f.triage else muted))
    return cells


def short(word: str, compact: bool) -> str:
    return SHORT.get(word, word) if compact else word
