"""A round's findings, merged, and how they evolved since the round before. Pure
rules over `Finding` models; no IO (the readers give the models: `findings_md`,
`findings_meta`, `final_items`).

- The same finding raised by several reviewers (same id: normalised title and file) is one
  finding with all of them.
- `final.md` enriches the round's findings: an item under Blockers / Should Fix / Suggestions
  sets `blocker` and `category` and adds its `Flagged by` reviewers to each finding it matches
  (same normalised title, or a similar title in the same file, or anywhere when the item names
  no file; an item's Location limits it to that file); findings one item matches are one
  finding; an item that matches none is a finding of its own, read from final.md.
- A `critical` finding is a blocker (OCR's dashboard's rule), unless round-meta.json files it
  under another category (`critical_blockers`).
- Evolution compares round N with round N-1 only: `open` (also there), `new` (not there), and
  the findings of N-1 absent from N are listed once more: `resolved` once round N is complete,
  `pending` until then (a round just begun resolves nothing).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Protocol

import msgspec

from ocr_tui.formats.ocr.finding import (
    CATEGORIES,
    SEVERITIES,
    Finding,
    Location,
    close_ratio,
    finding_id,
    is_own,
    normalise_file,
    normalise_title,
)

SIMILAR = 0.85  # difflib ratio from which two titles in one file are the same finding
TITLE_CHARS = 200  # compared for similarity (difflib is quadratic: a title from disk is capped)
_RANK = {s: i for i, s in enumerate(SEVERITIES)}
_SECTION_CATEGORY = {"blocker": "blocker", "should_fix": "should_fix", "suggestion": "suggestion"}


class FinalItemLike(Protocol):
    """What `apply_final` needs of a final.md item (`final_items.FinalItem`)."""

    section: str
    title: str
    flagged_by: list[str]
    location: Location
    line: int | None


def severity_rank(severity: str | None) -> int:
    """critical 0 … info 4; no severity after them all."""
    return _RANK.get(severity or "", len(SEVERITIES))


def shown(f: Finding, min_severity: str | None = None, blockers_only: bool = False) -> bool:
    """Whether the filters keep `f`: a minimum severity drops findings without one; blockers
    only keeps blockers. (The findings screen and `ocr-tui findings` alike.)"""
    if blockers_only and not f.blocker:
        return False
    if min_severity is None:
        return True
    return f.severity is not None and severity_rank(f.severity) <= severity_rank(min_severity)


def sort_key(f: Finding) -> tuple:
    """The round before's (resolved, pending) last; then by severity, file, line and title."""
    return (
        not is_own(f),
        severity_rank(f.severity),
        normalise_file(f.location.file),
        f.location.line_start or 0,
        normalise_title(f.title),
    )


def _add_reviewers(into: list[str], more: Iterable[str]) -> list[str]:
    out = list(into)
    for r in more:
        r = r.lstrip("@").strip()
        if r and r not in out:
            out.append(r)
    return out


def absorb(a: Finding, b: Finding) -> Finding:
    """One finding from two reports of it: every reviewer, the graver severity and category,
    blocker if either blocks, the first location (lines from `b` when `a` has none in the
    same file) and the first text that are there."""
    loc = a.location if a.location.file else b.location
    if (
        loc.line_start is None
        and b.location.line_start is not None
        and normalise_file(b.location.file) in ("", normalise_file(loc.file))
    ):
        loc = Location(
            file=loc.file or b.location.file,
            line_start=b.location.line_start,
            line_end=b.location.line_end,
        )
    return msgspec.structs.replace(
        a,
        ratings=_ratings(b) | _ratings(a),
        severity=min((a.severity, b.severity), key=severity_rank),
        category=min((a.category, b.category), key=_category_rank),
        location=loc,
        reviewers=_add_reviewers(a.reviewers, b.reviewers),
        blocker=a.blocker or b.blocker,
        text=a.text or b.text,
    )


def _ratings(f: Finding) -> dict[str, str]:
    """Who rated `f` what: its merged ratings, else its reviewers' one severity."""
    if f.ratings:
        return dict(f.ratings)
    return {r.lstrip("@"): f.severity for r in f.reviewers if f.severity} if f.severity else {}


def differing_ratings(f: Finding) -> dict[str, str]:
    """Who rated a merged finding what, when the reviewers gave it different severities (its
    `severity` is the gravest); {} when they agree."""
    return dict(f.ratings) if len(set(f.ratings.values())) > 1 else {}


def _category_rank(category: str | None) -> int:
    return CATEGORIES.index(category) if category in CATEGORIES else len(CATEGORIES)


