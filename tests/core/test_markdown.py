"""The markdown parsers: reviewer findings, final.md verdict and counts, topology file lists,
reviewer labels and natural order."""

from __future__ import annotations

import pytest

from ocr_tui.core.view import Counts
from ocr_tui.formats.ocr.final_items import parse_final_counts
from ocr_tui.formats.ocr.markdown import (
    natural_key,
    parse_findings,
    parse_topology_files,
    parse_verdict,
    reviewer_label,
)

from .builders import final_md, reviewer_md


def sev(text: str) -> dict[str, int]:
    s = parse_findings(text)
    return {k: getattr(s, k) for k in ("critical", "high", "medium", "low", "info")}


def total(text: str) -> int:
    return parse_findings(text).total()


# --- findings -------------------------------------------------------------------------------


def test_template_counts_the_findings_not_the_section_upstream_b1():
    text = reviewer_md("High", "Low", "Medium")
    assert "## Findings" in text
    assert total(text) == 3
    assert sev(text) == {"critical": 0, "high": 1, "medium": 1, "low": 1, "info": 0}


def test_findings_section_alone_is_not_a_finding():
    assert total("# R\n\n## Findings\n\nNothing found.\n\n## Suggestions\n\nnone\n") == 0


def test_free_style_h2_findings_and_issues():
    text = (
        "# Principal-1 Review\n\n"
        "## Finding: Inconsistent import extensions\n**Severity**: Low\n**File**: `a.ts`\n\n"
        "## Issue: Race in the watcher\n**Severity**: High\n\n"
        "## Issue 3 - Missing test\n\n"
    )
    assert sev(text) == {"critical": 0, "high": 1, "medium": 0, "low": 1, "info": 1}


def test_h4_suggestion_counts_and_h5_or_h1_do_not():
    text = (
        "# Suggestion not counted (h1)\n\n"
        "## Notes\n\n"
        "#### Suggestion\nSeverity: low\n\n"
        "##### Finding too deep\nSeverity: critical\n"
    )
    # The h5 sits inside the h4 suggestion (lower level) and is not a finding itself.
    assert sev(text) == {"critical": 0, "high": 0, "medium": 0, "low": 1, "info": 0}


@pytest.mark.parametrize(
    "heading",
    ["### FINDING 1: x", "### finding: x", "## issue - x", "### SUGGESTION: x", "### Finding-2 x"],
)
def test_heading_word_is_case_insensitive(heading):
    assert total(heading + "\n") == 1


@pytest.mark.parametrize(
    "heading",
    ["## Findings", "### Findings summary", "### Issues", "## Suggestions", "### Findingx"],
)
def test_plural_or_longer_words_are_not_findings(heading):
    assert total(heading + "\nSeverity: High\n") == 0


def test_bold_heading_text_still_counts():
    assert sev("### **Finding 1: SQL injection**\n- **Severity**: Critical\n")["critical"] == 1


def test_nothing_inside_fenced_code_counts():
    text = (
        "## Findings\n\n"
        "```markdown\n### Finding 1: example in a fence\n- **Severity**: Critical\n```\n\n"
        "~~~\n## Issue: tilde fence\n~~~\n\n"
        "### Finding 2: real\n\n```\n- **Severity**: Critical\n```\n- **Severity**: Low\n"
    )
    # Only the real finding counts, and the severity line inside its fence is skipped too.
    assert sev(text) == {"critical": 0, "high": 0, "medium": 0, "low": 1, "info": 0}


def test_unclosed_fence_hides_the_rest():
    assert total("### Finding 1: a\n\n```\n### Finding 2: b\n") == 1


@pytest.mark.parametrize(
    "line, expected",
    [
        ("- **Severity**: High", "high"),
        ("**Severity**: low", "low"),
        ("Severity: Info", "info"),
        ("* **Severity:** Critical", "critical"),
        ("- Severity: **Medium**", "medium"),
        ("**severity**: MEDIUM (edge case)", "medium"),
        ("- **Severity**: `high`", "high"),
        ("Severity: Blocker", "info"),  # another word counts as info
        ("Severity: Highest", "info"),
    ],
)
def test_severity_line_forms(line, expected):
    assert sev(f"### Finding 1: x\n\n{line}\n")[expected] == 1
    assert total(f"### Finding 1: x\n\n{line}\n") == 1


def test_no_severity_counts_as_info():
    assert sev("### Finding 1: x\nJust text.\n")["info"] == 1


