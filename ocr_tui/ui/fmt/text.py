"""Text from disk made fit to show: cut to a width, escape-safe, paths with `~`, labelled
values with labels sized to their content and values wrapped at words."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rich.cells import cell_len

from ocr_tui.core.cells import take
from ocr_tui.core.states import (  # noqa: F401 (shared names)
    PHASE_MARKS,
    STATES,
    glyph,
    session_state,
)
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import human_duration, human_relative, local_clock, zone_name  # noqa: F401

if TYPE_CHECKING:
    from ocr_tui.core.view import SessionView


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


# NO-BREAK SPACE: words joined by it wrap as one (`2 critical`, never `2` / `critical`) in a
# FitTable's cells, which draw it as a space (`ui.phrases`: Rich alone would break at it).
KEEP_TOGETHER = "\u00a0"


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


EIGHTHS = " ▏▎▍▌▋▊▉"


def bar(seconds: int | None, longest: int, width: int = 6) -> str:
    """`seconds` against `longest` in `width` cells, to an eighth of a cell (a phase that took
    any time at all shows at least a sliver)."""
    if not seconds or longest <= 0:
        return ""
    eighths = max(1, round(min(seconds, longest) / longest * width * 8))
    return "█" * (eighths // 8) + (EIGHTHS[eighths % 8] if eighths % 8 else "")


def _said(text: str) -> set[str]:
    return set(re.findall(r"[\w.+-]+", text.lower()))


def unsaid_badges(view: SessionView) -> list[str]:
    """The badges that say something the screen does not say already: not the session's
    status or workflow (the line under the title says them: `active`, `interrupted`), not a
    word of a fact (`full`, `auto` beside `mode full (/code), auto`; iDumb's `compacted`
    beside its `compacted` fact). Each fact once."""
    said = _said(" ".join([view.status, view.workflow, "complete" if view.complete else ""]))
    for fact in view.facts:
        said |= _said(f"{fact.label} {fact.value}")
    for alert in view.alerts:
        said |= _said(alert)
    return [b for b in view.badges if not _said(b) <= said]
