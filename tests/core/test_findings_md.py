"""Reviewer markdown -> `Finding`s (ocr-format.md §4.1): the template, the real-world
shapes, every location shape, missing fields, fenced and commented-out findings, BOM / CRLF,
long whitespace runs; and the same findings `parse_findings` counts, over its test corpora and
generated documents."""

from __future__ import annotations

import ast
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ocr_tui.formats.ocr.finding import SEVERITIES, Location, finding_id
from ocr_tui.formats.ocr.findings_md import (
    parse_location,
    parse_reviewer_findings,
)
from ocr_tui.formats.ocr.markdown import _lines, numbered_lines, parse_findings
from tests.robustness import test_property_text as _property

from .builders import finding, reviewer_md

REL = "rounds/round-1/reviews/principal-1.md"


def parse(text: str):
    return parse_reviewer_findings(text, REL, "principal-1")


def one(text: str):
    found = parse(text)
    assert len(found) == 1, found
    return found[0]


def loc(text: str) -> tuple[str | None, int | None, int | None]:
    lo = one(text).location
    return lo.file, lo.line_start, lo.line_end


def agrees(text: str) -> None:
    """The model finds exactly the findings `parse_findings` counts, with the same severities
    (absent or unknown counts as info there, None here), and lines in order."""
    found = parse(text)
    counted = parse_findings(text)
    assert len(found) == counted.total()
    by_sev = dict.fromkeys(SEVERITIES, 0)
    for f in found:
        assert f.severity is None or f.severity in SEVERITIES
        by_sev[f.severity or "info"] += 1
    assert by_sev == {k: getattr(counted, k) for k in SEVERITIES}
    lines = [f.line for f in found]
    assert lines == sorted(lines) and len(set(lines)) == len(lines)
    # `_lines` is `numbered_lines` without the numbers.
    assert [(line, kind) for _, line, kind in numbered_lines(text)] == list(_lines(text))


# --- the template -------------------------------------------------------------------------------


def test_template_shape():
    text = reviewer_md("High", "Low", None)
    found = parse(text)
    assert [f.title for f in found] == ["Problem number 1", "Problem number 2", "Problem number 3"]
    assert [f.severity for f in found] == ["high", "low", "info"]  # none given: info
    for f in found:
        assert f.location == Location(file="src/app.py", line_start=10, line_end=12)
        assert f.reviewers == ["principal-1"]
        assert f.source == "markdown" and f.path == REL
        assert f.id == finding_id(f.title, "src/app.py")
        assert f.category is None and f.blocker is False
    lines = text.split("\n")
    for f in found:
        assert lines[f.line - 1].startswith("### Finding ")
    # The section: heading to the next heading, trailing blank lines trimmed.
    assert found[0].text == (
        "### Finding 1: Problem number 1\n\n- **Severity**: High\n"
        "- **Location**: `src/app.py:L10-L12`\n- **Issue**: something is off"
    )
    # The last finding ends at `## What's Working Well`.
    assert "Working" not in found[2].text
    agrees(text)


def test_upstream_template_example():
    text = (
        "# Principal Review\n\n## Summary\n\nok\n\n## Findings\n\n"
        "### Finding 1: Missing input validation\n"
        "- **Severity**: High\n"
        "- **Location**: path/to/file.ts:L42-L50\n"
        "- **Issue**: no check - **Why It Matters**: crash - **Suggestion**: check\n\n"
        "## What's Working Well\n\n- tests\n"
    )
    f = one(text)
    assert (f.title, f.severity, f.line) == ("Missing input validation", "high", 9)
    assert f.location == Location(file="path/to/file.ts", line_start=42, line_end=50)


# --- the real-world shapes (ocr-format.md §4.1) -------------------------------------------------


