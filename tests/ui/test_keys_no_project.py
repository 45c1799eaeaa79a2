"""Without a project, the list names every format's directory it looked for, and notices a
project created while it runs."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.core.registry import source_classes
from ocr_tui.ui.live import LiveApp

from .builders import SIZE, fixed_clock, sample_project, table_ids, wait_until


@pytest.fixture(autouse=True)
def quick_poll(monkeypatch) -> None:
    monkeypatch.setattr(LiveApp, "PROJECT_POLL_S", 0.05, raising=False)


def empty_text(app) -> str:
    return str(app.main_screen.query_one("#empty", Static).render())


async def test_no_project_names_every_format(home: Path) -> None:
    app = make_app(None, start_path=home / "code" / "nowhere", clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot,
            lambda: "No project found" in empty_text(app),
            what="the screen to say no project was found",
        )
        text = empty_text(app)
        for marker in (".ocr/", ".claude/.docs/", ".scientific-analysis-session/", ".idumb/"):
            assert marker in text
        for cls in source_classes():  # what the registry knows, plugins included
            assert cls.label in text
        assert "~/code/nowhere" in text and "Press d" in text


async def test_a_project_created_while_it_runs_is_shown(home: Path) -> None:
    root = home / "code" / "later"
    root.mkdir(parents=True)
    app = make_app(None, start_path=root / "src", clock=fixed_clock)  # looked for from below
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot,
            lambda: "No project found" in empty_text(app),
            what="the screen to say no project was found",
        )
        assert app.project is None
        assert app.sub_title == "no project"
        sample_project(root)  # `.ocr/` and its sessions appear
        await wait_until(
            pilot, lambda: app.project == Project(root), what="the app to find the new project"
        )
        await wait_until(
            pilot,
            lambda: len(table_ids(app)) == 6,
            what="the new project's 6 sessions to be listed",
        )
        assert not app.main_screen.has_class("-empty")
        assert app.sub_title == "~/code/later"  # the title names it too


async def test_another_formats_project_is_noticed_too(home: Path) -> None:
    root = home / "later"
    app = make_app(None, start_path=root, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot,
            lambda: "No project found" in empty_text(app),
            what="the screen to say no project was found",
        )
        (root / ".idumb").mkdir(parents=True)
        await wait_until(
            pilot,
            lambda: app.project == Project(root),
            what="the app to find the new iDumb project",
        )
        assert app.status != "no-project"
