"""The findings of one reviewer markdown file (issue 12; ocr-format.md §4.1), as `Finding`s.

A finding is exactly what `markdown.parse_findings` counts: a level 2-4 heading whose text
starts with the word Finding, Issue or Suggestion (not "Findings"), outside fenced code and HTML
comments; its section runs to the next heading of its level or higher (or to the next finding
heading). So `len(parse_reviewer_findings(t, ...)) == parse_findings(t).total()` always.

From each section: the title (the heading without its `Finding N:` prefix and markup), the
first Severity line (None when there is none or it names no known severity), and the location
from the field lines OCR's template and real reviewers write:

    - **Location**: `src/a.ts:L42-L50`        **Location**: src/a.ts:L85-87
    Location: src/a.ts:42                      * **Location:** src/a.ts#L12-L20
    **Location**: `src/a.ts` (lines 3-9)       **Location**: src/a.ts (line 7)
    **File**: `src/a.ts`  + **Lines**: 26 | L26-30 | 26–30
    **Location**: none | N/A | various        (no file)

Every pattern runs over `_lines`' normalised lines (whitespace runs are one space) and no two
of its quantifiers can match the same characters, so each is linear in the line's length.
"""

from __future__ import annotations

import re

from ocr_tui.formats.ocr.finding import SEVERITIES, Finding, Location, finding_id
from ocr_tui.formats.ocr.markdown import (
    _FINDING_WORD,
    _HEADING_MARKUP,
    _SEVERITY_LINE,
    _heading,
    numbered_lines,
)

# `- **Location**: x`, `**Location:** x`, `* _File_: x`, `Lines : 26`, `  - **Path**: x`.
_FIELD = re.compile(
    r"(?i)^ {0,4}(?:[-*+] )?[*_]{0,3}(locations?|files?|file path|path|lines?|line range)"
    r"[*_]{0,3} ?:[*_]{0,3} ?(.*)$"
)
# The heading's lead word and number: `Finding 3: `, `Issue #2 - `, `Suggestion: `, `Finding-2 `.
_LEAD = re.compile(r"(?i)^(?:finding|issue|suggestion)\b ?[-#]?[0-9]* ?[:.)\-–—]? ?")
# A line range at the end of a path (`:L42-L50`, `:85-87`, `#L12`), read after the last `:`/`#`.
_TAIL = re.compile(r"(?i)L?([0-9]+)(?:[-–—]L?([0-9]+))?")
# A line range in the words after a path: `(lines 3-9)`, `(line 7)`, `L12-L20`, `:42`, `#L12`.
_RANGE_AFTER = re.compile(
    r"(?i)(?:\blines?:? ?|^[:#] ?L?|#L|\bL(?=[0-9]))([0-9]+)(?: ?(?:[-–—]|to) ?L?([0-9]+))?"
)
# A Lines field's value: `26`, `L26-30`, `26–30`, `26 - 30`, `L26 to L30`.
_RANGE = re.compile(r"(?i)L?([0-9]+)(?: ?(?:[-–—]|to) ?L?([0-9]+))?")
_LINES_ONLY = re.compile(r"(?i)(?:lines?|L?[0-9]+(?:[-–—]L?[0-9]+)?)")
# A Location that names no file.
_NO_FILE = frozenset(
    "none n/a na null nil - — – various multiple general global unknown tbd all throughout "
    "across several not".split()
)
MAX_LINE_DIGITS = 9  # int() refuses >4300 digits; no source file has a billion lines


def _number(digits: str | None) -> int | None:
    if not digits or len(digits) > MAX_LINE_DIGITS:
        return None
    return int(digits) or None  # lines are 1-based: `L0` is no line


def _span(m: re.Match | None) -> tuple[int | None, int | None]:
    """(first, last) of a range match; one line gives last == first; `L120-30` gives 120-120."""
    if m is None:
        return None, None
    start = _number(m.group(1))
    if start is None:
        return None, None
    end = _number(m.group(2))
    return start, end if end is not None and end >= start else start


