"""The app-level contract the screens rely on, the demo key, the command palette, and the
coalescing of change bursts."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import msgspec
import pytest
from textual.command import CommandList, CommandPalette
from textual.widgets import Input

from ocr_tui.cli import make_app
from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.core.view import SessionView
from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.messages import SessionsChanged, WatchPolling

from .builders import NOW, SIZE, fixed_clock, loaded, sample_project, table_ids, wait_until


async def test_state_contract_and_signal(app: OcrTuiApp, project: Project) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert app.project == project
        assert app.now() == NOW
        assert app.fixed_clock
        assert set(app.sessions) == set(table_ids(app))
        assert all(isinstance(v, SessionView) for v in app.sessions.values())

        payloads: list[tuple[list[SessionView], list[str]]] = []
        app.sessions_signal.subscribe(app.main_screen, payloads.append, immediate=True)
        view = app.sessions["2026-03-09-main"]
        app.post_message(SessionsChanged(project, [], ["2026-03-09-main"], True))
        await wait_until(
            pilot, lambda: payloads, what="the sessions-changed signal to reach the listener"
        )
        assert payloads == [([], ["2026-03-09-main"])]
        assert "2026-03-09-main" not in app.sessions
        assert "2026-03-09-main" not in table_ids(app)

        # A message from another project (a replaced watcher) is ignored.
        app.post_message(SessionsChanged(Project(Path("/elsewhere")), [view], [], True))
        await pilot.pause(0.1)
        assert "2026-03-09-main" not in app.sessions


def test_bursts_coalesce_newer_wins(project: Project) -> None:
    base = Engine(project, clock=fixed_clock).scan()[0]

    def view(sid: str) -> SessionView:
        return msgspec.structs.replace(base, id=sid)

    b2, x = view("b"), view("x")
    older = SessionsChanged(project, [view("a"), view("b")], ["x", "y"], True)
    newer = SessionsChanged(project, [b2, x], ["a"], False)  # b changed again, x came back
    assert older.can_replace(newer)
    assert [v.id for v in newer.changed] == ["b", "x"]
    assert newer.changed[0] is b2
    assert newer.removed == ["a", "y"]
    assert newer.sessions_dir is False
    older = SessionsChanged(project, [view("c")], [], True)
    newer = SessionsChanged(project, [b2], [], True)
    assert older.can_replace(newer)
    assert [v.id for v in newer.changed] == ["c", "b"]
    assert not older.can_replace(SessionsChanged(Project(Path("/elsewhere")), [], [], True))


@dataclass
class FakeDemo:
    root: Path
    stopped: list[bool] = field(default_factory=list)

    def stop(self, *, remove: bool = True) -> None:
        self.stopped.append(remove)


async def test_d_starts_the_demo_from_the_empty_state(home: Path, monkeypatch) -> None:
    demo = FakeDemo(home / "demo")

    def start_demo() -> FakeDemo:
        sample_project(demo.root)
        return demo

    monkeypatch.setattr("ocr_tui.demo.start_demo", start_demo)
    app = make_app(None, start_path=home, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.main_screen.has_class("-empty")
        await pilot.press("d")
        await wait_until(
            pilot, lambda: len(table_ids(app)) == 6, what="the demo's 6 sessions to be listed"
        )
        assert app.project == Project(demo.root)
        assert "demo" in app.sub_title
        assert not app.main_screen.has_class("-empty")
    await wait_until_stopped(demo)


async def wait_until_stopped(demo: FakeDemo) -> None:
    import asyncio

    for _ in range(100):
        if demo.stopped:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the demo was not stopped on exit")


async def test_demo_flag_starts_it_on_mount(home: Path, monkeypatch) -> None:
    demo = FakeDemo(home / "demo")
    monkeypatch.setattr("ocr_tui.demo.start_demo", lambda: (sample_project(demo.root), demo)[1])
    app = make_app(None, clock=fixed_clock, demo=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot, lambda: len(table_ids(app)) == 6, what="the demo's 6 sessions to be listed"
        )
    await wait_until_stopped(demo)


async def test_palette_jumps_to_a_session_and_runs_actions(app: OcrTuiApp) -> None:
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.main_screen.table
        await pilot.press("3")  # closed only: the jump must widen the filter
        await pilot.press("ctrl+p")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, CommandPalette),
            what="the command palette to open",
        )
        await search_palette(pilot, "refactor-db")
        await wait_until(
            pilot,
            lambda: table.highlighted_id == "2026-03-08-refactor-db",
            what="the palette's jump to highlight 2026-03-08-refactor-db",
        )
        assert app.main_screen.filter == "all"

        await pilot.press("ctrl+p")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, CommandPalette),
            what="the command palette to open",
        )
        await search_palette(pilot, "Filter: closed")
        await wait_until(
            pilot,
            lambda: table_ids(app) == ["2026-03-09-main"],
            what="the closed filter to leave only 2026-03-09-main",
        )


async def search_palette(pilot, query: str) -> None:
    """Type into the palette at once (key by key is slow), pick the first hit."""
    palette = pilot.app.screen
    palette.query_one(Input).value = query
    await wait_until(
        pilot,
        lambda: palette.query_one(CommandList).option_count > 0,
        what="the palette to list matching commands",
    )
    await pilot.press("down", "enter")


async def test_polling_fallback_warns_and_marks_the_header(app: OcrTuiApp, monkeypatch) -> None:
    toasts: list[tuple[str, str]] = []
    monkeypatch.setattr(app, "notice", lambda m, **kw: toasts.append((m, kw.get("severity"))))
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        assert "polling" not in app.sub_title
        app.post_message(WatchPolling(app.project, "native file watching failed"))
        await wait_until(
            pilot, lambda: "polling" in app.sub_title, what="the header to say polling"
        )
        assert ("native file watching failed", "warning") in toasts


async def test_a_failing_watcher_is_reported_not_fatal(project: Project, monkeypatch) -> None:
    async def broken(engine, *, stop=None, poll=False, progressive=False):
        raise RuntimeError("disk on fire")
        yield  # an async generator

    monkeypatch.setattr("ocr_tui.core.watch.watch_project", broken)
    app = make_app(project, clock=fixed_clock)
    toasts: list[str] = []
    monkeypatch.setattr(app, "notice", lambda m, **kw: toasts.append(m))
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot,
            lambda: any("disk on fire" in t for t in toasts),
            what="a toast reporting the watcher's error",
        )
        assert app.is_running


async def test_open_document_pushes_the_document_screen(app: OcrTuiApp) -> None:
    try:
        from ocr_tui.ui.screens.document.screen import DocumentScreen
    except ImportError:
        pytest.skip("the document screen is not there yet")
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        app.open_document("2026-03-10-feat-auth", "context.md")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open",
        )
