"""Markdown from OCR's agents, made to read as they wrote it (issue 16, item 10).

Reviewers and the Tech Lead write key/value lines and discourse responses one under another
without blank lines between them:

    **Flagged by**: @principal-1          AGREE quality-1 "Dead code"
    **Location**: src/a.ts:42             CHALLENGE security-1 "SQL injection" — validated

Markdown runs such lines into one paragraph. `keep_line_breaks` ends each of them with a hard
line break when the next line continues the paragraph, outside fenced code, so they stay one to
a line; nothing else changes. Text in, text out: the caller has made it escape-safe.
"""

from __future__ import annotations

from ocr_tui.formats.ocr.fields import parse_field

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
