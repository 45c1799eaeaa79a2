"""A round's findings merged across reviewers and final.md, and their evolution across rounds
(ocr_tui/formats/ocr/findings.py)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import msgspec

from ocr_tui.formats.ocr.finding import Finding, Location, finding_id
from ocr_tui.formats.ocr.findings import (
    apply_final,
    critical_blockers,
    evolve,
    merge,
    similar,
    sort_key,
)


def f(title: str, file: str | None = None, severity: str | None = "medium", *, by="principal-1",
      line: int | None = None, **kw) -> Finding:  # fmt: skip
    return Finding(
        id=finding_id(title, file), title=title, severity=severity,
        location=Location(file=file, line_start=line, line_end=line), reviewers=[by], **kw,
    )  # fmt: skip


@dataclass
class Item:
    section: str
    title: str
    flagged_by: list[str] = field(default_factory=list)
    location: Location = Location()
    line: int | None = None


def test_one_finding_raised_by_two_reviewers_is_one_finding_with_both():
    a = [f("Race in the watcher", "src/w.py", "medium", line=10)]
    b = [f("race in the WATCHER!", "./src/w.py", "high", by="quality-1")]
    (one,) = merge([a, b])
    assert one.reviewers == ["principal-1", "quality-1"]
    assert one.severity == "high"  # the graver one
    assert one.location.line_start == 10


def test_same_title_in_two_files_is_two_findings():
    assert len(merge([[f("Unchecked input", "a.py")], [f("Unchecked input", "b.py")]])) == 2


def test_final_items_set_blocker_category_and_reviewers():
    found = merge([[f("SQL injection in query", "db.py")], [f("Missing tests", "t.py")]])
    items = [
        Item("blocker", "SQL Injection in Query", ["@principal-1", "@security-1"]),
        Item("should_fix", "Missing tests", ["quality-1"], Location(file="t.py")),
    ]
    out = {x.title: x for x in apply_final(found, items)}
    sql = out["SQL injection in query"]
    assert sql.blocker and sql.category == "blocker"
    assert sql.reviewers == ["principal-1", "security-1"]
    assert out["Missing tests"].category == "should_fix" and not out["Missing tests"].blocker


def test_an_items_location_limits_it_to_its_file():
    found = [f("Unchecked input", "a.py"), f("Unchecked input", "b.py")]
    out = apply_final(found, [Item("blocker", "Unchecked input", location=Location(file="b.py"))])
    assert [(x.location.file, x.blocker) for x in out] == [("a.py", False), ("b.py", True)]


def test_a_similar_title_matches_in_the_items_file_or_anywhere_without_one():
    found = [f("Missing null check in parser", "p.py")]
    near = "Missing null checks in parser"
    out = apply_final(found, [Item("should_fix", near, location=Location(file="p.py"))])
    assert len(out) == 1 and out[0].category == "should_fix"
    out = apply_final(found, [Item("should_fix", near, location=Location(file="q.py"))])
    assert len(out) == 2  # another file: another finding
    # No file: the synthesis' `### 🚫 Token is not verified` is the reviewers' `Token not
    # verified` (counted twice, one blocker read as two)
    out = apply_final(found, [Item("should_fix", near)])
    assert len(out) == 1 and out[0].category == "should_fix"
    out = apply_final(found, [Item("should_fix", "Unrelated title entirely")])
    assert len(out) == 2


def test_findings_listed_together_under_one_item_are_one_finding():
    found = [f("Leak", "a.py", by="principal-1"), f("Leak", "a.py ", by="quality-1")]
    out = apply_final(merge([found[:1], found[1:]]), [Item("blocker", "Leak", ["testing-1"])])
    assert len(out) == 1 and out[0].reviewers == ["principal-1", "quality-1", "testing-1"]


def test_an_item_matching_no_finding_is_a_finding_of_final_md():
    out = apply_final([], [Item("blocker", "Data loss on retry", ["principal-2"], line=12)])
    (x,) = out
    assert (x.path, x.line, x.blocker, x.reviewers) == ("final.md", 12, True, ["principal-2"])
    assert x.severity is None and x.source == "markdown"


def test_without_final_md_critical_is_a_blocker():
    out = critical_blockers([f("A", severity="critical"), f("B", severity="high")])
    assert [x.blocker for x in out] == [True, False]


def test_evolution_across_three_rounds():
    r1 = [f("Leak", "a.py"), f("Race", "w.py"), f("Typo", "d.md", "low")]
    r2 = [f("Leak", "a.py"), f("Races in watcher start", "w.py"), f("New bug", "n.py")]
    r3 = [f("New bug", "n.py")]
    e1 = evolve(r1, None)
    assert [x.evolution for x in e1] == [None, None, None]
    e2 = evolve(r2, e1)
    assert [(x.title, x.evolution) for x in e2] == [
        ("Leak", "open"), ("Races in watcher start", "new"), ("New bug", "new"),
        ("Race", "resolved"), ("Typo", "resolved"),
    ]  # fmt: skip
    e3 = evolve(r3, e2)  # resolved findings of round 2 are not carried into round 3
    assert [(x.title, x.evolution) for x in e3] == [
        ("New bug", "open"), ("Leak", "resolved"), ("Races in watcher start", "resolved"),
    ]  # fmt: skip


def test_a_similar_title_in_the_same_file_stays_open():
    e = evolve(
        [f("Missing null checks in parser", "p.py")], [f("Missing null check in parser", "p.py")]
    )
    assert [x.evolution for x in e] == ["open"]


def test_sort_by_severity_then_file_resolved_last():
    xs = [f("b", "z.py", "low"), f("a", "a.py", None), f("c", "b.py", "critical"),
          f("d", "a.py", "critical", evolution="resolved")]  # fmt: skip
    assert [x.title for x in sorted(xs, key=sort_key)] == ["c", "b", "a", "d"]


def test_similarity_is_bounded_on_huge_titles():
    a, b = "x" * 200_000, "y" * 200_000
    start = time.process_time()
    assert not similar(a, b)
    assert time.process_time() - start < 0.5


def test_a_merged_finding_says_who_rated_it_what_when_they_differ():
    """The detail's top read `low` while the body (one reviewer's words) said `Severity: Info`:
    the merge keeps each reviewer's rating."""
    from ocr_tui.formats.ocr.findings import differing_ratings

    a = msgspec.structs.replace(f("Leak", "a.py", by="quality-1"), severity="info")
    b = msgspec.structs.replace(f("Leak", "a.py", by="principal-1"), severity="low")
    (one,) = merge([[a], [b]])
    assert one.severity == "low"
    assert differing_ratings(one) == {"quality-1": "info", "principal-1": "low"}
    c = msgspec.structs.replace(f("Leak", "a.py", by="testing-1"), severity="low")
    (same,) = merge([[b], [c]])
    assert differing_ratings(same) == {}
