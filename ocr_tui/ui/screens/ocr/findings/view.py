"""What the findings screens share: reading a round's findings off the UI thread, and the list's
query (filters, search, sort) as plain data. No widgets here.

`FindingsQuery.apply` is the one place the findings table decides which findings it shows and
in which order: the minimum severity and blockers-only filters are `findings.shown` (the rule
`ocr-tui findings` uses too); the triage filter, the `/` search and the column sort are the
screen's own. The round before's findings (resolved, or pending: not re-reviewed yet) come
after the round's own, unless the table is sorted by evolution.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ocr_tui.core.states import UNKNOWN
from ocr_tui.core.textsafe import safe_line
from ocr_tui.formats.ocr.api import (
    SEVERITIES,
    Finding,
    Response,
    is_own,
    normalise_file,
    normalise_title,
    severity_rank,
    shown,
    sort_key,
)
from ocr_tui.ui.screens.ocr.markdown_text import keep_line_breaks

# `v`: all, then each minimum severity from the lowest up, then all again.
MIN_SEVERITIES: tuple[str | None, ...] = (None, *reversed(SEVERITIES))
# ocr.db `user_finding_progress.status`, in the order a finding moves through them.
TRIAGE_ORDER = ("unread", "read", "acknowledged", "fixed", "wont_fix")
NO_TRIAGE = "(none)"  # the triage filter's value for findings without a row

_EVOLUTION_RANK = {"new": 0, "open": 1, None: 2, "pending": 3, "resolved": 4}


def _triage_rank(value: str | None) -> tuple[int, str]:
    if value in TRIAGE_ORDER:
        return (TRIAGE_ORDER.index(value), "")
    return (len(TRIAGE_ORDER), "\uffff" if value in (None, NO_TRIAGE) else value)


# Sort orders, by the column they sort on: (column key, label, key function); `blocker` has
# no column of its own (the word follows the severity). Ties fall back to the default order
# (severity, file, line, title).
SORTS: tuple[tuple[str, str, Callable[[Finding], object]], ...] = (
    ("severity", "severity", lambda f: severity_rank(f.severity)),
    ("blocker", "blocker", lambda f: not f.blocker),
    ("evolution", "evolution", lambda f: _EVOLUTION_RANK.get(f.evolution, 2)),
    ("title", "title", lambda f: normalise_title(f.title)),
    ("where", "file", lambda f: (normalise_file(f.location.file), f.location.line_start or 0)),
    ("reviewers", "reviewers", lambda f: (-len(f.reviewers), [r.casefold() for r in f.reviewers])),
    ("triage", "triage", lambda f: _triage_rank(f.triage)),
)
SORT_KEYS = tuple(key for key, _, _ in SORTS)


def one_line(text: str) -> str:
    """Multi-line text from disk as one escape-safe line (for a table cell or a summary)."""
    return " ".join(safe_line(line.strip()) for line in text.split("\n") if line.strip())


def says(r: Response) -> str:
    """What the response argues, as one line: its reason after a dash and its body, without
    the keyword, reviewer and titles the other columns show."""
    lines = [line.strip() for line in r.text.split("\n") if line.strip()]
    if not lines:
        return ""
    first, rest = lines[0], lines[1:]
    reason = ""
    if not first.startswith("#"):
        for sep in (" — ", " – ", " - "):
            if sep in first:
                reason = first.rsplit(sep, 1)[1]
                break
    parts = ([reason] if reason else []) + [line.lstrip("-*+> ").strip() for line in rest]
    return one_line("\n".join(parts))


def matches(f: Finding, text: str) -> bool:
    """The `/` search: every word of `text` is in the title, the file, a reviewer's name, the
    severity, the category or the triage (case-insensitive)."""
    hay = " ".join(
        [f.title, f.location.file or "", *f.reviewers, f.severity or "", f.category or ""]
        + [f.triage or "", f.evolution or "", "blocker" if f.blocker else ""]
    ).casefold()
    return all(word in hay for word in text.casefold().split())


@dataclass(frozen=True)
class FindingsQuery:
    min_severity: str | None = None
    blockers_only: bool = False
    triage: str | None = None  # a TRIAGE_ORDER value, NO_TRIAGE, or None: any
    search: str = ""
    sort: str = "severity"  # a SORT_KEYS value
    reverse: bool = False

    def apply(self, findings: list[Finding]) -> list[Finding]:
        kept = [
            f
            for f in findings
            if shown(f, self.min_severity, self.blockers_only)
            and (self.triage is None or (f.triage or NO_TRIAGE) == self.triage)
            and (not self.search.strip() or matches(f, self.search))
        ]
        kept.sort(key=sort_key)  # the default order breaks every tie
        key = next(k for s, _, k in SORTS if s == self.sort)
        kept.sort(key=key, reverse=self.reverse)
        if self.sort != "evolution":  # the round before's last, unless sorted by evolution
            kept.sort(key=lambda f: not is_own(f))
        return kept

    def label(self) -> str:
        """`severity ≥ high · blockers only · "race"`, or `no filter`."""
        parts = [f"severity ≥ {self.min_severity}"] if self.min_severity else []
        parts += ["blockers only"] if self.blockers_only else []
        parts += [f"triage {self.label_triage()}"] if self.triage else []
        parts += [f'"{safe_line(self.search.strip())}"'] if self.search.strip() else []
        return " · ".join(parts) or "no filter"

    def label_triage(self) -> str:
        """The triage filter's value as the table writes it (`—`: findings without one)."""
        return UNKNOWN if self.triage == NO_TRIAGE else safe_line(self.triage or "")

    def sort_label(self) -> str:
        label = next(name for key, name, _ in SORTS if key == self.sort)
        return f"by {label}{' ↑' if self.reverse else ''}"

    def next_severity(self, findings: list[Finding] | None = None) -> FindingsQuery:
        """The next minimum severity (all → info → low → … → critical → all); given the
        round's `findings`, the next one that changes what is shown (a `v` that shows the same
        rows looks like a key that does nothing)."""
        i = MIN_SEVERITIES.index(self.min_severity)
        now = self.apply(findings) if findings is not None else None
        for step in range(1, len(MIN_SEVERITIES)):
            level = MIN_SEVERITIES[(i + step) % len(MIN_SEVERITIES)]
            q = replace(self, min_severity=level)
            if now is None or level is None or q.apply(findings) != now:
                return q
        return replace(self, min_severity=None)

    def next_triage(self, findings: list[Finding]) -> FindingsQuery:
        """Any → each triage state the round's findings have (in workflow order) → any."""
        present = {f.triage or NO_TRIAGE for f in findings}
        choices = [
            None,
            *sorted(present, key=lambda t: _triage_rank(None if t == NO_TRIAGE else t)),
        ]
        i = choices.index(self.triage) if self.triage in choices else 0
        return replace(self, triage=choices[(i + 1) % len(choices)])

    def sorted_by(self, column: str) -> FindingsQuery:
        """Sort on `column`; the same column again reverses the order."""
        if column not in SORT_KEYS:
            return self
        if column == self.sort:
            return replace(self, reverse=not self.reverse)
        return replace(self, sort=column, reverse=False)

    def next_sort(self, columns: tuple[str, ...]) -> FindingsQuery:
        """`s`: the next of `columns` (the table's), ascending."""
        cols = [c for c in columns if c in SORT_KEYS]
        i = cols.index(self.sort) if self.sort in cols else -1
        return replace(self, sort=cols[(i + 1) % len(cols)], reverse=False)


