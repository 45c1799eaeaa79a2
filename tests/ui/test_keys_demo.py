"""`d` is a toggle: it switches to the demo, and again back to the project it left; the footer says
which (no `d Demo` while the demo runs)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.navigation import SessionTarget
from ocr_tui.ui.screens.sessions.screen import MainScreen

from .builders import SIZE, fixed_clock, loaded, make_project, table_ids, wait_until, write_session


@dataclass
class FakeDemo:
    root: Path
    stopped: list[bool] = field(default_factory=list)

    def stop(self, *, remove: bool = True) -> None:
        self.stopped.append(remove)


def fake_demo(home: Path, monkeypatch) -> FakeDemo:
    """`d` starts this: a project of one session, `demo-1`."""
    demo = FakeDemo(home / "demo")

    def start_demo() -> FakeDemo:
        write_session(make_project(demo.root), "2026-03-10-demo-1")
        return demo

    monkeypatch.setattr("ocr_tui.demo.start_demo", start_demo)
    return demo


def d_key(app: OcrTuiApp) -> tuple[str, str]:
    """What `d` does on the current screen, as the footer shows it."""
    binding = app.screen.active_bindings["d"].binding
    return binding.action, binding.description


async def until_stopped(demo: FakeDemo) -> None:
    for _ in range(200):
        if demo.stopped:
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the demo was not stopped")


async def test_d_toggles_the_demo_and_returns_to_the_project(
    app: OcrTuiApp, project: Project, home: Path, monkeypatch
) -> None:
    demo = fake_demo(home, monkeypatch)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        before = table_ids(app)
        assert d_key(app) == ("demo", "Demo")
        # From a drill-down screen: the demo is shown on the list, not under the session.
        app.open_target(SessionTarget(before[0]))
        await wait_until(
            pilot,
            lambda: len(app.screen_stack) == 2,
            what="the session screen to open over the list",
        )
        await pilot.press("d")
        await wait_until(
            pilot,
            lambda: table_ids(app) == ["2026-03-10-demo-1"],
            what="the demo's session to be listed",
        )
        assert app.project == Project(demo.root) and "demo" in app.sub_title
        assert isinstance(app.screen, MainScreen)
        assert d_key(app) == ("leave_demo", "Leave demo")  # not a second `d Demo`

        await pilot.press("d")  # back where we were
        await wait_until(
            pilot, lambda: app.project == project, what="the app to be back on the project"
        )
        await wait_until(
            pilot,
            lambda: sorted(table_ids(app)) == sorted(before),
            what="the project's sessions to be listed again",
        )
        await until_stopped(demo)
        assert "demo" not in app.sub_title
        assert d_key(app) == ("demo", "Demo")


async def test_d_without_a_project_returns_to_none(home: Path, monkeypatch) -> None:
    demo = fake_demo(home, monkeypatch)
    app = make_app(None, start_path=home / "nowhere", clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("d")
        await wait_until(
            pilot,
            lambda: table_ids(app) == ["2026-03-10-demo-1"],
            what="the demo's session to be listed",
        )
        await pilot.press("d")
        await wait_until(
            pilot,
            lambda: app.project is None and app.status == "no-project",
            what="the app to be back to no project",
        )
        await until_stopped(demo)
        assert table_ids(app) == [] and app.main_screen.has_class("-empty")
        assert app.sessions == {}
