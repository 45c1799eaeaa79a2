"""What a discourse.md response's line says: whether it opens a response (its AGREE /
CHALLENGE / CONNECT / SURFACE keyword and the author it may name first), the reviewer it
answers and the finding titles it names (quoted, bold or bare; CONNECT's on both sides of its
arrow); and the reviewer whose block a heading opens. discourse.py reads the file's structure
and asks these of each line. Pure functions; no IO; every pattern linear in the line's length.
"""

from __future__ import annotations

import re

from ocr_tui.formats.ocr.finding import normalise_title

MAX_SCAN = 4000  # characters of a response's line (and of its body) searched for titles
MAX_TITLES = 20

# `AGREE`, `- **AGREE**`, `1. *Challenge*`, `> CONNECT`, `- [ ] SURFACE`, `[AGREE]`,
# `- **principal-1**: AGREE` (the author named first); in a heading the heading's text:
# `1. AGREE`, `**CHALLENGE** — x`.
_KEYWORD = re.compile(
    r"(?i)^ {0,4}(?:> ?)?(?:(?:[-*+]|[0-9]{1,9}[.)]) )?(?:\[[ xX]\] )?"
    r"(?:[*_]{0,2}@?([\w-]{1,60})[*_]{0,2} ?[:—–-] ?)?"
    r"([*_]{0,3})\[?(agree|challenge|connect|surface)(?![\w-])"
)
_QUOTED = re.compile(r'"([^"\n]*)"|“([^“”\n]*)”')
_BOLD = re.compile(r"\*\*([^*\n]+)\*\*|__([^_\n]+)__")
_ARROW = re.compile(r"<?-{1,2}>|<?={1,2}>|—>|[→⟶➔➜↔⟷]")
_TOKEN = re.compile(r"[\w@-]+")
# Where an unquoted title ends and the reasoning starts: `Title — reason`, `Title (quality-1)`.
_REASON = re.compile(r" [-–—] |[–—]| \(|; |\. ")
_SEP = " :—–-.,()[]*_>@"  # what may stand between the keyword, a reviewer and a title
# `Discourse from X`, `Responses by @X`, `From X`, `Round 2 discourse from X`.
_AUTHOR_HEADING = re.compile(
    r"(?i)^(?:(?:reviewer |round [0-9]{1,9} )?(?:discourse|responses?|replies)"
    r"(?: responses?)? )?(?:from|by) "
)


def opening_keyword(line: str, *, heading: bool) -> tuple[str, str, str | None] | None:
    """(kind, what follows the keyword, the author it names first) when `line` (a heading's
    text) opens a response."""
    m = _KEYWORD.match(line)
    if m is None:
        return None
    author = reviewer_id(m.group(1)) if m.group(1) else None  # not `- **Response**: AGREE`
    word, rest = m.group(3), line[m.end() :]
    closing = rest.lstrip("*_]")
    if not word.isupper() and not m.group(2):
        after = closing.lstrip(" ")
        if not heading or (after and after[0] not in ":-–—"):
            return None  # "Agree with ...": prose
    return word.lower(), closing, author


def reviewer_id(token: str) -> str | None:
    """`quality-1`, `@security-2`, `Staff-Engineer-1` -> the reviewer's id; else None."""
    if "-" not in token or not token[-1].isdigit():
        return None
    tok = token.lstrip("@").strip("-").lower()
    base, sep, num = tok.rpartition("-")
    if not sep or not (num.isascii() and num.isdigit()) or len(num) > 3 or int(num) == 0:
        return None
    if len(base) < 2 or not base[:2].isalpha() or "@" in base:
        return None
    return tok


def _first_reviewer(s: str) -> re.Match | None:
    for m in _TOKEN.finditer(s):
        if reviewer_id(m.group()):
            return m
    return None


def _clean_title(title: str) -> str | None:
    t = title.strip().strip("*_`").strip()
    return t if normalise_title(t) else None


def _quoted(s: str) -> list[tuple[int, int, str]]:
    """(start, end, title) of the quoted titles, at most MAX_TITLES."""
    out = []
    for m in _QUOTED.finditer(s):
        inner = m.group(1) if m.group(1) is not None else m.group(2)
        t = _clean_title(inner) if inner and not inner.isspace() else None
        if t:
            out.append((m.start(), m.end(), t))
            if len(out) == MAX_TITLES:
                break
    return out