def test_first_severity_line_wins():
    text = "### Finding 1: x\n- **Severity**: Low\n- **Severity**: Critical\n"
    assert sev(text)["low"] == 1 and sev(text)["critical"] == 0


def test_prose_starting_with_severity_is_not_a_severity_line():
    text = "### Finding 1: x\nSeverity of this depends on load.\n- **Severity**: High\n"
    assert sev(text)["high"] == 1


def test_severity_outside_any_finding_is_ignored():
    text = "## Summary\n- **Severity**: Critical\n\n### Finding 1: x\n"
    assert sev(text) == {"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 1}


def test_finding_ends_at_next_heading_of_its_level_or_higher():
    text = (
        "## Findings\n\n"
        "### Finding 1: first\n\n"
        "#### Details\n\n"  # lower level: still inside finding 1
        "- **Severity**: High\n\n"
        "### Finding 2: second\n\n"
        "## What's Working Well\n\n"  # higher level: finding 2 ended, this severity is outside
        "- **Severity**: Critical\n"
    )
    assert sev(text) == {"critical": 0, "high": 1, "medium": 0, "low": 0, "info": 1}


def test_sibling_heading_of_same_level_ends_a_finding():
    text = "### Finding 1: a\n\n### Context\n\n- **Severity**: Critical\n"
    assert sev(text) == {"critical": 0, "high": 0, "medium": 0, "low": 0, "info": 1}


def test_nested_finding_headings_each_count():
    text = "## Issue: outer\nSeverity: high\n### Finding 1: inner\nSeverity: low\n"
    assert sev(text) == {"critical": 0, "high": 1, "medium": 0, "low": 1, "info": 0}


def test_empty_and_garbage_text():
    assert total("") == 0
    assert total("\x00\x01 binary-ish \ufffd") == 0


# --- final.md verdict -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, verdict",
    [
        ("# R\n\n## Verdict\n\n**REQUEST CHANGES**\n\nBecause.\n", "REQUEST CHANGES"),
        ("# R\n\n**Verdict**: APPROVE\n", "APPROVE"),
        ("# R\n\n## Verdict: approve\n", "APPROVE"),
        ("# R\n\n**Verdict:** needs discussion\n", "NEEDS DISCUSSION"),
        ("# R\n## Verdict\n\n\n  **NEEDS DISCUSSION**  \n", "NEEDS DISCUSSION"),
        ("# R\n\n### Verdict\n_Approve_\n", "APPROVE"),
        ("# R\n\n## Verdict\n\n**APPROVE** — with minor suggestions\n", "APPROVE"),
        ("**Verdict**: REQUEST CHANGES** — two findings must resolve first.\n", "REQUEST CHANGES"),
        ("## Verdict: Hold for follow-up — next week.\n", "HOLD FOR FOLLOW-UP"),
        ("## Verdict\n\n> **APPROVE**\n", "APPROVE"),
        ("## Verdict\n\nApprove.\n", "APPROVE"),
        ("## Verdict\n\n✅ **Approved**: ship it\n", "✅ APPROVED"),
    ],
)
def test_verdict_forms(text, verdict):
    assert parse_verdict(text) == verdict


@pytest.mark.parametrize(
    "text",
    [
        "",
        "# Some review\n\nNo verdict here.\n",
        "# R\n\n## Verdict\n\n## Blockers\n",  # empty section
        "# R\n\n## Verdict\n\n---\n\n## Blockers\n",  # only a rule
        "```\n## Verdict: APPROVE\n```\n",  # fenced
    ],
)
def test_no_verdict(text):
    assert parse_verdict(text) is None


# --- final.md counts ------------------------------------------------------------------------


def counts(text: str) -> tuple[int, int, int] | None:
    c = parse_final_counts(text)
    return None if c is None else (c.blockers, c.should_fix, c.suggestions)


def test_explicit_count_lines_win():
    text = final_md(
        "APPROVE",
        "**Blockers**: 2\n**Should Fix**: 1\n**Suggestions**: 4\n\n## Blockers\n\n### 1. ignored\n",
    )
    assert counts(text) == (2, 1, 4)


def test_explicit_count_line_with_colon_inside_bold():
    assert counts("**Blockers:** 1\n**Should Fix:** 0\n**Suggestion**: 3\n") == (1, 0, 3)


