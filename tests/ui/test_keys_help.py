"""`?` shows the keys of the screen it is pressed on, read from that screen's bindings and its
focused widget's, with what each cycle key cycles through, and the glyph legend."""

from __future__ import annotations

import re

from textual.pilot import Pilot
from textual.widgets import Static

from ocr_tui.core.states import STATES
from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.navigation import DocumentTarget, RoundTarget
from ocr_tui.ui.screens.document.screen import DocumentScreen
from ocr_tui.ui.screens.help.screen import HelpScreen
from ocr_tui.ui.screens.ocr.round.screen import RoundScreen

from .builders import SIZE, loaded, wait_until

AUTH = "2026-03-10-feat-auth"

Rows = dict[str, list[tuple[str, str, str]]]  # section -> (keys, description, tooltip)


async def open_help(pilot: Pilot) -> tuple[str, Rows]:
    """Press `?`: the help's text and its rows by section; then close it."""
    app = pilot.app
    await pilot.press("question_mark")
    await wait_until(
        pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen to open"
    )
    help_screen = app.screen
    # The text as built, one entry a line (on screen, a long entry wraps under its text:
    # tests/ui/test_drilldown_footer_and_help.py).
    text = help_screen.content.plain
    assert help_screen.query_one("#help-text", Static).display
    title = str(help_screen.query_one("#help-dialog").border_title)
    sections: Rows = {}
    rows: list[tuple[str, str, str]] = []
    for line in text.splitlines():
        if line and not line.startswith(" "):
            rows = sections.setdefault(line, [])
        elif line.strip():
            keys, description, *tooltip = re.split(r"\s{2,}", line.strip())
            rows.append((keys, description, tooltip[0] if tooltip else ""))
    await pilot.press("escape")
    await wait_until(pilot, lambda: app.screen is not help_screen, what="the help screen to close")
    return title, sections


def described(rows: list[tuple[str, str, str]]) -> dict[str, str]:
    return {description: keys for keys, description, _ in rows}


async def test_the_list_help_lists_the_list_keys_and_what_cycles(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        title, sections = await open_help(pilot)
        assert title == "Keys and legend · Session list"
        here = sections["Session list"]
        keys = described(here)
        assert keys["Search"] == "/" and keys["Filter"] == "f" and keys["Sort"] == "s"
        assert keys["Open"] == "Enter"  # the focused table's key, by name rather than ⏎
        assert keys["Down"] == "↓ j"  # merged with the arrow key doing the same
        tooltips = {description: tooltip for _, description, tooltip in here}
        assert tooltips["Filter"] == "All → active → closed"
        assert tooltips["Sort"] == "Last activity → start time → name"
        assert "Format" not in keys  # one format in this project: `t` does nothing here
        assert "Back" not in keys and "Prev round" not in keys
        everywhere = described(sections["Everywhere"])
        assert "q" in everywhere["Quit"].split() and everywhere["Help"] == "?"
        assert everywhere["Demo"] == "d" and everywhere["Command palette"] == "Ctrl+P"
        legend = {keys: description for keys, description, _ in sections["Session states"]}
        assert legend == {glyph: meaning for glyph, meaning in STATES.values()}


async def test_a_round_screen_help_lists_its_own_keys(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_target(RoundTarget(AUTH, 2, "rounds/round-2"))
        await wait_until(
            pilot, lambda: isinstance(app.screen, RoundScreen), what="the round screen to open"
        )
        await wait_until(
            pilot,
            lambda: app.focused is not None and app.focused.id == "reviewers",
            what="the reviewers table to take the focus",
        )
        title, sections = await open_help(pilot)
        assert title == "Keys and legend · Round"
        keys = described(sections["Round"])
        assert keys["Prev round"] == "[" and "Next round" not in keys  # the last round
        assert keys["Findings"] == "F" and keys["Discourse"] == "D"
        assert keys["Back"] == "Esc" and keys["Open"] == "Enter"
        for list_key in ("Search", "Filter", "Sort", "Format"):  # the list's, not here
            assert list_key not in keys
        assert "Quit" not in keys  # listed once, under Everywhere
        assert "Quit" in described(sections["Everywhere"])
        assert "Session states" in sections


async def test_a_document_lists_brackets_only_when_they_step(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_target(DocumentTarget(AUTH, "rounds/round-1/reviews/principal-1.md"))
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open",
        )
        _, sections = await open_help(pilot)
        assert "Next round" in described(sections["Document"])  # round 1: nothing before it
        assert "Prev round" not in described(sections["Document"])
        app.open_target(DocumentTarget(AUTH, "context.md"), "back")  # replaces it
        await wait_until(
            pilot,
            lambda: app.screen.rel_path == "context.md",
            what="context.md to replace the document",
        )
        _, sections = await open_help(pilot)
        keys = described(sections["Document"])
        assert "Prev round" not in keys and "Next round" not in keys
        assert keys["Back"] == "Esc"


async def test_the_legend_lists_the_markers(app: OcrTuiApp, monkeypatch) -> None:
    from ocr_tui.ui import fmt

    if not getattr(fmt, "MARKERS", None):  # the marker legend is another change's
        monkeypatch.setattr(fmt, "MARKERS", {"•": ("Rounds", "the current round")}, raising=False)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        _, sections = await open_help(pilot)
        shown = {keys: description for keys, description, _ in sections["Markers"]}
        assert shown == {mark: meaning for mark, (_, meaning) in fmt.MARKERS.items()}