def _bare_title(s: str) -> str | None:
    """An unquoted title: `: Long function — reason` -> `Long function`."""
    s = s.lstrip(_SEP)
    m = _REASON.search(s)
    if m and m.start() > 0:
        s = s[: m.start()]
    return _clean_title(s.rstrip(" .:;,!?)]*_"))


def _side(s: str, *, bare: bool, heading: bool) -> tuple[str | None, list[str]]:
    """(about, titles) of one side of a response: quoted titles, else bold ones, else (with
    `bare`) the words after a leading reviewer, or a heading's words."""
    spans = _quoted(s)
    tok = _first_reviewer(s[: spans[0][0]] if spans else s)
    about = reviewer_id(tok.group()) if tok else None
    titles = [t for _, _, t in spans]
    if titles:
        if about is None:  # `"Title" (quality-1)`
            after = _first_reviewer(s[spans[-1][1] :])
            about = reviewer_id(after.group()) if after else None
        return about, titles
    for m in _BOLD.finditer(s):
        t = _clean_title(m.group(1) if m.group(1) is not None else m.group(2))
        if t and not reviewer_id(t):
            titles.append(t)
            if len(titles) == MAX_TITLES:
                break
    if titles or not bare:
        return about, titles
    leading = tok is not None and s[: tok.start()].strip(_SEP).lower() in ("", "with", "to", "on")
    if leading:
        t = _bare_title(s[tok.end() :])
    elif heading:
        t = _bare_title(s)
    else:
        t = None
    return about, [t] if t else []


def read_names(
    kind: str, rest: str, *, bare: bool, heading: bool
) -> tuple[str | None, list[str], int]:
    """(about, titles, own_titles) of the text after a keyword (or of a body)."""
    rest = rest[:MAX_SCAN]
    if kind == "connect":
        spans = _quoted(rest)
        k = 0
        for m in _ARROW.finditer(rest):
            while k < len(spans) and spans[k][1] <= m.start():
                k += 1
            if k < len(spans) and spans[k][0] <= m.start():
                continue  # an arrow inside a title
            left, right = rest[: m.start()], rest[m.end() :]
            _, mine = _side(left, bare=False, heading=False)
            if not mine and bare:
                t = _bare_title(_drop_leading_reviewer(left))
                mine = [t] if t else []
            about, theirs = _side(right, bare=bare, heading=False)
            return about, mine + theirs, len(mine)
    about, titles = _side(rest, bare=bare, heading=heading)
    return about, titles, 0


def _drop_leading_reviewer(s: str) -> str:
    tok = _first_reviewer(s)
    if tok is not None and not s[: tok.start()].strip(_SEP):
        return s[tok.end() :]
    return s


def block_author(htext: str) -> str | None:
    """The reviewer whose block a heading opens: `Discourse from principal-1`, `From @qa-1`,
    `principal-1`, `Principal-1's responses`; else None."""
    text = htext.replace("*", "").replace("`", "").strip()
    m = _AUTHOR_HEADING.match(text)
    if m:
        return _name(text[m.end() :])
    first = _TOKEN.match(text.lstrip("@"))
    if first is not None:
        return reviewer_id(first.group())
    return None


def _name(s: str) -> str | None:
    """`principal-1 (Architecture)` -> `principal-1`; `Principal #1` / `Staff Engineer 2` ->
    `principal-1` / `staff-engineer-2`; `@principal-balanced` -> `principal-balanced`."""
    tokens = [t.strip("@-_").lower() for t in _TOKEN.findall(s[:200])]
    tokens = [t for t in tokens if t]
    if not tokens:
        return None
    if rid := reviewer_id(tokens[0]):
        return rid
    for n, tok in enumerate(tokens[:4]):
        if tok.isascii() and tok.isdigit():
            return reviewer_id("-".join([*tokens[:n], tok])) if n else None
    if "-" in tokens[0] or len(tokens) == 1:
        return tokens[0]  # a name the user gave (`principal-balanced`, `alice`)
    return None  # `From the team`
