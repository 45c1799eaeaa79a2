"""The findings of a `round-meta.json` (ocr-format.md §4.4, issue 12's best source): each of
`reviewers[].findings[]` (title, category, severity, file_path, line_start, line_end, summary,
flagged_by) as a `Finding`; the same finding under several reviewers is one. Pure; no IO.

`meta` is a decoded `RoundMeta`, or the file decoded without a schema (a dict, e.g.
`msgspec.json.decode(data)`): the fields are read by name from either, so a field `RoundMeta`
does not declare reads as missing, and every value is checked here, so a wrong type (a number
for a title, `"high"` for a line) is that one value missing, never an exception.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from ocr_tui.formats.ocr.final_items import reviewer_names
from ocr_tui.formats.ocr.finding import CATEGORIES, SEVERITIES, Finding, Location, finding_id
from ocr_tui.formats.ocr.model import RoundMeta

SOURCE = "round-meta.json"
MAX_TITLE = 120  # a title taken from the summary's first line is clipped here


def _get(obj: object, key: str) -> object:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def _list(value: object) -> list:
    return list(value) if isinstance(value, list | tuple) else []


def _str(value: object) -> str | None:
    """A string with its whitespace folded, or None (not a string, or blank)."""
    if not isinstance(value, str):
        return None
    return " ".join(value.split()) or None


def _line(value: object) -> int | None:
    """A 1-based line: an int (not a bool), an integral float, or a string of digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e9:
        value = int(value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip()) if len(value.strip()) <= 9 else None
    return value if isinstance(value, int) and 1 <= value < 10**9 else None


def _word(value: object, allowed: tuple[str, ...]) -> str | None:
    """`High` -> `high`, `should-fix` / `Should Fix` -> `should_fix`; None when not allowed."""
    text = _str(value)
    if text is None:
        return None
    word = text.lower().replace("-", "_").replace(" ", "_")
    return word if word in allowed else None


def _reviewer(entry: object) -> str | None:
    """`{type}-{instance}` (`principal-1`); the type alone without a usable instance."""
    kind = _str(_get(entry, "type"))
    if kind is None:
        return None
    kind = kind.lstrip("@")
    instance = _line(_get(entry, "instance"))
    return f"{kind}-{instance}" if instance is not None else kind or None


def _flagged(value: object) -> list[str]:
    if isinstance(value, str):
        return reviewer_names(value)
    names = [n.strip().lstrip("@").strip() for n in _list(value) if isinstance(n, str)]
    return [n for n in names if n]


def _location(f: object) -> Location:
    file = _str(_get(f, "file_path"))
    start, end = _line(_get(f, "line_start")), _line(_get(f, "line_end"))
    if start is None:
        start = end
    if start is not None and (end is None or end < start):
        end = start
    file = (file.strip("`").strip() or None) if file else None
    return Location(file=file, line_start=start, line_end=end)


def _rank(value: str | None, order: tuple[str, ...]) -> int:
    return order.index(value) if value in order else len(order)


def _merge(a: Finding, b: Finding) -> Finding:
    """One finding from two reports of it: every reviewer, the graver severity and category,
    the first location lines and text that are there."""
    loc = a.location
    if loc.line_start is None and b.location.line_start is not None:
        loc = Location(
            file=loc.file or b.location.file,
            line_start=b.location.line_start,
            line_end=b.location.line_end,
        )
    severity = min(a.severity, b.severity, key=lambda s: _rank(s, SEVERITIES))
    category = min(a.category, b.category, key=lambda c: _rank(c, CATEGORIES))
    return msgspec.structs.replace(
        a,
        severity=severity,
        category=category,
        blocker=a.blocker or b.blocker,
        location=loc,
        reviewers=list(dict.fromkeys(a.reviewers + b.reviewers)),
        text=a.text or b.text,
    )


def findings_from_meta(meta: RoundMeta | Mapping | None, rel: str) -> list[Finding] | None:
    """The round's findings in the order first met (reviewers, then each one's findings), or
    None when the meta holds none (no reviewers, no findings, or none with a title or a
    summary). `rel` is round-meta.json's path relative to the session."""
    found: dict[str, Finding] = {}
    for entry in _list(_get(meta, "reviewers")):
        name = _reviewer(entry)
        for f in _list(_get(entry, "findings")):
            summary = _get(f, "summary")
            text = summary.strip() if isinstance(summary, str) else ""
            title = _str(_get(f, "title"))
            if title is None and text:
                title = " ".join(text.splitlines()[0].split())[:MAX_TITLE].rstrip() or None
            if title is None:
                continue
            location = _location(f)
            category = _word(_get(f, "category"), CATEGORIES)
            reviewers = ([name] if name else []) + _flagged(_get(f, "flagged_by"))
            finding = Finding(
                id=finding_id(title, location.file),
                title=title,
                severity=_word(_get(f, "severity"), SEVERITIES),
                location=location,
                category=category,
                blocker=category == "blocker",
                reviewers=list(dict.fromkeys(reviewers)),
                source=SOURCE,
                path=rel,
                line=None,
                text=text,
            )
            prev = found.get(finding.id)
            found[finding.id] = _merge(prev, finding) if prev else finding
    return list(found.values()) or None
