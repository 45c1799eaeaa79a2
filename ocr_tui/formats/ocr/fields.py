"""The field lines under a finding or a final.md item and the places they name:
`- **Location**: src/a.ts:L42-L50`, `**File**: a.ts` + `**Lines**: 26-30`, `**Flagged by**: @a`.
One parser of a field line and one of a line range for the reviewer files (findings_md.py) and
final.md (final_items.py). Pure functions; no IO.

Field lines: `**Label**: value`, `**Label:** value`, `- **Label** : value`, `__Label__: value`,
`* Label: value`, `Label: value`, with the label markup each reader allows (`parse_field`).
Line ranges: `42`, `L42`, `42-50`, `L42-L50`, `L85-87`, `42–50`, `42 to 50`, `42:7` (a
column), and among words `lines 3-9`, `(line 7)`, `#L12` (`line_range`, `parse_location`).

The lines come from `markdown.numbered_lines` (whitespace runs made one space, indent at most
four). Every quantifier here that can meet another matching the same characters is bounded
(a space is at most one: ` ?`), so each pattern is linear in the length of any text.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import NamedTuple

from ocr_tui.formats.ocr.finding import Location

# --- field lines ----------------------------------------------------------------------------

LOCATION_LABELS = frozenset({"location", "locations", "file", "files", "file path", "path"})
LINES_LABELS = frozenset({"line", "lines", "line range"})

# A bullet, markup, the label, markup, a colon, markup, the value. The label (at most 31
# characters) runs to the first character that is not a letter, space or `-`; the markup and
# the spaces around it are bounded.
_FIELD = re.compile(
    r"^ {0,4}(?:[-*+] )?(?P<open>[*_]{0,3})(?P<label>[A-Za-z][A-Za-z -]{0,30}?)(?P<gap> ?)"
    r"(?P<close>[*_]{0,3}) ?:(?P<rest>[*_]{0,3} ?(?P<value>.*))$"
)
_BOLD = ("", "**", "__")


class Field(NamedTuple):
    label: str  # lower case: `flagged by`
    value: str  # stripped; may be empty
    bold: bool  # the label opens with two or more `*` / `_`: `**Label**`, `__Label__`


def parse_field(
    line: str, labels: Collection[str] | None = None, *, strict: bool = False
) -> Field | None:
    """The field of a `**Label**: value` line, or None; with `labels`, only one of those (in
    lower case).

    Markup around the label: up to three `*` / `_` on each side, no space between the label
    and the markup that closes it; up to three right after the colon are not the value.
    `strict` (final.md's rule): `**` or `__` (or none) on each side, a space allowed before the
    closing one, and markup after the colon is taken off only as the closing `:**` / `:__`."""
    m = _FIELD.match(line)
    if not m:
        return None
    label = m["label"].strip().lower()
    if labels is not None and label not in labels:
        return None
    if strict:
        if m["open"] not in _BOLD or m["close"] not in _BOLD:
            return None
        rest = m["rest"]
        value = rest[2:] if not m["close"] and rest[:2] in ("**", "__") else rest
    else:
        if m["gap"] and m["close"]:
            return None
        value = m["value"]
    return Field(label, value.strip(), len(m["open"]) >= 2)


# --- line ranges ----------------------------------------------------------------------------

MAX_LINE_DIGITS = 9  # int() refuses >4300 digits; no source file has a billion lines


def line_number(digits: str | None) -> int | None:
    """The 1-based line `digits` name: None for none, `0`, or more than MAX_LINE_DIGITS."""
    if not digits or len(digits) > MAX_LINE_DIGITS:
        return None
    return int(digits) or None


# From the first line's digits on: `42`, `42-50`, `42-L50`, `42 – 50`, `42 to 50`, `42:7-50:3`.
_SPAN = r"([0-9]+)(?::[0-9]+)?(?: ?(?:[-–—]|to) ?L?([0-9]+)(?::[0-9]+)?)?"
# A line range: `L42`, `L42-L50`, `L85-87`, `42:7` (line and column) and the above.
_RANGE = re.compile(r"(?i)L?" + _SPAN)
# A line range among words: `(lines 3-9)`, `line 7`, `line: 4`, `L12-L20`, `#L12`, and `:42`
# or `# L12` opening the words.
_RANGE_IN_WORDS = re.compile(r"(?i)(?:\blines?:? ?|^[:#] ?L?|#L|\bL(?=[0-9]))" + _SPAN)


def _span(m: re.Match[str] | None) -> tuple[int | None, int | None]:
    """(first, last) of a range match; one line gives last == first; `L120-30` gives 120-120."""
    if m is None:
        return None, None
    start = line_number(m.group(1))
    if start is None:
        return None, None
    end = line_number(m.group(2))
    return start, end if end is not None and end >= start else start


def line_range(text: str) -> tuple[int | None, int | None]:
    """The first line range in a Lines field's value (`26`, `L26-30`, `26 to 30`, `~26`), or
    (None, None)."""
    return _span(_RANGE.search(text))


# --- locations ------------------------------------------------------------------------------

# A Location that names no file.
_NO_FILE = frozenset(
    "none n/a na null nil - — – various multiple general global unknown tbd all throughout "
    "across several not".split()
)


def _peel(path: str) -> tuple[str, int | None, int | None]:
    """`a.ts:L42-L50` -> (`a.ts`, 42, 50); `a.ts#L12` -> (`a.ts`, 12, 12); `a.ts:42:5` (line
    and column) -> (`a.ts`, 42, 42); anything else unchanged."""
    cut = max(path.rfind(":"), path.rfind("#"))
    if cut <= 0:
        return path, None, None
    m = _RANGE.fullmatch(path[cut + 1 :])
    if m is None:
        return path, None, None
    start, end = _span(m)  # None for `:L0` or a number no file has: no lines, still peeled
    head = path[:cut]
    col = head.rfind(":")
    if (
        start is not None
        and end == start
        and col > 0
        and head[col + 1 :].isascii()
        and head[col + 1 :].isdigit()
    ):
        line = line_number(head[col + 1 :])
        if line is not None:
            return head[:col], line, line
    return head, start, end


def parse_location(value: str) -> Location:
    """A Location / File field's value (already normalised) -> file and lines."""
    value = value.replace("`", "").strip()
    first, _, rest = value.partition(" ")
    link = first.startswith("[") and "](" in first
    if link:  # `[a.ts](a.ts#L12)` or `[a.ts:12](…)`
        first, _, target = first[1:].partition("](")
    path = first.strip("*\"'<>").rstrip(",;:")
    if path.lower().strip("()*_.,:;") in _NO_FILE or not path:
        return Location()
    if path.lower() in ("line", "lines") or _RANGE.fullmatch(path):  # `line 42` beside a File
        start, end = _span(_RANGE_IN_WORDS.search(value) or _RANGE.search(value))
        return Location(line_start=start, line_end=end)
    path, start, end = _peel(path)
    if start is None and link:
        _, start, end = _peel(target.rstrip(")"))
    if start is None and rest:
        start, end = _span(_RANGE_IN_WORDS.search(rest))
    return Location(file=path or None, line_start=start, line_end=end)


def location_of(fields: Iterable[tuple[str, str]]) -> Location:
    """The place (label, value) fields name, first wins: the first Location / File / Path
    naming a file gives the file (and its lines, when it has them); else the first Lines field
    with a range; else lines a Location gave without a file. Other labels are not read."""
    file: str | None = None
    own: tuple[int | None, int | None] = (None, None)
    other: tuple[int | None, int | None] = (None, None)
    lines: tuple[int | None, int | None] = (None, None)
    for label, value in fields:
        if label in LINES_LABELS:
            if lines[0] is None:
                lines = line_range(value)
            continue
        if label not in LOCATION_LABELS:
            continue
        loc = parse_location(value)
        if file is None and loc.file:
            file, own = loc.file, (loc.line_start, loc.line_end)
        elif other[0] is None and not loc.file and loc.line_start is not None:
            other = (loc.line_start, loc.line_end)
    start, end = next((s for s in (own, lines, other) if s[0] is not None), (None, None))
    return Location(file=file, line_start=start, line_end=end)
