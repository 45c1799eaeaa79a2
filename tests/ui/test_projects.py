"""Several projects in one dashboard (`ocr-tui PATH PATH…`, `--scan DIR`): the Project column,
`p` to show one project, the palette's entries, paths resolved in each session's own project,
and a project that appears under the scanned directory while the app runs."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import msgspec
import pytest
from textual.pilot import Pilot

from ocr_tui.cli import make_app
from ocr_tui.core import workspace_projects
from ocr_tui.core.project import Project
from ocr_tui.core.workspace import Scope
from ocr_tui.ui.screens.help.screen import HelpScreen
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.screens.sessions.filter_bar import FilterBar

from .builders import (
    NOW,
    SIZE,
    RoundSpec,
    fixed_clock,
    loaded,
    make_project,
    sample_project,
    table_ids,
    wait_until,
    write_session,
)


def web_project(root: Path) -> Project:
    """Two sessions, one with an id the sample project has too."""
    p = make_project(root)
    write_session(
        p, "2026-03-10-feat-auth", phase="discourse", started=NOW - timedelta(minutes=40),
        updated=NOW - timedelta(minutes=2),
        rounds=[RoundSpec({"principal-1": ["high"], "security-1": ["medium", "low"]})],
    )  # fmt: skip
    write_session(
        p, "2026-03-09-landing-page", phase="complete", status="closed",
        started=NOW - timedelta(hours=30), updated=NOW - timedelta(hours=29),
        rounds=[RoundSpec({"principal-1": []}, verdict="APPROVE")],
    )  # fmt: skip
    return p


@pytest.fixture
def two(home: Path) -> Scope:
    return Scope((sample_project(home / "code" / "api"), web_project(home / "code" / "web")))


def bar_text(app) -> str:
    return str(app.main_screen.query_one(FilterBar).render())


async def settle(pilot: Pilot) -> None:
    await loaded(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


def test_two_projects_snapshot(snap_compare, two) -> None:
    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        await pilot.press("j")

    app = make_app(None, scope=two, clock=fixed_clock)
    assert snap_compare(app, terminal_size=(120, 40), run_before=run_before)


async def test_p_shows_one_project_then_the_next_then_all(two) -> None:
    app = make_app(None, scope=two, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        ids = table_ids(app)
        # the same session id in both projects: two rows, told apart by their project
        assert {"api/2026-03-10-feat-auth", "web/2026-03-10-feat-auth"} <= set(ids)
        assert app.main_screen.table.get_cell("web/2026-03-10-feat-auth", "project").plain == (
            "web"
        )
        assert app.main_screen.table.get_cell("web/2026-03-10-feat-auth", "id").plain.endswith(
            "feat-auth"
        )
        assert "project: all" in bar_text(app)
        await pilot.press("p")
        await wait_until(
            pilot,
            lambda: all(i.startswith("api/") for i in table_ids(app)),
            what="the list to show api's sessions only",
        )
        assert len(table_ids(app)) == 6 and "project: api" in bar_text(app)
        await pilot.press("p")
        await wait_until(
            pilot,
            lambda: all(i.startswith("web/") for i in table_ids(app)),
            what="the list to show web's sessions only",
        )
        assert len(table_ids(app)) == 2
        await pilot.press("p")
        await wait_until(
            pilot, lambda: len(table_ids(app)) == 8, what="the list to show all 8 sessions again"
        )
        # `/` finds a project by its name too
        await pilot.press("slash", "w", "e", "b", "enter")
        await wait_until(
            pilot, lambda: len(table_ids(app)) == 2, what="the search to leave web's 2 sessions"
        )
        assert all(i.startswith("web/") for i in table_ids(app))


async def test_a_session_opens_in_its_own_project(two, monkeypatch) -> None:
    """Enter opens the session; the editor and documents resolve paths in its project."""
    app = make_app(None, scope=two, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.project_of("web/2026-03-10-feat-auth").root == two.projects[1].root
        assert app.project_of("api/2026-03-10-feat-auth").root == two.projects[0].root
        assert app.project_of("nope") is None
        app.main_screen.select_session("web/2026-03-10-feat-auth")
        await pilot.press("enter")
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        assert app.screen.viewed_session_id == "web/2026-03-10-feat-auth"
        planned: list[Path] = []
        from ocr_tui.ui.screens.ocr import editor_launch

        monkeypatch.setattr(
            editor_launch,
            "make_plan",
            lambda root, *_: planned.append(root) or editor_launch.Refusal("test"),
        )
        editor_launch.open_in_editor(app.screen, "src/a.py", 3, "web/2026-03-10-feat-auth")
        await wait_until(pilot, lambda: planned, what="the editor launch to be planned")
        assert planned == [two.projects[1].root]


async def test_the_palette_and_help_name_the_projects(two) -> None:
    from ocr_tui.ui.commands import SessionCommands

    app = make_app(None, scope=two, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        provider = SessionCommands(app.screen)
        titles = [title for title, _, _ in provider._commands()]
        assert {"Project: all projects", "Project: api", "Project: web"} <= set(titles)
        await pilot.press("question_mark")
        await wait_until(
            pilot, lambda: isinstance(app.screen, HelpScreen), what="the help screen to open"
        )
        assert "project" in " ".join(str(s.render()) for s in app.screen.query("Static")).lower()


async def test_one_project_has_no_project_column_nor_key(project) -> None:
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert all("/" not in sid for sid in table_ids(app))
        assert "project" not in bar_text(app)
        assert not app.main_screen.check_action("cycle_project", ())
        assert all(v.project is msgspec.UNSET for v in app.sessions.values())


async def test_a_project_that_appears_under_the_scanned_directory(home, monkeypatch) -> None:
    """The live path: a project made while the app runs is found, read and watched."""
    monkeypatch.setattr(workspace_projects, "DISCOVER_EVERY_S", 0.0)
    code = home / "code"
    first = web_project(code / "web")
    app = make_app(None, scope=Scope(scan=code), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert sorted(table_ids(app)) == ["web/2026-03-09-landing-page", "web/2026-03-10-feat-auth"]
        notices: list[str] = []
        toasts: list[str] = []
        real_notice = app.notice  # (news, not a reply to a key: `ui.message_board`)
        monkeypatch.setattr(
            app, "notice", lambda m, **kw: notices.append(str(m)) or real_notice(m, **kw)
        )
        monkeypatch.setattr(app._toasts, "post", lambda note, *_: toasts.append(str(note.message)))
        staged = make_project(home / "staging" / "api")  # made whole, then moved in at once
        write_session(staged, "2026-03-10-hotfix", phase="reviews")
        write_session(staged, "2026-03-09-older", phase="complete", status="closed")
        (code / "team").mkdir()
        (home / "staging" / "api").rename(code / "team" / "api")
        new = Project(code / "team" / "api")
        await wait_until(
            pilot,
            lambda: "api/2026-03-10-hotfix" in table_ids(app),
            what="the moved-in project's session to be listed",
        )
        # one notice for the project found, no "new session" toast per old session
        assert notices == ["api: 2 sessions"] and toasts == []
        # and watched: a change in it reaches its row
        write_session(new, "2026-03-10-hotfix", phase="discourse", updated=NOW)
        await wait_until(
            pilot,
            lambda: app.sessions["api/2026-03-10-hotfix"].phase == "discourse",
            what="the new project's session to show the discourse phase",
        )
        assert first.root != new.root


async def test_no_toasts_for_a_project_the_list_does_not_show(two, monkeypatch) -> None:
    from ocr_tui.core.project import Project as P

    app = make_app(None, scope=two, clock=fixed_clock)
    toasts: list[str] = []
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        monkeypatch.setattr(app._toasts, "post", lambda note, *_: toasts.append(str(note.message)))
        await pilot.press("p")  # api only
        await wait_until(
            pilot,
            lambda: all(i.startswith("api/") for i in table_ids(app)),
            what="the list to show api's sessions only",
        )
        web = P(two.projects[1].root)
        write_session(web, "2026-03-10-feat-auth", phase="synthesis", updated=NOW)
        api = P(two.projects[0].root)
        write_session(api, "2026-03-08-refactor-db", phase="reviews", updated=NOW)
        await wait_until(
            pilot,
            lambda: app.sessions["api/2026-03-08-refactor-db"].phase == "reviews",
            what="api's refactor-db to be read at the reviews phase",
        )
        await wait_until(
            pilot,
            lambda: app.sessions["web/2026-03-10-feat-auth"].phase == "synthesis",
            what="web's feat-auth to be read at the synthesis phase",
        )
        await pilot.pause()
        assert any("refactor-db" in t for t in toasts)
        assert not any("web/" in t for t in toasts)


def test_wide_characters_are_measured_in_cells() -> None:
    """A project or session named in CJK takes two cells a character: its column plans for
    that, and is not cut while there is room (it was, at half its width)."""
    from ocr_tui.ui.screens.sessions.cells import IdFit, cell_width

    assert cell_width((("日本語プロジェクト", "muted"),)) == 18
    fit = IdFit()
    fit.update(["2026-11-26-功能-分支", "2026-11-26-main"])
    assert fit.widest == len("2026-11-26-") + 9 and fit.core == 9


async def test_sort_by_project_with_several_projects_only(two, project) -> None:
    """`s` goes through `project` with several projects (A→Z, each one's newest first), and
    leaves it out with one."""
    app = make_app(None, scope=two, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("s", "s", "s")  # activity → start → name → project
        assert app.main_screen.sort == "project"
        await wait_until(
            pilot,
            lambda: table_ids(app)[0].startswith("api/"),
            what="the list to start with api's sessions",
        )
        ids = table_ids(app)
        assert ids == sorted(ids, key=lambda i: i.split("/")[0])
        assert ids[0] == "api/2026-03-10-map-onboarding"  # api's newest activity first
        assert "sort: project" in bar_text(app)
        await pilot.press("s")
        assert app.main_screen.sort == "activity"
    one = make_app(project, clock=fixed_clock)
    async with one.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("s", "s", "s")
        assert one.main_screen.sort == "activity"  # name → activity: no project sort


async def test_the_reviews_view_shows_one_project_with_p(two, project) -> None:
    from ocr_tui.ui.screens.ocr.reviews.screen import ReviewsScreen

    app = make_app(None, scope=two, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("r")
        await wait_until(
            pilot, lambda: isinstance(app.screen, ReviewsScreen), what="the reviews screen to open"
        )
        screen = app.screen
        every = len(screen.shown)
        assert {r.project for r in screen.shown} == {"api", "web"}
        await pilot.press("p")
        await wait_until(
            pilot,
            lambda: {r.project for r in screen.shown} == {"api"},
            what="the reviews to show api's rounds only",
        )
        await pilot.press("p")
        await wait_until(
            pilot,
            lambda: {r.project for r in screen.shown} == {"web"},
            what="the reviews to show web's rounds only",
        )
        await pilot.press("p")
        await wait_until(
            pilot, lambda: len(screen.shown) == every, what="the reviews to show every round again"
        )
    one = make_app(project, clock=fixed_clock)
    async with one.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("r")
        await wait_until(
            pilot, lambda: isinstance(one.screen, ReviewsScreen), what="the reviews screen to open"
        )
        assert not one.screen.check_action("cycle_project", ())


async def test_a_search_puts_the_cursor_on_its_first_match(two) -> None:
    """With the cursor low in the list, a search that hides its row starts at the first
    match (not at the match that happens to sit where the cursor was)."""
    app = make_app(None, scope=two, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("G")  # the last row
        low = app.main_screen.table.highlighted_id
        await pilot.press("slash", *"feat-auth", "enter")
        await wait_until(
            pilot, lambda: len(table_ids(app)) == 2, what="the search to leave 2 sessions"
        )
        assert low not in table_ids(app)
        assert app.main_screen.table.highlighted_id == table_ids(app)[0]
        # a session the search keeps stays highlighted
        await pilot.press("j")
        kept = app.main_screen.table.highlighted_id
        await pilot.press("escape")
        await wait_until(
            pilot, lambda: len(table_ids(app)) == 8, what="the list to show all 8 sessions again"
        )
        assert app.main_screen.table.highlighted_id == kept


def test_ids_that_read_the_same_in_two_projects_lose_their_prefix() -> None:
    """`main` of api and `main` of web are told apart by the Project column: they lose
    their day as unique ids do; two `main`s of one project keep it."""
    from ocr_tui.core.display import ambiguous
    from ocr_tui.ui.screens.sessions.cells import IdFit

    ids = ["2026-11-22-main", "2026-11-23-main", "2026-11-23-fix"]
    assert ambiguous(ids, ["api", "web", "api"]) == frozenset()
    assert ambiguous(ids, ["api", "api", "web"]) == {"2026-11-22-main", "2026-11-23-main"}
    assert ambiguous(ids) == {"2026-11-22-main", "2026-11-23-main"}  # one project
    fit = IdFit()
    fit.update(ids, ["api", "web", "api"])
    assert fit.keep == frozenset() and fit.core == len("main")
    fit.update(ids + ["2026-11-24-main"], ["api", "web", "api", "web"])
    assert fit.keep == {"2026-11-23-main", "2026-11-24-main"}
