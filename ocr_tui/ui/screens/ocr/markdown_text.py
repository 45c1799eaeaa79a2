"""Markdown from OCR's agents, made to read as they wrote it.

Reviewers and the Tech Lead write key/value lines and discourse responses one under another
without blank lines between them:

    **Flagged by**: @principal-1          AGREE quality-1 "Dead code"
    **Location**: src/a.ts:42             CHALLENGE security-1 "SQL injection" — validated

Markdown runs such lines into one paragraph. `keep_line_breaks` ends each of them with a hard
line break when the next line continues the paragraph, outside fenced code, so they stay one to
a line; nothing else changes. Text in, text out: the caller has made it escape-safe.

OCR's final.md template puts its header fields one to a line (`**Date**: …`, `**Reviewers**:
…`, `**Mode**: …`), but agents (and OCR's own summary of the template) also write them on one
line: `**Date**: 2026-11-22 **Reviewers**: @principal-1 **Mode**: Full`. Such a line, several
bold-key fields and nothing else, is cut before each key after the first (`split_fields`), so
each key/value reads on its own line as the template lays them out.
"""

from __future__ import annotations

import re

from ocr_tui.formats.ocr.api import parse_field

RESPONSE_WORDS = ("AGREE", "CHALLENGE", "CONNECT", "SURFACE")
_BLOCK_STARTS = ("- ", "* ", "+ ", "#", ">", "|", "```", "~~~", "<", "---", "***", "___")


def is_field_line(line: str) -> bool:
    """`**Severity**: high`, `- **File:** a.py`: a bold key and its value."""
    field = parse_field(" ".join(line.split())[:400], strict=True)
    return field is not None and field.bold


def is_response_line(line: str) -> bool:
    """`AGREE quality-1 "…"`, `- **CHALLENGE** security-1 …`: a discourse response."""
    body = line.strip().lstrip("-*+> ").lstrip("*_[")
    word = body.split(" ", 1)[0].rstrip("*_]:") if body else ""
    return word in RESPONSE_WORDS


# A space, then a bold key and its colon (`**Mode**:`, `**Mode:**`, `__Mode__ :`), then a space
# or the end: where a second field starts on a field line. Bounded like `fields._FIELD`.
_NEXT_FIELD = re.compile(
    r" +(?=(?:\*\*|__)[A-Za-z][A-Za-z -]{0,30}?(?::(?:\*\*|__)|(?:\*\*|__) ?:)(?: |$))"
)


def split_fields(line: str) -> list[str]:
    """`line` cut before each bold key after the first when it holds several fields (`**Date**:
    x **Mode**: y` -> two lines), else `[line]`. Not inside a code span, and only when every
    part is a field line of its own."""
    if "**" not in line and "__" not in line or not is_field_line(line):
        return [line]
    first_colon = line.find(":")  # the first field's key ends there
    cuts = [
        m.start()
        for m in _NEXT_FIELD.finditer(line, first_colon + 1)
        if not line.count("`", 0, m.start()) % 2
    ]
    if not cuts:
        return [line]
    ends = [*cuts, len(line)]
    parts = [line[: cuts[0]].rstrip()]
    parts += [line[start:end].strip() for start, end in zip(cuts, ends[1:], strict=True)]
    return parts if all(is_field_line(part) for part in parts) else [line]


def _continues(line: str) -> bool:
    """Does `line` continue the paragraph above it (rather than start a block)?"""
    s = line.strip()
    if not s or s.startswith(_BLOCK_STARTS) or line.startswith("    "):
        return False
    digits = len(s) - len(s.lstrip("0123456789"))
    return not (0 < digits <= 9 and s[digits : digits + 2] in (". ", ") "))


def keep_line_breaks(text: str) -> str:
    """`text` with a hard break after each key/value or response line that the next line
    would otherwise join (see the module doc)."""
    lines = text.split("\n")
    if "**" in text or "__" in text:
        lines = _split_field_lines(lines)
    fence: str | None = None
    for i, line in enumerate(lines):
        s = line.strip()
        if s.startswith(("```", "~~~")):
            mark = s[:3]
            fence = None if fence == mark else (fence or mark)
            continue
        if fence is not None or i + 1 == len(lines) or line.endswith(("\\", "  ")):
            continue
        if (is_field_line(line) or is_response_line(line)) and _continues(lines[i + 1]):
            lines[i] = line.rstrip() + "\\"
    return "\n".join(lines)


def _split_field_lines(lines: list[str]) -> list[str]:
    """`lines` with each line of several fields made one line per field (`split_fields`), each
    but the last ending in a hard break; fenced code is left alone."""
    out: list[str] = []
    fence: str | None = None
    for line in lines:
        s = line.strip()
        if s.startswith(("```", "~~~")):
            mark = s[:3]
            fence = None if fence == mark else (fence or mark)
        parts = [line] if fence is not None else split_fields(line)
        out += [part + "\\" for part in parts[:-1]] + [parts[-1]]
    return out
