"""discourse.md -> structured responses (ocr-format.md §4.2): OCR's template lines
with their bodies, the dashboard's heading form, bulleted / bold variants, CONNECT's arrow,
SURFACE without a target, fenced code and HTML comments, CRLF, nothing parsed; linking the
titles to findings (exact, close, the reviewer answered first); hostile input; and the
simulator's discourse.md read back with every kind linked."""

from __future__ import annotations

import math
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ocr_tui.formats.ocr.discourse import (
    KINDS,
    Discourse,
    Response,
    parse_discourse,
)
from ocr_tui.formats.ocr.discourse_links import link, responses_about
from ocr_tui.formats.ocr.finding import Finding, finding_id
from ocr_tui.formats.ocr.round_findings import read_findings
from ocr_tui.formats.ocr.sim import Simulator

# OCR's template (references/discourse.md @HEAD, step 4 and step 5).
TEMPLATE = """\
# Discourse Results

## Consensus (High Confidence)
- **Missing error handling in auth flow** — Agreed by: principal-1, principal-2, quality-2

## Challenged Findings
- **SQL injection risk** (security-1) — Challenged by principal-1
  - Reason: Input validated at API layer, parameterized query used

## Connected Findings
- Error handling + Logging gaps → "Incomplete error management pattern"

## Surfaced in Discourse
- Retry logic lacks timeout handling (from principal-1)

## Clarifying Questions Raised
- "Should the retry logic have a circuit breaker?" (principal-2)

## Discourse from principal-1

AGREE quality-1 "Long function needs decomposition"
  - This aligns with my concern about maintainability

CHALLENGE security-1 "SQL injection risk"
  - The input is already validated at the API layer (see auth/middleware.ts:42)
  - The parameterized query handles this correctly

CONNECT "Missing error handling" → quality-2 "No logging on failures"
  - Both point to incomplete error management

SURFACE
  - Reading quality-1's finding made me realize: the retry logic also lacks timeout handling

## Discourse from principal-2

AGREE principal-1 "Missing error handling"
"""


def shape(r: Response) -> tuple:
    return r.kind, r.author, r.about, r.titles


def parsed(text: str) -> list[tuple]:
    return [shape(r) for r in parse_discourse(text).responses]


def test_the_template():
    d = parse_discourse(TEMPLATE)
    assert [shape(r) for r in d.responses] == [
        ("agree", "principal-1", "quality-1", ["Long function needs decomposition"]),
        ("challenge", "principal-1", "security-1", ["SQL injection risk"]),
        (
            "connect",
            "principal-1",
            "quality-2",
            ["Missing error handling", "No logging on failures"],
        ),
        ("surface", "principal-1", "quality-1", []),  # the reviewer its body names
        ("agree", "principal-2", "principal-1", ["Missing error handling"]),
    ]
    agree, challenge, connect, surface, _ = d.responses
    assert [r.line for r in d.responses] == [21, 24, 28, 31, 36]
    assert agree.text == (
        'AGREE quality-1 "Long function needs decomposition"\n'
        "  - This aligns with my concern about maintainability"
    )
    assert challenge.text.count("\n") == 2  # both reason lines, not the blank after them
    assert connect.own_titles == 1
    assert surface.text.startswith("SURFACE\n  - Reading quality-1's finding")
    assert d.parsed
    assert d.counts() == {"agree": 2, "challenge": 1, "connect": 1, "surface": 1}
    assert list(d.counts()) == list(KINDS)
    assert d.authors == ["principal-1", "principal-2"]
    groups = d.by_author()
    assert list(groups) == ["principal-1", "principal-2"]
    assert [r.kind for r in groups["principal-1"]] == ["agree", "challenge", "connect", "surface"]


def test_the_summary_sections_are_no_responses():
    summary = TEMPLATE[: TEMPLATE.index("## Discourse from")]
    d = parse_discourse(summary)
    assert not d.parsed and d.responses == [] and d.authors == []


