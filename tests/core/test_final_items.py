"""final.md's Blockers / Should Fix / Suggestions items (final_items.py) and the findings of a
round-meta.json (findings_meta.py)."""

from __future__ import annotations

import inspect
import random
import time

import msgspec
import pytest

import tests.core.test_markdown as test_markdown
from ocr_tui.formats.ocr.final_items import (
    _EXPLICIT_COUNT,
    FinalItem,
    parse_final_counts,
    parse_final_items,
    parse_location,
    reviewer_names,
)
from ocr_tui.formats.ocr.finding import Location, finding_id
from ocr_tui.formats.ocr.findings_meta import findings_from_meta
from ocr_tui.formats.ocr.markdown import _lines, numbered_lines
from ocr_tui.formats.ocr.model import ROUND_META_DECODER, MetaFinding, MetaReviewer, RoundMeta
from ocr_tui.formats.ocr.sim_final import synthesize
from ocr_tui.formats.ocr.sim_reviews import Finding as SimFinding

from .builders import final_md


def items(text: str) -> list[tuple[str, str]]:
    return [(i.section, i.title) for i in parse_final_items(text)]


def by_section(text: str) -> tuple[int, int, int]:
    got = parse_final_items(text)
    return tuple(sum(i.section == s for i in got) for s in ("blocker", "should_fix", "suggestion"))


TEMPLATE = final_md(
    "REQUEST CHANGES",
    "## Blockers\n\n"
    "### 🚫 SQL injection in the query builder\n\n"
    "**Flagged by**: @principal-1, @security-1\n"
    "**Type**: Security\n"
    "**Location**: `src/db/query.ts:L42-L50`\n"
    "**Issue**: user input is concatenated\n"
    "**Why this blocks**: data loss\n"
    "**Suggested fix**: bind parameters\n\n"
    "## Should Fix\n\n"
    "### 1. Missing retry on timeout\n\n"
    "**Flagged by**: @quality-1\n"
    "**Location**: src/net/client.ts:12\n\n"
    "### 2. Watcher leaks handles\n\n"
    "**Flagged by**: @principal-2\n"
    "**Location**: `src/watch.ts#L3`\n\n"
    "## Suggestions\n\n"
    "### Code Quality\n\n"
    '- "Extract the parser" — @quality-1\n'
    '- "Name the constants" — @principal-1, @quality-2\n\n'
    "### Performance\n\n"
    "- Cache the stat calls (@principal-2)\n\n"
    "### Testing\n\n- None\n\n### Style\n\n- N/A\n\n"
    "## Consensus & Dissent\n\n- everyone agreed\n\n"
    "## What's Working Well\n\n- small commits\n\n"
    "## Clarifying Questions\n\n### From @principal-1\n\n- Is this admin-only?\n",
)


# --- final.md: the template ------------------------------------------------------------------


def test_template_items():
    got = parse_final_items(TEMPLATE, "rounds/round-1/final.md")
    assert [(i.section, i.title) for i in got] == [
        ("blocker", "SQL injection in the query builder"),
        ("should_fix", "Missing retry on timeout"),
        ("should_fix", "Watcher leaks handles"),
        ("suggestion", "Extract the parser"),
        ("suggestion", "Name the constants"),
        ("suggestion", "Cache the stat calls"),
    ]
    blocker, retry, watcher, extract, names, cache = got
    assert blocker.flagged_by == ["principal-1", "security-1"]
    assert blocker.location == Location(file="src/db/query.ts", line_start=42, line_end=50)
    assert blocker.path == "rounds/round-1/final.md"
    assert TEMPLATE.splitlines()[blocker.line - 1] == "### 🚫 SQL injection in the query builder"
    assert blocker.text.startswith("### 🚫 SQL")
    assert blocker.text.endswith("**Suggested fix**: bind parameters")
    assert retry.location == Location(file="src/net/client.ts", line_start=12, line_end=12)
    assert watcher.location == Location(file="src/watch.ts", line_start=3, line_end=3)
    assert retry.flagged_by == ["quality-1"] and watcher.flagged_by == ["principal-2"]
    assert extract.flagged_by == ["quality-1"]
    assert names.flagged_by == ["principal-1", "quality-2"]
    assert cache.flagged_by == ["principal-2"]
    assert TEMPLATE.splitlines()[cache.line - 1] == "- Cache the stat calls (@principal-2)"
    assert by_section(TEMPLATE) == _counts(TEMPLATE)


def test_item_is_a_frozen_struct():
    item = parse_final_items("## Blockers\n### 1. A\n")[0]
    assert isinstance(item, FinalItem)
    assert item == FinalItem(section="blocker", title="A", line=2, text="### 1. A")
    with pytest.raises(AttributeError):
        item.title = "B"  # type: ignore[misc]


