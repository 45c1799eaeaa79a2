"""Pure parsers for the markdown OCR's agents write: reviewer findings, final.md, topology.md."""

from __future__ import annotations

import functools
import re
from typing import NamedTuple

from ocr_tui.core.view import Severity

SEVERITIES = ("critical", "high", "medium", "low", "info")

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING_OPEN = re.compile(r" {0,3}(#{1,6})(?![^ \t])")
_FINDING_WORD = re.compile(r"(?i)^(?:finding|issue|suggestion)\b")
# `- **Severity**: High`, `**Severity:** low`, `Severity: Info`, `Severity: 🔴 **High**`. Without
# a colon (`Severity High`) only one of the five words makes it a severity line, so prose such as
# "Severity of this depends on load" is not taken for one.
_SEVERITY_LINE = re.compile(r"(?i)^\s*(?:[-*+]\s+)?[*_]*\s*severity\s*[*_]*\s*(:)?\W*?([a-z]+)")
_HEADING_MARKUP = re.compile(r"^[*_`\s]+")
_COMMENT_OPEN = re.compile(r" {0,3}<!--")

# Every pattern here runs over lines from `_lines`, whose whitespace runs are one space (see
# there): two quantifiers that can both match whitespace then share at most one character, so
# no pattern backtracks over a long run (ocr-tui status took minutes on a heading padded with
# 200,000 spaces).


def _norm(line: str) -> str:
    """`line` with its whitespace runs made single spaces and its end trimmed; its indent is
    kept up to four columns (enough to tell a heading, a fence or a bullet from indented
    code). Linear in the line's length."""
    if line.isprintable() and "  " not in line and line[:1] != " " and line[-1:] != " ":
        return line  # already normal (most lines): no other whitespace than single spaces
    body = line.lstrip()
    if not body:
        return ""
    indent = line[: len(line) - len(body)].expandtabs(4)
    return " " * min(len(indent), 4) + " ".join(body.split())


def numbered_lines(text: str):
    """`line_table(text)`, one line at a time."""
    return iter(line_table(text))


@functools.lru_cache(maxsize=32)
def line_table(text: str) -> tuple[tuple[int, str, str], ...]:
    """The lines of `_numbered_lines`, kept for the last few texts: a reviewer file is read by
    the severity counts and by the findings reader in one derive (the same string)."""
    return tuple(_numbered_lines(text))


def _numbered_lines(text: str):
    """Yield (index, line, kind) for each line of markdown, normalised by `_norm`: `index` is
    the line's 0-based place in `text`; kind is "text", "fence" (a fence delimiter) or "code"
    (inside fenced code). Lines end at LF, CR or CRLF only (as CommonMark's do); a BOM at a
    line's start (a file that begins with one, or files joined by `cat`) is not text.
    Markdown inside an HTML comment is not content: a line that opens a comment block (`<!--`)
    and the lines up to the one that closes it (`-->`) are not yielded, and a comment within a
    line is cut out of it."""
    fence: str | None = None
    comment = False
    for i, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n")):
        line = _norm(raw.lstrip("\ufeff") if raw.startswith("\ufeff") else raw)
        if comment:
            comment = "-->" not in line
            continue
        m = _FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)[0] * len(m.group(1))
                yield i, line, "fence"
                continue
            if _COMMENT_OPEN.match(line):  # an HTML block: the whole of its last line too
                comment = "-->" not in line[line.index("<!--") + 4 :]
                continue
            if "<!--" in line:
                line = _cut_comments(line)
            yield i, line, "text"
        else:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
                yield i, line, "fence"
                continue
            yield i, line, "code"


def _lines(text: str):
    """(line, kind) of `numbered_lines`."""
    for _, line, kind in numbered_lines(text):
        yield line, kind


def _cut_comments(line: str) -> str:
    """`line` without its complete `<!-- … -->` comments (linear: str.find only)."""
    out, pos = [], 0
    while (start := line.find("<!--", pos)) >= 0:
        end = line.find("-->", start + 4)
        if end < 0:
            break
        out.append(line[pos:start])
        pos = end + 3
    out.append(line[pos:])
    return _norm("".join(out))


def _text_lines(text: str) -> list[str]:
    """The content lines: outside fenced code and HTML comments."""
    return [line for line, kind in _lines(text) if kind == "text"]


def _heading(line: str) -> tuple[int, str] | None:
    """(level, text) of an ATX heading line (`## Title ##`), or None."""
    m = _HEADING_OPEN.match(line)
    if not m:
        return None
    text = line[m.end() :].strip()
    bare = text.rstrip("#")
    if not bare:
        text = ""  # `## ###`: an empty heading
    elif bare != text and bare[-1] == " ":
        text = bare.rstrip()  # a closing sequence (`## Title ##`)
    return len(m.group(1)), text


class Section(NamedTuple):
    """One finding section of a reviewer file (see `finding_sections`)."""

    index: int  # 0-based line of its heading in the text
    end: int  # 0-based line where it ends (the next heading of its level or higher, or EOF)
    level: int
    heading: str  # the heading's text, normalised
    severity: str | None  # its first Severity line's word, lower case (any word)
    lines: tuple[str, ...]  # its content lines, normalised (not fenced code or comments)