def test_real_world_file_and_lines_fields():
    text = (
        "# Principal-1 Review\n\n"
        "## Finding: Inconsistent Import Extensions\n"
        "**Severity**: Low\n"
        "**File**: `packages/cli/src/lib/progress/review-strategy.ts`\n"
        "**Lines**: 26\n"
        "…\n"
    )
    f = one(text)
    assert f.title == "Inconsistent Import Extensions"
    assert f.severity == "low" and f.line == 3
    assert f.location == Location(
        file="packages/cli/src/lib/progress/review-strategy.ts", line_start=26, line_end=26
    )
    agrees(text)


def test_real_world_bulleted_backticked_location():
    text = (
        "# Quality-1 Review\n\n"
        "## Finding: Unused PHASE_NUMBER_TO_KEY Constant\n"
        "- **Severity**: Low\n"
        "- **Location**: `packages/cli/src/lib/progress/map-strategy.ts:L48-56`\n"
    )
    f = one(text)
    assert f.title == "Unused PHASE_NUMBER_TO_KEY Constant"
    assert f.location == Location(
        file="packages/cli/src/lib/progress/map-strategy.ts", line_start=48, line_end=56
    )


@pytest.mark.parametrize(
    "heading, title",
    [
        ("### Finding 1: SQL injection", "SQL injection"),
        ("## Finding: Inconsistent imports", "Inconsistent imports"),
        ("## Issue: Race in the watcher", "Race in the watcher"),
        ("## Issue 3 - Missing test", "Missing test"),
        ("### Issue #2: Leak", "Leak"),
        ("### Finding 2 — Dash title", "Dash title"),
        ("### Finding-2 x", "x"),
        ("#### Suggestion: Use a map", "Use a map"),
        ("### **Finding 1: Bold whole heading**", "Bold whole heading"),
        ("### Finding 1: **Bold title**", "Bold title"),
        ("### Finding 3", "Finding 3"),
        ("### Finding:", "Finding"),
        ("### Suggestion", "Suggestion"),
        ("### FINDING 1: Loud", "Loud"),
        ("## Finding 1: Closed ##", "Closed"),
        ("### Finding 1: x <!-- was Critical --> y", "x y"),
    ],
)
def test_titles(heading, title):
    f = one(heading + "\n- **Severity**: Low\n")
    assert f.title == title
    assert f.id == finding_id(title, None)


# --- locations ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, expected",
    [
        ("path/a.ts:L42-L50", ("path/a.ts", 42, 50)),
        ("`path/a.ts:L42-L50`", ("path/a.ts", 42, 50)),
        ("path/a.ts:L85-87", ("path/a.ts", 85, 87)),
        ("path/a.ts:42", ("path/a.ts", 42, 42)),
        ("path/a.ts:42-50", ("path/a.ts", 42, 50)),
        ("path/a.ts:L26", ("path/a.ts", 26, 26)),
        ("path/a.ts#L12", ("path/a.ts", 12, 12)),
        ("path/a.ts#L12-L20", ("path/a.ts", 12, 20)),
        ("path/a.ts (lines 3-9)", ("path/a.ts", 3, 9)),
        ("path/a.ts (line 7)", ("path/a.ts", 7, 7)),
        ("`path/a.ts` (lines 3–9)", ("path/a.ts", 3, 9)),
        ("`path/a.ts`:42", ("path/a.ts", 42, 42)),
        ("path/a.ts, lines 3 - 9", ("path/a.ts", 3, 9)),
        ("path/a.ts L12-L20", ("path/a.ts", 12, 20)),
        ("path/a.ts:42:5", ("path/a.ts", 42, 42)),  # line and column
        ("`path/a.ts` — the handler", ("path/a.ts", None, None)),
        ("path/a.ts", ("path/a.ts", None, None)),
        ("./path/a.ts", ("./path/a.ts", None, None)),
        ("[a.ts](a.ts#L12)", ("a.ts", 12, 12)),
        ("C:/src/a.ts", ("C:/src/a.ts", None, None)),
        ("none", (None, None, None)),
        ("None", (None, None, None)),
        ("N/A", (None, None, None)),
        ("n/a (design issue)", (None, None, None)),
        ("-", (None, None, None)),
        ("Multiple files", (None, None, None)),
        ("line 42", (None, 42, 42)),
        ("path/a.ts:L0", ("path/a.ts", None, None)),  # no line 0
        ("path/a.ts:L50-42", ("path/a.ts", 50, 50)),  # backwards: the first line only
        ("path/a.ts:" + "9" * 5000, ("path/a.ts", None, None)),  # not a line number
    ],
)
def test_location_shapes(value, expected):
    lo = parse_location(value)
    assert (lo.file, lo.line_start, lo.line_end) == expected


