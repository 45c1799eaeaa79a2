"""The drill-down screens in the first hour: a Footer that fits 80 columns with `?`
and `q` in it, help entries that wrap under their text, discourse columns that use the width,
a breadcrumb that follows the way the user came, and the findings table focused from the
start. By keys in the real app, on the sample project and on a simulated OCR project (with
ocr.db's triage)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static
from textual.widgets._footer import FooterKey

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.ui.navigation import (
    DiscourseTarget,
    DocumentTarget,
    FindingsTarget,
    RoundTarget,
    Target,
)
from ocr_tui.ui.screens.document.screen import DocumentScreen
from ocr_tui.ui.screens.help.screen import HelpScreen
from ocr_tui.ui.screens.ocr.discourse.screen import DiscourseScreen, text_widths
from ocr_tui.ui.screens.ocr.finding.screen import FindingScreen
from ocr_tui.ui.screens.ocr.findings.screen import FindingsScreen
from ocr_tui.ui.widgets.breadcrumb import Breadcrumb
from ocr_tui.ui.widgets.drill_table import DrillTable
from ocr_tui.ui.widgets.key_footer import KeyFooter, keys_that_fit

from .builders import finding_shown, fixed_clock, loaded, wait_until
from .test_discourse_screen import write_discourse
from .test_findings_screen import AUTH, give_findings

SIM = "2026-11-22-main"  # the simulator's closed review of two rounds


async def open_at(pilot: Pilot, target: Target, screen_type: type) -> None:
    app = pilot.app
    app.open_target(target)
    await wait_until(
        pilot, lambda: isinstance(app.screen, screen_type), what="the screen asked for to open"
    )
    screen = app.screen
    await wait_until(
        pilot, lambda: getattr(screen, "loads", 1) > 0, what="the screen to load what it shows"
    )
    await pilot.pause()


def crumbs(app) -> list[str]:
    return [label for label, _ in app.screen.query_one(Breadcrumb).parts]


# -- the Footer ------------------------------------------------------------------------------


def test_keys_that_fit_give_up_the_least_important_last_first() -> None:
    # (rank, width): Open, Back, Quit, two screen keys, Help, Demo, the palette
    keys = [(2, 8), (1, 10), (0, 8), (2, 12), (2, 12), (0, 8), (3, 8), (0, 0)]
    assert keys_that_fit(keys, 100) == set(range(8))
    assert keys_that_fit(keys, 60) == {0, 1, 2, 3, 4, 5, 7}  # Demo goes first
    assert keys_that_fit(keys, 55) == {0, 1, 2, 3, 5, 7}  # then the last screen key
    assert keys_that_fit(keys, 20) == {2, 5, 7}  # Help and Quit stay whatever the width


SCREENS = [
    (RoundTarget(SIM, 1, "rounds/round-1"), "RoundScreen"),
    (FindingsTarget(SIM, 1, "rounds/round-1"), "FindingsScreen"),
    (DiscourseTarget(SIM, 1, "rounds/round-1"), "DiscourseScreen"),
    (DocumentTarget(SIM, "rounds/round-1/final.md"), "DocumentScreen"),
]


@pytest.mark.parametrize("width", [80, 120, 200])
async def test_the_footer_fits_with_help_and_quit(sim_root: Path, width: int) -> None:
    """On every drill-down screen (and a finding) each key the Footer shows is whole, `?` Help
    and `q` Quit among them; at 200 columns every shown binding is there."""
    app = make_app(Project(sim_root), clock=fixed_clock)
    async with app.run_test(size=(width, 30)) as pilot:
        await loaded(pilot)
        for target, name in SCREENS:
            await open_at(pilot, target, object)
            await wait_until(
                pilot,
                lambda n=name: type(app.screen).__name__ == n,
                what="the screen asked for to open",
            )
            await wait_until(
                pilot,
                lambda: getattr(app.screen, "loads", 1) > 0,
                what="the screen to load what it shows",
            )
            if name == "FindingsScreen":
                await pilot.press("enter")  # one finding
                await finding_shown(pilot)
            await pilot.pause(0.2)
            footer = app.screen.query_one(KeyFooter)
            keys = list(footer.query(FooterKey))
            palette = next(k for k in keys if k.has_class("-command-palette"))
            shown = [k for k in keys if k is not palette]
            where = type(app.screen).__name__
            assert all(k.region.right <= palette.region.x for k in shown), (where, width)
            descriptions = [k.description for k in shown]
            assert "Help" in descriptions and "Quit" in descriptions, (where, descriptions)
            if width == 200:
                want = {
                    b.binding.description
                    for b in app.screen.active_bindings.values()
                    if b.binding.show and b.binding.action != "command_palette"
                }
                assert want <= set(descriptions), (where, want - set(descriptions))
            await pilot.press("escape")
            if name == "FindingsScreen":
                await pilot.press("escape")
            await wait_until(
                pilot,
                lambda: type(app.screen).__name__ == "MainScreen",
                what="the main screen to be back",
            )


# -- the findings table is focused from the start ---------------------------------------------


async def test_the_findings_table_has_the_keys_from_the_start(sim_root: Path) -> None:
    """With ocr.db's triage the table is replaced by one with a Triage column as the read
    arrives; the focus was left in the hidden search box (Enter did nothing, `j` typed)."""
    app = make_app(Project(sim_root), clock=fixed_clock)
    async with app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        for _ in range(3):
            await open_at(pilot, FindingsTarget(SIM, 1, "rounds/round-1"), FindingsScreen)
            screen = app.screen
            table = screen.query_one("#findings", DrillTable)
            await wait_until(
                pilot, lambda t=table: t.row_count, what="the findings table to list its findings"
            )
            await wait_until(
                pilot,
                lambda: isinstance(app.focused, DrillTable),
                timeout=3,
                what="the findings table to take the focus",
            )
            assert app.focused.id == "findings"
            await pilot.press("enter")
            await wait_until(
                pilot,
                lambda: isinstance(app.screen, FindingScreen),
                what="the finding screen to open",
            )
            await pilot.press("escape")
            await wait_until(
                pilot, lambda s=screen: app.screen is s, what="the findings screen to be back"
            )
            await pilot.press("escape")
            await wait_until(
                pilot,
                lambda: type(app.screen).__name__ == "MainScreen",
                what="the main screen to be back",
            )


# -- help: wrapped entries hang under their text ----------------------------------------------


@pytest.mark.parametrize("width", [80, 120])
async def test_help_entries_wrap_under_their_text(sim_root: Path, width: int) -> None:
    app = make_app(Project(sim_root), clock=fixed_clock)
    async with app.run_test(size=(width, 40)) as pilot:
        await loaded(pilot)
        await open_at(pilot, FindingsTarget(SIM, 1, "rounds/round-1"), FindingsScreen)
        await pilot.press("question_mark")
        await wait_until(
            pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen to open"
        )
        await pilot.pause(0.2)
        text = app.screen.query_one("#help-text", Static)
        lines = str(text.render()).split("\n")
        # `v`'s entry is longer than the help is wide: its further lines start under its text
        first = next(i for i, line in enumerate(lines) if line.startswith("  v "))
        column = re.match(r"  v +", lines[first]).end()
        more = lines[first + 1]
        assert more.strip() and len(more) - len(more.lstrip()) == column, lines[first : first + 2]
        assert max(len(line) for line in lines) <= text.content_region.width


# -- the discourse's columns ----------------------------------------------------------------


def test_text_widths() -> None:
    assert text_widths(40, 30, 100) == (40, 60)  # both whole: Says gets the rest
    assert text_widths(43, 90, 73) == (43, 30)  # the titles whole, Says what is left
    assert text_widths(43, 90, 33) == (20, 13)  # narrow: the titles keep FINDING_MIN
    assert text_widths(60, 10, 50) == (40, 10)  # Says short: the titles get the rest


LONG = "A finding title that runs past thirty-six cells"
LONG_DISCOURSE = f"""# Discourse Results