def display_markdown(text: str) -> str:
    """A finding's own section for the detail: without its heading (the screen shows the title)
    and with each field line on a line of its own (markdown would run them into one
    paragraph). `text` is already escape-safe."""
    lines = text.split("\n")
    while lines and not lines[0].strip():
        lines.pop(0)
    if lines and lines[0].lstrip().startswith("#"):
        lines.pop(0)
    return keep_line_breaks("\n".join(lines)).strip()


def count_text(
    findings: list[Finding],
    shown: list[Finding],
    query: FindingsQuery,
    source: str | None,
    so_far: bool = False,
) -> str:
    """`3 of 5 findings · severity ≥ high · by file` (+ the round before's resolved or
    pending ones, said as such); `3 of 5 findings so far` while they still come in."""
    current = [f for f in findings if is_own(f)]
    n = sum(1 for f in shown if is_own(f))
    text = f"{n} of {len(current)} finding{'' if len(current) == 1 else 's'}"
    text += " so far" if so_far else ""
    for word, said in (("resolved", "resolved"), ("pending", "pending")):
        carried = sum(1 for f in findings if f.evolution == word)
        if carried:
            kept = sum(1 for f in shown if f.evolution == word)
            text += f" (+{kept} of {carried} {said})"
    text += f" · {query.label()} · {query.sort_label()}"
    if source:
        text += f" · from {source}"
    return text


def no_match(query: FindingsQuery, triage: bool) -> str:
    """Every active filter, with the key that changes it (`triage`: the round has a triage
    column)."""
    q = query
    active = [("v", f"severity ≥ {q.min_severity}")] if q.min_severity else []
    active += [("b", "blockers only")] if q.blockers_only else []
    active += [("t", f"triage {q.label_triage()}")] if q.triage else []
    active += [("/", "search, Esc clears it")] if q.search.strip() else []
    if not active:  # (with no filter every finding shows) the keys that filter
        active = [("v", "severity"), ("b", "blockers")]
        active += [("t", "triage")] if triage else []
        active += [("/", "search")]
    keys = ", ".join(f"{key}: {what}" for key, what in active)
    return f"No findings match ({keys})."
