"""What the text of a final.md item's heading or bullet says: its title, the reviewers who
flagged it, its severity tag and the place it names (`- "SQL injection" — @principal-1
[**High**]`, `### 🚫 1. Title (src/a.py:42)`), and whether its title says it is resolved.
Split from the section and item structure (final_items.py), which calls these on each item's
first line. Pure functions; no IO; every pattern linear in the line's length.
"""

from __future__ import annotations

import re
import unicodedata

from ocr_tui.formats.ocr.fields import parse_location
from ocr_tui.formats.ocr.finding import SEVERITIES, Location

# --- reviewers and severity -----------------------------------------------------------------

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
    return unique_names(n for n in names if n)


def unique_names(names) -> list[str]:
    seen: dict[str, None] = {}
    for name in names:
        seen.setdefault(name, None)
    return list(seen)


def severity_word(value: str) -> str | None:
    word = value.strip(" *_`[]()").split(" ")[0].strip(" *_`[]().,:;").lower()
    return word if word in SEVERITIES else None


# --- titles ---------------------------------------------------------------------------------

_SEPARATORS = ("—", "–", "-", "--", "―")
_BY_WORDS = ("by", "flagged", "raised", "from", "via")
_NUMBER = re.compile(r"^\d+[.)](?: |$)")
# A title that says the item is done: `…: RESOLVED`, `(Resolved)`, `— resolved in round 4`,
# `✅ Resolved`.
RESOLVED = re.compile(r"\bRESOLVED\b|(?i:(?:[:(\[—–-]|✅) ?resolved\b)")
_QUOTES = {'"': '"', "“": "”", "'": "'", "‘": "’", "«": "»"}


def _tag(text: str) -> tuple[str, str | None]:
    """`Title [**High**]` / `[High] Title` / `**[HIGH]** Title` -> (Title, high)."""
    t = text.strip()
    if t.endswith("]"):
        i = t.rfind("[")
        if i >= 0 and (sev := severity_word(t[i + 1 : -1])):
            return t[:i].rstrip(), sev
    bare = t.lstrip("*_")
    if bare.startswith("["):
        j = bare.find("]")
        if j > 0 and (sev := severity_word(bare[1:j])):
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


def strip_lead(text: str) -> str:
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


def clean_title(title: str) -> str:
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


def split_title(text: str) -> tuple[str, list[str], str | None]:
    """(title, reviewers, severity) of a heading's text or a bullet's."""
    t, sev = _tag(text)
    t, names = _reviewer_suffix(t)
    if sev is None:
        t, sev = _tag(t)  # `"Title" [High] — @a`
    return clean_title(t), names, sev


# A path as a title's end names it (`src/search.py:42`, `a.ts#L12`, `lib/x`): no spaces, and
# a directory or a file extension. Bounded after its first run: linear in the text's length.
_PLACE = re.compile(
    r"[\w.~/-]{1,300}(?:/[\w.~-]{1,100}|\.[A-Za-z][A-Za-z0-9]{0,9})(?:[:#]L?\d{1,9}(?:[-–]L?\d{1,9})?)?"
)
_PLACE_LEAD = (" — ", " – ", " - ", " in ", " at ", ": ", " ")


def trailing_place(title: str) -> tuple[str, Location]:
    """`SQL injection in search (src/search.py:42)` / `` … — `src/a.py:7` `` -> (the title
    without it, the place); (title, no place) when it does not end with one."""
    t = title.rstrip()
    if t.endswith(")") and (i := t.rfind("(")) > 0:
        inner, head = t[i + 1 : -1].strip(" `"), t[:i]
    elif t.endswith("`") and (i := t.rfind("`", 0, len(t) - 1)) > 0:
        inner, head = t[i + 1 : -1].strip(), t[:i]
        if not head.endswith(_PLACE_LEAD):
            return title, Location()
    else:
        return title, Location()
    if not _PLACE.fullmatch(inner):
        return title, Location()
    rest = head.rstrip(" —–-:")
    for word in (" in", " at"):
        if rest.endswith(word) and t.endswith("`"):
            rest = rest[: -len(word)].rstrip()
    return (rest or title), (parse_location(inner) if rest else Location())