def _peel(path: str) -> tuple[str, int | None, int | None]:
    """`a.ts:L42-L50` -> (`a.ts`, 42, 50); `a.ts#L12` -> (`a.ts`, 12, 12); `a.ts:42:5` (line
    and column) -> (`a.ts`, 42, 42); anything else unchanged."""
    cut = max(path.rfind(":"), path.rfind("#"))
    if cut <= 0:
        return path, None, None
    m = _TAIL.fullmatch(path[cut + 1 :])
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
        line = _number(head[col + 1 :])
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
    if _LINES_ONLY.fullmatch(path):  # `Location: line 42` beside a File field
        start, end = _span(_RANGE_AFTER.search(value) or _RANGE.search(value))
        return Location(line_start=start, line_end=end)
    path, start, end = _peel(path)
    if start is None and link:
        _, start, end = _peel(target.rstrip(")"))
    if start is None and rest:
        start, end = _span(_RANGE_AFTER.search(rest))
    return Location(file=path or None, line_start=start, line_end=end)


def _location(fields: list[tuple[str, str]]) -> Location:
    """The finding's location from its field lines, first wins: the first Location / File /
    Path naming a file gives the file (and its lines, when it has them); else the first Lines
    field; else lines a Location gave without a file."""
    file: str | None = None
    own: tuple[int | None, int | None] = (None, None)
    other: tuple[int | None, int | None] = (None, None)
    lines: tuple[int | None, int | None] = (None, None)
    for name, value in fields:
        if name.startswith("line"):
            if lines[0] is None:
                lines = _span(_RANGE.search(value))
            continue
        loc = parse_location(value)
        if file is None and loc.file:
            file, own = loc.file, (loc.line_start, loc.line_end)
        elif other[0] is None and loc.line_start is not None:
            other = (loc.line_start, loc.line_end)
    start, end = next((s for s in (own, lines, other) if s[0] is not None), (None, None))
    return Location(file=file, line_start=start, line_end=end)


def _title(heading: str) -> str:
    """`**Finding 3: SQL injection**` -> `SQL injection`; `Finding 3` alone -> `Finding 3`."""
    text = _HEADING_MARKUP.sub("", heading).rstrip("*_` ")
    rest = _LEAD.sub("", text, count=1)
    rest = _HEADING_MARKUP.sub("", rest).rstrip("*_` ")
    return rest or text.rstrip(":.-–— ") or text


class _Open:
    __slots__ = ("level", "index", "title", "severity", "seen", "fields")

    def __init__(self, level: int, index: int, title: str) -> None:
        self.level, self.index, self.title = level, index, title
        self.severity: str | None = None
        self.seen = False
        self.fields: list[tuple[str, str]] = []


def parse_reviewer_findings(text: str, rel: str, reviewer: str) -> list[Finding]:
    """Every finding section of one reviewer file, in file order (see the module doc).

    `rel` is the file's path relative to the session (the findings' `path`); `line` is the
    1-based line of each heading in `text` (lines end at LF, CR or CRLF)."""
    raws = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    found: list[Finding] = []
    cur: _Open | None = None

    def close(end: int) -> None:
        nonlocal cur
        if cur is None:
            return
        body = raws[cur.index : end]
        body[0] = body[0].lstrip("\ufeff")
        while body and not body[-1].strip():
            body.pop()
        location = _location(cur.fields)
        found.append(
            Finding(
                id=finding_id(cur.title, location.file),
                title=cur.title,
                severity=cur.severity if cur.severity in SEVERITIES else None,
                location=location,
                reviewers=[reviewer],
                source="markdown",
                path=rel,
                line=cur.index + 1,
                text="\n".join(body),
            )
        )
        cur = None

    for i, line, kind in numbered_lines(text):
        if kind != "text":
            continue
        h = _heading(line)
        if h:
            level, htext = h
            if cur is not None and level <= cur.level:
                close(i)
            bare = _HEADING_MARKUP.sub("", htext)
            if 2 <= level <= 4 and _FINDING_WORD.match(bare):
                close(i)
                cur = _Open(level, i, _title(htext))
            continue
        if cur is None:
            continue
        if not cur.seen:
            m = _SEVERITY_LINE.match(line)
            if m and (m.group(1) or m.group(2).lower() in SEVERITIES):
                cur.severity, cur.seen = m.group(2).lower(), True
        f = _FIELD.match(line)
        if f and f.group(2).strip():
            cur.fields.append((f.group(1).lower(), f.group(2).strip()))
    close(len(raws))
    return found
