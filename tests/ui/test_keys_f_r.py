"""`F` on the list and `r` on a session did nothing: `F` opens the highlighted
session's latest round's findings, as on a session; `r` on a session opens the Reviews view
with its cursor on that session's latest round. The footer, `?` and the palette say so."""

from __future__ import annotations

import shutil

from textual.command import CommandPalette

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.ui.screens.ocr.findings.screen import FindingsScreen
from ocr_tui.ui.screens.ocr.reviews.screen import ReviewsScreen
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.screens.sessions.screen import MainScreen

from .builders import SIZE, fixed_clock, loaded, table_ids, wait_until
from .mixed_project import mixed_project
from .records_db import AUTH, give_records
from .test_app_contract import search_palette
from .test_keys_help import described, open_help
from .test_reviews_screen import table

REFACTOR = "2026-03-08-refactor-db"  # a review without a round yet


def footer(app) -> list[str]:
    return [str(k.description) for k in app.screen.query("FooterKey")]


def key_state(app, key: str) -> bool | None:
    """True: `key` runs here now; False: offered, dimmed (pressed: says why); None: not
    offered at all."""
    active = app.screen.active_bindings.get(key)
    return None if active is None else active.enabled


async def test_f_on_the_list_opens_the_highlighted_session_s_findings(project: Project) -> None:
    app = make_app(project, clock=fixed_clock)
    toasts: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.jump_to_session(AUTH)
        await pilot.pause()
        assert key_state(app, "F") is True and "Findings" in footer(app)
        await pilot.press("F")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, FindingsScreen),
            what="the findings screen to open",
        )
        assert app.screen.target.session_id == AUTH and app.screen.target.number == 2
        await pilot.press("escape")
        await wait_until(
            pilot, lambda: isinstance(app.screen, MainScreen), what="the list to be back"
        )

        app.notify = lambda m, **kw: toasts.append(m)  # type: ignore[method-assign]
        app.jump_to_session(REFACTOR)
        await wait_until(
            pilot,
            lambda: key_state(app, "F") is False,
            what="the F key to be dimmed for a session with no round",
        )  # dimmed, not gone
        assert "Findings" in footer(app)
        await pilot.press("F")
        await wait_until(pilot, lambda: toasts, what="a toast saying why F does nothing")
        assert toasts == ["This session has no review round yet: F has nothing to open."]
        assert isinstance(app.screen, MainScreen)


async def test_the_list_help_and_palette_say_f(project: Project) -> None:
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.jump_to_session(AUTH)
        await pilot.pause()
        _title, sections = await open_help(pilot)
        assert described(sections["Session list"])["Findings"] == "F"
        await pilot.press("ctrl+p")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, CommandPalette),
            what="the command palette to open",
        )
        await search_palette(pilot, f"Findings: {AUTH} round 2")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, FindingsScreen),
            what="the findings screen to open from the palette",
        )


async def test_r_on_a_session_opens_the_reviews_at_its_latest_round(project: Project) -> None:
    give_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_session("2026-03-10-fix-cache")
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        session = app.screen
        assert key_state(app, "r") is True
        await pilot.press("r")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ReviewsScreen), what="the reviews screen to open"
        )
        await pilot.pause()
        t = table(app)
        assert t.get_cell(t.row_keys[t.cursor_row], "session").plain == "2026-03-10-fix-cache"
        assert len(t.row_keys) == 4  # every round, the cursor on this session's
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is session, what="the session screen to be back")

        app.open_session(AUTH)  # two rounds: the latest
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        await pilot.press("r")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ReviewsScreen), what="the reviews screen to open"
        )
        await pilot.pause()
        t = table(app)
        key = t.row_keys[t.cursor_row]
        assert (t.get_cell(key, "session").plain, t.get_cell(key, "round").plain) == (AUTH, "R2")

        app.open_session(REFACTOR)  # no round yet: nothing to be at
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        screen = app.screen
        await wait_until(
            pilot,
            lambda: screen.is_mounted and screen.view is not None,
            what="the session screen to show its session",
        )
        await pilot.pause()
        assert key_state(app, "r") is None and "Reviews" not in footer(app)


async def test_the_session_help_and_palette_say_r(project: Project) -> None:
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_session(AUTH)
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        _title, sections = await open_help(pilot)
        assert described(sections["Session"])["Reviews"] == "r"
        await pilot.press("ctrl+p")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, CommandPalette),
            what="the command palette to open",
        )
        await search_palette(pilot, "Reviews (key r)")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, ReviewsScreen),
            what="the reviews screen to open from the palette",
        )


async def test_no_f_or_r_without_an_ocr_session(home) -> None:
    """The other formats have no review rounds: neither key is offered."""
    root = home / "proj"
    mixed_project(root)
    shutil.rmtree(root / ".ocr")
    app = make_app(Project(root), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.sessions and all(v.framework != "ocr" for v in app.sessions.values())
        assert key_state(app, "F") is None and "Findings" not in footer(app)
        sid = table_ids(app)[0]
        app.open_session(sid)
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        screen = app.screen
        await wait_until(
            pilot,
            lambda: screen.is_mounted and screen.view is not None,
            what="the session screen to show its session",
        )
        await pilot.pause()
        assert key_state(app, "r") is None and "Reviews" not in footer(app)