def test_consecutive_lines_and_the_reason_after_a_dash():
    text = (
        "## Discourse from quality-1\n\n"
        'CHALLENGE principal-1 "Session refresh" — the input is validated upstream\n'
        'AGREE principal-2 "Config read at import time"\n'
        "No other responses.\n\n"
        "## Discourse from testing-1\n\nNo responses.\n"
    )
    d = parse_discourse(text)
    assert [shape(r) for r in d.responses] == [
        ("challenge", "quality-1", "principal-1", ["Session refresh"]),
        ("agree", "quality-1", "principal-2", ["Config read at import time"]),
    ]
    assert d.responses[0].text.endswith("validated upstream")  # one line: the next is a response
    assert d.responses[1].text.endswith("No other responses.")  # the rest of its paragraph
    assert d.authors == ["quality-1", "testing-1"]


# --- the dashboard's heading form -------------------------------------------------------------


def test_headings_with_their_bodies():
    text = (
        "# Discourse\n\n"
        "## Discourse from principal-1\n\n"
        "### CHALLENGE — security-1\n\n"
        'The "SQL injection risk" is not one: the input is validated.\n\n'
        "- see auth/middleware.ts:42\n\n"
        "### AGREE - quality-1\n"
        "Long function needs decomposition, yes.\n"
        '## AGREE - "Missing error handling" (quality-2)\n'
        "Same here.\n"
        "### Notes\n"
        "not part of it\n"
    )
    d = parse_discourse(text)
    assert [shape(r) for r in d.responses] == [
        ("challenge", "principal-1", "security-1", ["SQL injection risk"]),
        ("agree", "principal-1", "quality-1", []),
        ("agree", "principal-1", "quality-2", ["Missing error handling"]),
    ]
    challenge, agree, second = d.responses
    assert challenge.text == (
        "### CHALLENGE — security-1\n\n"
        'The "SQL injection risk" is not one: the input is validated.\n\n'
        "- see auth/middleware.ts:42"
    )
    assert agree.text == "### AGREE - quality-1\nLong function needs decomposition, yes."
    assert second.text.endswith("Same here.") and "not part" not in second.text
    assert (challenge.line, agree.line, second.line) == (5, 11, 13)


def test_a_heading_that_names_the_finding():
    assert parsed("### CHALLENGE — SQL injection risk (security-1)\n") == [
        ("challenge", None, "security-1", ["SQL injection risk"])
    ]
    assert parsed("### **Agree**: quality-1 — Long function\n") == [
        ("agree", None, "quality-1", ["Long function"])
    ]
    assert parsed("### SURFACE\n") == [("surface", None, None, [])]


def test_a_heading_with_code_in_its_body():
    text = '### AGREE — quality-1\n\n```python\nAGREE x "in code"\n```\n\nafter\n'
    (r,) = parse_discourse(text).responses
    assert r.text == text.rstrip("\n")


# --- what agents really write ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "kind", "about", "titles"),
    [
        ('- **AGREE** quality-1: "Long function"', "agree", "quality-1", ["Long function"]),
        ('* **AGREE** with @quality-1 on "Long function"', "agree", "quality-1", ["Long function"]),
        (
            '1. **CHALLENGE** [security-1] "SQL injection"',
            "challenge",
            "security-1",
            ["SQL injection"],
        ),
        (
            "- **Challenge** @security-1 **SQL injection**",
            "challenge",
            "security-1",
            ["SQL injection"],
        ),
        ("- *Agree* (quality-1): “Long function”", "agree", "quality-1", ["Long function"]),
        ('- **AGREE quality-1 "Long function"**', "agree", "quality-1", ["Long function"]),
        ("AGREE quality-1: Long function — same concern", "agree", "quality-1", ["Long function"]),
        ("- AGREE **quality-1**: Long function", "agree", "quality-1", ["Long function"]),
        ('> AGREE quality-1 "Long function"', "agree", "quality-1", ["Long function"]),
        ('AGREE "Long function" (quality-1) — yes', "agree", "quality-1", ["Long function"]),
        ("**AGREE**", "agree", None, []),
        ("AGREE with everything quality-1 said", "agree", "quality-1", []),
    ],
)
def test_bulleted_and_bold_variants(line, kind, about, titles):
    text = f"## Discourse from Principal #1\n\n{line}\n"
    assert parsed(text) == [(kind, "principal-1", about, titles)]