@pytest.mark.parametrize(
    "field",
    [
        "- **Location**: {v}",
        "**Location**: {v}",
        "**Location:** {v}",
        "* **Location**: {v}",
        "Location: {v}",
        "- Location: {v}",
        "_Location_: {v}",
        "  - **Location** : {v}",
        "- **File**: {v}",
        "**Path**: {v}",
    ],
)
def test_field_name_forms(field):
    text = "### Finding 1: x\n- **Severity**: Medium\n" + field.format(v="`src/a.py:L3-L4`") + "\n"
    assert loc(text) == ("src/a.py", 3, 4)


@pytest.mark.parametrize(
    "lines, expected",
    [
        ("**Lines**: 26", (26, 26)),
        ("**Lines**: L26-30", (26, 30)),
        ("**Lines**: 26–30", (26, 30)),
        ("**Lines**: 26 - 30", (26, 30)),
        ("- **Line**: 7", (7, 7)),
        ("Lines: L26-L30", (26, 30)),
        ("**Lines**: 26 to 30", (26, 30)),
        ("**Lines**: various", (None, None)),
    ],
)
def test_file_and_lines_fields(lines, expected):
    text = f"## Finding: x\n**Severity**: Low\n**File**: `src/a.ts`\n{lines}\n"
    assert loc(text) == ("src/a.ts", *expected)
    text = f"## Finding: x\n{lines}\n**File**: src/a.ts\n"  # either order
    assert loc(text) == ("src/a.ts", *expected)


def test_lines_in_the_location_win_over_a_lines_field():
    text = "## Finding: x\n**Location**: a.ts:L5-6\n**Lines**: 26\n"
    assert loc(text) == ("a.ts", 5, 6)


def test_location_without_a_file_beside_a_file_field():
    text = "## Finding: x\n**File**: a.ts\n**Location**: line 42\n"
    assert loc(text) == ("a.ts", 42, 42)


def test_lines_of_another_files_location_are_not_the_files():
    text = "## Finding: x\n**Location**: a.ts\n**Location**: b.ts:20\n"
    assert loc(text) == ("a.ts", None, None)
    text = "## Finding: x\n**Location**: a.ts\n**Location**: line 20\n"
    assert loc(text) == ("a.ts", 20, 20)


@pytest.mark.parametrize(
    "field, expected",
    [
        ("**Location**: 42:7", (None, 42, 42)),  # a line and column, not a file named `42`
        ("**Location**: 42:7-50:3", (None, 42, 50)),
        ("**Location**: a.ts:42to50", ("a.ts", 42, 50)),
        ("**Location**: a.ts (lines 3:1-9:2)", ("a.ts", 3, 9)),
        ("**File**: a.ts\n**Lines**: 26:3-30:1", ("a.ts", 26, 30)),
        ("**File**: a.ts\n**Lines**: ~26", ("a.ts", 26, 26)),
    ],
)
def test_columns_in_line_ranges(field, expected):
    assert loc(f"## Finding: x\n{field}\n") == expected


def test_first_location_wins_and_none_gives_no_file():
    text = "### Finding 1: x\n- **Location**: a.ts:1\n- **Location**: b.ts:2\n"
    assert loc(text) == ("a.ts", 1, 1)
    assert loc("### Finding 1: x\n- **Location**: none\n") == (None, None, None)
    assert loc("### Finding 1: x\n- **Location**: N/A\n") == (None, None, None)
    assert loc("### Finding 1: x\n- **Location**:\n") == (None, None, None)