def test_simulator_final_md():
    results = {
        "principal-1": [
            SimFinding("Auth bypass", "critical", "src/a.ts", 3, 9, "bad", "fix"),
            SimFinding("Slow loop", "high", "src/b.ts", 10, 10, "slow", "fix"),
        ],
        "quality-1": [
            SimFinding("Auth bypass", "critical", "src/a.ts", 3, 9, "bad", "fix"),
            SimFinding("Typo", "low", "src/c.ts", 1, 1, "typo", "fix"),
        ],
    }
    syn = synthesize("main", "2026-03-10", results, "normal")
    got = parse_final_items(syn.final_md)
    assert [(i.section, i.title, i.flagged_by) for i in got] == [
        ("blocker", "Auth bypass", ["principal-1", "quality-1"]),
        ("should_fix", "Slow loop", ["principal-1"]),
        ("suggestion", "Typo", ["quality-1"]),
    ]
    assert got[0].location == Location(file="src/a.ts", line_start=3, line_end=9)
    assert got[1].location == Location(file="src/b.ts", line_start=10, line_end=10)
    assert by_section(syn.final_md) == _counts(syn.final_md)


# --- final.md: real-world shapes (ocr-format.md §4.3) ----------------------------------------


def test_numbered_blockers_and_no_should_fix_section():
    text = final_md(
        "REQUEST CHANGES",
        "## Blockers\n\n"
        "### 1. Phase Naming Inconsistency (Documentation vs CLI)\n\n"
        "**Flagged by**: @principal-1\n- **Location**: `docs/phases.md` (lines 3-9)\n\n"
        "### 2. Missing Migration\n\n**Flagged by**: @principal-1, @quality-1\n\n"
        "## Suggestions\n\n"
        '- "Add phase transition validation" — @principal-1 [**High**]\n'
        '- "Document the exit codes" — @quality-1 [**Low**]\n'
        '- "Log the phase" — @quality-2\n',
    )
    got = parse_final_items(text)
    assert [(i.section, i.title, i.severity) for i in got] == [
        ("blocker", "Phase Naming Inconsistency (Documentation vs CLI)", None),
        ("blocker", "Missing Migration", None),
        ("suggestion", "Add phase transition validation", "high"),
        ("suggestion", "Document the exit codes", "low"),
        ("suggestion", "Log the phase", None),
    ]
    assert got[0].location == Location(file="docs/phases.md", line_start=3, line_end=9)
    assert got[1].flagged_by == ["principal-1", "quality-1"]
    assert [i.flagged_by for i in got[2:]] == [["principal-1"], ["quality-1"], ["quality-2"]]
    assert by_section(text) == _counts(text) == (2, 0, 3)