def merge(groups: Iterable[Sequence[Finding]]) -> list[Finding]:
    """The findings of every reviewer, one per id, in first-seen order."""
    by_id: dict[str, Finding] = {}
    for group in groups:
        for f in group:
            by_id[f.id] = absorb(by_id[f.id], f) if f.id in by_id else f
    return list(by_id.values())


def similar(a: str, b: str) -> bool:
    """Two normalised titles close enough to be one finding (within one file)."""
    if a == b:
        return True
    if not a or not b:
        return False
    sm = difflib.SequenceMatcher(None, a[:TITLE_CHARS], b[:TITLE_CHARS], autojunk=False)
    return close_ratio(sm, SIMILAR) is not None


def _matches(item: FinalItemLike, f: Finding) -> bool:
    item_file = normalise_file(item.location.file)
    f_file = normalise_file(f.location.file)
    if item_file and f_file and item_file != f_file:
        return False  # the item's Location limits it to its file
    title, other = normalise_title(item.title), normalise_title(f.title)
    if title == other:
        return True
    # A similar title in the item's file; an item naming no file, a similar title anywhere
    # (`### 🚫 Token is not verified` is the reviewers' `Token not verified`: one blocker).
    return (not item_file or item_file == f_file) and similar(title, other)


def apply_final(
    findings: list[Finding], items: Sequence[FinalItemLike], rel: str = "final.md"
) -> list[Finding]:
    """`findings` enriched by final.md's items (see the module's rules)."""
    out = list(findings)
    for item in items:
        category = _SECTION_CATEGORY.get(item.section)
        hits = [i for i, f in enumerate(out) if _matches(item, f)]
        if not hits:
            out.append(
                Finding(
                    id=finding_id(item.title, item.location.file),
                    title=item.title,
                    location=item.location,
                    category=category,
                    blocker=item.section == "blocker",
                    reviewers=_add_reviewers([], item.flagged_by),
                    path=rel,
                    line=item.line,
                )
            )
            continue
        first = out[hits[0]]
        for i in hits[1:]:  # listed together under one item: one finding
            first = absorb(first, out[i])
        first = msgspec.structs.replace(
            first,
            reviewers=_add_reviewers(first.reviewers, item.flagged_by),
            blocker=first.blocker or item.section == "blocker",
            category=first.category if first.category == "blocker" else category,
        )
        out[hits[0]] = first
        for i in reversed(hits[1:]):
            del out[i]
    return out


def critical_blockers(findings: list[Finding]) -> list[Finding]:
    """OCR's dashboard's rule, on every path: a `critical` finding is a blocker (its reviewer
    parser sets `isBlocker: severity === 'critical'`, and it recounts a round's blockers from
    them), except one that round-meta.json files under another category (on that path, and
    for the ocr.db rows it writes from it, OCR's dashboard takes `category === 'blocker'`)."""
    return [
        msgspec.structs.replace(f, blocker=True)
        if f.severity == "critical" and not f.blocker and not _filed_otherwise(f)
        else f
        for f in findings
    ]


def _filed_otherwise(f: Finding) -> bool:
    return f.source in ("round-meta.json", "ocr.db") and f.category not in (None, "blocker")


def _same(a: Finding, b: Finding) -> bool:
    if a.id == b.id:
        return True
    fa, fb = normalise_file(a.location.file), normalise_file(b.location.file)
    return fa == fb and similar(normalise_title(a.title), normalise_title(b.title))


def evolve(
    current: list[Finding], previous: list[Finding] | None, *, complete: bool = True
) -> list[Finding]:
    """`current` with each finding's evolution against `previous` (round N-1; None in round 1),
    followed by the previous round's findings that are gone: `resolved` when the round is
    `complete` (its findings are all in), else `pending` (not raised again yet)."""
    if previous is None:
        return [msgspec.structs.replace(f, evolution=None) for f in current]
    before = [f for f in previous if is_own(f)]
    seen: set[int] = set()
    out = []
    for f in current:
        match = next((i for i, p in enumerate(before) if i not in seen and p.id == f.id), None)
        if match is None:
            match = next((i for i, p in enumerate(before) if i not in seen and _same(p, f)), None)
        if match is not None:
            seen.add(match)
        out.append(msgspec.structs.replace(f, evolution="open" if match is not None else "new"))
    gone = "resolved" if complete else "pending"
    return out + [
        msgspec.structs.replace(p, evolution=gone) for i, p in enumerate(before) if i not in seen
    ]
