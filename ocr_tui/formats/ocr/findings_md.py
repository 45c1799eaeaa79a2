"""The findings of one reviewer markdown file (ocr-format.md §4.1), as `Finding`s.

A finding is a section of `markdown.finding_sections`, exactly what `markdown.parse_findings`
counts: a level 2-4 heading whose text starts with the word Finding, Issue or Suggestion (not
"Findings"), outside fenced code and HTML comments; its section runs to the next heading of its
level or higher (or to the next finding heading). So `len(parse_reviewer_findings(t, ...)) ==
parse_findings(t).total()` always: one scan serves both.

From each section: the title (the heading without its `Finding N:` prefix and markup), the
first Severity line (`info` when there is none or it names no known severity, as OCR's
dashboard and the reviewers' severity counts have it), and the location
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
from ocr_tui.formats.ocr.markdown import _HEADING_MARKUP, finding_sections

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


def parse_reviewer_findings(text: str, rel: str, reviewer: str) -> list[Finding]:
    """Every finding section of one reviewer file (`markdown.finding_sections`), in file order.

    `rel` is the file's path relative to the session (the findings' `path`); `line` is the
    1-based line of each heading in `text` (lines end at LF, CR or CRLF)."""
    sections = finding_sections(text)
    if not sections:
        return []
    raws = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    found: list[Finding] = []
    for sec in sections:
        body = raws[sec.index : sec.end]
        body[0] = body[0].lstrip("\ufeff")
        while body and not body[-1].strip():
            body.pop()
        fields = [
            (f.label, f.value)
            for f in (parse_field(line, _PLACE_LABELS) for line in sec.lines)
            if f and f.value
        ]
        location = location_of(fields)
        title = _title(sec.heading)
        found.append(
            Finding(
                id=finding_id(title, location.file),
                title=title,
                # none, or not one of the five: info, as OCR's dashboard reads it and as the
                # reviewers' severity counts (`parse_findings`) count it
                severity=sec.severity if sec.severity in SEVERITIES else "info",
                location=location,
                reviewers=[reviewer],
                source="markdown",
                path=rel,
                line=sec.index + 1,
                text="\n".join(body),
            )
        )
    return found