def test_location_outside_the_finding_is_not_its_location():
    text = "- **Location**: a.ts:1\n\n### Finding 1: x\n\n## Next\n- **Location**: b.ts:2\n"
    assert loc(text) == (None, None, None)


def test_location_in_fence_or_comment_is_not_read():
    text = (
        "### Finding 1: x\n```\n- **Location**: fenced.ts:1\n```\n"
        "<!-- - **Location**: commented.ts:2 -->\n<!--\n**File**: hidden.ts\n-->\n"
        "- **Location**: real.ts:3\n"
    )
    assert loc(text) == ("real.ts", 3, 3)


# --- missing fields -----------------------------------------------------------------------------


def test_missing_severity_and_location():
    f = one("### Finding 1: Bare\n\nJust prose.\n")
    assert f.severity == "info"  # as OCR's dashboard and `status`' severity counts read it
    assert f.location == Location()
    assert f.id == finding_id("Bare", None)
    assert f.text == "### Finding 1: Bare\n\nJust prose."


@pytest.mark.parametrize(
    "line, expected",
    [
        ("- **Severity**: High", "high"),
        ("**Severity:** critical", "critical"),
        ("Severity: 🔴 **High**", "high"),
        ("- Severity: **Medium**", "medium"),
        ("Severity: Blocker", "info"),  # not one of the five: info, as OCR reads it
        ("Severity of this depends on load.", "info"),  # prose: no severity given
    ],
)
def test_severity_forms(line, expected):
    assert one(f"### Finding 1: x\n\n{line}\n").severity == expected


def test_first_severity_line_wins():
    assert one("### Finding 1: x\n- Severity: Low\n- Severity: Critical\n").severity == "low"
    # An unknown word on a `Severity:` line is the first severity line: it is not overridden.
    assert one("### Finding 1: x\n- Severity: Blocker\n- Severity: Critical\n").severity == "info"


def test_empty_and_garbage():
    assert parse("") == []
    assert parse("\x00\x01 binary-ish \ufffd") == []
    assert parse("## Findings\n\nNothing found.\n") == []


# --- sections -----------------------------------------------------------------------------------


def test_sections_nesting_and_ends():
    text = (
        "## Findings\n\n"
        "### Finding 1: first\n\n#### Details\n\n- **Severity**: High\n\n"
        "### Finding 2: second\n\n"
        "## What's Working Well\n\n- **Severity**: Critical\n"
    )
    a, b = parse(text)
    assert (a.title, a.severity, a.line) == ("first", "high", 3)
    assert a.text == "### Finding 1: first\n\n#### Details\n\n- **Severity**: High"
    assert (b.title, b.severity, b.line, b.text) == ("second", "info", 9, "### Finding 2: second")
    agrees(text)


def test_nested_finding_headings_each_make_a_finding():
    text = "## Issue: outer\nSeverity: high\n### Finding 1: inner\nSeverity: low\n"
    outer, inner = parse(text)
    assert (outer.title, outer.severity, outer.text) == (
        "outer",
        "high",
        "## Issue: outer\nSeverity: high",
    )
    assert (inner.title, inner.severity, inner.line) == ("inner", "low", 3)


def test_h1_h5_and_plural_headings_are_not_findings():
    text = (
        "# Finding in h1\n\n## Findings\n\n### Issues\n\n### Findingx\n\n"
        "#### Suggestion\nSeverity: low\n\n##### Finding too deep\nSeverity: critical\n"
    )
    f = one(text)
    assert (f.title, f.severity) == ("Suggestion", "low")
    assert "##### Finding too deep" in f.text  # a deeper heading stays in the section
    agrees(text)