def test_section_items_numbered_emoji_and_bullets():
    text = final_md(
        "REQUEST CHANGES",
        "## Blockers\n\n"
        "### 1. Phase naming inconsistency\n\n**Flagged by**: @principal-1\n"
        "- **Location**: `a.ts`\n\n"  # detail bullet under an item: not another blocker
        "### 🚫 Auth bypass\n\nwords\n\n---\n\n"
        "## Should Fix\n\n### 1. A\n### 2. B\n### 3) C\n\n---\n\n"
        "## Suggestions\n\n### Code Quality\n- suggestion A — @quality-1\n\n"
        "- suggestion B — @quality-2\n\n### Testing\n* suggestion C\n\n"
        "## What's Working Well\n\n- not a suggestion\n",
    )
    assert counts(text) == (2, 3, 3)


def test_none_bullets_and_prose_are_not_items():
    text = final_md(
        "APPROVE",
        "## Blockers\n\n- None identified\n\n---\n\n"
        "## Should Fix\n\n- N/A for this change\n- No issues\n\n---\n\n"
        '## Suggestions\n\n*No hard blockers identified.* Prose.\n\n- "Add a flag" — @quality-1\n',
    )
    assert counts(text) == (0, 0, 1)


def test_resolved_round_blockers_count_zero():
    text = final_md(
        "APPROVE",
        "## Blockers\n\nNone. All three Round 3 blockers have been resolved:\n\n"
        "### Round 3 Blocker 1 — WAL Pragmas (REQ-DB-3): RESOLVED\n"
        "**Verified by**: All 5 reviewers\n\nDescription of the fix.\n\n"
        "### Round 3 Blocker 2 — state.json Writes: SPEC AMENDMENT NEEDED\n"
        "**Verified by**: principal-1\n\n---\n\n"
        '## Suggestions\n\n### Environment\n\n- "Add GH_TOKEN to the allowlist" — @security-1\n\n'
        '### Server Lifecycle\n\n- "Flush on shutdown" — @principal-2\n\n---\n\n'
        "## Consensus & Dissent\n\n- everyone agreed\n",
    )
    assert counts(text) == (0, 0, 2)


def test_missing_sections_count_zero_and_no_sections_is_none():
    assert counts(final_md("REQUEST CHANGES", "## Blockers\n\n### 1. A\n### 2. B\n")) == (2, 0, 0)
    assert counts(final_md("APPROVE", "Looks good.\n")) is None
    assert counts("") is None


def test_sections_end_at_rule_and_next_h2_and_fences_are_skipped():
    text = (
        "## Suggestions\n\n- a\n- b\n\n---\n\n- after the rule\n\n"
        "## Blockers\n\n```\n### 1. fenced\n- fenced\n```\n"
    )
    assert counts(text) == (0, 0, 2)


def test_emoji_section_titles():
    text = "## 🚫 Blockers\n\n### 1. A\n\n## ⚠️ Should Fix\n\n- x\n- y\n\n## 💡 Suggestions\n\n- z\n"
    assert counts(text) == (1, 2, 1)


def test_counts_type():
    assert parse_final_counts("## Blockers\n### 1. a\n") == Counts(
        blockers=1, should_fix=0, suggestions=0
    )


# --- topology -------------------------------------------------------------------------------


def test_topology_counts_nonempty_lines_of_first_fence_after_canonical_list():
    text = (
        "# Topology\n\n```\nbefore.py\n```\n\n## Canonical File List\n\nThe files:\n\n"
        "```text\nsrc/a.py\n\nsrc/b.py\n   \nsrc/c.py\n```\n\n```\nlater.py\n```\n"
    )
    assert parse_topology_files(text) == 3


@pytest.mark.parametrize(
    "text, expected",
    [
        ("# Topology\n\nno list\n", None),
        ("## Canonical File List\n\nno fence\n", None),
        ("## Canonical File List\n\n```\n```\n", 0),
        ("## canonical file list\n~~~\na\nb\n~~~\n", 2),
    ],
)
def test_topology_edge_cases(text, expected):
    assert parse_topology_files(text) == expected


# --- reviewer names -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, label",
    [
        ("principal-1", "Principal #1"),
        ("staff-engineer-2", "Staff Engineer #2"),
        ("quality-10", "Quality #10"),
        ("ephemeral-1", "Ephemeral #1"),
        ("principal-balanced", "Principal Balanced"),
        ("security", "Security"),
        ("martin-fowler", "Martin Fowler"),
        ("docs_writer-02", "Docs Writer #2"),
    ],
)
def test_reviewer_labels(name, label):
    assert reviewer_label(name) == label


def test_natural_order():
    names = ["principal-10", "quality-1", "principal-2", "principal-1", "Architect-1"]
    assert sorted(names, key=natural_key) == [
        "Architect-1",
        "principal-1",
        "principal-2",
        "principal-10",
        "quality-1",
    ]