## Discourse from principal-1

AGREE quality-1 "{LONG}"
CHALLENGE quality-1 "Dead code" — the plugin loader uses it
"""


@pytest.mark.parametrize("width", [120, 200])
async def test_discourse_titles_are_whole_while_there_is_room(project: Project, width: int) -> None:
    give_findings(project)
    write_discourse(project, LONG_DISCOURSE)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=(width, 30)) as pilot:
        await loaded(pilot)
        await open_at(pilot, DiscourseTarget(AUTH, 2, "rounds/round-2"), DiscourseScreen)
        table = app.screen.query_one("#responses", DrillTable)
        await wait_until(
            pilot, lambda: table.row_count == 2, what="the discourse to list 2 responses"
        )
        cells = [table.get_cell(k, "findings").plain for k in table.row_keys]
        assert cells == [LONG, "Dead code"]
        says = table.get_cell(table.row_keys[1], "says").plain
        assert says == "the plugin loader uses it"
        used = sum(c.get_render_width(table) for c in table.columns.values())
        assert used <= table.scrollable_content_region.width  # no horizontal scrolling


# -- the breadcrumb follows the way the user came ---------------------------------------------


async def test_a_finding_opened_from_the_discourse_says_so(project: Project) -> None:
    give_findings(project)
    write_discourse(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        await open_at(pilot, DiscourseTarget(AUTH, 2, "rounds/round-2"), DiscourseScreen)
        discourse = app.screen
        await pilot.press("g", "j", "j", "enter")  # AGREE principal-1 "Token not verified"
        await finding_shown(pilot)
        assert crumbs(app)[2:] == ["Round 2", "Discourse", "Token not verified"]
        await pilot.press("right_square_bracket")  # another finding: still from the discourse
        await wait_until(
            pilot, lambda: app.screen.finding is not None, what="the next finding to be shown"
        )
        assert crumbs(app)[3] == "Discourse" and app.screen.finding_id != ""
        await pilot.press("escape")  # Back follows the breadcrumb
        await wait_until(
            pilot, lambda: app.screen is discourse, what="the discourse screen to be back"
        )
        await pilot.press("o")  # discourse.md, as written
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open on discourse.md",
        )
        assert crumbs(app)[2:] == ["Round 2", "Discourse", "discourse.md"]
        await pilot.press("escape")
        await wait_until(
            pilot, lambda: app.screen is discourse, what="the discourse screen to be back"
        )


async def test_a_finding_opened_from_the_findings_keeps_its_crumbs(project: Project) -> None:
    give_findings(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=(120, 30)) as pilot:
        await loaded(pilot)
        await open_at(pilot, FindingsTarget(AUTH, 2, "rounds/round-2"), FindingsScreen)
        await wait_until(
            pilot,
            lambda: app.screen.query_one("#findings").row_count,
            what="the findings table to list its findings",
        )
        await pilot.press("enter")
        await finding_shown(pilot)
        assert crumbs(app)[2:4] == ["Round 2", "Findings"]
