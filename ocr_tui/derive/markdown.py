"""Pure parsers for the markdown OCR's agents write: reviewer findings, final.md, topology.md."""

from __future__ import annotations

import re

from ocr_tui.model.view import Counts, Severity

SEVERITIES = ("critical", "high", "medium", "low", "info")

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HEADING = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$")
_FINDING_WORD = re.compile(r"(?i)^(?:finding|issue|suggestion)\b")
# `- **Severity**: High`, `**Severity:** low`, `Severity: Info`, `Severity: 🔴 **High**`. Without
# a colon (`Severity High`) only one of the five words makes it a severity line, so prose such as
# "Severity of this depends on load" is not taken for one.
_SEVERITY_LINE = re.compile(r"(?i)^\s*(?:[-*+]\s+)?[*_]*\s*severity\s*[*_]*\s*(:)?\W*?([a-z]+)")
_HEADING_MARKUP = re.compile(r"^[*_`\s]+")


def _lines_outside_fences(text: str):
    """Yield (line, in_fence) for each line; fence delimiter lines count as in-fence."""
    fence: str | None = None
    for line in text.splitlines():
        m = _FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)[0] * len(m.group(1))
                yield line, True
                continue
            yield line, False
        else:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            yield line, True


def _heading(line: str) -> tuple[int, str] | None:
    m = _HEADING.match(line)
    if not m:
        return None
    return len(m.group(1)), (m.group(2) or "").strip()


def parse_findings(text: str) -> Severity:
    """Count a reviewer file's findings by severity.

    A finding is a level 2-4 heading whose text starts with the word Finding, Issue or
    Suggestion (not "Findings"), outside fenced code. It runs to the next heading of its level
    or higher; its severity is its first Severity line (unknown or none counts as info).
    """
    sev = Severity()
    level: int | None = None  # level of the open finding
    severity: str | None = None
    seen_line = False

    def close() -> None:
        nonlocal level
        if level is not None:
            key = severity if severity in SEVERITIES else "info"
            setattr(sev, key, getattr(sev, key) + 1)
        level = None

    for line, in_fence in _lines_outside_fences(text):
        if in_fence:
            continue
        h = _heading(line)
        if h:
            hlevel, htext = h
            if level is not None and hlevel <= level:
                close()
            if 2 <= hlevel <= 4 and _FINDING_WORD.match(_HEADING_MARKUP.sub("", htext)):
                close()
                level, severity, seen_line = hlevel, None, False
            continue
        if level is not None and not seen_line:
            m = _SEVERITY_LINE.match(line)
            if m and (m.group(1) or m.group(2).lower() in SEVERITIES):
                severity = m.group(2).lower()
                seen_line = True
    close()
    return sev


_VERDICT_INLINE = re.compile(r"(?i)^\s*(?:#{1,6}\s*)?[*_]*\s*verdict\s*[*_]*\s*:\s*(.+)$")
_VERDICT_SECTION = re.compile(r"(?i)^\s*#{1,6}\s*[*_]*\s*verdict\s*[*_]*\s*:?\s*$")
_EXPLICIT_COUNT = {
    # `**Blockers**: 2`, `**Blockers:** 2`, `- **Should Fix**: 1`
    "blockers": re.compile(r"(?i)^\s*(?:[-*+]\s+)?\*\*\s*blockers?\s*:?\s*\*\*\s*:?\s*(\d+)"),
    "should_fix": re.compile(
        r"(?i)^\s*(?:[-*+]\s+)?\*\*\s*should[\s-]*fix\s*:?\s*\*\*\s*:?\s*(\d+)"
    ),
    "suggestions": re.compile(r"(?i)^\s*(?:[-*+]\s+)?\*\*\s*suggestions?\s*:?\s*\*\*\s*:?\s*(\d+)"),
}
_SECTION = {
    "blockers": re.compile(r"(?i)^##\s+[^\w]*\s*blockers?\b"),
    "should_fix": re.compile(r"(?i)^##\s+[^\w]*\s*should[\s-]*fix\b"),
    "suggestions": re.compile(r"(?i)^##\s+[^\w]*\s*suggestions?\b"),
}
_ITEM_HEADING = re.compile(r"^###\s+(?:\d+[.)]|[^\w\s])")
_BULLET = re.compile(r"^[-*+]\s+(.*)$")
_NONE_BULLET = re.compile(r"(?i)^[*_]*\s*(?:none\b|no\b|n/a\b)")


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
    lines = [ln for ln, fenced in _lines_outside_fences(text) if not fenced]
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


def parse_final_counts(text: str) -> Counts | None:
    """Blocker / should-fix / suggestion counts of a final.md (ocr-format.md §4.3):
    explicit `**Blockers**: N` lines win; otherwise the items under each section."""
    lines = [ln for ln, fenced in _lines_outside_fences(text) if not fenced]
    explicit: dict[str, int] = {}
    for line in lines:
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
    found = False
    items = {"blockers": 0, "should_fix": 0, "suggestions": 0}
    bullets = {"blockers": 0, "should_fix": 0, "suggestions": 0}
    current: str | None = None
    for line in lines:
        if line.startswith("## ") or line.strip() == "---" or line.startswith("# "):
            current = None
            for key, rx in _SECTION.items():
                if rx.match(line):
                    current, found = key, True
            continue
        if current is None:
            continue
        if _ITEM_HEADING.match(line):
            items[current] += 1
            continue
        m = _BULLET.match(line)
        if m and not _NONE_BULLET.match(m.group(1).strip()):
            bullets[current] += 1
    if not found:
        return None
    # Numbered / emoji `###` items are the findings; bullets count only in a section without them
    # (so `- **Location**` lines under a `### 1.` item are not counted twice).
    pick = {k: items[k] if items[k] else bullets[k] for k in items}
    return Counts(**pick)


_CANONICAL = re.compile(r"(?im)^#{1,6}\s*canonical file list\s*$")


def parse_topology_files(text: str) -> int | None:
    """Non-empty lines of the first fenced block after `## Canonical File List`."""
    m = _CANONICAL.search(text)
    if not m:
        return None
    fence: str | None = None
    count = 0
    for line in text[m.end() :].splitlines():
        fm = _FENCE.match(line)
        if fence is None:
            if fm:
                fence = fm.group(1)
            continue
        if fm and fm.group(1)[0] == fence[0] and len(fm.group(1)) >= len(fence):
            return count
        if line.strip():
            count += 1
    return count if fence is not None else None


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
    return tuple(
        (0, int(part), "") if part.isdigit() else (1, 0, part.lower())
        for part in re.split(r"(\d+)", name)
        if part
    )