RESOLVED_ROUND = final_md(
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


def test_resolved_round_has_no_blockers():
    assert items(RESOLVED_ROUND) == [
        ("suggestion", "Add GH_TOKEN to the allowlist"),
        ("suggestion", "Flush on shutdown"),
    ]
    assert by_section(RESOLVED_ROUND) == _counts(RESOLVED_ROUND) == (0, 0, 2)


@pytest.mark.parametrize(
    "heading",
    [
        "### 1. WAL Pragmas: RESOLVED",
        "### 🚫 WAL Pragmas (Resolved)",
        "### 2. WAL Pragmas — resolved in round 4",
        "### ✅ RESOLVED: WAL Pragmas",
        "### Round 3 Blocker 1 — WAL Pragmas (REQ-DB-3): RESOLVED\n**Flagged by**: @principal-1",
        "### 1. WAL Pragmas\n**Flagged by**: @principal-1\n**Status**: ✅ Resolved in round 4",
    ],
)
def test_resolved_items_are_not_items(heading):
    # A deliberate difference from parse_final_counts, which counts `### 1. …: RESOLVED`.
    text = f"## Blockers\n\n{heading}\n\nwords\n\n### 2. Open one\n"
    assert items(text) == [("blocker", "Open one")]


def test_a_title_about_resolution_is_still_an_item():
    assert items("## Blockers\n### 1. Resolved paths are not canonicalised\n") == [
        ("blocker", "Resolved paths are not canonicalised")
    ]


def test_none_bullets_and_prose_are_not_items():
    text = final_md(
        "APPROVE",
        "## Blockers\n\n*No hard blockers identified.*\n\n- None identified\n\n---\n\n"
        "## Should Fix\n\n- N/A for this change\n- No issues\n- *None*\n\n---\n\n"
        '## Suggestions\n\nSome prose first.\n\n- "Add a flag" — @quality-1\n\n* * *\n',
    )
    assert items(text) == [("suggestion", "Add a flag")]


def test_fenced_and_commented_items_are_not_items():
    text = (
        "## Blockers\n\n```\n### 1. fenced\n- fenced\n```\n\n"
        "<!--\n### 2. commented\n-->\n"
        "### 3. real <!-- a note --> one\n**Location**: <!-- `x.ts:9` --> `a.ts:4`\n\n"
        "~~~md\n**Flagged by**: @fenced-1\n~~~\n"
    )
    got = parse_final_items(text)
    assert [(i.title, i.flagged_by, i.location.file) for i in got] == [("real one", [], "a.ts")]
    assert got[0].line == 11


def test_headings_that_are_groups_items_or_neither():
    text = (
        "## Suggestions\n\n"
        "### Code Quality\n\n- **Extract the parser**: it is 300 lines — @quality-1\n"
        "  - **Location**: `src/parse.ts:L1-L300`\n\n"
        "### 🧪 Testing\n\n- Cover the error paths — @quality-2\n\n"
        "### Plain heading with a location\n\n**Location**: `src/x.ts:7`\n\n"
        "### Just a note\n\nSome prose.\n\n"
        "### 💡 Emoji item\n\nWords.\n\n"
        "### 3. Numbered item\n\n- a detail bullet\n- **Location**: `n.ts`\n\n"
        "## Blockers\n\n### 🚫 Emoji item with description bullets\n\n- the token is skipped\n"
    )
    got = parse_final_items(text)
    assert [(i.section, i.title) for i in got] == [
        ("suggestion", "Extract the parser"),
        ("suggestion", "Cover the error paths"),
        ("suggestion", "Plain heading with a location"),
        ("suggestion", "Emoji item"),
        ("suggestion", "Numbered item"),
        ("blocker", "Emoji item with description bullets"),
    ]
    assert got[0].location == Location(file="src/parse.ts", line_start=1, line_end=300)
    assert got[0].flagged_by == ["quality-1"]
    assert got[2].location == Location(file="src/x.ts", line_start=7, line_end=7)
    assert got[4].location.file == "n.ts"
    assert got[0].text == (
        "- **Extract the parser**: it is 300 lines — @quality-1\n"
        "  - **Location**: `src/parse.ts:L1-L300`"
    )


def test_emoji_sections_bom_crlf_and_rules():
    text = (
        "\ufeff## 🚫 Blockers\r\n\r\n### 1. A\r\n\r\n---\r\n\r\n- after the rule\r\n"
        "## ⚠️ Should Fix\r\n\r\n- x — @a-1\r\n- y\r\n## 💡 Suggestions\r\n\r\n- z\r\n"
    )
    got = parse_final_items(text)
    assert [(i.section, i.title, i.line) for i in got] == [
        ("blocker", "A", 3),
        ("should_fix", "x", 10),
        ("should_fix", "y", 11),
        ("suggestion", "z", 14),
    ]
    assert got[1].flagged_by == ["a-1"]


@pytest.mark.parametrize(
    "bullet, title, names, severity",
    [
        (
            '"Add phase transition validation" — @principal-1 [**High**]',
            "Add phase transition validation",
            ["principal-1"],
            "high",
        ),  # noqa: E501
        ("“Curly quotes” — @a-1, @b-2", "Curly quotes", ["a-1", "b-2"], None),
        ("Plain words — @a-1 and @b-2", "Plain words", ["a-1", "b-2"], None),
        ("Flagged words — flagged by @a-1", "Flagged words", ["a-1"], None),
        ("Without dash @a-1", "Without dash @a-1", [], None),
        ("Ask @a-1 about it — @b-2", "Ask @a-1 about it", ["b-2"], None),
        ("[High] Leading tag — @a-1", "Leading tag", ["a-1"], "high"),
        ("**[CRITICAL]** Bold tag", "Bold tag", [], "critical"),
        ('"Tag before names" [Medium] — @a-1', "Tag before names", ["a-1"], "medium"),
        ("Not a tag [see docs]", "Not a tag [see docs]", [], None),
        ("**Bold title**: with a description", "Bold title", [], None),
        ("`code_title()` is slow", "`code_title()` is slow", [], None),
        ("Email me@example.com — @a-1", "Email me@example.com", ["a-1"], None),
        ("Paren names *(@a-1, @b-2)*", "Paren names", ["a-1", "b-2"], None),
    ],
)
def test_bullet_titles_reviewers_and_severity(bullet, title, names, severity):
    (item,) = parse_final_items(f"## Suggestions\n\n- {bullet}\n")
    assert (item.title, item.flagged_by, item.severity) == (title, names, severity)


@pytest.mark.parametrize(
    "fields, location",
    [
        ("**Location**: `src/a.ts:L42-L50`", ("src/a.ts", 42, 50)),
        ("**Location:** src/a.ts:12", ("src/a.ts", 12, 12)),
        ("- **Location**: `src/a.ts#L3`", ("src/a.ts", 3, 3)),
        ("- **Location**: src/a.ts#L3-L9", ("src/a.ts", 3, 9)),
        ("**Location**: `src/a.ts` (lines 3-9)", ("src/a.ts", 3, 9)),
        ("**Location**: src/a.ts (line 4)", ("src/a.ts", 4, 4)),
        ("**Location**: `packages/cli/map.ts:L48-56`", ("packages/cli/map.ts", 48, 56)),
        ("**Location**: `src/a.ts:42:7`", ("src/a.ts", 42, 42)),
        ("**Location**: `src/a.ts`:88", ("src/a.ts", 88, 88)),
        ("**Location**: `src/a.ts:L50-L42`", ("src/a.ts", 50, 50)),
        ("**Location**: src/a.ts:10, src/b.ts:20", ("src/a.ts", 10, 10)),
        ("**Location**: `src/a.ts`", ("src/a.ts", None, None)),
        ("**Location**: Makefile", ("Makefile", None, None)),
        ("**Location**: Multiple files", (None, None, None)),
        ("**Location**: N/A", (None, None, None)),
        ("**File**: `src/a.ts`\n**Lines**: 26", ("src/a.ts", 26, 26)),
        ("**File**: `src/a.ts`\n**Lines**: L26-L30", ("src/a.ts", 26, 30)),
        ("**Location**: `src/a.ts:L0`", ("src/a.ts", None, None)),
    ],
)
def test_locations(fields, location):
    (item,) = parse_final_items(f"## Should Fix\n\n### 1. T\n\n{fields}\n")
    loc = item.location
    assert (loc.file, loc.line_start, loc.line_end) == location


@pytest.mark.parametrize(
    "fields, location",
    [
        ("**Location**: N/A\n**File**: `src/a.ts`", ("src/a.ts", None, None)),
        ("**File**: `src/a.ts`\n**Location**: line 42", ("src/a.ts", 42, 42)),
        ("**Location**: line 42\n**Lines**: 26", (None, 26, 26)),
        ("**Location**: src/a.ts\n**Location**: src/b.ts:20", ("src/a.ts", None, None)),
        ("**File**: `src/a.ts`\n**Lines**: ~26", ("src/a.ts", 26, 26)),
        ("**File**: `src/a.ts`\n**Lines**: (26-30)", ("src/a.ts", 26, 30)),
        ("**File**: `src/a.ts`\n**Lines**: 26:3-30:1", ("src/a.ts", 26, 30)),
        ("**File path**: src/a.ts:3", ("src/a.ts", 3, 3)),
        ("**Location**: 42:7", (None, 42, 42)),
        ("**Location**: src/a.ts:42to50", ("src/a.ts", 42, 50)),
        ("**Location**: src/a.ts (lines 3:1-9:2)", ("src/a.ts", 3, 9)),
        ("_Location_: src/a.ts", (None, None, None)),  # final.md's label markup: ** or __
        ("**Location **: src/a.ts", ("src/a.ts", None, None)),
    ],
)
def test_locations_read_as_in_a_reviewer_file(fields, location):
    """The place an item's fields name is read as a finding's is (fields.location_of)."""
    (item,) = parse_final_items(f"## Should Fix\n\n### 1. T\n\n{fields}\n")
    loc = item.location
    assert (loc.file, loc.line_start, loc.line_end) == location


def test_a_file_path_field_locates_a_heading_and_is_no_item():
    text = (
        "## Should Fix\n\n- Bullet — @a-1\n- **File path**: `w.ts`\n\n"
        "## Suggestions\n\n### Plain heading\n\n**File path**: `src/x.ts:7`\n\n"
        "### Group\n\n- Item — @a-1\n  - **File path**: `y.ts`\n"
    )
    got = parse_final_items(text)
    assert [(i.title, i.location.file) for i in got] == [
        ("Bullet", None),
        ("Plain heading", "src/x.ts"),
        ("Item", "y.ts"),
    ]


def test_reviewer_names():
    assert reviewer_names("@principal-1, @security-1") == ["principal-1", "security-1"]
    assert reviewer_names("@principal-1 and @principal-1.") == ["principal-1"]
    assert reviewer_names("principal-1 and quality-2") == ["principal-1", "quality-2"]
    assert reviewer_names("`principal-1`, quality-2") == ["principal-1", "quality-2"]
    assert reviewer_names("All 5 reviewers") == []
    assert reviewer_names("") == []


def test_flagged_by_and_severity_fields():
    text = (
        "## Blockers\n\n### 🚫 Title — @inline-1\n\n**Flagged by**: @field-1\n"
        "- **Severity**: Critical\n\n"
        "### 🚫 Other\n\n**Raised by:** @a-1, @b-2\n**Severity**: urgent\n"
    )
    got = parse_final_items(text)
    assert [(i.title, i.flagged_by, i.severity) for i in got] == [
        ("Title", ["inline-1"], "critical"),  # names in the heading win
        ("Other", ["a-1", "b-2"], None),
    ]


def test_garbage_does_not_crash():
    for text in ("", "\n\n", "## Blockers", "## Blockers\n###", "## Blockers\n### 🚫\n- \n- -"):
        assert parse_final_items(text) == []
    rng = random.Random(12)
    parts = ["## Blockers\n", "### 1. x\n", "- y — @z\n", "```\n", "<!--\n", "-->\n",
             "---\n", "**Location**: `a:1`\n", "\ufeff", "\r", "### Group\n", "- None\n",
             "   \n", "* * *\n"]  # fmt: skip
    for _ in range(300):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(0, 25)))
        for item in parse_final_items(text):
            assert item.section in ("blocker", "should_fix", "suggestion") and item.title


