"""The items of a `final.md` (ocr-format.md §4.3): what the Tech Lead's synthesis lists under
Blockers, Should Fix and Suggestions, with who flagged each and where. Issue 12's findings
model uses them to mark findings as blocker / should-fix / suggestion and to add reviewers; an
item that matches no finding becomes a finding of its own. Pure functions; no IO.

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
final.md's label markup (`**` / `__` or none).

Not items: `- None`, `- No …`, `- N/A`, prose (`*No hard blockers identified.*`), a heading
or bullet whose title says it is resolved (`### Round 3 Blocker 1 — WAL Pragmas: RESOLVED`,
`**Status**: Resolved`), and anything inside fenced code or an HTML comment.

Every pattern runs over lines whose whitespace runs are one space (`markdown._norm`), and no
two adjacent quantifiers can match the same characters: linear in a line's length.
"""

from __future__ import annotations

import re
import unicodedata

import msgspec

from ocr_tui.formats.ocr.fields import (
    LINES_LABELS,
    LOCATION_LABELS,
    Field,
    location_of,
    parse_field,
)
from ocr_tui.formats.ocr.fields import parse_location as parse_location  # for its importers
from ocr_tui.formats.ocr.finding import SEVERITIES, Location
from ocr_tui.formats.ocr.markdown import (
    _BULLET,
    _NONE_BULLET,
    _SECTION,
    _heading,
    numbered_lines,
)

SECTIONS = ("blocker", "should_fix", "suggestion")
_SECTION_KEY = {"blockers": "blocker", "should_fix": "should_fix", "suggestions": "suggestion"}


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


_MENTION = re.compile(r"(?<![\w.@])@([A-Za-z0-9][\w.-]*)")
_NAME = re.compile(r"[A-Za-z0-9][\w.-]*")


def reviewer_names(value: str) -> list[str]:
    """`@principal-1, @security-1` -> [principal-1, security-1]; without any `@`, the
    comma- (or `and`-) separated parts that are names (`principal-1 and quality-2`); prose
    (`All 5 reviewers`) gives none. In order, each once."""
    if "@" in value:
        names = [m.group(1).rstrip(".-") for m in _MENTION.finditer(value)]
    else:
        parts = re.split(r"[,;&/]| and ", value)
        names = [p for part in parts if _NAME.fullmatch(p := part.strip(" *_`()"))]
    return _unique(n for n in names if n)


def _unique(names) -> list[str]:
    seen: dict[str, None] = {}
    for name in names:
        seen.setdefault(name, None)
    return list(seen)


def _severity(value: str) -> str | None:
    word = value.strip(" *_`[]()").split(" ")[0].strip(" *_`[]().,:;").lower()
    return word if word in SEVERITIES else None


# --- titles ---------------------------------------------------------------------------------

_SEPARATORS = ("—", "–", "-", "--", "―")
_BY_WORDS = ("by", "flagged", "raised", "from", "via")
_NUMBER = re.compile(r"^\d+[.)](?: |$)")
# A title that says the item is done: `…: RESOLVED`, `(Resolved)`, `— resolved in round 4`,
# `✅ Resolved`.
_RESOLVED = re.compile(r"\bRESOLVED\b|(?i:(?:[:(\[—–-]|✅) ?resolved\b)")
_QUOTES = {'"': '"', "“": "”", "'": "'", "‘": "’", "«": "»"}


def _tag(text: str) -> tuple[str, str | None]:
    """`Title [**High**]` / `[High] Title` / `**[HIGH]** Title` -> (Title, high)."""
    t = text.strip()
    if t.endswith("]"):
        i = t.rfind("[")
        if i >= 0 and (sev := _severity(t[i + 1 : -1])):
            return t[:i].rstrip(), sev
    bare = t.lstrip("*_")
    if bare.startswith("["):
        j = bare.find("]")
        if j > 0 and (sev := _severity(bare[1:j])):
            return bare[j + 1 :].lstrip("*_ "), sev
    return t, None


def _reviewer_suffix(text: str) -> tuple[str, list[str]]:
    """`"Title" — @principal-1, @quality-2` / `Title (@a)` / `Title — flagged by @a` ->
    (the title part, [names]). Mentions that do not end the text after a dash (or in
    parentheses) are part of the title."""
    tokens = text.replace("—@", "— @").replace("–@", "– @").split(" ")
    names: list[str] = []
    j = len(tokens)
    paren = False
    while j > 0:
        tok = tokens[j - 1]
        core = tok.strip("(),;*_")
        if core.startswith("@") and _NAME.fullmatch(core[1:]):
            names.append(core[1:].rstrip(".-"))
            paren = paren or tok.startswith("(") or tok.startswith("*(")
        elif core.lower() not in ("and", "&", "") or not names:
            break
        j -= 1
    if not names:
        return text, []
    names.reverse()
    k = j
    while k > 0 and tokens[k - 1].lower() in _BY_WORDS:
        k -= 1
    if k > 0 and tokens[k - 1] in _SEPARATORS:
        return " ".join(tokens[: k - 1]), names
    if paren:
        return " ".join(tokens[:j]), names
    return text, []


