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

fields.py reads the field lines and the place they name (`parse_field`, `location_of`), as it
does for final.md's items. Every pattern runs over `_lines`' normalised lines (whitespace runs
are one space) and no two of its quantifiers can match the same characters, so each is linear
in the line's length.
"""

from __future__ import annotations

import re

from ocr_tui.formats.ocr.fields import (
    LINES_LABELS,
    LOCATION_LABELS,
    location_of,
    parse_field,
)
from ocr_tui.formats.ocr.fields import parse_location as parse_location  # for its importers
from ocr_tui.formats.ocr.finding import SEVERITIES, Finding, finding_id
from ocr_tui.formats.ocr.markdown import (
    _FINDING_WORD,
    _HEADING_MARKUP,
    _SEVERITY_LINE,
    _heading,
    numbered_lines,
)

# The heading's lead word and number: `Finding 3: `, `Issue #2 - `, `Suggestion: `, `Finding-2 `.
_LEAD = re.compile(r"(?i)^(?:finding|issue|suggestion)\b ?[-#]?[0-9]* ?[:.)\-–—]? ?")
# The fields a finding's place is read from (`fields.location_of`).
_PLACE_LABELS = LOCATION_LABELS | LINES_LABELS


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
        location = location_of(cur.fields)
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
        f = parse_field(line, _PLACE_LABELS)
        if f and f.value:
            cur.fields.append((f.label, f.value))
    close(len(raws))
    return found