@pytest.mark.parametrize(
    "line",
    [
        "I agree with quality-1 on this.",
        "Agree: the function is long",
        "- Agreed by: principal-1, principal-2",
        "## Challenged Findings",
        "### Surfaced in Discourse",
        'AGREEMENT quality-1 "x"',
    ],
)
def test_prose_is_no_response(line):
    assert parsed(line + "\n") == []


def test_author_headings():
    def author(heading: str) -> str | None:
        (r,) = parse_discourse(f'{heading}\n\nAGREE quality-1 "x"\n').responses
        return r.author

    assert author("## Discourse from principal-1") == "principal-1"
    assert author("## Discourse from **@Principal-1** (Architecture)") == "principal-1"
    assert author("## Responses from Staff Engineer 2") == "staff-engineer-2"
    assert author("### From principal-balanced") == "principal-balanced"
    assert author("## principal-1") == "principal-1"
    assert author("## Principal-1's responses") == "principal-1"
    assert author("## Discourse from Alice") == "alice"
    assert author("## Discourse") is None
    assert author("### From the team") is None
    # a heading of the block's level ends it; a deeper one does not
    text = '## Discourse from principal-1\n### Notes\nAGREE a-1 "x"\n## Other\nAGREE b-1 "y"\n'
    assert [r.author for r in parse_discourse(text).responses] == ["principal-1", None]


def test_an_author_named_on_the_line():
    text = (
        "## Discourse from principal-1\n"
        '- **principal-2**: AGREE quality-1 "x"\n'
        '- @security-1 — **CHALLENGE** quality-1 "y"\n'
        '- **Response**: AGREE quality-1 "z"\n'
    )
    assert [r.author for r in parse_discourse(text).responses] == [
        "principal-2",
        "security-1",
        "principal-1",
    ]


# --- CONNECT and SURFACE --------------------------------------------------------------------


@pytest.mark.parametrize("arrow", ["→", "->", "=>", "⟶", "-->"])
def test_connect_with_two_titles(arrow):
    text = f'CONNECT "Missing error handling" {arrow} quality-2 "No logging on failures"\n'
    (r,) = parse_discourse(text).responses
    assert shape(r) == (
        "connect",
        None,
        "quality-2",
        ["Missing error handling", "No logging on failures"],
    )
    assert r.own_titles == 1


def test_connect_variants():
    assert parsed('- **CONNECT**: my "Race in cache" -> @quality-2: "Stale reads"\n') == [
        ("connect", None, "quality-2", ["Race in cache", "Stale reads"])
    ]
    assert parsed("CONNECT Race in cache → quality-2: Stale reads — same lock\n") == [
        ("connect", None, "quality-2", ["Race in cache", "Stale reads"])
    ]
    assert parsed('CONNECT "a -> b mapping" → quality-2 "Stale reads"\n') == [
        ("connect", None, "quality-2", ["a -> b mapping", "Stale reads"])  # an arrow in a title
    ]
    (r,) = parse_discourse('CONNECT quality-1 "A" and quality-2 "B"\n').responses  # no arrow
    assert (r.about, r.titles, r.own_titles) == ("quality-1", ["A", "B"], 0)


def test_surface_without_a_target():
    assert parsed("SURFACE — the retry logic lacks timeout handling\n") == [
        ("surface", None, None, [])
    ]
    assert parsed("SURFACE: the retry logic lacks timeouts\n  - noticed while reading\n") == [
        ("surface", None, None, [])
    ]
    (r,) = parse_discourse('SURFACE\nThe "Retry without timeout" concern, new.\n').responses
    assert r.titles == ["Retry without timeout"] and r.text.count("\n") == 1


# --- what is not content --------------------------------------------------------------------


