"""The dashboard built with the sessions read while it was imported (`core.early_read`): its
first frame has their rows, the watcher's own read replaces them, and a stand-in never does."""

from __future__ import annotations

from ocr_tui.cli import make_app
from ocr_tui.core.early_read import Early
from ocr_tui.core.engine import Engine
from ocr_tui.ui.messages import SessionsScanned

from .builders import SIZE, fixed_clock, table_ids, wait_until
from .test_live import AUTH, phase_of, set_state


def early_of(project) -> Early:
    views = Engine(project, clock=fixed_clock).scan()
    return Early(str(project.root), True, views, [])


async def test_the_first_frame_shows_the_rows_read_early(project) -> None:
    early = early_of(project)
    app = make_app(project, clock=fixed_clock, early=early)
    first: list[list[str]] = []
    # The list as its screen mounts, before any watcher has run: already the sessions.
    app.call_after_refresh(lambda: first.append(table_ids(app)))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: first, what="the first frame")
        assert sorted(first[0]) == sorted(v.id for v in early.views)
        assert app.status == "ready"
        await wait_until(pilot, lambda: app.engine is not None, what="the watcher to start")
        await wait_until(
            pilot,
            lambda: not app.unread and app.sessions == {v.id: v for v in early.views},
            what="the watcher's read, equal to the early one",
        )


async def test_a_change_after_the_early_read_is_shown(project) -> None:
    early = early_of(project)
    before = phase_of_view(early, AUTH)
    set_state(project, AUTH, current_phase="synthesis", phase_number=7)  # after the read
    app = make_app(project, clock=fixed_clock, early=early)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: "7/8" in phase_of(app, AUTH), what="the phase written after the read"
        )
        assert before != app.sessions[AUTH].phase_number


def phase_of_view(early: Early, sid: str) -> int | None:
    return next(v.phase_number for v in early.views if v.id == sid)


async def test_a_stand_in_never_replaces_a_session_read_early(project, monkeypatch) -> None:
    early = early_of(project)
    app = make_app(project, clock=fixed_clock, early=early)
    monkeypatch.setattr(app, "start_watching", lambda: None)  # (the listing below is its)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.main_screen.table.row_count, what="the rows")
        # as the watcher's first listing comes: its stand-ins for every session
        assert app._early
        stand_ins = [_stand_in(v) for v in early.views]
        app.post_message(SessionsScanned(project, stand_ins, True))
        await pilot.pause()
        assert all(v.source != "loading" for v in app.sessions.values())
        assert app.unread == 0


def _stand_in(view):
    import msgspec

    return msgspec.structs.replace(view, source="loading")
