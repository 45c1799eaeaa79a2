"""A project with every format, driven by keys: the list shows each with its format, `t`
filters by format, Enter drills into a code workflow's phases, steps and documents."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from ocr_tui.cli import make_app
from ocr_tui.ui.screens.document.screen import DocumentScreen
from ocr_tui.ui.screens.session.screen import SessionScreen
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
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
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
            what="the session screen to open on 260310-jwt-auth-refresh-token",
        )
        docs = app.screen.query_one("#documents", DrillTable)
        await wait_until(
            pilot, lambda: docs.row_count >= 4, what="the documents table to list at least 4 files"
        )
        assert "../../.specs/jwt.md" in docs.row_keys
        docs.focus()
        docs.move_cursor(row=docs.row_keys.index("../../.specs/jwt.md"))
        await pilot.press("enter")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, DocumentScreen),
            what="the document screen to open on the spec",
        )
        await wait_until(
            pilot,
            lambda: "JWT spec" in (app.screen.text or ""),
            what="the document to show the JWT spec",
        )


def test_snapshot_mixed_main_screen(snap_compare, home) -> None:
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    assert snap_compare(app, terminal_size=SIZE, run_before=settle)


def test_snapshot_code_workflow_session(snap_compare, home) -> None:
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)

    async def run_before(pilot: Pilot) -> None:
        await settle(pilot)
        app.open_session("260310-jwt-auth-refresh-token")
        await wait_until(
            pilot, lambda: isinstance(app.screen, SessionScreen), what="the session screen to open"
        )
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
        await wait_until(
            pilot,
            lambda: app.main_screen.format == "idumb",
            what="the list to show the iDumb format",
        )
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
    head = table.splitlines()[0].split()
    assert head[:3] == ["SESSION", "STATUS", "FMT"] and "NEEDS" in head  # the list's words
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


# --- ids and phase cells ---------------------------------------------------------------------

ANALYSIS_ID = "session-20260310-143022-12345"


def _idumb_session(root, sid: str, phase: str) -> None:
    import json

    path = root / ".idumb" / "sessions" / f"{sid}.json"
    path.write_text(
        json.dumps(
            {
                "sessionId": sid,
                "createdAt": "2026-03-10T14:00:00Z",
                "lastUpdated": "2026-03-10T14:30:00Z",
                "phase": phase,
            }
        )  # fmt: skip
    )


def _phase_cell(app, sid: str) -> str:
    return app.main_screen.table.get_cell(sid, "phase").plain


async def _show(pilot: Pilot, sid: str) -> str:

    from ocr_tui.ui.screens.sessions.detail_pane import DetailPane

    app = pilot.app
    assert app.main_screen.table.select(sid)
    detail = app.main_screen.query_one(DetailPane)
    await wait_until(
        pilot, lambda: detail.session_id == sid, what="the detail pane to show the selected session"
    )
    return detail.query_one("#dp-info").plain


async def test_phase_cells_say_each_thing_once(home) -> None:
    """The list's phase cell and the detail pane give a session's place among its workflow's
    phases once (iDumb's free-text "2/4 (Phase 2: build)" is not shown as `2/4 2/4 (...`), a
    phase with no known total as its name alone (never `?/0` or `0/0`), and the place means
    the same in every format: the current phase's number (the code workflow's running plan
    is its 3rd phase, as `status` says)."""
    import re

    root = home / "proj"
    app = make_app(mixed_project(root), clock=fixed_clock)
    _idumb_session(root, "ses_positioned", "2/4 (Phase 2: build)")
    _idumb_session(root, "ses_alpha", "0/0 (Phase 0)")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        cells = {sid: _phase_cell(app, sid) for sid in app.sessions}
        for sid, text in cells.items():
            view = app.sessions[sid]
            fractions = re.findall(r"[?\d]+/[?\d]+", text)
            assert len(fractions) <= 1, (sid, text)
            assert not re.search(r"(^|\D)0/|/0(\D|$)", text), (sid, text)
            current = [s.number for s in view.timeline if s.state == "current"]
            place = current[0] if current else view.phase_number
            if view.phase_total:
                assert f"{place or '?'}/{view.phase_total}" in text, (sid, text)
        assert cells["ses_positioned"].split() == ["▰▰▱▱", "2/4", "Phase", "2:", "build"]
        assert cells["ses_alpha"].strip() == "Phase 0"
        assert cells["ses_3d0fdbb84ffeAN7FeCuPSp5ZW7"].strip() == "init"
        assert cells["260310-rate-limiter"].split() == ["▰▰▰▱▱▱", "3/6", "Plan"]
        info = await _show(pilot, "ses_positioned")
        assert "phase    ▰▰▱▱ 2/4 Phase 2: build" in info and info.count("2/4") == 1
        info = await _show(pilot, "ses_3d0fdbb84ffeAN7FeCuPSp5ZW7")
        assert "phase    init" in info and "/0" not in info and "?/" not in info
        assert "title" not in info  # iDumb has no title: not the phase a second time
        info = await _show(pilot, "260310-rate-limiter")
        assert "phase    ▰▰▰▱▱▱ 3/6" in info


async def test_analysis_rows_are_keyed_by_session_id(home) -> None:
    """The scientific analysis session is listed under its session_id; a copy of it in the
    archive (the same session_id) is a second row, named as a problem, and the keyed list
    does not fail on it."""
    import shutil

    root = home / "proj"
    app = make_app(mixed_project(root), clock=fixed_clock)
    live = root / ".scientific-analysis-session"
    shutil.copytree(live, root / ".scientific-analysis-session.archive")
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        analysis = {v.id: v for v in app.sessions.values() if v.framework == "analysis"}
        assert set(analysis) == {ANALYSIS_ID, f"{ANALYSIS_ID}~2"}
        assert set(analysis) <= set(table_ids(app))
        assert analysis[ANALYSIS_ID].problems == []
        assert analysis[f"{ANALYSIS_ID}~2"].problems
        assert app.main_screen.table.get_cell(f"{ANALYSIS_ID}~2", "state").plain == "✗"
        assert app.main_screen.table.get_cell(ANALYSIS_ID, "id").plain.startswith("session-2026")
        info = await _show(pilot, ANALYSIS_ID)
        assert ANALYSIS_ID in info and "RNA-seq of aging mouse liver" in " ".join(info.split())
        assert info.count(ANALYSIS_ID) == 1  # the title is not a copy of the id


def _view(label: str, number: int | None, total: int, current: int | None = None):
    from ocr_tui.core.lenient import blank_view
    from ocr_tui.core.view import PhaseStep

    view = blank_view("s", "/p", "plugin", "flow", source="x", problems=[], phase_total=total)
    view.phase_label, view.phase_number = label, number
    if current is not None:
        view.timeline = [
            PhaseStep(key=f"p{i}", label=f"P{i}", number=i, state="current" if i == current else "")
            for i in range(1, total + 1)
        ]
    return view


@pytest.mark.parametrize(
    ("label", "number", "total", "current", "fraction", "text"),
    [
        ("Plan Review", 5, 8, None, "5/8", "5/8 Plan Review"),
        ("Analysis", None, 8, None, "?/8", "?/8 Analysis"),  # place unknown: `?`, total kept
        ("Plan", 2, 6, 3, "3/6", "3/6 Plan"),  # 2 phases done, the 3rd running: its place is 3
        ("2/4 (Phase 2: build)", 2, 4, None, "2/4", "2/4 Phase 2: build"),  # label with place
        ("2/4", 2, 4, None, "2/4", "2/4"),
        ("Phase 2/5: build", 2, 5, None, "2/5", "Phase 2/5: build"),  # place inside: said there
        ("12/50 runs", 2, 5, None, "2/5", "2/5 12/50 runs"),  # another fraction is not the place
        ("init", None, 0, None, "", "init"),  # no total known: the name alone, never `?/0`
        ("0/0 (Phase 0)", None, 0, None, "", "0/0 (Phase 0)"),  # no total: the label as given
    ],
)
def test_phase_text_says_each_thing_once(label, number, total, current, fraction, text) -> None:
    """fmt's phase helpers, for any format (a plugin's too): the place among the phases and
    the label, each once; an unknown total is not shown as 0."""
    from ocr_tui.ui import fmt

    view = _view(label, number, total, current)
    assert fmt.phase_text(view) == text
    assert fmt.phase_text(view, label=False) == fmt.phase_fraction(view) == fraction