def test_fenced_code_and_comments_are_ignored():
    text = (
        "## Discourse from principal-1\n\n"
        '```\nAGREE quality-1 "in a fence"\n```\n\n'
        "~~~~\n### CHALLENGE — x\n~~~~\n"
        '<!--\nAGREE quality-1 "in a comment"\n-->\n'
        '<!-- AGREE quality-1 "inline comment" -->\n'
        'AGREE quality-1 "real" <!-- CHALLENGE x -->\n'
    )
    d = parse_discourse(text)
    assert [shape(r) for r in d.responses] == [("agree", "principal-1", "quality-1", ["real"])]
    assert d.responses[0].text == 'AGREE quality-1 "real"'
    assert d.responses[0].line == 14


def test_crlf_bom_and_escapes():
    text = '\ufeff## Discourse from principal-1\r\n\r\nAGREE quality-1 "T\x1b[31mx"\r\n  - why\r\n'
    (r,) = parse_discourse(text).responses
    assert shape(r) == ("agree", "principal-1", "quality-1", ["T\x1b[31mx"])  # raw in the model
    assert r.text == 'AGREE quality-1 "T\x1b[31mx"\n  - why' and r.line == 3
    assert parsed('AGREE qa-1 "x"\rCHALLENGE ux-2 "y"\r') == [
        ("agree", None, "qa-1", ["x"]),
        ("challenge", None, "ux-2", ["y"]),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n\n",
        "# Discourse Results\n\nNothing to say.\n",
        "\x00\x01garbage\ufffd",
        "```\nAGREE\n",
    ],
)
def test_nothing_parsed(text):
    d = parse_discourse(text)
    assert not d.parsed
    assert d.counts() == dict.fromkeys(KINDS, 0) and d.by_author() == {}


# --- linking --------------------------------------------------------------------------------


def make(title: str, *reviewers: str, file: str = "src/a.py") -> Finding:
    return Finding(id=finding_id(title, file), title=title, reviewers=list(reviewers))


FINDINGS = [
    make("Long function needs decomposition", "quality-1"),
    make("SQL injection risk", "security-1"),
    make("Missing error handling in auth flow", "principal-1", "principal-2"),
    make("No logging on failures", "quality-2"),
]


def test_link_by_exact_and_close_titles():
    text = (
        "## Discourse from principal-1\n\n"
        'AGREE quality-1 "**1. Long Function Needs Decomposition!**"\n'  # exact, normalised
        'CHALLENGE security-1 "SQL injection risks"\n'  # close
        'CONNECT "Missing error handling in the auth flow" → quality-2 "No logging on failure"\n'
        'AGREE quality-1 "Something nobody raised"\n'
        "SURFACE — retries\n"
    )
    original = parse_discourse(text)
    d = link(original, FINDINGS)
    ids = [r.finding_ids for r in d.responses]
    long_, sql, missing, logging = (f.id for f in FINDINGS)
    assert ids == [[long_], [sql], [missing, logging], [], []]
    assert all(r.finding_ids == [] for r in original.responses)  # a copy
    assert [r.line for r in responses_about(d, missing)] == [5]
    assert responses_about(d, "nope") == [] and responses_about(original, long_) == []


def test_link_prefers_the_reviewer_answered():
    a = make("Race in cache", "principal-1", file="src/a.py")
    b = make("Race in cache", "quality-1", file="src/b.py")
    c = make("Race in the cache", "security-1", file="src/c.py")
    text = (
        'AGREE quality-1 "Race in cache"\n'
        'AGREE security-1 "Race in cache"\n'  # exact titles win over a close one of security-1
        'AGREE testing-1 "Race in cache"\n'  # none of theirs: every exact one
        'AGREE security-1 "Race in a cache"\n'  # close: security-1's, though b is as close
        "## Discourse from principal-1\n"
        'CONNECT "Race in cache" → quality-1 "Race in cache"\n'  # left: the author's own
    )
    d = link(parse_discourse(text), [a, b, c])
    assert [r.finding_ids for r in d.responses] == [
        [b.id],
        [a.id, b.id],
        [a.id, b.id],
        [c.id],
        [a.id, b.id],
    ]


