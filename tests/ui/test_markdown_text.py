"""OCR's key/value and response lines keep their line breaks when rendered."""

from __future__ import annotations

import html
import re

import pytest
from textual.app import App, ComposeResult
from textual.widgets import Markdown

from ocr_tui.core.textsafe import safe_block, safe_line
from ocr_tui.ui.screens.ocr.markdown_text import keep_line_breaks, split_fields

FINAL = """### 1. SQL injection in search
**Flagged by**: @principal-1, @security-1
**Type**: security
**Location**: `src/search.ts:42`
Parameterise the query.
"""

DISCOURSE = """## Discourse from principal-1

AGREE quality-1 "Dead code"
CHALLENGE security-1 "SQL injection" — validated upstream
- **CONNECT** "A" → quality-2 "B"
SURFACE
"""


def test_field_and_response_lines_get_hard_breaks() -> None:
    out = keep_line_breaks(FINAL).split("\n")
    assert out[1].endswith("\\") and out[2].endswith("\\") and out[3].endswith("\\")
    assert not out[4].endswith("\\")  # prose is left as it is
    out = keep_line_breaks(DISCOURSE).split("\n")
    assert out[2].endswith("\\")  # AGREE, then CHALLENGE
    assert not out[3].endswith("\\")  # the next line is a list item: a block of its own
    assert out[4].endswith("\\")  # CONNECT, then SURFACE


@pytest.mark.parametrize(
    "text",
    [
        "```\n**Key**: in code\nnext\n```\n",  # fenced code is left alone
        "**Key**: last line",
        "**Key**: value\n\nnew paragraph",
        "**Key**: value\n| a | b |",
        "**Key**: value\n1. item",
        "I agree with this\nand that",  # prose, not a response
        "**Key**: value  \nalready broken",
    ],
)
def test_nothing_else_changes(text: str) -> None:
    assert keep_line_breaks(text) == text


def screen_rows(svg: str) -> list[str]:
    """The rows of text of an SVG screenshot."""
    rows: dict[str, list[tuple[float, str]]] = {}
    for m in re.finditer(r'<text class="[^"]*" x="([\d.]+)" y="([\d.]+)"[^>]*>(.*?)</text>', svg):
        rows.setdefault(m.group(2), []).append((float(m.group(1)), html.unescape(m.group(3))))
    return [
        "".join(t for _, t in sorted(r)).replace("\xa0", " ")
        for _, r in sorted(rows.items(), key=lambda kv: float(kv[0]))
    ]


async def test_rendered_lines_stay_apart() -> None:
    class Doc(App):
        def compose(self) -> ComposeResult:
            yield Markdown(keep_line_breaks(FINAL + "\n" + DISCOURSE))

    async with Doc().run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        rows = [r.strip() for r in screen_rows(pilot.app.export_screenshot())]
    for line in ("Flagged by: @principal-1, @security-1", "Type: security", "SURFACE"):
        assert any(r.startswith(line) for r in rows), rows
    assert any(r.startswith('AGREE quality-1 "Dead code"') and "CHALLENGE" not in r for r in rows)


def test_wide_emoji_presentation_is_dropped() -> None:
    """`⚠️` is drawn two cells wide by terminals but counted one: its text form keeps borders
    where they belong."""
    assert safe_line("⚠️ Partial") == "⚠ Partial"
    assert safe_block("a ✅️\nb") == "a ✅\nb"


HEADER = (
    "# Code Review: main\n\n"
    "**Date**: 2026-11-22 **Reviewers**: @principal-1, @security-1 **Mode**: Full (with "
    "discourse)\n"
    "\n## Verdict\n"
)


def test_several_fields_on_one_line_are_cut_one_to_a_line() -> None:
    """OCR's final.md header as agents write it (the template puts them one to a line)."""
    assert split_fields("**Date**: 2026-11-22 **Reviewers**: @a, @b **Mode**: Full") == [
        "**Date**: 2026-11-22",
        "**Reviewers**: @a, @b",
        "**Mode**: Full",
    ]
    assert split_fields("- **File:** a.py **Line:** 3") == ["- **File:** a.py", "**Line:** 3"]
    out = keep_line_breaks(HEADER).split("\n")
    assert out[2:5] == [
        "**Date**: 2026-11-22\\",
        "**Reviewers**: @principal-1, @security-1\\",
        "**Mode**: Full (with discourse)",
    ]


@pytest.mark.parametrize(
    "line",
    [
        "**Issue**: the **bold** word stays",  # bold in a value is not a key
        "**Issue**: `**Key**: in code` stays",  # nor a key in a code span
        "Prose with **Key**: inside it",  # not a field line
        "**Key**: value **not a field",
    ],
)
def test_a_line_of_one_field_is_not_cut(line: str) -> None:
    assert split_fields(line) == [line]
    assert keep_line_breaks(line) == line


def test_fields_in_fenced_code_are_not_cut() -> None:
    text = "```\n**Date**: 1 **Mode**: 2\n```\n"
    assert keep_line_breaks(text) == text


async def test_the_header_renders_one_field_a_line_and_emoji_keep_the_border() -> None:
    """Each key/value on its own row; an emoji asking for its wide form (`⚠️`) is shown in its
    text form, which terminals draw as wide as Textual counts it (the border stays put)."""
    from textual.containers import VerticalScroll

    text = safe_block(HEADER + "\n### 🚫 Secret logged\n**Type**: ⚠️ Security\nwhy\n")

    class Doc(App):
        CSS = "VerticalScroll { border: round white; }"

        def compose(self) -> ComposeResult:
            with VerticalScroll():
                yield Markdown(keep_line_breaks(text))

    async with Doc().run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        svg = pilot.app.export_screenshot()
    stripped = [r.strip("│ ") for r in screen_rows(svg)]
    assert "Date: 2026-11-22" in stripped, stripped
    assert "Reviewers: @principal-1, @security-1" in stripped
    assert "Mode: Full (with discourse)" in stripped
    assert any("🚫 Secret logged" in r for r in stripped)
    # Terminals draw `⚠️` two cells wide where Textual counts one: none reaches the screen.
    assert "\ufe0f" not in svg and "Type: ⚠ Security" in stripped
