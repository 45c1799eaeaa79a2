"""The session list driven by keys: cursor, filters, sort, search, drill-down, help, quit."""

from __future__ import annotations

from datetime import timedelta

import pytest
from textual.widgets import Input, Static

from ocr_tui.cli import make_app
from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.screens.help.screen import HelpScreen
from ocr_tui.ui.screens.sessions.detail_pane import DetailPane
from ocr_tui.ui.screens.sessions.session_table import SessionTable

from .builders import NOW, SIZE, fixed_clock, loaded, make_project, table_ids, wait_until

BY_ACTIVITY = [
    "2026-03-10-map-onboarding",
    "2026-03-10-feat-auth",
    "2026-03-10-fix-cache",
    "2026-03-09-main",
    "2026-03-08-refactor-db",
    "2026-03-07-[bold]broken",
]


def cell(app: OcrTuiApp, sid: str, column: str) -> str:
    return app.main_screen.table.get_cell(sid, column).plain


def bar(app: OcrTuiApp) -> str:
    return str(app.main_screen.query_one("#filter-bar", Static).render())


async def test_lists_sessions_with_state_glyphs(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert table_ids(app) == BY_ACTIVITY
        glyphs = {sid: cell(app, sid, "state") for sid in BY_ACTIVITY}
        assert glyphs == {
            "2026-03-10-map-onboarding": "●",
            "2026-03-10-feat-auth": "●",
            "2026-03-10-fix-cache": "◐",
            "2026-03-09-main": "✓",
            "2026-03-08-refactor-db": "⚠",
            "2026-03-07-[bold]broken": "✗",
        }
        assert cell(app, "2026-03-10-feat-auth", "round") == "R2"
        assert cell(app, "2026-03-10-feat-auth", "reviewers") == "3"
        # The round's distinct findings (as `findings` and the round's screen count them):
        # its reviewers reported 5, all with the same title, so one finding.
        auth = app.sessions["2026-03-10-feat-auth"]
        assert auth.current.reviewer_findings == 5 and auth.current.findings == 1
        assert cell(app, "2026-03-10-feat-auth", "findings") == "1"
        assert cell(app, "2026-03-10-feat-auth", "phase").endswith("4/8 Parallel Reviews")
        assert cell(app, "2026-03-10-fix-cache", "verdict") == "APPROVE"
        assert cell(app, "2026-03-10-feat-auth", "round_time") == "20m"  # round 2's
        assert cell(app, "2026-03-10-feat-auth", "elapsed") == "50m"  # the session's
        assert cell(app, "2026-03-10-feat-auth", "activity") == "3m ago"
        # Markup in a name from disk is shown as text.
        assert cell(app, "2026-03-07-[bold]broken", "id") == "2026-03-07-[bold]broken"
        assert "Filter: all" in bar(app) and "6 of 6 sessions" in bar(app)


async def test_vim_keys_move_the_cursor_and_the_detail_follows(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.main_screen.table
        detail = app.main_screen.query_one(DetailPane)
        assert table.highlighted_id == BY_ACTIVITY[0]
        await pilot.press("j", "j")
        assert table.highlighted_id == BY_ACTIVITY[2]
        await wait_until(
            pilot,
            lambda: detail.session_id == BY_ACTIVITY[2],
            what="the detail pane to follow the cursor",
        )
        await pilot.press("k")
        assert table.highlighted_id == BY_ACTIVITY[1]
        await pilot.press("G")
        assert table.highlighted_id == BY_ACTIVITY[-1]
        await wait_until(
            pilot,
            lambda: detail.session_id == BY_ACTIVITY[-1],
            what="the detail pane to follow the cursor to the last row",
        )
        info = detail.query_one("#dp-info").plain
        assert "Problems" in info and "✗ state.json" in info  # what is wrong with it
        await pilot.press("g")
        assert table.highlighted_id == BY_ACTIVITY[0]


async def test_filters_cycle_and_number_keys(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("f")
        assert "2026-03-09-main" not in table_ids(app)
        assert len(table_ids(app)) == 5
        assert "Filter: active" in bar(app) and "5 of 6 sessions" in bar(app)
        await pilot.press("f")
        assert table_ids(app) == ["2026-03-09-main"]
        await pilot.press("f")
        assert table_ids(app) == BY_ACTIVITY
        await pilot.press("3")
        assert table_ids(app) == ["2026-03-09-main"]
        await pilot.press("2")
        assert len(table_ids(app)) == 5
        await pilot.press("1")
        assert table_ids(app) == BY_ACTIVITY


async def test_sort_cycles_through_activity_start_and_name(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("s")
        assert "sort: start time" in bar(app)
        assert table_ids(app)[:2] == ["2026-03-10-map-onboarding", "2026-03-10-feat-auth"]
        assert table_ids(app)[-1] == "2026-03-07-[bold]broken"
        await pilot.press("s")
        assert "sort: name" in bar(app)
        # by the name shown, not the date before it (the list drops it when short of room)
        assert table_ids(app) == [
            "2026-03-07-[bold]broken", "2026-03-10-feat-auth", "2026-03-10-fix-cache",
            "2026-03-09-main", "2026-03-10-map-onboarding", "2026-03-08-refactor-db",
        ]  # fmt: skip
        await pilot.press("s")
        assert table_ids(app) == BY_ACTIVITY


async def test_cursor_stays_on_its_session_when_the_order_changes(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("j", "j")  # fix-cache
        await pilot.press("s", "s")  # by name: fix-cache moves
        assert app.main_screen.table.highlighted_id == "2026-03-10-fix-cache"


async def test_search_filters_as_you_type_and_escape_clears(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        screen = app.main_screen
        await pilot.press("slash")
        assert isinstance(app.focused, Input)
        await pilot.press(*"feat")
        assert table_ids(app) == ["2026-03-10-feat-auth"]
        assert "search: 'feat'" in bar(app) and "1 of 6 sessions" in bar(app)
        await pilot.press("enter")  # keep the search, back to the table
        assert isinstance(app.focused, SessionTable)
        assert not screen.query_one("#search").display
        assert table_ids(app) == ["2026-03-10-feat-auth"]
        await pilot.press("slash", "backspace", "backspace", "backspace", "backspace", *"zzz")
        assert table_ids(app) == []
        assert "No sessions match" in str(screen.query_one("#empty", Static).render())
        await pilot.press("escape")
        assert table_ids(app) == BY_ACTIVITY
        assert "search" not in bar(app)


async def test_enter_opens_the_session_screen(app: OcrTuiApp) -> None:
    try:
        from ocr_tui.ui.screens.session.screen import SessionScreen
    except ImportError:
        pytest.skip("the session screen is not there yet")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("j", "enter")
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        assert app.screen.session_id == BY_ACTIVITY[1]


async def test_help_lists_the_keys_of_every_screen(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("question_mark")
        await wait_until(
            pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen to open"
        )
        text = str(app.screen.query_one("#help-text", Static).render())
        for expected in ("Everywhere", "Session list", "Filter", "Sort", "Search", "Demo"):
            assert expected in text
        assert "↓ j" in text and "↑ k" in text  # merged with the arrow keys
        assert "✗" in text and "stalled" in text  # the legend
        await pilot.press("escape")
        await wait_until(
            pilot, lambda: not isinstance(app.screen, HelpScreen), what="the help screen to close"
        )


async def test_q_quits(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("q")
        await wait_until(pilot, lambda: app.return_code is not None, what="the app to quit")


async def test_tick_updates_only_the_clock_cells(app: OcrTuiApp, monkeypatch) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.main_screen.table
        calls: list[tuple[str, str]] = []
        original = SessionTable.update_row_cells

        def spy(self, row_key, cells):
            calls.extend((row_key, column) for column in cells)
            return original(self, row_key, cells)

        monkeypatch.setattr(SessionTable, "update_row_cells", spy)
        table.tick(NOW + timedelta(seconds=65))
        assert {column for _, column in calls} <= {"round_time", "elapsed", "activity"}
        assert cell(app, "2026-03-10-feat-auth", "round_time") == "21m"
        assert cell(app, "2026-03-09-main", "elapsed") == "1h 00m"  # closed: not ticking
        calls.clear()
        table.tick(NOW + timedelta(seconds=65))
        assert calls == []  # nothing changed, nothing touched


async def test_escape_sequences_in_names_are_made_visible(home) -> None:
    from .builders import write_session

    project = make_project(home / "proj")
    write_session(project, "2026-03-10-\x1b[31mred")
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert cell(app, "2026-03-10-\x1b[31mred", "id") == "2026-03-10-␛[31mred"


async def test_no_project_says_where_we_looked_and_offers_the_demo(home) -> None:
    app = make_app(None, start_path=home / "nowhere", clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = str(app.main_screen.query_one("#empty", Static).render())
        assert "No project found" in text  # (the empty state's words)
        assert "~/nowhere" in text
        assert "Press d" in text
        assert app.main_screen.has_class("-empty")


async def test_no_sessions_yet_says_what_is_watched(empty_project) -> None:
    app = make_app(empty_project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        text = str(app.main_screen.query_one("#empty", Static).render())
        assert "No sessions yet" in text
        assert "~/proj/.ocr/sessions" in text
        assert "/ocr-review" in text and "Press d" in text


async def test_keys_typed_in_one_burst_land_where_they_should(app: OcrTuiApp) -> None:
    """`/03-10⏎j` arriving at once (a paste, tmux send-keys): the text goes into the search
    box and `j` moves the cursor, because `/` and Enter switch focus before the next key."""
    from textual import events

    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.post_message(events.Key("slash", "/"))
        for ch in "03-10":
            app.post_message(events.Key({"-": "minus"}.get(ch, ch), ch))
        app.post_message(events.Key("enter", "\r"))
        app.post_message(events.Key("j", "j"))
        await wait_until(
            pilot, lambda: app.main_screen.search == "03-10", what="the typed search to apply"
        )
        assert table_ids(app) == BY_ACTIVITY[:3]
        await wait_until(
            pilot,
            lambda: app.main_screen.table.highlighted_id == BY_ACTIVITY[1],
            what="the cursor to land on the second row",
        )
        assert isinstance(app.focused, SessionTable)


async def test_theme_change_recolours_the_glyphs(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.main_screen.table

        def glyph_colour():
            return table.get_cell("2026-03-07-[bold]broken", "state").spans[0].style.color

        before = glyph_colour()
        app.theme = "gruvbox"
        await wait_until(
            pilot,
            lambda: glyph_colour() != before,
            what="the glyphs to take the new theme's colour",
        )


def test_no_viewed_session_without_the_list() -> None:
    """A change announced while the list screen is composed or being removed (at quit, the
    simulator still writing) asks which session it shows: none, not NoMatches."""
    from ocr_tui.ui.screens.sessions.screen import MainScreen

    assert MainScreen().viewed_session_id is None
