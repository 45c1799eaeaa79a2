"""A session's findings, round by round, from its files (formats/ocr/round_findings):
source order (round-meta.json, ocr.db rows, markdown), final.md enrichment, the critical rule,
evolution across three rounds, and hostile files."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec

from ocr_tui.formats.ocr.finding import Finding, Location, finding_id
from ocr_tui.formats.ocr.round_findings import read_findings


def put(path: Path, text: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode() if isinstance(text, str) else text)


def finding(n: int, title: str, severity: str, where: str) -> str:
    return f"### Finding {n}: {title}\n- **Severity**: {severity}\n- **Location**: `{where}`\n\n"


def review(*findings: str) -> str:
    return "# Review\n\n## Findings\n\n" + "".join(findings)


def session(tmp_path: Path) -> Path:
    return tmp_path / ".ocr" / "sessions" / "2026-11-23-main"


def test_markdown_rounds_merge_enrich_and_evolve(tmp_path):
    s = session(tmp_path)
    r1 = s / "rounds" / "round-1"
    put(r1 / "reviews/principal-1.md", review(
        finding(1, "SQL injection in query builder", "Critical", "src/db.py:L40-L44"),
        finding(2, "Race in the watcher", "Medium", "src/watch.py:12"),
    ))  # fmt: skip
    put(r1 / "reviews/security-1.md", review(
        finding(1, "SQL Injection in Query Builder", "High", "src/db.py:L40"),
    ))  # fmt: skip
    put(r1 / "final.md", "# Code Review\n\n## Verdict\n\n**REQUEST CHANGES**\n\n## Blockers\n\n"
        "### 1. SQL injection in query builder\n**Flagged by**: @principal-1, @testing-1\n"
        "**Location**: `src/db.py:L40-L44`\n\n## Should Fix\n\n### 1. Flaky retry test\n"
        "**Flagged by**: @testing-1\n")  # fmt: skip
    r2 = s / "rounds" / "round-2"
    put(r2 / "reviews/principal-1.md", review(
        finding(1, "Race in the watcher", "Medium", "src/watch.py:14"),
        finding(2, "Unbounded cache", "Low", "src/cache.py:3"),
    ))  # fmt: skip
    r3 = s / "rounds" / "round-3"
    put(
        r3 / "reviews/principal-1.md",
        review(finding(1, "Unbounded cache", "Low", "src/cache.py:3")),
    )
    rounds, problems = read_findings(s)
    assert problems == [] and [r.number for r in rounds] == [1, 2, 3]

    one = {f.title: f for f in rounds[0].findings}
    sql = one["SQL injection in query builder"]
    assert sql.severity == "critical" and sql.blocker and sql.category == "blocker"
    assert sql.reviewers == ["principal-1", "security-1", "testing-1"]
    assert sql.location == Location(file="src/db.py", line_start=40, line_end=44)
    assert sql.path == "rounds/round-1/reviews/principal-1.md" and sql.line == 5
    assert sql.evolution is None and rounds[0].source == "markdown"
    flaky = one["Flaky retry test"]  # an item matching no finding: a finding of final.md
    assert flaky.path == "rounds/round-1/final.md" and flaky.category == "should_fix"
    assert [f.title for f in rounds[0].findings][0] == "SQL injection in query builder"

    # Rounds 2 and 3 have no synthesis yet: what round 1 had and they have not raised again is
    # pending, not resolved (a round whose findings are not all in resolves nothing).
    assert not rounds[1].complete and not rounds[2].complete and rounds[0].complete
    two = [(f.title, f.evolution) for f in rounds[1].findings]
    assert two == [
        ("Race in the watcher", "open"), ("Unbounded cache", "new"),
        ("SQL injection in query builder", "pending"), ("Flaky retry test", "pending"),
    ]  # fmt: skip
    # A critical finding is a blocker; with none, nothing is.
    assert not any(f.blocker for f in rounds[1].current)
    three = [(f.title, f.evolution) for f in rounds[2].findings]
    assert three == [("Unbounded cache", "open"), ("Race in the watcher", "pending")]
    # Round 3's synthesis: now the race is resolved.
    put(r3 / "final.md", "# Review\n\n**Verdict**: APPROVE\n")
    rounds, _ = read_findings(s)
    three = [(f.title, f.evolution) for f in rounds[2].findings]
    assert three == [("Unbounded cache", "open"), ("Race in the watcher", "resolved")]


def test_round_meta_wins_over_markdown_and_db_rows_over_markdown(tmp_path):
    s = session(tmp_path)
    r1 = s / "rounds" / "round-1"
    put(r1 / "reviews/principal-1.md", review(finding(1, "From markdown", "Low", "a.py:1")))
    put(r1 / "round-meta.json", json.dumps({"schema_version": 1, "reviewers": [{
        "type": "principal", "instance": 1, "findings": [{
            "title": "From meta", "severity": "high", "category": "should_fix",
            "file_path": "b.py", "line_start": 3, "line_end": 4, "summary": "why",
        }]}]}))  # fmt: skip
    rounds, _ = read_findings(s)
    assert [(f.title, f.source) for f in rounds[0].findings] == [("From meta", "round-meta.json")]
    r2 = s / "rounds" / "round-2"
    put(r2 / "reviews/principal-1.md", review(finding(1, "From markdown", "Low", "a.py:1")))
    row = Finding(
        id=finding_id("From db", "c.py"), title="From db", severity="critical",
        location=Location(file="c.py"), source="ocr.db", reviewers=["quality-1"],
    )  # fmt: skip
    rounds, _ = read_findings(s, {2: [row]})
    assert [(f.title, f.source) for f in rounds[1].current] == [("From db", "ocr.db")]
    assert rounds[1].current[0].blocker  # critical: a blocker, as OCR's dashboard counts it
    # ocr.db rows that OCR's dashboard wrote from round-meta.json carry their category: one
    # filed under another category is not a blocker (OCR's orchestrator path takes it).
    filed = msgspec.structs.replace(row, category="should_fix")
    rounds, _ = read_findings(s, {2: [filed]})
    assert not rounds[1].current[0].blocker


def test_round_meta_findings_take_the_triage_of_their_db_rows(tmp_path):
    """OCR's dashboard parses round-meta.json into ocr.db's rows, and the user triages those:
    the findings stay round-meta.json's, each with its row's triage (matched by id)."""
    s = session(tmp_path)
    put(s / "rounds/round-1/round-meta.json", json.dumps({"schema_version": 1, "reviewers": [{
        "type": "principal", "instance": 1, "findings": [
            {"title": "Race", "severity": "high", "file_path": "b.py"},
            {"title": "Leak", "severity": "low", "file_path": "c.py"},
        ]}]}))  # fmt: skip
    row = Finding(
        id=finding_id("Race", "b.py"), title="Race", location=Location(file="b.py"),
        source="ocr.db", triage="wont_fix",
    )  # fmt: skip
    other = Finding(id=finding_id("Gone", "x.py"), title="Gone", triage="fixed", source="ocr.db")
    rounds, _ = read_findings(s, {1: [row, other]})
    got = {f.title: (f.source, f.triage) for f in rounds[0].findings}
    assert got == {"Race": ("round-meta.json", "wont_fix"), "Leak": ("round-meta.json", None)}


def test_hostile_files_are_problems_never_a_crash(tmp_path):
    s = session(tmp_path)
    r1 = s / "rounds" / "round-1"
    put(r1 / "reviews/principal-1.md", b"\xef\xbb\xbf" + review(
        finding(1, "BOM'd " + " \t" * 50_000 + "title", "High", "a.py:1")).encode())  # fmt: skip
    put(r1 / "reviews/quality-1.md", b"\x00\x01binary\xff")
    put(r1 / "reviews/testing-1.md", "<!--\n" + finding(1, "Template example", "Critical", "x:1")
        + "-->\n")  # fmt: skip
    put(r1 / "final.md", "\ufeff## Blockers\n\n### 1. BOM'd title\n")
    rounds, problems = read_findings(s)
    titles = [f.title for f in rounds[0].findings]
    assert titles == ["BOM'd title"] and rounds[0].findings[0].blocker
    assert any("quality-1.md looks binary" in p for p in problems)
