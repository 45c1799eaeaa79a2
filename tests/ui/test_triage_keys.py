"""Triage from the keyboard on the findings screen: `m` and a state's key mark the finding at
the cursor in ocr.db (as OCR's dashboard writes it) and the table shows it; space selects
several, `m` marks them all; `u` undoes; `M` clears; `n` writes a note; Esc in the picker
changes nothing; `--read-only` writes nothing. A snapshot of the picker."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from textual.pilot import Pilot

from ocr_tui.cli import make_app
from ocr_tui.core.prefs import Prefs
from ocr_tui.core.project import Project
from ocr_tui.ui.navigation import FindingsTarget
from ocr_tui.ui.screens.ocr.findings.screen import FindingsScreen
from ocr_tui.ui.screens.ocr.triage.note_editor import NoteEditor
from ocr_tui.ui.screens.ocr.triage.picker import StatePicker
from ocr_tui.ui.widgets.drill_table import DrillTable

from .builders import SIZE, fixed_clock, loaded, wait_until

SIM = "2026-11-22-main"  # the simulator's closed review of two rounds, parsed into ocr.db


@pytest.fixture
def root(sim_root: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "sim"
    shutil.copytree(sim_root, copy, symlinks=True)
    return copy


def db_rows(root: Path, sql: str) -> list[tuple]:
    con = sqlite3.connect(f"file:{root / '.ocr' / 'data' / 'ocr.db'}?mode=ro", uri=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def statuses(root: Path) -> dict[str, str]:
    """review_findings title -> its user_finding_progress status, round 1 of SIM."""
    return dict(
        db_rows(
            root,
            f"""
        SELECT f.title, p.status FROM user_finding_progress p
        JOIN review_findings f ON f.id = p.finding_id
        JOIN reviewer_outputs o ON o.id = f.reviewer_output_id
        JOIN review_rounds r ON r.id = o.round_id
        WHERE r.session_id = '{SIM}' AND r.round_number = 1""",
        )
    )


async def open_findings(pilot: Pilot) -> FindingsScreen:
    app = pilot.app
    await loaded(pilot)
    app.open_target(FindingsTarget(SIM, 1, "rounds/round-1"))
    await wait_until(pilot, lambda: isinstance(app.screen, FindingsScreen),
                     what="the findings screen to open")  # fmt: skip
    screen = app.screen
    await wait_until(pilot, lambda: screen.loads > 0 and screen.findings,
                     what="round 1's findings to be read")  # fmt: skip
    await pilot.pause()
    return screen


def cursor_title(screen: FindingsScreen) -> str:
    f = screen.cursor_finding()
    assert f is not None
    return f.title


def triage_cell(screen: FindingsScreen, title: str) -> str:
    f = next(f for f in screen.findings if f.title == title)
    return f.triage or ""


async def test_mark_undo_clear_select_and_note(root: Path) -> None:
    app = make_app(Project(root), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot)
        first = cursor_title(screen)
        original = statuses(root)
        want, key = ("wont_fix", "w") if original.get(first) == "fixed" else ("fixed", "f")
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, StatePicker),
                         what="the state picker")  # fmt: skip
        await pilot.press(key)
        await wait_until(pilot, lambda: statuses(root).get(first) == want,
                         what="the finding's rows marked in ocr.db")  # fmt: skip
        await wait_until(pilot, lambda: triage_cell(screen, first) == want,
                         what="the table to show the mark")  # fmt: skip
        await wait_until(pilot, lambda: screen.undo_marks is not None,
                         what="the mark's undo to be kept")  # fmt: skip
        await pilot.press("u")
        await wait_until(pilot, lambda: statuses(root) == original,
                         what="u to put the mark back as it was")  # fmt: skip
        # Space selects two, `m a` marks both.
        table = screen.query_one("#findings", DrillTable)
        table.move_cursor(row=0, animate=False)
        await pilot.press("space", "space")
        assert len(screen.selected) == 2
        picked = [f.title for f in screen.shown if f.id in screen.selected]
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, StatePicker),
                         what="the state picker")  # fmt: skip
        await pilot.press("a")
        await wait_until(
            pilot, lambda: all(statuses(root).get(t) == "acknowledged" for t in picked),
            what="both selected findings acknowledged in ocr.db",
        )  # fmt: skip
        assert screen.selected == frozenset()
        # `M` clears the one at the cursor; Esc in the picker changes nothing.
        table.move_cursor(row=0, animate=False)
        at_cursor = cursor_title(screen)
        await pilot.press("M")
        await wait_until(pilot, lambda: at_cursor not in statuses(root),
                         what="M to clear the finding's mark")  # fmt: skip
        now = statuses(root)
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, StatePicker),
                         what="the state picker")  # fmt: skip
        await pilot.press("escape")
        await wait_until(pilot, lambda: app.screen is screen, what="the picker to close")
        assert statuses(root) == now
        # `n`: a note on the finding.
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NoteEditor),
                         what="the note editor")  # fmt: skip
        await pilot.press(*"looks fixed")
        await pilot.press("ctrl+s")
        await wait_until(
            pilot,
            lambda: db_rows(root, "SELECT target_type, content FROM user_notes"
                            " WHERE content = 'looks fixed'") == [("finding", "looks fixed")],
            what="the note in user_notes",
        )  # fmt: skip


async def test_read_only_writes_nothing(root: Path) -> None:
    db = root / ".ocr" / "data" / "ocr.db"
    before = db.read_bytes()
    app = make_app(Project(root), clock=fixed_clock, prefs=Prefs(read_only=True))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_findings(pilot)
        await pilot.press("m", "f", "space", "n")
        await pilot.pause()
        assert app.screen is screen  # no picker, no editor
        assert db.read_bytes() == before


def test_snapshot_state_picker(snap_compare, root: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await open_findings(pilot)
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, StatePicker),
                         what="the state picker")  # fmt: skip
        pilot.app.clear_notifications()
        await pilot.pause()

    app = make_app(Project(root), clock=fixed_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_a_mark_dropped_before_the_start_is_written_again(root: Path) -> None:
    """A mark an earlier ocr-tui wrote, dropped since by a late OCR write: the dashboard
    writes it again from the journal, without a key."""
    import os

    from ocr_tui.formats.ocr import api
    from ocr_tui.formats.ocr.api import FindingMark

    db = root / ".ocr" / "data" / "ocr.db"
    rounds = api.read_rounds(str(root / ".ocr" / "sessions" / SIM), db, SIM)
    f = next(f for f in rounds[0].current if (f.triage or "") != "wont_fix")
    old = db.read_bytes()
    api.write_mark(db, FindingMark(session=SIM, round=1, finding=f.id, status="wont_fix",
                                   at=api.now_sql()))  # fmt: skip
    tmp = db.with_name(f"ocr.db.{os.getpid()}.tmp")
    tmp.write_bytes(old)
    os.rename(tmp, db)  # the late OCR write
    assert statuses(root).get(f.title) != "wont_fix"
    app = make_app(Project(root), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await wait_until(pilot, lambda: statuses(root).get(f.title) == "wont_fix",
                         what="the journal's mark written again")  # fmt: skip


def test_watch_writes_a_dropped_mark_again_at_start(root: Path) -> None:
    import os

    from ocr_tui.core.scope import Scope
    from ocr_tui.formats.ocr import api
    from ocr_tui.formats.ocr.api import RoundMark
    from ocr_tui.watch_stream import settle_journals

    db = root / ".ocr" / "data" / "ocr.db"
    old = db.read_bytes()
    api.write_mark(db, RoundMark(session=SIM, round=1, status="dismissed", at=api.now_sql()))
    tmp = db.with_name(f"ocr.db.{os.getpid()}.tmp")
    tmp.write_bytes(old)
    os.rename(tmp, db)
    settle_journals(Scope((Project(root),)))
    got = db_rows(
        root,
        f"SELECT p.status FROM user_round_progress p JOIN review_rounds r ON"
        f" r.id = p.round_id WHERE r.session_id = '{SIM}' AND r.round_number = 1",
    )
    assert got == [("dismissed",)]


def round_status(root: Path, number: int) -> str | None:
    got = db_rows(
        root,
        f"SELECT p.status FROM user_round_progress p JOIN review_rounds r ON"
        f" r.id = p.round_id WHERE r.session_id = '{SIM}' AND r.round_number = {number}",
    )
    return got[0][0] if got else None


async def test_round_triage_and_a_session_note_on_the_session_screen(root: Path) -> None:
    from ocr_tui.ui.navigation import SessionTarget
    from ocr_tui.ui.screens.session.screen import SessionScreen

    app = make_app(Project(root), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_target(SessionTarget(SIM))
        await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen),
                         what="the session screen")  # fmt: skip
        screen = app.screen
        await pilot.pause()
        sid, number, before = screen.round_at_cursor()
        want, key = ("in_progress", "i") if before != "in_progress" else ("dismissed", "d")
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, StatePicker),
                         what="the round's state picker")  # fmt: skip
        await pilot.press(key)
        await wait_until(pilot, lambda: round_status(root, number) == want,
                         what="the round's triage in ocr.db")  # fmt: skip
        await wait_until(pilot, lambda: screen.view.round(number).triage == want,
                         what="the session's view to follow")  # fmt: skip
        await wait_until(pilot, lambda: screen.undo_marks is not None,
                         what="the mark's undo to be kept")  # fmt: skip
        await pilot.press("u")
        await wait_until(pilot, lambda: round_status(root, number) == before,
                         what="u to put the round's triage back")  # fmt: skip
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NoteEditor),
                         what="the note editor")  # fmt: skip
        await pilot.press(*"ask Ana", "ctrl+s")
        await wait_until(
            pilot,
            lambda: db_rows(root, "SELECT target_type, target_id FROM user_notes WHERE content"
                            " = 'ask Ana'") == [("session", SIM)],
            what="the session's note in user_notes",
        )  # fmt: skip


async def test_round_triage_in_the_reviews_view(root: Path) -> None:
    from ocr_tui.ui.navigation import ReviewsTarget
    from ocr_tui.ui.screens.ocr.reviews.screen import ReviewsScreen

    app = make_app(Project(root), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_target(ReviewsTarget(session_id=SIM))
        await wait_until(pilot, lambda: isinstance(app.screen, ReviewsScreen),
                         what="the Reviews view")  # fmt: skip
        screen = app.screen
        await wait_until(pilot, lambda: screen.round_at_cursor() is not None,
                         what="a round at the cursor")  # fmt: skip
        sid, number, before = screen.round_at_cursor()
        assert sid == SIM
        want, key = ("dismissed", "d") if before != "dismissed" else ("acknowledged", "a")
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, StatePicker),
                         what="the round's state picker")  # fmt: skip
        await pilot.press(key)
        await wait_until(pilot, lambda: round_status(root, number) == want,
                         what="the round's triage in ocr.db")  # fmt: skip
        await wait_until(
            pilot, lambda: next(r for r in screen.rows if r.session_id == SIM
                                and r.number == number).triage == want,
            what="the Reviews view to show it",
        )  # fmt: skip


async def test_mark_and_note_on_one_findings_screen(root: Path) -> None:
    from ocr_tui.ui.navigation import FindingTarget
    from ocr_tui.ui.screens.ocr.finding.screen import FindingScreen

    app = make_app(Project(root), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        findings = await open_findings(pilot)
        f = findings.cursor_finding()
        want, key = ("read", "r") if f.triage != "read" else ("unread", "u")
        app.open_target(FindingTarget(SIM, 1, "rounds/round-1", f.id))
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, FindingScreen) and app.screen.finding is not None,
            what="the finding's screen",
        )
        screen = app.screen
        await pilot.press("m")
        await wait_until(pilot, lambda: isinstance(app.screen, StatePicker),
                         what="the state picker")  # fmt: skip
        await pilot.press(key)
        await wait_until(pilot, lambda: statuses(root).get(f.title) == want,
                         what="the finding marked in ocr.db")  # fmt: skip
        await wait_until(pilot, lambda: screen.finding.triage == want,
                         what="the finding's screen to show it")  # fmt: skip


MAP_SIM = "2026-11-19-feat-billing-webhooks"  # the simulator's map session, in ocr.db


def reviewed(root: Path) -> dict[str, int]:
    return dict(
        db_rows(
            root,
            f"""
        SELECT f.file_path, p.is_reviewed FROM user_file_progress p
        JOIN map_files f ON f.id = p.map_file_id JOIN map_sections s ON s.id = f.section_id
        JOIN map_runs r ON r.id = s.map_run_id WHERE r.session_id = '{MAP_SIM}'""",
        )
    )


async def test_a_map_file_marked_reviewed_and_back(root: Path) -> None:
    from ocr_tui.ui.navigation import MapRunTarget
    from ocr_tui.ui.screens.ocr.map_run.screen import MapRunScreen

    app = make_app(Project(root), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_target(MapRunTarget(MAP_SIM, 1, "map/runs/run-1"))
        await wait_until(pilot, lambda: isinstance(app.screen, MapRunScreen),
                         what="the map run screen")  # fmt: skip
        screen = app.screen
        await wait_until(pilot, lambda: screen.loads > 0 and screen.cursor_file() is not None,
                         what="the map run's files")  # fmt: skip
        file = screen.cursor_file()
        was = reviewed(root).get(file.path, 0)
        await pilot.press("m")
        await wait_until(pilot, lambda: reviewed(root).get(file.path) == (0 if was else 1),
                         what="the file's reviewed mark in ocr.db")  # fmt: skip
        await wait_until(pilot, lambda: screen.cursor_file().reviewed == (not was),
                         what="the files table to show it")  # fmt: skip
        await wait_until(pilot, lambda: screen.undo_marks is not None,
                         what="the mark's undo to be kept")  # fmt: skip
        await pilot.press("u")
        await wait_until(pilot, lambda: reviewed(root).get(file.path, 0) == was,
                         what="u to put it back")  # fmt: skip


async def test_a_session_note_changed_then_deleted(root: Path) -> None:
    from ocr_tui.ui.navigation import SessionTarget
    from ocr_tui.ui.screens.ocr.triage.notes_list import NotesList
    from ocr_tui.ui.screens.session.screen import SessionScreen

    app = make_app(Project(root), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_target(SessionTarget(SIM))
        await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen),
                         what="the session screen")  # fmt: skip
        screen = app.screen
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NoteEditor), what="note editor")
        await pilot.press(*"first", "ctrl+s")
        await wait_until(pilot, lambda: any(n.text == "first" for n in screen.view.notes),
                         what="the session's view to have the note")  # fmt: skip
        await pilot.press("N")
        await wait_until(pilot, lambda: isinstance(app.screen, NotesList), what="the notes list")
        listing = app.screen
        listing.query_one("OptionList").highlighted = next(
            i for i, n in enumerate(listing.notes) if n.text == "first"
        )
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, NoteEditor), what="note editor")
        await pilot.press("end", *" and second", "ctrl+s")
        await wait_until(
            pilot,
            lambda: (
                db_rows(root, "SELECT content FROM user_notes WHERE content LIKE 'first%'")
                == [("first and second",)]
            ),
            what="the note changed in ocr.db",
        )
        await wait_until(pilot, lambda: any(n.text == "first and second"
                                            for n in screen.view.notes),
                         what="the view to follow")  # fmt: skip
        await pilot.press("N")
        await wait_until(pilot, lambda: isinstance(app.screen, NotesList), what="the notes list")
        listing = app.screen
        listing.query_one("OptionList").highlighted = next(
            i for i, n in enumerate(listing.notes) if n.text == "first and second"
        )
        await pilot.press("d")
        await wait_until(
            pilot,
            lambda: (
                db_rows(root, "SELECT content FROM user_notes WHERE content LIKE 'first%'") == []
            ),
            what="the note deleted from ocr.db",
        )
        # (the row is gone inside the worker; `u` has something to undo once it reported back)
        await wait_until(pilot, lambda: screen.undo_marks is not None,
                         what="the deletion's undo to be kept")  # fmt: skip
        await pilot.press("u")
        await wait_until(
            pilot,
            lambda: (
                db_rows(root, "SELECT content FROM user_notes WHERE content LIKE 'first%'")
                == [("first and second",)]
            ),
            what="u to write the deleted note again",
        )


def test_snapshot_note_editor(snap_compare, root: Path) -> None:
    async def run_before(pilot: Pilot) -> None:
        await open_findings(pilot)
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(pilot.app.screen, NoteEditor),
                         what="the note editor")  # fmt: skip
        await pilot.press(*"Fixed in 3f2a; ", "enter", *"ask Ana to re-check.")
        pilot.app.clear_notifications()
        await pilot.pause()

    app = make_app(Project(root), clock=fixed_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def test_snapshot_notes_list(snap_compare, root: Path) -> None:
    from ocr_tui.ui.navigation import SessionTarget
    from ocr_tui.ui.screens.ocr.triage.notes_list import NotesList
    from ocr_tui.ui.screens.session.screen import SessionScreen

    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        await loaded(pilot)
        app.open_target(SessionTarget(SIM))
        await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen)
                         and bool(app.screen.view and app.screen.view.notes),
                         what="the session screen with its notes")  # fmt: skip
        await pilot.press("N")
        await wait_until(pilot, lambda: isinstance(app.screen, NotesList), what="the notes list")
        app.clear_notifications()
        await pilot.pause()

    app = make_app(Project(root), clock=fixed_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_a_rounds_triage_and_note_on_its_screen(root: Path) -> None:
    from ocr_tui.ui.navigation import RoundTarget
    from ocr_tui.ui.screens.ocr.round.screen import RoundScreen

    app = make_app(Project(root), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_target(RoundTarget(SIM, 2, "rounds/round-2"))
        await wait_until(pilot, lambda: isinstance(app.screen, RoundScreen), what="round 2")
        before = round_status(root, 2)
        want, key = ("needs_review", "n") if before != "needs_review" else ("dismissed", "d")
        await pilot.press("t")
        await wait_until(pilot, lambda: isinstance(app.screen, StatePicker), what="the picker")
        await pilot.press(key)
        await wait_until(pilot, lambda: round_status(root, 2) == want,
                         what="round 2's triage in ocr.db")  # fmt: skip
        await pilot.press("n")
        await wait_until(pilot, lambda: isinstance(app.screen, NoteEditor), what="note editor")
        await pilot.press(*"second look", "ctrl+s")
        await wait_until(
            pilot,
            lambda: db_rows(root, "SELECT n.target_type, r.round_number FROM user_notes n JOIN"
                            " review_rounds r ON CAST(n.target_id AS INTEGER) = r.id WHERE"
                            " n.content = 'second look'") == [("round", 2)],
            what="the round's note in user_notes",
        )  # fmt: skip
