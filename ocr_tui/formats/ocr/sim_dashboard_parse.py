"""The parsers OCR's web dashboard runs over a round's files when it has no round-meta.json
(its parser path, the oldest history session's): the reviewer parser
(parsers/reviewer-parser.ts: title, severity defaulting to info, place, summary, blocker when
critical) and the final.md parser (parsers/final-parser.ts: verdict and section counts). Copied
as upstream has them, so the simulated rows are the ones the dashboard would write, but for one
bug not copied: its reviewer parser takes the `## Findings` section title for a finding titled
"s" (ocr-format §2.6).
"""

from __future__ import annotations

import re

# The dashboard's reviewer parser (parsers/reviewer-parser.ts), but `\b` after the heading
# word: upstream's regex also takes `## Findings` for a finding titled "s".
_HEADING = re.compile(r"^#{2,3}\s+(?:Finding|Issue|Suggestion)\b\s*(?:\d+)?\s*[:\s]*\s*(.*)", re.I)
_SEVERITY = re.compile(r"\*?\*?Severity\*?\*?\s*:?\s*(critical|high|medium|low|info)", re.I)
_FILE = re.compile(r"^[-\s]*\*?\*?(?:File|Location)\*?\*?\s*:\s*`?([^`\n]+)`?", re.I)
_LINES = re.compile(r"^[-\s]*\*?\*?Lines?\*?\*?\s*:\s*L?(\d+)(?:\s*[-–]\s*L?(\d+))?", re.I)
_EMBEDDED = re.compile(r"[:\s]+L?(\d+)(?:\s*[-–]\s*L?(\d+))?\s*$")
_METADATA = re.compile(r"^[-\s]*\*?\*?(?:Severity|Location|File|Lines?)\*?\*?\s*:", re.I)
_ANY_HEADING = re.compile(r"^#{2,3}\s")


def parse_reviewer(text: str) -> list[dict]:
    """Findings of a reviewer file as the dashboard parses them: title, severity (info when
    none), file_path, line_start, line_end, summary (the finding's other lines), is_blocker
    (critical)."""
    out: list[dict] = []
    cur: dict | None = None
    summary: list[str] = []

    def done() -> None:
        while summary and summary[-1] == "":
            summary.pop()
        severity = cur.get("severity") or "info"  # type: ignore[union-attr]
        out.append(
            {
                "title": cur["title"],  # type: ignore[index]
                "severity": severity,
                "file_path": cur.get("file_path"),  # type: ignore[union-attr]
                "line_start": cur.get("line_start"),  # type: ignore[union-attr]
                "line_end": cur.get("line_end"),  # type: ignore[union-attr]
                "summary": "\n".join(summary).strip(),
                "is_blocker": severity == "critical",
            }
        )

    for line in text.split("\n"):
        if m := _HEADING.match(line):
            if cur and cur["title"]:
                done()
            cur, summary = {"title": m[1].strip()}, []
            continue
        if _ANY_HEADING.match(line) and cur and cur["title"]:
            done()
            cur, summary = None, []
            continue
        if cur is None:
            continue
        m = _SEVERITY.search(line)
        if m and "severity" not in cur:
            cur["severity"] = m[1].lower()
            continue
        m = _FILE.match(line)
        if m and "file_path" not in cur:
            path = m[1].strip()
            lines = _EMBEDDED.search(path)
            if lines and "line_start" not in cur:
                cur["line_start"] = int(lines[1])
                cur["line_end"] = int(lines[2]) if lines[2] else cur["line_start"]
            path = _EMBEDDED.sub("", path, count=1).strip()
            if path:
                cur["file_path"] = path
            continue
        m = _LINES.match(line)
        if m and "line_start" not in cur:
            cur["line_start"] = int(m[1])
            cur["line_end"] = int(m[2]) if m[2] else cur["line_start"]
            continue
        trimmed = line.strip()
        if trimmed and not _METADATA.match(trimmed):
            summary.append(trimmed)
        elif not trimmed and summary:
            summary.append("")
    if cur and cur["title"]:
        done()
    return out


# The dashboard's final.md parser (parsers/final-parser.ts): verdict and section counts.
_VERDICT = re.compile(r"^\*?\*?\s*(?:##\s*)?Verdict\s*\*?\*?\s*:?\s*\*?\*?\s*(.*)", re.I | re.M)
_COUNT = {
    "blockers": (r"^\*\*Blockers?\*\*\s*:?\s*(\d+)", r"^##\s+Blockers?\b"),
    "should_fix": (r"^\*\*Should\s*Fix\*\*\s*:?\s*(\d+)", r"^##\s+Should\s*Fix\b"),
    "suggestions": (r"^\*\*Suggestions?\*\*\s*:?\s*(\d+)", r"^##\s+Suggestions?\b"),
}


def _section_items(text: str, heading: str) -> int:
    m = re.search(heading, text, re.I | re.M)
    if not m:
        return 0
    n = 0
    for line in text[m.end() :].split("\n"):
        s = line.strip()
        if re.match(r"^##\s+[^#]", s) or re.match(r"^---+\s*$", s):
            break
        if re.match(r"^###\s+\d+\.", s) or re.match(r"^###\s+[^\w\s#]", s, re.A):
            n += 1
        elif re.match(r"^-\s+\S", s) and not re.match(r"^-\s+(?:none\b|no\s|n/a\b)", s, re.I):
            n += 1
    return n


def parse_final(text: str) -> tuple[str | None, dict[str, int]]:
    """(verdict, {blockers, should_fix, suggestions}) as the dashboard reads final.md."""
    m = _VERDICT.search(text)
    verdict = re.sub(r"^\*+|\*+$", "", m[1].strip()).strip() if m else None
    counts = {}
    for name, (explicit, heading) in _COUNT.items():
        c = re.search(explicit, text, re.I | re.M)
        counts[name] = int(c[1]) if c else _section_items(text, heading)
    return verdict, counts
