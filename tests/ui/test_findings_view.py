"""The findings screens' query (filters, search, sort) and text helpers, without an app."""

from __future__ import annotations

import pytest

from ocr_tui.core.cells import elide_middle
from ocr_tui.formats.ocr.finding import Finding, Location
from ocr_tui.ui.screens.ocr.findings.cells import reviewers_text
from ocr_tui.ui.screens.ocr.findings.view import NO_TRIAGE, FindingsQuery, display_markdown


def f(
    title,
    severity=None,
    file=None,
    line=None,
    *,
    blocker=False,
    triage=None,
    evolution=None,
    reviewers=("principal-1",),
) -> Finding:
    return Finding(
        id=title,
        title=title,
        severity=severity,
        location=Location(file=file, line_start=line),
        blocker=blocker,
        triage=triage,
        evolution=evolution,
        reviewers=list(reviewers),
    )


ROUND = [
    f("Race", "high", "src/b.py", 3, triage="fixed"),
    f("Leak", "critical", "src/a.py", 9, blocker=True, triage="unread"),
    f("Typo", "low", "docs/x.md", reviewers=("quality-1", "principal-1")),
    f("Old", "medium", "src/c.py", evolution="resolved"),
    f("Vague", None),
]


def titles(findings):
    return [x.title for x in findings]


def test_default_order_is_severity_then_file_resolved_last() -> None:
    assert titles(FindingsQuery().apply(ROUND)) == ["Leak", "Race", "Typo", "Vague", "Old"]


@pytest.mark.parametrize(
    ("sort", "reverse", "expected"),
    [
        ("title", False, ["Leak", "Race", "Typo", "Vague", "Old"]),
        ("title", True, ["Vague", "Typo", "Race", "Leak", "Old"]),
        ("where", False, ["Vague", "Typo", "Leak", "Race", "Old"]),
        ("blocker", False, ["Leak", "Race", "Typo", "Vague", "Old"]),
        ("reviewers", False, ["Typo", "Leak", "Race", "Vague", "Old"]),
        ("triage", False, ["Leak", "Race", "Typo", "Vague", "Old"]),
    ],
)
def test_each_column_sorts_and_resolved_stay_last(sort, reverse, expected) -> None:
    assert titles(FindingsQuery(sort=sort, reverse=reverse).apply(ROUND)) == expected


def test_sorting_by_the_same_column_again_reverses() -> None:
    q = FindingsQuery().sorted_by("title")
    assert (q.sort, q.reverse) == ("title", False)
    assert q.sorted_by("title").reverse and q.sorted_by("title").sort_label() == "by title ↑"
    assert q.sorted_by("nonsense") == q
    assert FindingsQuery().next_sort(("severity", "blocker")).sort == "blocker"
    assert FindingsQuery(sort="blocker").next_sort(("severity", "blocker")).sort == "severity"


def test_filters_and_search_combine() -> None:
    q = FindingsQuery(min_severity="high")
    assert titles(q.apply(ROUND)) == ["Leak", "Race"]  # no severity: dropped
    assert titles(FindingsQuery(blockers_only=True).apply(ROUND)) == ["Leak"]
    assert titles(FindingsQuery(search="SRC/ race").apply(ROUND)) == ["Race"]
    assert titles(FindingsQuery(search="quality").apply(ROUND)) == ["Typo"]
    assert titles(FindingsQuery(search="blocker").apply(ROUND)) == ["Leak"]
    assert FindingsQuery(min_severity="high", search="x\x1b[2J").label() == (
        'severity ≥ high · "x␛[2J"'
    )
    assert FindingsQuery().label() == "no filter"


def test_triage_cycles_through_the_states_present() -> None:
    q = FindingsQuery()
    seen = []
    for _ in range(4):
        q = q.next_triage(ROUND)
        seen.append(q.triage)
    assert seen == ["unread", "fixed", NO_TRIAGE, None]
    assert titles(FindingsQuery(triage=NO_TRIAGE).apply(ROUND)) == ["Typo", "Vague", "Old"]


@pytest.mark.parametrize(
    ("text", "width", "expected"),
    [
        ("src/a.py:3", 20, "src/a.py:3"),
        ("src/handlers/deep/inner/auth.py:42", 20, "src/han…r/auth.py:42"),
        ("abcdef", 3, "ab…"),
        ("abcdef", 0, ""),
        ("日本語のパス/ファイル.py:7", 12, "日本…ル.py:7"),
    ],
)
def test_elide_middle_keeps_both_ends(text, width, expected) -> None:
    from rich.cells import cell_len

    out = elide_middle(text, width)
    assert out == expected and cell_len(out) <= max(width, 0)


def test_reviewers_fit_with_a_count_of_the_rest() -> None:
    """All of them where there is room; else `& 2 more` (people: `+2` is new findings)."""
    many = f("x", reviewers=("principal-1", "principal-2", "quality-1", "security-1"))
    assert reviewers_text(many) == "principal-1, principal-2, quality-1, security-1"
    assert reviewers_text(many, 100) == reviewers_text(many)
    assert reviewers_text(many, 33) == "principal-1, principal-2 & 2 more"
    assert reviewers_text(many, 20) == "principal-1 & 3 more"
    assert reviewers_text(many, 12) == "4 reviewers"
    assert reviewers_text(f("x", reviewers=())) == ""
    assert "+" not in reviewers_text(many, 28)


def test_display_markdown_drops_the_heading_and_breaks_field_lines() -> None:
    text = "### Finding 1: X\n\n**Severity**: high\n- **File:** a.py\n\nWhy.\nMore why."
    # A list item starts a block of its own: no break is needed (a `\\` would show).
    assert display_markdown(text) == "**Severity**: high\n- **File:** a.py\n\nWhy.\nMore why."
    text = "### X\n**Severity**: high\n**Location**: a.py:3\nWhy."
    assert display_markdown(text) == "**Severity**: high\\\n**Location**: a.py:3\\\nWhy."
    assert display_markdown("## Only a heading\n") == ""


def test_clip_end_counts_cells() -> None:
    from ocr_tui.core.cells import clip_end

    assert clip_end("abcdef", 4) == "abc…"
    assert clip_end("abc", 3) == "abc"
    assert clip_end("日本語です", 5) == "日本…"
    assert clip_end("abc", 0) == ""


def test_v_skips_a_level_that_shows_the_same_rows() -> None:
    q = FindingsQuery()
    seen = []
    for _ in range(6):
        q = q.next_severity(ROUND)
        seen.append(q.min_severity)
    # ROUND has a finding without a severity: ≥ info drops it; ≥ low drops nothing more (all
    # others are low or above) and is skipped; ≥ medium drops Typo; and so on, back to all.
    assert seen == ["info", "medium", "high", "critical", None, "info"]
    every = [f for f in ROUND if f.severity]
    assert FindingsQuery().next_severity(every).min_severity == "medium"  # info, low: same