# --- agreement with parse_final_counts -------------------------------------------------------


def _counts(text: str) -> tuple[int, int, int] | None:
    c = parse_final_counts(text)
    return None if c is None else (c.blockers, c.should_fix, c.suggestions)


def _final_texts_of_test_markdown(monkeypatch) -> list[str]:
    """Every text test_markdown.py's final.md tests give parse_final_counts (their cases,
    whatever they become)."""
    seen: list[str] = []

    def record(text: str):
        seen.append(text)
        return parse_final_counts(text)

    monkeypatch.setattr(test_markdown, "parse_final_counts", record)
    for name, fn in vars(test_markdown).items():
        if name.startswith("test_") and callable(fn) and not inspect.signature(fn).parameters:
            fn()
    return seen


def test_item_counts_agree_with_parse_final_counts(monkeypatch):
    texts = _final_texts_of_test_markdown(monkeypatch)
    assert len(texts) >= 8
    compared = 0
    for text in texts:
        if any(rx.match(line) for line, _ in _lines(text) for rx in _EXPLICIT_COUNT.values()):
            continue  # explicit `**Blockers**: N` lines: the counts do not come from items
        expected = _counts(text)
        assert by_section(text) == (expected or (0, 0, 0)), text
        compared += 1
    assert compared >= 6


