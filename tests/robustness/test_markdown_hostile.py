"""Classes of hostile markdown: a byte-order mark on a line that carries a
finding or a verdict; long whitespace runs wherever a pattern looks (a quadratic pattern takes
minutes on them, so these cannot pass by luck); and markdown inside HTML comments, which is not
content. Each parser (findings, verdict, counts, topology, discourse) and the whole `status`
command."""

from __future__ import annotations

import json
import subprocess
import sys
import time

import pytest

from ocr_tui.core.view import Counts as _Counts
from ocr_tui.formats.ocr.discourse import parse_discourse
from ocr_tui.formats.ocr.final_items import parse_final_counts
from ocr_tui.formats.ocr.markdown import (
    parse_findings,
    parse_topology_files,
    parse_verdict,
)

from .support import NOW, put, set_mtimes

PARSERS = (parse_findings, parse_verdict, parse_final_counts, parse_topology_files, parse_discourse)
RUN = 200_000
SPACES = " " * RUN
TABS = "\t" * RUN
MIXED = " \t" * (RUN // 2)


def Counts(blockers: int = 0, should_fix: int = 0, suggestions: int = 0) -> _Counts:  # noqa: N802
    return _Counts(blockers=blockers, should_fix=should_fix, suggestions=suggestions)


def sev(text: str) -> dict[str, int]:
    s = parse_findings(text)
    return {k: v for k in ("critical", "high", "medium", "low", "info") if (v := getattr(s, k))}


# --- byte-order marks ---------------------------------------------------------------------------


def test_a_bom_does_not_hide_a_finding_on_the_first_line():
    assert sev("\ufeff### Finding 1: Leak\n- **Severity**: High\n") == {"high": 1}


def test_a_bom_does_not_hide_the_verdict_or_the_counts():
    assert parse_verdict("\ufeff## Verdict\n\n**REQUEST CHANGES**\n") == "REQUEST CHANGES"
    assert parse_verdict("\ufeff**Verdict**: APPROVE\n") == "APPROVE"
    assert parse_final_counts("\ufeff**Blockers**: 2\n") == Counts(blockers=2)
    assert parse_final_counts("\ufeff## Blockers\n\n- one\n") == Counts(blockers=1)
    topo = "\ufeff## Canonical File List\n\n```\na.py\nb.py\n```\n"
    assert parse_topology_files(topo) == 2


def test_a_bom_in_the_middle_from_files_joined_by_cat():
    one = "### Finding 1: A\n- **Severity**: Low\n"
    assert sev(one + "\n\ufeff" + one.replace("Low", "Critical")) == {"critical": 1, "low": 1}


# --- whitespace runs: every pattern linear ------------------------------------------------------

# Lines that reach each pattern with a long run in each place it looks; the lines are put in
# the contexts each parser reads (a finding's body, a verdict section, a count section, a file
# list) and at the top level.
HOSTILE_LINES = {
    "heading": "##{W}Finding 1: x{W}#{W}",
    "heading-empty": "#{W}",
    "heading-word": "### Finding{W}x",
    "heading-closing": "## x {W}#{W}#",
    "severity": "**Severity**{W}:{W}High",
    "severity-bare": "Severity{W}",
    "severity-bullet": "-{W}**Severity**:{W}🔴{W}High",
    "severity-lead": "{W}**Severity**{W}x",
    "verdict-section": "## Verdict{W}",
    "verdict-inline": "**Verdict**:{W}APPROVE{W}—",
    "verdict-colon": "Verdict{W}:",
    "verdict-next": "{W}APPROVE{W}",
    "verdict-end": "APPROVE{W}x",
    "count": "**Blockers**{W}:{W}2",
    "count-lead": "{W}**Should{W}Fix**{W}x",
    "section": "##{W}Blockers",
    "item": "###{W}1.",
    "bullet": "-{W}item",
    "rule": "-{W}-{W}-{W}x",
    "fence-lead": "{W}```",
    "fence-info": "```{W}",
    "location": "**Location**:{W}`src/a.py:L1-L2`{W}",
    "canonical": "## Canonical File List{W}",
    "comment-open": "<!--{W}",
    "comment-inline": "x <!--{W}-->{W}<!--{W}",
    "response": 'AGREE{W}quality-1{W}"t{W}x"{W}—{W}y',
    "response-bold": "-{W}**CHALLENGE**{W}@security-1:{W}**t{W}x**{W}",
    "response-bare": "1.{W}AGREE{W}quality-1:{W}t{W}x{W}—{W}y",
    "response-heading": "###{W}CHALLENGE{W}—{W}security-1{W}(t){W}",
    "connect": 'CONNECT{W}"a{W}"{W}→{W}quality-2{W}"b{W}"',
    "connect-ascii": "CONNECT{W}a{W}->{W}quality-2{W}b{W}",
    "surface": "{W}SURFACE{W}",
    "discourse-from": "## Discourse from{W}Principal{W}#1{W}",
}
OTHER_RUNS = {  # runs of the characters the patterns look for, not whitespace
    "stars": "*" * RUN,
    "underscores": "_" * RUN,
    "hashes": "#" * RUN,
    "dashes": "-" * RUN,
    "backticks": "   " + "`" * RUN,
    "comment-opens": "<!--" * (RUN // 4),
    "star-spaces": "* " * (RUN // 2),
    "bold-spaces": "**" + SPACES + "**",
    "quotes": "CONNECT " + '"' * RUN,
    "curly-quotes": "AGREE quality-1 " + "“" * RUN,
    "arrows": 'CONNECT "a' + "->" * (RUN // 2) + '"',
    "bolds": "AGREE quality-1 " + "**a" * (RUN // 3),
    "reviewer-ids": "SURFACE " + "ab-" * (RUN // 3) + "1",
}
CONTEXTS = {
    "top": "{}\n",
    "finding": "### Finding 1: t\n{}\n",
    "verdict": "## Verdict\n{}\n",
    "blockers": "## Blockers\n{}\n",
    "files": "## Canonical File List\n```\n{}\n```\n",
    "discourse": '## Discourse from principal-1\n\nAGREE quality-1 "t"\n{}\n  - reason\n',
}


def _documents():
    for name, line in HOSTILE_LINES.items():
        for wname, run in (("spaces", SPACES), ("tabs", TABS), ("mixed", MIXED)):
            yield f"{name}-{wname}", line.replace("{W}", run)
    yield from OTHER_RUNS.items()


@pytest.mark.parametrize(("name", "line"), list(_documents()), ids=[n for n, _ in _documents()])
def test_each_parser_is_linear_on_long_runs(name, line):
    """Every parser, each context: well under a second of CPU (a quadratic pattern: minutes)."""
    for context in CONTEXTS.values():
        text = context.format(line)
        for parse in PARSERS:
            start = time.process_time()
            parse(text)
            spent = time.process_time() - start
            assert spent < 1.0, f"{parse.__name__} took {spent:.1f} s on {name}"


def test_padded_headings_still_read():
    assert sev(f"###{SPACES}Finding 1: x{SPACES}###\n**Severity**:{TABS}High\n") == {"high": 1}
    assert parse_verdict(f"## Verdict{MIXED}\n\n{SPACES}**APPROVE**{SPACES}\n") == "APPROVE"
    assert parse_final_counts(f"**Blockers**{SPACES}:{SPACES}3\n") == Counts(blockers=3)


def test_status_is_quick_on_a_padded_review(tmp_path):
    """The whole command, as a user runs it (it took minutes before the patterns were fixed)."""
    root = tmp_path / "proj"
    sid = "2026-11-20-padded"
    s = root / ".ocr" / "sessions" / sid
    put(s / "state.json", json.dumps({"current_phase": "reviews", "current_round": 1}))
    body = "".join(line.replace("{W}", MIXED) + "\n" for line in HOSTILE_LINES.values())
    put(s / "rounds/round-1/reviews/principal-1.md", "### Finding 1: x\n" + body)
    put(s / "rounds/round-1/final.md", "## Verdict\n" + body)
    set_mtimes(root / ".ocr", NOW)
    out = subprocess.run(
        [sys.executable, "-m", "ocr_tui", "status", str(root), "--json"],
        capture_output=True, timeout=60, text=True, check=True,
        env={"XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"},
    )  # fmt: skip
    doc = json.loads(out.stdout)
    assert [v["id"] for v in doc["sessions"]] == [sid]


# --- HTML comments ------------------------------------------------------------------------------

TEMPLATE_EXAMPLE = """<!--
### Finding 1: Example title
- **Severity**: Critical
- **Location**: `path/to/file.ts:L42-L50`
-->
"""


def test_the_templates_example_finding_in_a_comment_is_not_a_finding():
    text = "# Principal Review\n\n## Findings\n\n" + TEMPLATE_EXAMPLE + "\nNo issues found.\n"
    assert sev(text) == {}
    real = "### Finding 1: Real\n- **Severity**: Low\n"
    assert sev(text + real) == {"low": 1}
    assert sev(real.replace("Low", "Low <!-- was Critical -->")) == {"low": 1}


def test_nothing_in_a_comment_counts_in_final_md():
    text = (
        "<!-- ## Verdict\n\nREJECT -->\n"
        "<!-- **Blockers**: 9 -->\n"
        "## Verdict\n\n**APPROVE**\n\n"
        "## Blockers\n\n<!--\n- template item\n-->\n- real one\n"
    )
    assert parse_verdict(text) == "APPROVE"
    assert parse_final_counts(text) == Counts(blockers=1)
    assert parse_verdict("<!--\n## Verdict\n\nREJECT\n-->\n") is None


def test_a_comment_closed_on_a_later_line_and_text_after_it():
    text = "<!-- a\nb\n### Finding 1: hidden\n--> ignored too\n### Finding 2: shown\n"
    assert parse_findings(text).total() == 1


def test_a_fence_inside_a_comment_is_not_a_fence_and_a_comment_inside_code_is_code():
    text = "<!--\n```\n-->\n### Finding 1: x\nSeverity: high\n"
    assert sev(text) == {"high": 1}
    text = "```\n<!--\n```\n### Finding 1: x\nSeverity: low\n"
    assert sev(text) == {"low": 1}


def test_an_unclosed_comment_hides_the_rest_like_an_unclosed_fence():
    assert parse_findings("<!--\n### Finding 1: x\n").total() == 0
    assert parse_findings("see `<!--` here\n### Finding 1: x\n").total() == 1  # inline: no


# --- the other formats' patterns over text from disk ------------------------------------------


def _other_patterns():
    from ocr_tui.core.lenient import blank_view
    from ocr_tui.formats.codeflow.model import id_date
    from ocr_tui.formats.idumb import derive_shared as derive_idumb
    from ocr_tui.formats.idumb.model import phase_position
    from ocr_tui.formats.ocr.derive import _DATE_PREFIX
    from ocr_tui.ui import fmt

    def label(text: str):
        view = blank_view("x", "x", "idumb", "session", source="files", problems=[])
        view.phase_label, view.phase_total, view.phase_number = text, 4, 1
        return fmt.phase_parts(view)

    return {
        "idumb-phase": phase_position,  # "2/4 (Phase 2: build)"
        "idumb-recent-error": derive_idumb._RECENT.match,  # "[ts] agent: message"
        "phase-label": label,
        "codeflow-id": id_date,
        "ocr-id-date": _DATE_PREFIX.match,
    }


OTHER_TEXTS = {
    "fraction": "1{W}/{W}x",
    "fractions": "1{W}1{W}1{W}",
    "recent": "[2026-01-01T00:00:00]{W}x{W}",
    "recent-agent": "[2026-01-01T00:00:00] {W}agent{W}",
    "digits": "1" * RUN + "/",
    "slashes": "1/" * (RUN // 2),
    "id": "260110-{W}",
    "date": "2026-11-20-{W}",
}


@pytest.mark.parametrize("text", list(OTHER_TEXTS), ids=list(OTHER_TEXTS))
def test_the_other_formats_patterns_are_linear(text):
    line = OTHER_TEXTS[text].replace("{W}", MIXED)
    for name, parse in _other_patterns().items():
        start = time.process_time()
        parse(line)
        spent = time.process_time() - start
        assert spent < 0.1, f"{name} took {spent:.2f} s on {text}"