def test_fenced_and_commented_out_findings_are_not_findings():
    text = (
        "## Findings\n\n"
        "```markdown\n### Finding 1: example in a fence\n- **Severity**: Critical\n```\n\n"
        "~~~\n## Issue: tilde fence\n~~~\n\n"
        "<!--\n### Finding 1: Example title\n- **Severity**: Critical\n"
        "- **Location**: `path/to/file.ts:L42-L50`\n-->\n\n"
        "<!-- ### Finding 9: inline comment -->\n"
        "### Finding 2: real\n\n```\n- **Severity**: Critical\n```\n- **Severity**: Low\n"
    )
    f = one(text)
    assert (f.title, f.severity, f.line) == ("real", "low", 19)
    assert f.text.endswith("- **Severity**: Low")
    agrees(text)


def test_unclosed_fence_or_comment_hides_the_rest_and_ends_the_text_at_the_file_end():
    text = "### Finding 1: a\n\n```\n### Finding 2: b\n"
    f = one(text)
    assert f.text == "### Finding 1: a\n\n```\n### Finding 2: b"
    assert parse("<!--\n### Finding 1: x\n") == []


# --- BOM, line ends -----------------------------------------------------------------------------


def test_bom_on_the_first_line_and_in_the_middle():
    text = "\ufeff### Finding 1: Leak\n- **Severity**: High\n"
    f = one(text)
    assert (f.title, f.severity, f.line) == ("Leak", "high", 1)
    assert f.text.startswith("### Finding 1: Leak")
    joined = text + "\n\ufeff" + text.lstrip("\ufeff").replace("High", "Critical")
    a, b = parse(joined)
    assert (b.severity, b.line) == ("critical", 4)
    assert b.text.startswith("### Finding")
    agrees(joined)


@pytest.mark.parametrize("eol", ["\r\n", "\r", "\n"])
def test_line_ends_keep_line_numbers(eol):
    clean = reviewer_md("High", "Low", name="Quality")
    text = clean.replace("\n", eol)
    got = [(f.title, f.severity, f.location, f.line, f.text) for f in parse(text)]
    assert got == [(f.title, f.severity, f.location, f.line, f.text) for f in parse(clean)]
    assert [f.line for f in parse(text)] == [9, 15]


def test_mixed_line_ends_count_like_lines_does():
    text = "a\r\nb\rc\n\r\n### Finding 1: x\r- **Location**: a.ts:3\r\n"
    f = one(text)
    assert f.line == 5  # a, b, c, "" (the CRLF after c's LF), heading
    assert text.replace("\r\n", "\n").replace("\r", "\n").split("\n")[f.line - 1].startswith("###")
    assert f.location.file == "a.ts"


# --- long whitespace runs: linear ---------------------------------------------------------------

