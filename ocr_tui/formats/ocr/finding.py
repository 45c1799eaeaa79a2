"""One finding of a review round: the model every findings view and `ocr-tui
findings --json` share. No IO here.

A finding is read from `round-meta.json`, from `ocr.db`'s `review_findings`, or from the
reviewer markdown files (with `final.md` adding blocker / category / reviewers); the same
finding raised by several reviewers is one finding with all of them.
"""

from __future__ import annotations

import difflib
import functools
import hashlib
import re

import msgspec

SEVERITIES = ("critical", "high", "medium", "low", "info")
CATEGORIES = ("blocker", "should_fix", "suggestion", "style")


class Location(msgspec.Struct, kw_only=True, frozen=True):
    """Where in the user's code: a path as the reviewer wrote it, and 1-based lines."""

    file: str | None = None
    line_start: int | None = None
    line_end: int | None = None  # == line_start for one line

    def text(self) -> str:
        """`src/a.py:42-50`, `src/a.py:42`, `src/a.py`; "" without a file. Raw text from
        disk: pass it through `safe_line` before it is printed."""
        if not self.file:
            return ""
        if self.line_start is None:
            return self.file
        end = f"-{self.line_end}" if self.line_end not in (None, self.line_start) else ""
        return f"{self.file}:{self.line_start}{end}"


class Finding(msgspec.Struct, kw_only=True):
    id: str  # stable: a short hash of the normalised title and file
    title: str
    severity: str | None = None  # one of SEVERITIES, or None when the reviewer gave none
    location: Location = Location()
    category: str | None = None  # one of CATEGORIES, when known
    blocker: bool = False
    reviewers: list[str] = []  # `principal-1`, `security-1`, ...
    source: str = "markdown"  # "round-meta.json" | "ocr.db" | "markdown"
    path: str | None = None  # the file it was read from, relative to the session; None: ocr.db
    line: int | None = None  # 1-based line of its heading in `path`
    text: str = ""  # the finding's own section (markdown)
    # Against the round before: "new" | "open" (the round's own findings), "resolved" (one of
    # the round before's, not raised again by the round, complete), "pending" (one of the round
    # before's, not raised again yet: the round is not complete); None in round 1.
    evolution: str | None = None
    triage: str | None = None  # ocr.db user_finding_progress.status, raw
    # What each reviewer rated it, when it was merged from reports that named a severity
    # (`severity` is the gravest): reviewer -> severity.
    ratings: dict[str, str] = {}


# The round before's findings a round lists after its own: gone (`resolved`), or not judged
# again yet (`pending`).
CARRIED = frozenset({"resolved", "pending"})


def is_own(f: Finding) -> bool:
    """A round's own finding (not one of the round before's it lists as resolved or pending)."""
    return f.evolution not in CARRIED


_WORDS = re.compile(r"[^\w]+")
# Over text whose whitespace is already folded to single spaces (linear: no two quantifiers
# can share a character).
_LEAD_WORD = re.compile(r"(?i)^(?:finding|issue|suggestion)\b ?\d* ?[:.)\-–—]? ?")
_LEAD_NUMBER = re.compile(r"^\d+ ?[.):\-–—] ?")


@functools.lru_cache(maxsize=2048)
def normalise_title(title: str) -> str:
    """Case, markup, numbering and punctuation folded: `**1. Race in the Watcher!**` ->
    `race in the watcher`; `Finding 3: SQL injection` -> `sql injection`."""
    text = " ".join(title.replace("*", " ").replace("_", " ").replace("`", " ").split())
    text = _LEAD_NUMBER.sub("", _LEAD_WORD.sub("", text))
    return " ".join(_WORDS.sub(" ", text.lower()).split())


@functools.lru_cache(maxsize=2048)
def normalise_file(path: str | None) -> str:
    """`./src/a.ts`, `` `src/a.ts` `` and `src/a.ts` are one file."""
    if not path:
        return ""
    p = path.strip().strip("`'\"").replace("\\", "/")
    while p.startswith("./"):
        p = p[2:]
    return p


@functools.lru_cache(maxsize=4096)
def finding_id(title: str, file: str | None) -> str:
    """Stable across rounds and rewrites: 10 hex digits of the normalised title and file."""
    key = f"{normalise_title(title)}\x00{normalise_file(file)}"
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:10]


def close_ratio(sm: difflib.SequenceMatcher, floor: float) -> float | None:
    """The difflib ratio of `sm`'s two titles when it is at least `floor`, else None: the
    length bound and the quick ratios (upper bounds of the real one) are tried first, so most
    pairs are ruled out without the quadratic ratio. Titles: `normalise_title`'s."""
    la, lb = len(sm.a), len(sm.b)
    if not la or not lb or 2 * min(la, lb) / (la + lb) < floor:
        return None
    if sm.real_quick_ratio() < floor or sm.quick_ratio() < floor:
        return None
    ratio = sm.ratio()
    return ratio if ratio >= floor else None
