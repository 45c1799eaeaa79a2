"""The items of a `final.md` (ocr-format.md §4.3): what the Tech Lead's synthesis lists under
Blockers, Should Fix and Suggestions, with who flagged each and where. The findings model
(findings.py) uses them to mark findings as blocker / should-fix / suggestion and to add
reviewers; an item that matches no finding becomes a finding of its own. Pure functions; no IO.

Shapes read (each under `## Blockers` / `## Should Fix` / `## Suggestions`, emoji titles such
as `## 🚫 Blockers` too, a section running to the next `#`/`##` heading or `---` line, as
`parse_final_counts` and OCR's dashboard have it):

- `### 🚫 Title` (any first character that is not a letter, digit or space: emoji, `**`,
  a backtick) and `### 1. Title` / `### 1) Title` headings, with `**Flagged by**: @a, @b`,
  `**Location**: path:L42-L50` (or `**File**:` + `**Lines**:`), `**Severity**:` and
  `**Status**:` lines below them, bold or bulleted;
- a plain `### Title` heading with a `**Flagged by**` / `**Location**` / `**File**` line is an
  item too; without one, a `###` heading followed by bullets is a group (`### Code Quality`) and
  its bullets are the items (in Suggestions an emoji group heading, `### 🧪 Testing`, too);
- bullets `- "Title" — @principal-1 [**High**]`, `- **Title**: why — @a, @b`, `- Title (@a)`,
  directly under the section or under a group.

The field lines and the place they name are read by fields.py as a reviewer file's are, with
final.md's label markup (`**` / `__` or none); what an item's heading or bullet text says
(title, reviewers, severity tag, a trailing place) by final_titles.py.

Not items: `- None`, `- No …`, `- N/A`, prose (`*No hard blockers identified.*`), a heading
or bullet whose title says it is resolved (`### Round 3 Blocker 1 — WAL Pragmas: RESOLVED`,
`**Status**: Resolved`), and anything inside fenced code or an HTML comment.

Every pattern runs over lines whose whitespace runs are one space (`markdown._norm`), and no
two adjacent quantifiers can match the same characters: linear in a line's length.
"""

from __future__ import annotations

import re

import msgspec

from ocr_tui.core.view import Counts
from ocr_tui.formats.ocr.fields import (
    LINES_LABELS,
    LOCATION_LABELS,
    Field,
    location_of,
    parse_field,
)
from ocr_tui.formats.ocr.fields import parse_location as parse_location  # for its importers
from ocr_tui.formats.ocr.final_titles import (
    RESOLVED,
    clean_title,
    reviewer_names,
    severity_word,
    split_title,
    strip_lead,
    trailing_place,
    unique_names,
)
from ocr_tui.formats.ocr.finding import Location
from ocr_tui.formats.ocr.markdown import _heading, numbered_lines

SECTIONS = ("blocker", "should_fix", "suggestion")
_SECTION_KEY = {"blockers": "blocker", "should_fix": "should_fix", "suggestions": "suggestion"}
_SECTION = {
    "blockers": re.compile(r"(?i)^##\s+[^\w]*\s*blockers?\b"),
    "should_fix": re.compile(r"(?i)^##\s+[^\w]*\s*should[\s-]*fix\b"),
    "suggestions": re.compile(r"(?i)^##\s+[^\w]*\s*suggestions?\b"),
}
# `**Blockers**: 2`, `**Blockers:** 2`, `- **Should Fix**: 1`: the synthesis' own counts.
_EXPLICIT_COUNT = {
    "blockers": re.compile(
        r"(?i)^\s*(?:[-*+]\s+)?\*\*\s*blockers?\s*:?\s*\*\*\s*:?\s*(\d{1,9})(?!\d)"
    ),
    "should_fix": re.compile(
        r"(?i)^\s*(?:[-*+]\s+)?\*\*\s*should[\s-]*fix\s*:?\s*\*\*\s*:?\s*(\d{1,9})(?!\d)"
    ),
    "suggestions": re.compile(
        r"(?i)^\s*(?:[-*+]\s+)?\*\*\s*suggestions?\s*:?\s*\*\*\s*:?\s*(\d{1,9})(?!\d)"
    ),
}
# A list item at the margin: a bullet (`- `, `* `, `+ `) or an ordered one (`1. `, `2) `).
_BULLET = re.compile(r"^(?:[-*+]|\d{1,9}[.)]) (.*)$")
# An item that says there is none: `- None`, `- N/A`, `- Nothing`, `- No blockers`, `- No hard
# blockers identified`, `- No new issues` (not `- No rate limit on login`: a blocker).
_NONE_BULLET = re.compile(
    r"(?i)^[*_]*(?:none\b|n/a\b|nothing\b|no[.!]?[*_]*$|no (?:[\w-]+ ){0,2}?"
    r"(?:blockers?|blocking|issues?|items?|findings?|concerns?|problems?|suggestions?"
    r"|should[ -]fix|changes? (?:needed|required|requested)|further|other|remaining|new)\b)"
)
# A paragraph that opens with a bold run: `**SQL injection in search** (src/search.py:42)`,
# `**Add caching**: the query runs twice` (directly under a section: an item).
_BOLD_LEAD = re.compile(r"^(\*\*|__)[^*_ ]")