@functools.lru_cache(maxsize=32)
def finding_sections(text: str) -> tuple[Section, ...]:
    """The finding sections of a reviewer file, in order: a level 2-4 heading whose text starts
    with the word Finding, Issue or Suggestion (not "Findings"), outside fenced code and HTML
    comments, running to the next heading of its level or higher (or the next finding
    heading). Kept for the last few texts: the severity counts and the findings reader read
    the same file in one derive."""
    out: list[Section] = []
    cur: list | None = None  # [index, level, heading, severity, seen, lines]

    def close(end: int) -> None:
        nonlocal cur
        if cur is not None:
            index, level, heading, severity, _seen, lines = cur
            out.append(Section(index, end, level, heading, severity, tuple(lines)))
        cur = None

    for i, line, kind in numbered_lines(text):
        if kind != "text":
            continue
        h = _heading(line)
        if h:
            level, htext = h
            if cur is not None and level <= cur[1]:
                close(i)
            if 2 <= level <= 4 and _FINDING_WORD.match(_HEADING_MARKUP.sub("", htext)):
                close(i)
                cur = [i, level, htext, None, False, []]
            continue
        if cur is None:
            continue
        if not cur[4]:
            m = _SEVERITY_LINE.match(line)
            if m and (m.group(1) or m.group(2).lower() in SEVERITIES):
                cur[3], cur[4] = m.group(2).lower(), True
        cur[5].append(line)
    close(text.replace("\r\n", "\n").count("\n") + text.count("\r") - text.count("\r\n") + 1)
    return tuple(out)


def parse_findings(text: str) -> Severity:
    """Count a reviewer file's findings (`finding_sections`) by severity: each one's first
    Severity line (unknown or none counts as info)."""
    sev = Severity()
    for section in finding_sections(text):
        key = section.severity if section.severity in SEVERITIES else "info"
        setattr(sev, key, getattr(sev, key) + 1)
    return sev


_VERDICT_INLINE = re.compile(r"(?i)^\s*(?:#{1,6}\s*)?[*_]*\s*verdict\s*[*_]*\s*:\s*(.+)$")
_VERDICT_SECTION = re.compile(r"(?i)^\s*#{1,6}\s*[*_]*\s*verdict\s*[*_]*\s*:?\s*$")
_RULE = re.compile(r"^\s*([-*_])(?:\s*\1){2,}\s*$")
# Where a verdict's rationale starts: `**APPROVE** — with nits`, `APPROVE: looks good`.
_VERDICT_END = re.compile(r"\s+[—–-]\s|\s*[—–]|[.;:!?](?:\s|$)|\s+\(")
MAX_VERDICT = 40


def _clean_verdict(raw: str) -> str | None:
    """The verdict words only: markup stripped, rationale clipped, upper case."""
    if _RULE.match(raw):
        return None  # a horizontal rule is not a verdict
    text = re.sub(r"[*_`]", "", raw).strip().lstrip("> \t")  # a `> **APPROVE**` quote too
    m = _VERDICT_END.search(text)
    if m and m.start() > 0:
        text = text[: m.start()]
    text = text.strip(" \t.,;:!?-—–")
    if not text:
        return None
    return text.upper()[:MAX_VERDICT].rstrip()


def parse_verdict(text: str) -> str | None:
    lines = _text_lines(text)
    for i, line in enumerate(lines):
        m = _VERDICT_INLINE.match(line)
        if m and _clean_verdict(m.group(1)):
            return _clean_verdict(m.group(1))
        if _VERDICT_SECTION.match(line):
            for nxt in lines[i + 1 :]:
                if nxt.strip():
                    if nxt.lstrip().startswith("#"):
                        return None
                    return _clean_verdict(nxt)
            return None
    return None


def parse_topology_files(text: str) -> int | None:
    """Non-empty lines of the first fenced block after `## Canonical File List`."""
    after = False
    count: int | None = None
    for line, kind in _lines(text):
        if not after:
            h = _heading(line) if kind == "text" else None
            after = h is not None and h[1].strip("*_` ").lower() == "canonical file list"
        elif kind == "fence":
            if count is not None:
                return count  # the block's closing fence
            count = 0
        elif kind == "code" and line:
            count = (count or 0) + 1
    return count


_NUMBERED = re.compile(r"^(.*?)-(\d+)$")


def reviewer_label(name: str) -> str:
    """`staff-engineer-2` -> `Staff Engineer #2`; `principal-balanced` -> `Principal Balanced`."""
    m = _NUMBERED.match(name)
    base, num = (m.group(1), m.group(2)) if m and m.group(1) else (name, None)
    words = " ".join(w[:1].upper() + w[1:] for w in re.split(r"[-_\s]+", base) if w)
    words = words or name
    return f"{words} #{int(num)}" if num is not None else words


def natural_key(name: str) -> tuple:
    """principal-2 before principal-10."""
    # ASCII digits: `str.isdigit` is true for `²`, which `int` cannot read (`x1².md`).
    return tuple(
        (0, int(part), "") if i % 2 else (1, 0, part.lower())
        for i, part in enumerate(re.split(r"([0-9]+)", name))
        if part
    )
