"""A round's `discourse.md` (issue 12; ocr-format.md §4.2) as structured responses. No IO.

After their reviews, OCR's reviewers answer each other with four fixed response types: AGREE,
CHALLENGE, CONNECT and SURFACE. The Tech Lead saves them under per-reviewer blocks
(`## Discourse from principal-1`) next to summary sections (`## Consensus (High Confidence)`,
`## Challenged Findings`, ...). The shapes read here:

    AGREE quality-1 "Long function needs decomposition"        (OCR's template)
      - This aligns with my concern about maintainability      (its body: indented lines)
    CHALLENGE security-1 "SQL injection risk" — validated upstream
    CONNECT "Missing error handling" → quality-2 "No logging"  (or `->`; the left title is
                                                                the author's own finding)
    SURFACE                                                    (a new concern; a body, a title
      - Reading quality-1's finding made me realise: ...        or a target are optional)
    - **AGREE** quality-1: "Title"     1. **Challenge** @security-1 **Title**
    AGREE quality-1: Title — reason    (an unquoted title right after the reviewer)
    ### CHALLENGE — security-1         (a heading, as OCR's dashboard reads them: the lines up
    ## AGREE - "Title" (quality-1)      to the next heading are its body)
    - **principal-2**: AGREE quality-1 "Title"   (the author named on the line)

A keyword counts in capitals, or in any case when it is bold / italic or (in a heading) stands
alone before a dash or colon, so prose ("I agree with ...") is no response. Nothing inside
fenced code or an HTML comment is a response. `author` is the reviewer whose block the response
is in (`## Discourse from X`, `## Responses from @X`, `### X`): a heading of that block's level
or higher that is no response ends it. `about` is the reviewer answered (`quality-1`, `@qa-2`,
`[security-1]`); for CONNECT the one after the arrow.

Every pattern runs over `numbered_lines`' normalised lines (whitespace runs are one space) and
either has one unbounded quantifier or none that can match the same characters as its
neighbour, so each is linear in the line's length. `text` is kept raw (escape sequences too):
pass it through `safe_line` before printing.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

import msgspec

from ocr_tui.formats.ocr.finding import Finding, close_ratio, normalise_title
from ocr_tui.formats.ocr.markdown import _heading, numbered_lines

KINDS = ("agree", "challenge", "connect", "surface")
FUZZY = 0.85  # difflib ratio of normalised titles for a close title to name a finding
MAX_FUZZY = 400  # longer titles are compared exactly only (difflib is quadratic)
MAX_SCAN = 4000  # characters of a response's line (and of its body) searched for titles
MAX_TITLES = 20


class Response(msgspec.Struct, kw_only=True):
    kind: str  # one of KINDS
    author: str | None = None  # whose block it is in: `principal-1`
    about: str | None = None  # the reviewer it answers: `quality-1`
    titles: list[str] = []  # the finding titles it names, as written
    own_titles: int = 0  # how many of `titles`, from the first, are the author's (CONNECT's left)
    text: str = ""  # its markdown: the line (and body), or the heading and its body; raw
    line: int = 0  # 1-based line of its first line in the file
    finding_ids: list[str] = []  # the findings its titles name (`link`)


class Discourse(msgspec.Struct):
    responses: list[Response] = []
    authors: list[str] = []  # reviewers with a block, in file order (some may have no response)

    @property
    def parsed(self) -> bool:
        """Was any response read? If not, show the markdown as it is."""
        return bool(self.responses)

    def counts(self) -> dict[str, int]:
        """Responses per kind, every kind present: {"agree": 3, "challenge": 1, ...}."""
        out = dict.fromkeys(KINDS, 0)
        for r in self.responses:
            out[r.kind] = out.get(r.kind, 0) + 1
        return out

    def by_author(self) -> dict[str | None, list[Response]]:
        """Responses grouped by author, authors in the order of their first response (None:
        outside any reviewer's block)."""
        out: dict[str | None, list[Response]] = {}
        for r in self.responses:
            out.setdefault(r.author, []).append(r)
        return out


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


def parse_discourse(text: str) -> Discourse:
    """Every response of a discourse.md, in file order (see the module's docstring)."""
    raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    items = list(numbered_lines(text))
    out = Discourse()
    author: str | None = None
    author_level = 0
    cur: _Open | None = None

    def close() -> None:
        nonlocal cur
        if cur is not None:
            out.responses.append(cur.finish(raw, items))
        cur = None

    for pos, (_, line, kind) in enumerate(items):
        if kind != "text":  # fenced code: part of an open response's body, never a response
            if cur is not None and not cur.take_code(pos, line, kind):
                close()
            continue
        if not line:
            if cur is not None:
                cur.blank(pos)
            continue
        h = _heading(line)
        if h is not None:
            close()
            level, htext = h
            found = _keyword(htext, heading=True)
            if found is not None:
                cur = _Open(pos, found, author, None)
                continue
            name = _author(htext)
            if name is not None:
                author, author_level = name, level
                if name not in out.authors:
                    out.authors.append(name)
            elif author is not None and level <= author_level:
                author = None
            continue
        found = _keyword(line, heading=False)
        if found is not None:
            close()
            cur = _Open(pos, found, author, line)
            continue
        if cur is not None and not cur.take(pos, line):
            close()
    close()
    return out


class _Open:
    """A response being read: its first line and the item positions of its body."""

    def __init__(self, pos: int, found: tuple, author: str | None, line: str | None):
        """`found`: `_keyword`'s; `line`: the response's line, or None for a heading."""
        self.pos, (self.kind, self.rest, named) = pos, found
        self.author = named or author
        self.heading = line is None
        self.indent = 0 if line is None else _indent(line)
        self.bullet = line is not None and _is_bullet(line)  # then a sibling bullet ends it
        self.lines: list[int] = []  # body positions in `items`
        self.blanks: list[int] = []  # blank lines kept only if more body follows
        self.lazy = True  # the last line was text of the same paragraph
        self.in_code = False  # inside a fenced block of the body

    def _add(self, pos: int) -> None:
        self.lines += self.blanks
        self.blanks = []
        self.lines.append(pos)

    def blank(self, pos: int) -> None:
        self.blanks.append(pos)
        self.lazy = False

    def take(self, pos: int, line: str) -> bool:
        """Add a text line to the body if it belongs there: any line up to the next heading
        for a heading; for a line, a more indented one or the rest of its paragraph."""
        if self.heading or _indent(line) > self.indent:
            self._add(pos)
            self.lazy = True
            return True
        if self.lazy and not (self.bullet and _is_bullet(line)):
            self._add(pos)
            return True
        return False

    def take_code(self, pos: int, line: str, kind: str) -> bool:
        if kind == "fence" and not self.in_code:  # an opening fence
            if not (self.heading or _indent(line) > self.indent or self.lazy):
                return False
            self.in_code = True
        elif kind == "fence":
            self.in_code = False
        elif not self.in_code:
            return False
        self._add(pos)
        self.lazy = False
        return True

    def finish(self, raw: list[str], items: list) -> Response:
        index = items[self.pos][0]
        about, titles, own = _read(self.kind, self.rest, bare=True, heading=self.heading)
        if not titles or about is None:
            body = "\n".join(items[p][1] for p in self.lines if items[p][2] == "text")
            b_about, b_titles, b_own = _read(self.kind, body, bare=False, heading=False)
            if not titles:
                titles, own = b_titles, b_own
            about = about or b_about
        lines = [_raw_line(raw, items, p) for p in (self.pos, *self.lines)]
        return Response(
            kind=self.kind,
            author=self.author,
            about=about,
            titles=titles,
            own_titles=own,
            text="\n".join(lines),
            line=index + 1,
        )


def _raw_line(raw: list[str], items: list, pos: int) -> str:
    """A line as written (a BOM and trailing whitespace dropped; a comment within a line cut
    out, as `numbered_lines` does)."""
    index, norm, kind = items[pos]
    line = raw[index]
    if kind == "text" and "<!--" in line:
        return norm
    return line.lstrip("\ufeff").rstrip()


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_bullet(line: str) -> bool:
    body = line.lstrip(" ")
    return body[:2] in ("- ", "* ", "+ ") or _ORDERED.match(body) is not None


_ORDERED = re.compile(r"[0-9]{1,9}[.)] ")


def _keyword(line: str, *, heading: bool) -> tuple[str, str, str | None] | None:
    """(kind, what follows the keyword, the author it names first) when `line` (a heading's
    text) opens a response."""
    m = _KEYWORD.match(line)
    if m is None:
        return None
    author = _reviewer_id(m.group(1)) if m.group(1) else None  # not `- **Response**: AGREE`
    word, rest = m.group(3), line[m.end() :]
    closing = rest.lstrip("*_]")
    if not word.isupper() and not m.group(2):
        after = closing.lstrip(" ")
        if not heading or (after and after[0] not in ":-–—"):
            return None  # "Agree with ...": prose
    return word.lower(), closing, author


def _reviewer_id(token: str) -> str | None:
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
        if _reviewer_id(m.group()):
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
    about = _reviewer_id(tok.group()) if tok else None
    titles = [t for _, _, t in spans]
    if titles:
        if about is None:  # `"Title" (quality-1)`
            after = _first_reviewer(s[spans[-1][1] :])
            about = _reviewer_id(after.group()) if after else None
        return about, titles
    for m in _BOLD.finditer(s):
        t = _clean_title(m.group(1) if m.group(1) is not None else m.group(2))
        if t and not _reviewer_id(t):
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


def _read(kind: str, rest: str, *, bare: bool, heading: bool) -> tuple[str | None, list[str], int]:
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


def _author(htext: str) -> str | None:
    """The reviewer whose block a heading opens: `Discourse from principal-1`, `From @qa-1`,
    `principal-1`, `Principal-1's responses`; else None."""
    text = htext.replace("*", "").replace("`", "").strip()
    m = _AUTHOR_HEADING.match(text)
    if m:
        return _name(text[m.end() :])
    first = _TOKEN.match(text.lstrip("@"))
    if first is not None:
        return _reviewer_id(first.group())
    return None


def _name(s: str) -> str | None:
    """`principal-1 (Architecture)` -> `principal-1`; `Principal #1` / `Staff Engineer 2` ->
    `principal-1` / `staff-engineer-2`; `@principal-balanced` -> `principal-balanced`."""
    tokens = [t.strip("@-_").lower() for t in _TOKEN.findall(s[:200])]
    tokens = [t for t in tokens if t]
    if not tokens:
        return None
    if rid := _reviewer_id(tokens[0]):
        return rid
    for n, tok in enumerate(tokens[:4]):
        if tok.isascii() and tok.isdigit():
            return _reviewer_id("-".join([*tokens[:n], tok])) if n else None
    if "-" in tokens[0] or len(tokens) == 1:
        return tokens[0]  # a name the user gave (`principal-balanced`, `alice`)
    return None  # `From the team`


# --- linking to findings -------------------------------------------------------------------


def link(discourse: Discourse, findings: Iterable[Finding]) -> Discourse:
    """A copy of `discourse` whose responses' `finding_ids` name the findings their titles
    name: a finding with the same normalised title, else the closest ones with a difflib ratio
    of at least FUZZY; of several, those of the reviewer the title is about (CONNECT's left
    titles: the author's own). `discourse` itself is left as it is."""
    pool = [(normalise_title(f.title), f) for f in findings]
    exact: dict[str, list[Finding]] = {}
    for norm, f in pool:
        exact.setdefault(norm, []).append(f)
    responses = []
    for r in discourse.responses:
        ids: list[str] = []
        for k, title in enumerate(r.titles):
            prefer = r.author if k < r.own_titles else r.about
            for f in _named(normalise_title(title), prefer, exact, pool):
                if f.id not in ids:
                    ids.append(f.id)
        responses.append(msgspec.structs.replace(r, finding_ids=ids))
    return msgspec.structs.replace(discourse, responses=responses)


def _named(norm: str, prefer: str | None, exact, pool) -> list[Finding]:
    """The findings a normalised title names, those of `prefer` first (see `link`)."""
    if not norm:
        return []
    found = exact.get(norm)
    if found:
        mine = [f for f in found if prefer and prefer in f.reviewers]
        return mine or found
    close = _close(norm, pool)
    mine = [(r, f) for r, f in close if prefer and prefer in f.reviewers]
    return _best(mine or close)


def _best(scored: list[tuple[float, Finding]]) -> list[Finding]:
    top = max((r for r, _ in scored), default=0.0)
    return [f for r, f in scored if r >= top - 1e-9]


def _close(norm: str, pool) -> list[tuple[float, Finding]]:
    """(ratio, finding) of the findings whose normalised title is within FUZZY of `norm`."""
    if len(norm) > MAX_FUZZY:
        return []
    out = []
    sm = difflib.SequenceMatcher(None, "", norm, autojunk=False)  # b is cached
    for other, f in pool:
        if not other or len(other) > MAX_FUZZY:
            continue
        sm.set_seq1(other)
        ratio = close_ratio(sm, FUZZY)
        if ratio is not None:
            out.append((ratio, f))
    return out


def responses_about(discourse: Discourse, finding_id: str) -> list[Response]:
    """The responses (of a linked discourse) that name a finding, in file order."""
    return [r for r in discourse.responses if finding_id in r.finding_ids]
