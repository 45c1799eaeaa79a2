"""The findings of a `round-meta.json` (ocr-format.md §4.4; the best source of findings): each of
`reviewers[].findings[]` (title, category, severity, file_path, line_start, line_end, summary,
flagged_by) as a `Finding`; the same finding under several reviewers is one. Pure; no IO.

`meta` is a decoded `RoundMeta`, or the file decoded without a schema (a dict, e.g.
`msgspec.json.decode(data)`): the fields are read by name from either, so a field `RoundMeta`
does not declare reads as missing, and every value is checked here, so a wrong type (a number
for a title, `"high"` for a line) is that one value missing, never an exception.
"""

from __future__ import annotations

from collections.abc import Mapping

from ocr_tui.formats.ocr.final_titles import reviewer_names
from ocr_tui.formats.ocr.finding import CATEGORIES, SEVERITIES, Finding, Location, finding_id
from ocr_tui.formats.ocr.findings import absorb
from ocr_tui.formats.ocr.model import RoundMeta

SOURCE = "round-meta.json"
MAX_TITLE = 120  # a title taken from the summary's first line is clipped here


def _get(obj: object, key: str) -> object:
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def _list(value: object) -> list:
    return list(value) if isinstance(value, list | tuple) else []


def as_text(value: object) -> str | None:
    """A string with its whitespace folded, or None (not a string, or blank)."""
    if not isinstance(value, str):
        return None
    return " ".join(value.split()) or None


def as_line(value: object) -> int | None:
    """A 1-based line: an int (not a bool), an integral float, or a string of digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e9:
        value = int(value)
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip()) if len(value.strip()) <= 9 else None
    return value if isinstance(value, int) and 1 <= value < 10**9 else None


def as_word(value: object, allowed: tuple[str, ...]) -> str | None:
    """`High` -> `high`, `should-fix` / `Should Fix` -> `should_fix`; None when not allowed."""
    text = as_text(value)
    if text is None:
        return None
    word = text.lower().replace("-", "_").replace(" ", "_")
    return word if word in allowed else None


def _reviewer(entry: object) -> str | None:
    """`{type}-{instance}` (`principal-1`); the type alone without a usable instance."""
    kind = as_text(_get(entry, "type"))
    if kind is None:
        return None
    kind = kind.lstrip("@")
    instance = as_line(_get(entry, "instance"))
    return f"{kind}-{instance}" if instance is not None else kind or None


def _flagged(value: object) -> list[str]:
    if isinstance(value, str):
        return reviewer_names(value)
    names = [n.strip().lstrip("@").strip() for n in _list(value) if isinstance(n, str)]
    return [n for n in names if n]


def location_of(f: object) -> Location:
    file = as_text(_get(f, "file_path"))
    start, end = as_line(_get(f, "line_start")), as_line(_get(f, "line_end"))
    if start is None:
        start = end
    if start is not None and (end is None or end < start):
        end = start
    file = (file.strip("`").strip() or None) if file else None
    return Location(file=file, line_start=start, line_end=end)


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
            title = as_text(_get(f, "title"))
            if title is None and text:
                title = " ".join(text.splitlines()[0].split())[:MAX_TITLE].rstrip() or None
            if title is None:
                continue
            location = location_of(f)
            category = as_word(_get(f, "category"), CATEGORIES)
            reviewers = ([name] if name else []) + _flagged(_get(f, "flagged_by"))
            finding = Finding(
                id=finding_id(title, location.file),
                title=title,
                severity=as_word(_get(f, "severity"), SEVERITIES),
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
            found[finding.id] = absorb(prev, finding) if prev else finding
    return list(found.values()) or None