# --- lines ----------------------------------------------------------------------------------


def test_numbered_lines_walk_as_markdown_lines():
    rng = random.Random(3)
    parts = ["a\n", "```\n", "~~~~\n", "<!-- x -->y\n", "<!--\n", "-->\n", "  ## h\n", "\ufeffb\n",
             "\r\n", "\r", "text <!-- c\n", "    ```\n", "\t\tz\n", ""]  # fmt: skip
    for _ in range(500):
        text = "".join(rng.choice(parts) for _ in range(rng.randint(0, 30)))
        numbered = list(numbered_lines(text))
        assert [(line, kind) for _, line, kind in numbered] == list(_lines(text))
        assert [n for n, _, _ in numbered] == sorted({n for n, _, _ in numbered})


# --- linear time ----------------------------------------------------------------------------

RUN = 200_000


def _cpu(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


@pytest.mark.parametrize(
    "body",
    [
        f"### 1.{' ' * RUN}Title{' ' * RUN}— {' ' * RUN}@a-1{' ' * RUN}[{' ' * RUN}High ]\n",
        f"### 🚫{' ' * RUN}x\n**Flagged by**:{' ' * RUN}@a-1,{' ' * RUN}@b-2{' ' * RUN}\n",
        f"### 1. x\n**Location**:{' ' * RUN}`a.ts:L1-{' ' * RUN}`{' ' * RUN}(lines{' ' * RUN}3)\n",
        f"### 1. x\n**Location**: src/a.ts{' ' * RUN}line{' ' * RUN}4\n",
        f"### 1. x\n**File**:{' ' * RUN}a\n**Lines**:{' ' * RUN}L1{' ' * RUN}-{' ' * RUN}9\n",
        f"- {'@a ' * (RUN // 3)}x\n- {'— @a ' * (RUN // 5)}\n- {'[' * RUN}\n- {'*' * RUN}x\n",
        f"### 1. x\n**Location**: {'1' * RUN}:{'L1-' * (RUN // 3)}\n**Lines**: {'1' * RUN}\n",
        f"### 1. x\n**Location**: {'#L' * RUN}\n**Flagged by**: {'@' * RUN}a\n",
        f"- {'“' * RUN}\n- {'**' * RUN}\n- {'lines ' * (RUN // 6)}\n### {'🚫' * RUN}\n",
        f"**{'Flagged ' * (RUN // 8)}by**: x\n### {'1.' * RUN}\n",
        f"- x — {'@a ' * (RUN // 3)}\n- x {'(@a, ' * (RUN // 5)}\n### {'`' * RUN}\n",
        f"## {'! ' * (RUN // 2)}x\n## {' ' * RUN}🚫{' ' * RUN}Blockers{' ' * RUN}\n### 1. x\n",
    ],
)
def test_long_lines_parse_in_linear_time(body):
    text = f"## Blockers\n\n{body}\n## Suggestions\n\n- {'x ' * RUN}— @q-1\n"
    assert _cpu(lambda: parse_final_items(text)) < 0.5


def test_long_whitespace_in_titles_flagged_by_and_location():
    pad = " \t " * RUN
    text = (
        f"## Blockers\n\n### 1.{pad}Long{pad}title{pad}\n\n"
        f"**Flagged by**:{pad}@principal-1,{pad}@security-1{pad}\n"
        f"**Location**:{pad}`src/a.ts:L42-L50`{pad}\n"
        f'## Suggestions\n\n-{pad}"Quoted{pad}title"{pad}—{pad}@quality-1{pad}[**High**]{pad}\n'
    )
    got: list[FinalItem] = []
    assert _cpu(lambda: got.extend(parse_final_items(text))) < 0.5
    assert [(i.title, i.flagged_by, i.severity) for i in got] == [
        ("Long title", ["principal-1", "security-1"], None),
        ("Quoted title", ["quality-1"], "high"),
    ]
    assert got[0].location == Location(file="src/a.ts", line_start=42, line_end=50)


def test_parse_location_direct():
    assert parse_location("`a.ts:L1-L2`") == Location(file="a.ts", line_start=1, line_end=2)
    assert parse_location("") == Location()
    assert parse_location("C:\\src\\a.ts:9") == Location(
        file="C:\\src\\a.ts", line_start=9, line_end=9
    )


# --- round-meta.json --------------------------------------------------------------------------


def meta_finding(title="Race in the watcher", **over) -> dict:
    f = {
        "title": title,
        "category": "should_fix",
        "severity": "high",
        "file_path": "src/watch.ts",
        "line_start": 42,
        "line_end": 45,
        "summary": "Two events can interleave.",
        "flagged_by": ["@principal-1"],
    }
    f.update(over)
    return f


def meta(*reviewers: tuple[str, int, list[dict]]) -> dict:
    return {
        "schema_version": 1,
        "verdict": "REQUEST CHANGES",
        "reviewers": [
            {"type": kind, "instance": n, "severity_high": 1, "findings": fs}
            for kind, n, fs in reviewers
        ],
    }


def test_meta_findings():
    data = meta(
        ("principal", 1, [meta_finding(), meta_finding("SQL injection", category="blocker",
                                                        severity="critical", file_path="db.ts",
                                                        line_start=7, line_end=None,
                                                        flagged_by=["@principal-1", "@security-1"])]),  # noqa: E501
    )  # fmt: skip
    got = findings_from_meta(data, "rounds/round-1/round-meta.json")
    assert got is not None
    race, sql = got
    assert race.id == finding_id("Race in the watcher", "src/watch.ts")
    assert (race.title, race.severity, race.category, race.blocker) == (
        "Race in the watcher", "high", "should_fix", False,
    )  # fmt: skip
    assert race.location == Location(file="src/watch.ts", line_start=42, line_end=45)
    assert race.reviewers == ["principal-1"]
    assert (race.source, race.path, race.line) == (
        "round-meta.json", "rounds/round-1/round-meta.json", None,
    )  # fmt: skip
    assert race.text == "Two events can interleave."
    assert (sql.blocker, sql.category, sql.severity) == (True, "blocker", "critical")
    assert sql.location == Location(file="db.ts", line_start=7, line_end=7)
    assert sql.reviewers == ["principal-1", "security-1"]


def test_shared_finding_is_one_with_every_reviewer():
    data = meta(
        ("principal", 1, [meta_finding(flagged_by=["@principal-1", "@quality-2"])]),
        ("quality", 2, [meta_finding("RACE in the  watcher!", severity="critical",
                                     category="blocker", file_path="./src/watch.ts",
                                     flagged_by=["@quality-2", "@principal-1"], summary="")]),
        ("security", 1, [meta_finding(line_start=None, line_end=None, summary="other words",
                                      flagged_by=[])]),
    )  # fmt: skip
    (race,) = findings_from_meta(data, "round-meta.json") or []
    assert race.reviewers == ["principal-1", "quality-2", "security-1"]
    assert (race.severity, race.category, race.blocker) == ("critical", "blocker", True)
    assert race.title == "Race in the watcher"  # the first report's
    assert race.location == Location(file="src/watch.ts", line_start=42, line_end=45)
    assert race.text == "Two events can interleave."


def test_simulator_meta():
    results = {
        "principal-1": [SimFinding("Auth bypass", "critical", "src/a.ts", 3, 9, "bad", "fix")],
        "quality-1": [
            SimFinding("Auth bypass", "critical", "src/a.ts", 3, 9, "bad", "fix"),
            SimFinding("Typo", "low", "src/c.ts", 1, 1, "typo", "fix"),
        ],
    }
    syn = synthesize("main", "2026-03-10", results, "normal")
    got = findings_from_meta(msgspec.json.decode(msgspec.json.encode(syn.meta)), "m.json")
    assert [(f.title, f.reviewers, f.blocker) for f in got or []] == [
        ("Auth bypass", ["principal-1", "quality-1"], True),
        ("Typo", ["quality-1"], False),
    ]


@pytest.mark.parametrize(
    "over, check",
    [
        ({"severity": "severe"}, lambda f: f.severity is None),
        ({"severity": 3}, lambda f: f.severity is None),
        ({"severity": " High "}, lambda f: f.severity == "high"),
        ({"category": "nit"}, lambda f: f.category is None and not f.blocker),
        ({"category": "Should Fix"}, lambda f: f.category == "should_fix"),
        ({"category": ["blocker"]}, lambda f: f.category is None),
        ({"file_path": 7}, lambda f: f.location.file is None),
        ({"file_path": "  "}, lambda f: f.location.file is None),
        (
            {"line_start": "12", "line_end": None},
            lambda f: f.location.line_start == 12 == f.location.line_end,
        ),  # noqa: E501
        ({"line_start": True, "line_end": "x"}, lambda f: f.location.line_start is None),
        ({"line_start": -4, "line_end": 0}, lambda f: f.location.line_start is None),
        ({"line_start": 9, "line_end": 3}, lambda f: f.location.line_end == 9),
        ({"line_start": None, "line_end": 9}, lambda f: f.location.line_start == 9),
        ({"line_start": 4.0}, lambda f: f.location.line_start == 4),
        ({"line_start": 10**30, "line_end": None}, lambda f: f.location.line_start is None),
        ({"line_start": "9" * 5000, "line_end": None}, lambda f: f.location.line_start is None),
        ({"summary": 5}, lambda f: f.text == ""),
        ({"flagged_by": "@a-1, @b-2"}, lambda f: f.reviewers == ["principal-1", "a-1", "b-2"]),
        ({"flagged_by": [1, None, "@", "a-1"]}, lambda f: f.reviewers == ["principal-1", "a-1"]),
        ({"flagged_by": {"x": 1}}, lambda f: f.reviewers == ["principal-1"]),
        ({"title": None, "summary": "First line\nmore"}, lambda f: f.title == "First line"),
        ({"title": "  Folded \t title "}, lambda f: f.title == "Folded title"),
    ],
)
def test_meta_bad_values_are_missing_values(over, check):
    (f,) = findings_from_meta(meta(("principal", 1, [meta_finding(**over)])), "m.json") or [None]
    assert check(f)


def test_meta_bad_reviewers_and_shapes():
    bad = [
        {"type": 5, "instance": "x", "findings": [meta_finding(flagged_by=None)]},
        {"type": "quality", "instance": True, "findings": [meta_finding("B", flagged_by=[])]},
        {"type": "security", "instance": "2", "findings": [meta_finding("C", flagged_by=[])]},
        {"type": "x", "findings": None},
        {"findings": [None, 3, "s", {"title": 4}, {}, meta_finding("D", flagged_by=[])]},
        None,
        "reviewer",
    ]
    got = findings_from_meta({"reviewers": bad}, "m.json") or []
    assert [(f.title, f.reviewers) for f in got] == [
        ("Race in the watcher", []),
        ("B", ["quality"]),
        ("C", ["security-2"]),
        ("D", []),
    ]


@pytest.mark.parametrize(
    "value",
    [None, {}, {"reviewers": None}, {"reviewers": []}, {"reviewers": [{"findings": []}]},
     {"reviewers": [{"type": "p", "instance": 1}]}, {"reviewers": [{"findings": [{}]}]},
     {"reviewers": "x"}, [], "x", RoundMeta(), RoundMeta(reviewers=[MetaReviewer(type="p")])],
)  # fmt: skip
def test_meta_without_findings_is_none(value):
    assert findings_from_meta(value, "m.json") is None


def test_meta_as_the_decoded_round_meta_struct():
    data = msgspec.json.encode(
        meta(("principal", 1, [meta_finding()]), ("quality", 1, [meta_finding()]))
    )
    decoded = ROUND_META_DECODER.decode(data)
    assert isinstance(decoded, RoundMeta)
    (f,) = findings_from_meta(decoded, "m.json") or []
    # The decoder that reads round-meta.json for the session carries every finding field.
    assert (f.title, f.severity, f.category) == ("Race in the watcher", "high", "should_fix")
    assert f.reviewers == ["principal-1", "quality-1"]
    assert f.location == Location(file="src/watch.ts", line_start=42, line_end=45)
    assert f.text == "Two events can interleave."
    assert f.id == finding_id("Race in the watcher", "src/watch.ts")


def test_meta_struct_with_more_fields_and_wrong_types():
    class FullFinding(MetaFinding, kw_only=True, frozen=True):
        file_path: object = None
        line_start: object = None
        line_end: object = None
        summary: object = None
        flagged_by: object = None

    built = RoundMeta(
        reviewers=[
            MetaReviewer(type="principal", instance=1, findings=[
                FullFinding(title="A", severity="low", file_path="a.ts", line_start=3,
                            flagged_by=["@q-1"], summary="s"),
                MetaFinding(title=7, category={}, severity=[]),  # type: ignore[arg-type]
            ]),
            MetaReviewer(type=None, instance="2", findings=None),  # type: ignore[arg-type]
        ]
    )  # fmt: skip
    (f,) = findings_from_meta(built, "m.json") or []
    assert (f.title, f.severity, f.reviewers, f.text) == ("A", "low", ["principal-1", "q-1"], "s")
    assert f.location == Location(file="a.ts", line_start=3, line_end=3)


def test_a_count_of_thousands_of_digits_is_no_count() -> None:
    """`**Blockers:** 999…` (6,000 digits: past Python's limit for int) is not a count: the
    items under the section are counted instead, and nothing raises."""
    from ocr_tui.formats.ocr.final_items import parse_final_counts

    text = "**Blockers:** " + "9" * 6000 + "\n## Blockers\n### 1. The first\n### 2. The second\n"
    assert parse_final_counts(text).blockers == 2
    assert parse_final_counts("**Blockers:** 123456789\n").blockers == 123456789


# --- every list shape under a section --------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        "1. SQL injection in search (src/search.py:42)\n",
        "1) SQL injection in search (src/search.py:42)\n",
        "- SQL injection in search (`src/search.py:42`)\n",
        "* SQL injection in search — `src/search.py:42`\n",
        "**SQL injection in search** (src/search.py:42)\n\nUser input reaches the query.\n",
        "### 1. SQL injection in search\n\n**Location**: src/search.py:42\n",
        "### 🚫 SQL injection in search\n\n**Location**: src/search.py:42\n",
    ],
)
def test_every_list_shape_names_its_blocker_and_place(body):
    """A numbered list, bullets, a bold lead, `###` numbered and emoji headings: each is an
    item (OCR's dashboard counts them), its place at the title's end read as its location."""
    text = final_md("REQUEST CHANGES", "## Blockers\n\n" + body)
    got = parse_final_items(text)
    assert [(i.section, i.title) for i in got] == [("blocker", "SQL injection in search")]
    assert got[0].location == Location(file="src/search.py", line_start=42, line_end=42)
    assert parse_final_counts(text).blockers == 1