def _lead(text: str) -> str:
    """The title without a leading emoji (`🚫`, `⚠️`) or number (`1.`)."""
    m = _NUMBER.match(text)
    if m:
        return text[m.end() :]
    i = 0
    while i < len(text) and (
        text[i] == " " or unicodedata.category(text[i]) in ("So", "Sk", "Mn", "Cf", "Cs")
    ):
        i += 1
    return text[i:]


def _clean(title: str) -> str:
    """Quotes and bold around the title, or a bold / quoted title before its description
    (`**Add caching**: the query runs twice`) -> the title."""
    t = title.strip()
    for _ in range(2):
        if len(t) >= 2 and t[0] in _QUOTES:
            close = t.find(_QUOTES[t[0]], 1)
            if close == len(t) - 1:
                t = t[1:-1].strip()
            elif close > 1 and t[close + 1 :].lstrip()[:1] in (":", "—", "–", "-", ".", ""):
                t = t[1:close].strip()
        for mark in ("**", "__", "~~", "*", "_"):
            if t.startswith(mark) and len(t) > 2 * len(mark):
                close = t.find(mark, len(mark))
                if close == len(t) - len(mark):
                    t = t[len(mark) : -len(mark)].strip()
                elif close > len(mark) and t[close + len(mark) :].lstrip()[:1] in (":", "—", "–"):
                    t = t[len(mark) : close].strip()
                break
    return t.rstrip(":").strip()


def _split_title(text: str) -> tuple[str, list[str], str | None]:
    """(title, reviewers, severity) of a heading's text or a bullet's."""
    t, sev = _tag(text)
    t, names = _reviewer_suffix(t)
    if sev is None:
        t, sev = _tag(t)  # `"Title" [High] — @a`
    return _clean(t), names, sev


# --- items ----------------------------------------------------------------------------------


class _Line(msgspec.Struct, frozen=True):
    number: int
    line: str
    kind: str


def parse_final_items(text: str, rel: str = "final.md") -> list[FinalItem]:
    """The Blockers / Should Fix / Suggestions items of a final.md, in file order."""
    raw = _split(text)
    items: list[FinalItem] = []
    section: str | None = None
    body: list[_Line] = []
    for index, line, kind in numbered_lines(text):
        number = index + 1
        if kind == "text" and (line.startswith(("## ", "# ")) or line.strip() == "---"):
            if section:
                items += _section_items(section, body, raw, rel)
            section, body = None, []
            for key, rx in _SECTION.items():
                if rx.match(line):
                    section = _SECTION_KEY[key]
            continue
        if section:
            body.append(_Line(number, line, kind))
    if section:
        items += _section_items(section, body, raw, rel)
    return items


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
        if head is None:
            items += _bullet_items(section, block, raw, rel)
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


def _bullet_items(section: str, block: list[_Line], raw: list[str], rel: str) -> list[FinalItem]:
    items: list[FinalItem] = []
    open_: list[_Line] = []  # the current bullet item's lines
    blank = False

    def close() -> None:
        if open_:
            first = open_[0]
            m = _BULLET.match(first.line)
            assert m
            title, names, sev = _split_title(m.group(1))
            item = _item(section, title, names, sev, open_, raw, rel)
            if item:
                items.append(item)
        open_.clear()

    for ln in block:
        if ln.kind == "text" and _BULLET.match(ln.line):
            close()
            if _is_bullet_item(ln.line):
                open_.append(ln)
        elif open_ and not ln.line.startswith(" ") and (ln.kind == "fence" or ln.line and blank):
            close()  # a paragraph or a fence at the margin after the list
        elif open_:
            open_.append(ln)
        blank = ln.kind == "text" and not ln.line
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
    title, names, sev = _split_title(_lead(htext))
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
    if not title or _RESOLVED.search(title):
        return None
    fields = [f for ln in lines[1:] if ln.kind == "text" and (f := _field(ln.line))]
    for label, value, _ in fields:
        if label in _REVIEWER_FIELDS and not names:
            names = reviewer_names(value)
        elif label == "severity" and severity is None:
            severity = _severity(value)
        elif label == "status" and (
            _RESOLVED.search(value) or value.lower().lstrip("*_✅ ").startswith("resolved")
        ):
            return None
    first = lines[0].number
    last = max((ln.number for ln in lines if ln.kind != "text" or ln.line), default=first)
    return FinalItem(
        section=section,
        title=title,
        flagged_by=_unique(names),
        severity=severity,
        location=location_of((f.label, f.value) for f in fields),
        path=rel,
        line=first,
        text="\n".join(raw[first - 1 : last]),
    )
