"""A project with every format, driven by keys: the list shows each with its format, `t`
filters by format, Enter drills into a code workflow's phases, steps and documents."""

from __future__ import annotations

from textual.pilot import Pilot

from ocr_tui.ui.app import make_app
from ocr_tui.ui.screens.document import DocumentScreen
from ocr_tui.ui.screens.session import SessionScreen
from ocr_tui.ui.widgets.drill_table import DrillTable
from ocr_tui.ui.widgets.format_panes import FormatPanes

from .builders import SIZE, fixed_clock, loaded, table_ids, wait_until
from .mixed_project import mixed_project


async def settle(pilot: Pilot) -> None:
    await loaded(pilot)
    pilot.app.clear_notifications()
    await pilot.pause()


async def test_mixed_project_by_keys(home) -> None:
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        frameworks = {v.framework for v in app.sessions.values()}
        assert frameworks == {"ocr", "code", "analysis", "idumb"}
        analysis = next(v for v in app.sessions.values() if v.framework == "analysis")
        assert analysis.waiting and analysis.phase_label == "Plan Review"
        assert app.headers and app.headers[0].framework == "idumb"
        assert "iDumb" in str(app.main_screen.query_one("#headers").render())
        # t cycles: all -> ocr -> analysis -> code -> idumb -> all
        await pilot.press("t")
        assert {app.sessions[i].framework for i in table_ids(app)} == {"ocr"}
        while app.main_screen.format != "code":
            await pilot.press("t")
        ids = table_ids(app)
        assert ids and all(app.sessions[i].framework == "code" for i in ids)
        # drill into the running code workflow (newest activity first)
        assert ids[0] == "260310-rate-limiter"
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen))
        screen = app.screen
        assert screen.query_one(FormatPanes).display
        steps = screen.query_one("#steps", DrillTable)
        assert steps.row_count == 3  # 3× scouter
        assert not screen.query_one("#rounds-pane").display
        await pilot.press("escape")
        await pilot.press("j", "enter")  # the finished one: its reports and the spec
        await wait_until(
            pilot,
            lambda: (
                isinstance(app.screen, SessionScreen)
                and app.screen.session_id == "260310-jwt-auth-refresh-token"
            ),
        )
        docs = app.screen.query_one("#documents", DrillTable)
        await wait_until(pilot, lambda: docs.row_count >= 4)
        assert "../../.specs/jwt.md" in docs.row_keys
        docs.focus()
        docs.move_cursor(row=docs.row_keys.index("../../.specs/jwt.md"))
        await pilot.press("enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DocumentScreen))
        await wait_until(pilot, lambda: "JWT spec" in (app.screen.text or ""))


def test_snapshot_mixed_main_screen(snap_compare, home) -> None:
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_snapshot_code_workflow_session(snap_compare, home) -> None:
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)

    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        app.open_session("260310-jwt-auth-refresh-token")
        await wait_until(pilot, lambda: isinstance(app.screen, SessionScreen))
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


async def test_palette_offers_each_format_and_titles(home) -> None:
    from ocr_tui.ui.commands import SessionCommands

    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        provider = SessionCommands(app.screen)
        commands = {title: call for title, call, _ in provider._commands()}
        assert "Format: Scientific analysis" in commands
        assert any(
            t.startswith("Session: 260310-rate-limiter (Add a rate limiter") for t in commands
        )
        commands["Format: iDumb"]()
        await wait_until(pilot, lambda: app.main_screen.format == "idumb")
        assert {app.sessions[i].framework for i in table_ids(app)} == {"idumb"}


def test_status_and_watch_show_every_format(home, capsys) -> None:
    import json
    import subprocess
    import sys

    from ocr_tui.cli import main

    root = home / "proj"
    mixed_project(root)
    assert main(["status", "--json", str(root)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert {s["framework"] for s in doc["sessions"]} == {"ocr", "code", "analysis", "idumb"}
    assert [h["framework"] for h in doc["headers"]] == ["idumb"]
    assert main(["status", str(root)]) == 0
    table = capsys.readouterr().out
    assert table.startswith("FORMAT") and "needs" not in table.splitlines()[0]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ocr_tui", "watch", "--jsonl", str(root)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        first = json.loads(proc.stdout.readline())
        assert first["type"] == "headers" and first["headers"][0]["framework"] == "idumb"
    finally:
        proc.terminate()
        proc.wait(timeout=10)
