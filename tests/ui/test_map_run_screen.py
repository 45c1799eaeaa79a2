"""The map run screen, in the real app on the sample project's map session
with OCR's dashboard records (`records_db`): sections, files, reviewed marks, dependencies,
`e` to the editor, live reviewed marks from ocr.db, hostile text shown safely, a snapshot."""

from __future__ import annotations

from textual.pilot import Pilot

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.ui.navigation import MapRunTarget
from ocr_tui.ui.screens.ocr.map_run.screen import MapRunScreen
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.widgets.fit_table import FitTable

from .builders import SIZE, fixed_clock, loaded, wait_until
from .records_db import MAP, RUN, give_records, replace_db


def cells(app, table_id: str, column: str) -> list[str]:
    t = app.screen.query_one(table_id, FitTable)
    return [t.get_cell(k, column).plain for k in t.row_keys] if t.display else []


def text(app, widget_id: str) -> str:
    return str(app.screen.query_one(widget_id).render())


async def open_run(pilot: Pilot) -> MapRunScreen:
    app = pilot.app
    await loaded(pilot)
    app.open_session(MAP)
    await wait_until(
        pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
    )
    app.open_target(MapRunTarget(MAP, 1, RUN))
    await wait_until(
        pilot, lambda: isinstance(app.screen, MapRunScreen), what="the map run screen to open"
    )
    screen = app.screen
    await wait_until(pilot, lambda: screen.loads > 0, what="the map run screen to load")
    await pilot.pause()
    return screen


async def test_map_run_by_keys(project: Project, monkeypatch) -> None:
    give_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_run(pilot)
        assert screen.query_one("#crumbs").plain == f"Sessions › {MAP} › Map run 1"
        assert text(app, "#map-count") == (
            "1 / 5 files reviewed · 2 sections · map-meta.json, marks from ocr.db"
        )
        assert cells(app, "#map-sections", "title") == ["Entry points", "Onboarding flow"]
        assert cells(app, "#map-sections", "reviewed") == ["█████░░░░░ 1/2", "░░░░░░░░░░ 0/3"]
        assert cells(app, "#map-files", "path") == ["src/app.py", "src/cli.py"]
        assert cells(app, "#map-files", "done") == ["✓", "·"]
        assert cells(app, "#map-files", "added") == ["+40", "+12"]
        assert "Where a new user lands" in text(app, "#map-section-about")
        assert text(app, "#map-dependencies") == "2 Onboarding flow → 1 Entry points  calls into"

        await pilot.press("j")  # the second section: its files
        assert cells(app, "#map-files", "path")[1] == "src/onboarding/[bold]form.py"
        assert cells(app, "#map-files", "role")[1] == "ui␛[31m"  # the escape made visible
        assert not app.screen.query_one("#map-section-about").display

        opened: list[tuple[str | None, int | None]] = []
        monkeypatch.setattr(
            "ocr_tui.ui.screens.ocr.map_run.screen.open_in_editor",
            lambda _node, file, line, _sid=None: opened.append((file, line)),
        )
        await pilot.press("enter")  # into the section's files
        assert app.focused is screen.query_one("#map-files")
        await pilot.press("j", "e")
        assert opened == [("src/onboarding/[bold]form.py", None)]
        await pilot.press("enter")  # Enter on a file opens it too
        assert opened[-1] == ("src/onboarding/[bold]form.py", None)

        await pilot.press("]")  # no later run
        await pilot.pause()
        assert screen.target == MapRunTarget(MAP, 1, RUN)
        await pilot.press("escape")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, SessionScreen),
            what="the session screen to be back",
        )


async def test_reviewed_marks_show_live(project: Project) -> None:
    """ocr.db replaced whole while the run is open: the file marked reviewed shows."""
    give_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await open_run(pilot)
        await pilot.press("j")
        assert cells(app, "#map-files", "done") == ["·", "·", "·"]
        replace_db(
            project.db_path,
            "INSERT INTO user_file_progress VALUES (2, 3, 1, '2026-03-10 14:59:30');"
            "INSERT INTO user_file_progress VALUES (3, 5, 1, '2026-03-10 14:59:40');",
        )
        await wait_until(
            pilot,
            lambda: cells(app, "#map-files", "done") == ["✓", "·", "✓"],
            what="the files table to show the new reviewed marks",
        )
        assert text(app, "#map-count").startswith("3 / 5 files reviewed")
        assert cells(app, "#map-sections", "reviewed")[1] == "███████░░░ 2/3"


async def test_a_run_without_sections(project: Project) -> None:
    """No map-meta.json, no map.md tables, no ocr.db: it says so, and `e` has nothing."""
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_run(pilot)
        assert text(app, "#map-count") == "No sections yet."
        assert "No review sections on this run's directory" in text(app, "#map-sections-empty")
        assert not screen.query_one("#map-files-pane").display
        assert not screen.query_one("#map-deps-pane").display
        await pilot.press("e")
        assert any("No file to open" in str(n.message) for n in app._notifications)


def test_snapshot_map_run_screen(snap_compare, project: Project) -> None:
    give_records(project)

    async def run_before(pilot: Pilot) -> None:
        await open_run(pilot)
        await pilot.press("j")
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(make_app(project, clock=fixed_clock), terminal_size=SIZE,
                        run_before=run_before)  # fmt: skip


def test_snapshot_map_run_screen_at_80_columns(snap_compare, project: Project) -> None:
    give_records(project)

    async def run_before(pilot: Pilot) -> None:
        await open_run(pilot)
        pilot.app.clear_notifications()
        await pilot.pause()

    assert snap_compare(make_app(project, clock=fixed_clock), terminal_size=(80, 24),
                        run_before=run_before)  # fmt: skip


async def test_the_session_screen_opens_its_map_run_by_key(project: Project) -> None:
    """`m` on a session opens its map run; Enter on a run's own row too; the key is hidden
    (and says why) on a session without one; the palette lists the run."""
    give_records(project)
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_session(MAP)
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
        assert "m" in app.screen.active_bindings
        await pilot.press("m")
        await wait_until(
            pilot, lambda: isinstance(app.screen, MapRunScreen), what="the map run screen to open"
        )
        assert (app.screen.session_id, app.screen.target.number) == (MAP, 1)
        await pilot.press("escape")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, SessionScreen),
            what="the session screen to be back",
        )

        plain = next(v.id for v in app.sessions.values() if not v.map_runs)
        app.open_session(plain)
        await wait_until(
            pilot,
            lambda: getattr(app.screen, "session_id", None) == plain,
            what="the session screen to open on a session without map runs",
        )
        await wait_until(
            pilot,
            lambda: app.screen.query("#timeline"),
            what="the session screen's timeline to be mounted",
        )  # mounted
        assert "m" not in app.screen.active_bindings
        await pilot.press("m")  # pressed anyway: it says why
        await pilot.pause()
        assert isinstance(app.screen, SessionScreen) and app.screen.session_id == plain