class FinalItem(msgspec.Struct, kw_only=True, frozen=True):
    """One item of final.md's Blockers / Should Fix / Suggestions."""

    section: str  # one of SECTIONS
    title: str
    flagged_by: list[str] = []  # reviewer names without `@`: `principal-1`
    severity: str | None = None  # a `[**High**]` tag or a `**Severity**:` line, when given
    location: Location = Location()
    path: str = "final.md"  # the file it was read from, relative to the session
    line: int = 0  # 1-based line of its heading or bullet
    text: str = ""  # its own markdown, as written


# --- lines ----------------------------------------------------------------------------------


def _split(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


# --- fields ---------------------------------------------------------------------------------

_REVIEWER_FIELDS = {"flagged by", "raised by", "reviewers", "reviewer", "found by"}
# Labels of the detail lines OCR's template and real files put under an item: a bullet with one
# of them is part of the item above it, not an item of its own.
_DETAIL_FIELDS = (
    _REVIEWER_FIELDS
    | LOCATION_LABELS
    | LINES_LABELS
    | {
        "severity",
        "status",
        "type",
        "category",
        "issue",
        "problem",
        "why this blocks",
        "why it matters",
        "impact",
        "suggested fix",
        "suggestion",
        "fix",
        "recommendation",
        "verified by",
        "requirements impact",
        "evidence",
        "details",
        "description",
        "note",
    }
)


def _field(line: str) -> Field | None:
    """The field of a line under an item, with final.md's label markup (`**` / `__` / none:
    `parse_field`'s `strict`)."""
    return parse_field(line, strict=True)


# --- items ----------------------------------------------------------------------------------


class _Line(msgspec.Struct, frozen=True):
    number: int
    line: str
    kind: str


def parse_final_items(text: str, rel: str = "final.md") -> list[FinalItem]:
    """The Blockers / Should Fix / Suggestions items of a final.md, in file order."""
    return _parse(text, rel)[0]


def parse_final_counts(text: str) -> Counts | None:
    """Blocker / should-fix / suggestion counts of a final.md (ocr-format.md §4.3): explicit
    `**Blockers**: N` lines win (a section without one: 0); otherwise its items
    (`parse_final_items`) per section. None when it has neither a count line nor a section."""
    explicit: dict[str, int] = {}
    for _, line, kind in numbered_lines(text):
        if kind != "text" or "*" not in line:
            continue
        for key, rx in _EXPLICIT_COUNT.items():
            m = rx.match(line)
            if m and key not in explicit:
                explicit[key] = int(m.group(1))
    if explicit:
        return Counts(
            blockers=explicit.get("blockers", 0),
            should_fix=explicit.get("should_fix", 0),
            suggestions=explicit.get("suggestions", 0),
        )
    items, found = _parse(text, "final.md")
    if not found:
        return None
    by = {key: sum(1 for i in items if i.section == key) for key in SECTIONS}
    return Counts(blockers=by["blocker"], should_fix=by["should_fix"], suggestions=by["suggestion"])


def _parse(text: str, rel: str) -> tuple[list[FinalItem], bool]:
    """(the items, whether the text has a Blockers / Should Fix / Suggestions section)."""
    raw = _split(text)
    items: list[FinalItem] = []
    section: str | None = None
    found = False
    body: list[_Line] = []
    for index, line, kind in numbered_lines(text):
        number = index + 1
        if kind == "text" and (line.startswith(("## ", "# ")) or line.strip() == "---"):
            if section:
                items += _section_items(section, body, raw, rel)
            section, body = None, []
            for key, rx in _SECTION.items():
                if rx.match(line):
                    section, found = _SECTION_KEY[key], True
            continue
        if section:
            body.append(_Line(number, line, kind))
    if section:
        items += _section_items(section, body, raw, rel)
    return items, found


def _section_items(section: str, body: list[_Line], raw: list[str], rel: str) -> list[FinalItem]:
    """Split a section at its `###` (or higher) headings: the lines before the first are
    bullets; each heading is an item, a group of bullet items, or neither."""
    items: list[FinalItem] = []
    start = 0
    head: _Line | None = None
    for i, ln in enumerate(body + [_Line(0, "", "end")]):
        h = _heading(ln.line) if ln.kind == "text" else None
        if ln.kind != "end" and not (h and h[0] <= 3):
            continue
        block = body[start:i]
        if head is None:  # directly under the section: bold-lead paragraphs are items too
            items += _bullet_items(section, block, raw, rel, leads=True)
        else:
            items += _heading_items(section, head, block, raw, rel)
        head, start = (ln if ln.kind != "end" else None), i + 1
    return items


def _is_bullet_item(line: str) -> re.Match[str] | None:
    """The match of a bullet that is an item: at the margin, not `- None` / `- No …` /
    `- N/A`, not a detail field (`- **Location**: …`), not a rule (`* * *`)."""
    m = _BULLET.match(line)
    if not m or _NONE_BULLET.match(m.group(1).strip()):
        return None
    if not m.group(1).strip(" -*_"):
        return None
    f = _field(line)
    if f and f.bold and f.label in _DETAIL_FIELDS:
        return None
    return m


def _lead_item(line: str) -> bool:
    """A paragraph at the margin that opens with a bold title is an item (`**SQL injection
    in search** (src/search.py:42)`), unless it is a detail field (`**Location**: …`), a
    count (`**Blockers**: 2`) or says there is none (`**None.**`)."""
    if not _BOLD_LEAD.match(line) or _NONE_BULLET.match(line):
        return False
    if any(rx.match(line) for rx in _EXPLICIT_COUNT.values()):
        return False
    f = _field(line)
    return not (f and f.label in _DETAIL_FIELDS | _COUNT_LABELS)


_COUNT_LABELS = frozenset({"blocker", "blockers", "should fix", "suggestion", "suggestions"})


def _bullet_items(
    section: str, block: list[_Line], raw: list[str], rel: str, *, leads: bool = False
) -> list[FinalItem]:
    """The list items of a block (bullets and ordered ones at the margin); with `leads`,
    bold-lead paragraphs too (`_lead_item`)."""
    items: list[FinalItem] = []
    open_: list[_Line] = []  # the current item's lines
    blank = True  # (the block's first line starts a paragraph)

    def close() -> None:
        if open_:
            first = open_[0]
            m = _BULLET.match(first.line)
            head = m.group(1) if m else first.line
            title, names, sev = split_title(head)
            item = _item(section, title, names, sev, open_, raw, rel)
            if item:
                items.append(item)
        open_.clear()

    for ln in block:
        text = ln.kind == "text"
        if text and _BULLET.match(ln.line):
            close()
            if _is_bullet_item(ln.line):
                open_.append(ln)
        elif leads and text and blank and _lead_item(ln.line):
            close()
            open_.append(ln)
        elif open_ and not ln.line.startswith(" ") and (ln.kind == "fence" or ln.line and blank):
            close()  # a paragraph or a fence at the margin after the list
        elif open_:
            open_.append(ln)
        blank = text and not ln.line
    close()
    return items


def _heading_items(
    section: str, head: _Line, block: list[_Line], raw: list[str], rel: str
) -> list[FinalItem]:
    h = _heading(head.line)
    assert h
    level, htext = h
    if level != 3:
        return []  # an indented `## …` inside the section: not an item
    numbered = re.match(r"\d+[.)]", htext) is not None
    marked = not numbered and bool(htext) and not (htext[0].isalnum() or htext[0] in "_ ")
    # At the margin: a field indented under a bullet is that bullet's.
    margin = [ln.line for ln in block if ln.kind == "text" and not ln.line.startswith(" ")]
    fields = {f.label for line in margin if (f := _field(line))}
    located = bool(fields & (_REVIEWER_FIELDS | LOCATION_LABELS))
    bullets = any(_is_bullet_item(line) for line in margin)
    if not numbered and not located and bullets and (not marked or section == "suggestion"):
        return _bullet_items(section, block, raw, rel)  # a group: `### Code Quality`
    if not (numbered or marked or located):
        return []  # `### Round 3 Blocker 2 — …` with prose only
    title, names, sev = split_title(strip_lead(htext))
    item = _item(section, title, names, sev, [head, *block], raw, rel)
    return [item] if item else []


def _item(
    section: str,
    title: str,
    names: list[str],
    severity: str | None,
    lines: list[_Line],
    raw: list[str],
    rel: str,
) -> FinalItem | None:
    """The item from its title and lines (the first is its heading or bullet; the fields are
    read from the rest), or None when it has no title or is resolved."""
    if not title or RESOLVED.search(title):
        return None
    fields = [f for ln in lines[1:] if ln.kind == "text" and (f := _field(ln.line))]
    for label, value, _ in fields:
        if label in _REVIEWER_FIELDS and not names:
            names = reviewer_names(value)
        elif label == "severity" and severity is None:
            severity = severity_word(value)
        elif label == "status" and (
            RESOLVED.search(value) or value.lower().lstrip("*_✅ ").startswith("resolved")
        ):
            return None
    location = location_of((f.label, f.value) for f in fields)
    if not location.file:  # `1. SQL injection in search (src/search.py:42)`
        bare, place = trailing_place(title)
        if place.file:
            title, location = clean_title(bare), place
    first = lines[0].number
    last = max((ln.number for ln in lines if ln.kind != "text" or ln.line), default=first)
    return FinalItem(
        section=section,
        title=title,
        flagged_by=unique_names(names),
        severity=severity,
        location=location,
        path=rel,
        line=first,
        text="\n".join(raw[first - 1 : last]),
    )