def test_link_takes_the_closest_and_ignores_far_titles():
    near = make("Unbounded retry loop in the client", "quality-1")
    nearer = make("Unbounded retry loop in client", "quality-2")
    d = link(parse_discourse('AGREE x-1 "Unbounded retry loops in client"\n'), [near, nearer])
    assert d.responses[0].finding_ids == [nearer.id]
    d = link(parse_discourse('AGREE x-1 "Retry"\n'), [near, nearer])
    assert d.responses[0].finding_ids == []
    assert link(Discourse(), FINDINGS) == Discourse()


# --- hostile input --------------------------------------------------------------------------

RUN = 200_000
RUNS = {"spaces": " " * RUN, "tabs": "\t" * RUN, "stars": "*" * RUN, "quotes": '"' * RUN}
LINES = [
    'AGREE{W}quality-1{W}"Long{W}function"{W}—{W}x',
    "-{W}**CHALLENGE**{W}@security-1:{W}**SQL{W}injection**{W}",
    'CONNECT{W}"a{W}"{W}→{W}quality-2{W}"b{W}"{W}',
    "CONNECT{W}a{W}->{W}quality-2:{W}b{W}",
    "###{W}CHALLENGE{W}—{W}security-1{W}(x){W}",
    "{W}SURFACE{W}",
    "## Discourse from{W}Principal{W}#1{W}",
]


@pytest.mark.parametrize("run", list(RUNS), ids=list(RUNS))
def test_hostile_runs_are_quick(run):
    """Well under a second of CPU each (a quadratic pattern: minutes)."""
    for line in LINES:
        hostile = line.replace("{W}", RUNS[run])
        text = (
            f"## Discourse from principal-1\n\n{hostile}\n  - {RUNS[run]}\n\n### AGREE\n{hostile}\n"
        )
        start = time.process_time()
        d = link(parse_discourse(text), FINDINGS + [make("x" * RUN, "q-1")])
        spent = time.process_time() - start
        assert spent < 0.5, f"{spent:.2f} s on {line!r} with {run}"
        assert d.responses  # still read


def test_many_responses_are_linear():
    text = 'AGREE quality-1 "Long function needs decomposition"\n' * 20_000
    start = time.process_time()
    d = link(parse_discourse(text), FINDINGS * 10)
    assert time.process_time() - start < 2.0
    assert len(d.responses) == 20_000 and all(r.finding_ids for r in d.responses)


# --- the simulator's discourse.md -----------------------------------------------------------

START = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize("store", ["state.json", "ocr.db"])
def test_the_simulated_discourse_links_every_kind(tmp_path: Path, store: str) -> None:
    sim = Simulator(tmp_path, store=store, seed=7, start=START, speed=math.inf, history=0)
    for _ in sim.steps():
        pass
    sdir = tmp_path / ".ocr" / "sessions" / sim.live_session_id
    rounds, problems = read_findings(sdir)
    assert problems == [] and rounds
    for rf in rounds:
        reviewers = sorted(
            p.stem for p in (sdir / f"rounds/round-{rf.number}/reviews").glob("*.md")
        )
        d = link(
            parse_discourse((sdir / f"rounds/round-{rf.number}/discourse.md").read_text()),
            rf.findings,
        )
        assert sorted(d.authors) == reviewers
        assert all(d.counts()[k] for k in KINDS), d.counts()
        for r in d.responses:  # every title names one of the round's findings
            assert r.author in reviewers and r.about in reviewers and r.about != r.author
            assert r.titles and len(r.finding_ids) >= len(set(r.titles)), r
        for r in d.responses:
            if r.kind == "connect":
                assert r.own_titles == 1 and len(r.finding_ids) == 2
                mine = next(f for f in rf.findings if f.id == r.finding_ids[0])
                assert r.author in mine.reviewers
        some = d.responses[0].finding_ids[0]
        assert d.responses[0] in responses_about(d, some)
