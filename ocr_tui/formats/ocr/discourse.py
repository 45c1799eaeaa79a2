"""A round's `discourse.md` (ocr-format.md §4.2) as structured responses. No IO.

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

This module reads the file's structure (reviewer blocks, each response's lines and body);
discourse_names.py what a line says (keyword, reviewers, titles); discourse_links.py which
findings a response names.
"""

from __future__ import annotations

import re

import msgspec

from ocr_tui.formats.ocr.discourse_names import block_author, opening_keyword, read_names
from ocr_tui.formats.ocr.markdown import _heading, numbered_lines

KINDS = ("agree", "challenge", "connect", "surface")


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
            found = opening_keyword(htext, heading=True)
            if found is not None:
                cur = _Open(pos, found, author, None)
                continue
            name = block_author(htext)
            if name is not None:
                author, author_level = name, level
                if name not in out.authors:
                    out.authors.append(name)
            elif author is not None and level <= author_level:
                author = None
            continue
        found = opening_keyword(line, heading=False)
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
        """`found`: `opening_keyword`'s; `line`: the response's line, or None for a heading."""
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
        about, titles, own = read_names(self.kind, self.rest, bare=True, heading=self.heading)
        if not titles or about is None:
            body = "\n".join(items[p][1] for p in self.lines if items[p][2] == "text")
            b_about, b_titles, b_own = read_names(self.kind, body, bare=False, heading=False)
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