RUN = 200_000
RUNS = {"spaces": " " * RUN, "tabs": "\t" * RUN, "mixed": " \t" * (RUN // 2)}
PADDED_LINES = {
    "title": "### Finding 1:{W}Long{W}title{W}",
    "title-lead": "###{W}Finding{W}1{W}:{W}x{W}###{W}",
    "title-markup": "### **{W}Finding{W}**{W}",
    "severity": "-{W}**Severity**{W}:{W}High{W}",
    "location": "-{W}**Location**{W}:{W}`src/a.py:L1-L2`{W}(lines{W}3{W}-{W}9){W}",
    "location-spaces": "**Location**:{W}src/a.py{W}L{W}1{W}-{W}L{W}2{W}line{W}",
    "location-link": "**Location**:{W}[a{W}](b{W}#L1{W})",
    "file": "**File**{W}:{W}`{W}src/a.py{W}`{W}",
    "lines": "**Lines**{W}:{W}L26{W}-{W}30{W}",
    "field-name": "-{W}*{W}*{W}Location{W}*{W}*{W}:{W}",
    "comment": "**Location**: a.py <!--{W}-->{W}:{W}3",
}
OTHER = {
    "colons": "**Location**: a" + ":" * RUN,
    "hashes": "**Location**: a" + "#L1" * (RUN // 3),
    "digits": "**Location**: a:L" + "1" * RUN + "-",
    "digit-runs": "**Lines**: " + "1-" * (RUN // 2),
    "lines-words": "**Location**: a " + "lines " * (RUN // 6),
    "L-words": "**Location**: a " + "L" * RUN,
    "stars": "### Finding 1: " + "*" * RUN,
    "underscores": "### Finding " + "_" * RUN,
    "brackets": "**Location**: " + "[" * RUN + "](",
}


def _hostile():
    for name, line in PADDED_LINES.items():
        for wname, run in RUNS.items():
            yield f"{name}-{wname}", line.replace("{W}", run)
    yield from OTHER.items()


@pytest.mark.parametrize(("name", "line"), list(_hostile()), ids=[n for n, _ in _hostile()])
def test_linear_on_long_runs(name, line):
    for context in ("{}\n", "### Finding 1: t\n{}\n", "## Issue: t\n- **File**: a.py\n{}\n"):
        text = context.format(line)
        start = time.process_time()
        parse(text)
        spent = time.process_time() - start
        assert spent < 0.5, f"{spent:.2f} s on {name}"


def test_padded_findings_still_read():
    w = RUNS["mixed"]
    text = (
        f"###{w}Finding 1:{w}Long{w}title{w}###\n"
        f"-{w}**Severity**{w}:{w}High\n"
        f"-{w}**Location**{w}:{w}`src/a.py:L1-L2`{w}\n"
    )
    f = one(text)
    assert (f.title, f.severity) == ("Long title", "high")
    assert f.location == Location(file="src/a.py", line_start=1, line_end=2)
    assert f.id == finding_id("Long title", "src/a.py")
    f = one(f"## Finding:{w}x\n**File**:{w}`a.ts`\n**Lines**:{w}26{w}–{w}30\n")
    assert f.location == Location(file="a.ts", line_start=26, line_end=30)
    assert one(f"### Finding 1: x\n**Location**: a.ts{w}(lines{w}3-9)\n").location == Location(
        file="a.ts", line_start=3, line_end=9
    )


# --- the same findings as parse_findings, over its corpora --------------------------------------

HERE = Path(__file__).parent


def _string_constants(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
            out.append(node.value)
    return out


def _corpus() -> list[str]:
    """Every string literal of the markdown parsers' tests, alone, as a line after a finding
    heading, and for the hostile lines with their whitespace runs in each context."""
    docs: list[str] = []
    for rel in ("test_markdown.py", "../robustness/test_markdown_hostile.py"):
        for s in _string_constants(HERE / rel):
            s = s.replace("{W}", " \t" * 500)
            docs += [s, s + "\n", f"### Finding 1: x\n\n{s}\n", f"## Issue: y\n{s}\n## Next\n"]
    docs += [reviewer_md(), reviewer_md("High", "Low", "Medium"), reviewer_md(None, "Bogus")]
    docs += [finding("t", s, level=lv) for s in ("High", None, "x") for lv in (1, 2, 3, 4, 5)]
    return docs


CORPUS = _corpus()


def test_corpus_is_substantial():
    assert len(CORPUS) > 500
    assert sum(parse_findings(t).total() for t in CORPUS) > 300


def test_model_agrees_with_parse_findings_over_the_test_corpora():
    for text in CORPUS:
        for twin in (text, "\ufeff" + text, text.replace("\n", "\r\n"), text.replace("\n", "\r")):
            agrees(twin)


# --- ... and over generated documents -----------------------------------------------------------

WORD = st.sampled_from(
    ["x", "leak", "Race", "in", "`a.ts`", "**b**", "🔴", "é", "src/a.py:L1-L2", "(lines 3-9)"]
)
SEVERITY = st.sampled_from(["Critical", "High", "Medium", "Low", "Info", "none", "🔴 **High**"])
FIELD = st.sampled_from(
    ["- **Location**: ", "**File**: ", "**Lines**: ", "Location: ", "- **Severity**: ", "* "]
)
VALUE = st.sampled_from(
    ["`a.ts:L42-L50`", "a.ts:L85-87", "a.ts#L12", "a.ts (line 7)", "26–30", "none", "L3", ""]
)


@st.composite
def words(draw, min_size=1, max_size=4) -> str:
    return " ".join(draw(st.lists(WORD, min_size=min_size, max_size=max_size)))


@st.composite
def block(draw) -> list[str]:
    kind = draw(st.integers(0, 8))
    if kind == 0:
        level = draw(st.integers(1, 6))
        word = draw(
            st.sampled_from(["Finding", "Issue", "Suggestion", "Findings", "Note", "**Finding"])
        )
        num = draw(st.sampled_from(["", " 1", " 2:", ":", " #3 -"]))
        heading = f"{'#' * level} {word}{num} {draw(words())}"
        fields = draw(st.lists(st.tuples(FIELD, VALUE), max_size=3))
        return [heading, *(name + value for name, value in fields)]
    if kind == 1:
        return [f"{draw(st.sampled_from(['- ', '', '* ']))}**Severity**: {draw(SEVERITY)}"]
    if kind == 2:
        return [draw(FIELD) + draw(VALUE)]
    if kind == 3:
        fence = draw(st.sampled_from(["```", "~~~", "````"]))
        body = draw(
            st.lists(st.sampled_from(["### Finding 9: no", "Severity: High", "a"]), max_size=3)
        )
        return [fence, *body, fence]
    if kind == 4:
        hidden = draw(st.sampled_from(["### Finding 8: hidden", "- **Severity**: Critical", "x"]))
        return draw(st.sampled_from([["<!--", hidden, "-->"], [f"<!-- {hidden} -->"], ["<!-- a"]]))
    if kind == 5:
        return ["\ufeff### Finding 7: joined", "Severity: low"]
    if kind == 6:
        return ["", "", "   "]
    return [draw(words(1, 8))]


@given(
    blocks=st.lists(block(), max_size=14),
    eol=st.sampled_from(["\n", "\r\n", "\r"]),
    bom=st.booleans(),
)
@settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
def test_model_agrees_with_parse_findings_on_generated_documents(blocks, eol, bom):
    lines = [line for b in blocks for line in b]
    text = ("\ufeff" if bom else "") + eol.join(lines) + eol
    agrees(text)
    raw = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for f in parse(text):
        assert raw[f.line - 1].lstrip("\ufeff").lstrip(" ").startswith("#")
        assert f.text.split("\n")[0] == raw[f.line - 1].lstrip("\ufeff")
        assert f.text.split("\n")[-1].strip()  # trailing blank lines trimmed
        assert f.id == finding_id(f.title, f.location.file)
        lo = f.location
        assert (lo.line_start is None) == (lo.line_end is None)
        assert lo.line_start is None or 1 <= lo.line_start <= lo.line_end


@given(doc=_property.markdown(), data=st.data())
@settings(
    max_examples=150,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
def test_the_property_suites_documents_and_their_twins(doc, data):
    """tests/robustness/test_property_text.py's generator: the model agrees with the count on
    each document and its hostile twins, and the twins give the clean document's findings."""
    clean = _property.join(doc)

    def essence(text: str) -> list:
        return [(f.id, f.title, f.severity, f.location) for f in parse(text)]

    expected = essence(clean)
    twins = {
        "bom": "\ufeff" + clean,
        "crlf": clean.replace("\n", "\r\n"),
        "cr": clean.replace("\n", "\r"),
        "padded": data.draw(_property.padded(doc)),
        "commented": data.draw(_property.commented(doc)),
    }
    agrees(clean)
    for name, twin in twins.items():
        agrees(twin)
        assert essence(twin) == expected, name