def test_a_numbered_list_in_every_section():
    text = final_md(
        "REQUEST CHANGES",
        "## Blockers\n\n1. Token leak\n2. Auth bypass\n\n"
        "## Should Fix\n\n1) Retry on timeout\n\n"
        "## Suggestions\n\n1. Name the constants — @quality-1\n   2. an indented sub-item\n",
    )
    assert items(text) == [
        ("blocker", "Token leak"),
        ("blocker", "Auth bypass"),
        ("should_fix", "Retry on timeout"),
        ("suggestion", "Name the constants"),
    ]
    assert by_section(text) == (2, 1, 1)


def test_bold_leads_are_items_but_not_fields_counts_or_none():
    text = final_md(
        "REQUEST CHANGES",
        "## Blockers\n\n**Blockers**: 1\n\n**Token leak in logs**: the token is printed\n\n"
        "**Note**: one more thing\n\n**None of the others block.**\n\n"
        "## Should Fix\n\n**None.**\n",
    )
    assert items(text) == [("blocker", "Token leak in logs")]


@pytest.mark.parametrize(
    ("bullet", "item"),
    [
        ("- No blockers", False),
        ("- No hard blockers identified.", False),
        ("- No new issues", False),
        ("- Nothing to report", False),
        ("- No.", False),
        ("1. None", False),
        ("- No rate limiting on login", True),
        ("- No input validation on /search", True),
        ("- Nonce reuse in the signer", True),
    ],
)
def test_none_bullets_are_sentences_of_absence_not_titles_that_start_with_no(bullet, item):
    text = final_md("REQUEST CHANGES", f"## Blockers\n\n{bullet}\n")
    assert bool(parse_final_items(text)) is item
    assert parse_final_counts(text).blockers == int(item)


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Upgrade broken (v1.2)", "Upgrade broken (v1.2)"),
        ("Slow (see below)", "Slow (see below)"),
        ("Race in the watcher (lib/watch)", "Race in the watcher"),
        ("Leak in `src/a.py`", "Leak"),
    ],
)
def test_a_place_is_taken_from_the_title_only_when_it_is_a_path(title, expected):
    text = final_md("REQUEST CHANGES", f"## Should Fix\n\n- {title}\n")
    assert items(text) == [("should_fix", expected)]
