"""The dashboard follows the disk while it runs: files are written under a running app and the
tests poll the table until it shows the change."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta

from textual.widgets import Static

from ocr_tui.cli import make_app
from ocr_tui.core.project import Project
from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.screens.sessions.session_table import SessionTable

from .builders import (
    NOW,
    SIZE,
    RoundSpec,
    final_md,
    fixed_clock,
    iso,
    loaded,
    table_ids,
    wait_until,
    write_session,
)

AUTH = "2026-03-10-feat-auth"


def record_toasts(app: OcrTuiApp, monkeypatch) -> list[str]:
    """The change toasts' texts, as they are posted."""
    toasts: list[str] = []
    monkeypatch.setattr(app._toasts, "post", lambda note, *_: toasts.append(str(note.message)))
    return toasts


def phase_of(app: OcrTuiApp, sid: str) -> str:
    return app.main_screen.table.get_cell(sid, "phase").plain


def set_state(project: Project, sid: str, **fields) -> None:
    path = project.sessions_dir / sid / "state.json"
    data = json.loads(path.read_text())
    data.update(fields)
    tmp = path.with_name("state.json.tmp")
    tmp.write_text(json.dumps(data))
    tmp.replace(path)


async def test_new_session_phase_change_and_round_completion(project, monkeypatch) -> None:
    app = make_app(project, clock=fixed_clock, bell=True)
    toasts = record_toasts(app, monkeypatch)
    bells: list[int] = []
    monkeypatch.setattr(app, "bell", lambda: bells.append(1))
    original = SessionTable.rows_changed

    def never_emptied(self, row_keys, **kw):  # rows are diffed by key, never cleared and re-added
        assert row_keys or not self.row_keys
        return original(self, row_keys, **kw)

    monkeypatch.setattr(SessionTable, "rows_changed", never_emptied)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.main_screen.table
        await pilot.press("j", "j")  # the cursor sits on fix-cache while others change
        assert table.highlighted_id == "2026-03-10-fix-cache"

        write_session(project, "2026-03-10-new-thing", started=NOW - timedelta(minutes=2))
        await wait_until(
            pilot,
            lambda: "2026-03-10-new-thing" in table_ids(app),
            what="the new session to be listed",
        )
        assert any("2026-03-10-new-thing" in t for t in toasts)

        set_state(project, AUTH, current_phase="discourse", updated_at=iso(NOW))
        await wait_until(
            pilot,
            lambda: phase_of(app, AUTH).endswith("Reviewer Discourse"),
            what="the session's phase to show Reviewer Discourse",
        )
        assert f"{AUTH}: Parallel Reviews → Reviewer Discourse" in toasts

        # The highlighted session's change shows in its row and the detail pane: no toast.
        set_state(project, "2026-03-10-fix-cache", status="closed", updated_at=iso(NOW))
        await wait_until(
            pilot,
            lambda: app.sessions["2026-03-10-fix-cache"].status == "closed",
            what="fix-cache to be read as closed",
        )
        set_state(project, "2026-03-10-fix-cache", current_phase="synthesis")
        await wait_until(
            pilot,
            lambda: phase_of(app, "2026-03-10-fix-cache").endswith("Synthesis"),
            what="fix-cache's phase to show Synthesis",
        )
        assert not any("fix-cache" in t for t in toasts)

        final = project.sessions_dir / AUTH / "rounds" / "round-2" / "final.md"
        final.write_text(final_md("APPROVE", (0, 1, 2)))
        await wait_until(
            pilot,
            lambda: table.get_cell(AUTH, "verdict").plain == "APPROVE",
            what="the verdict cell to show APPROVE",
        )
        assert any("round 2 complete · APPROVE" in t for t in toasts)

        assert table.highlighted_id == "2026-03-10-fix-cache"
        assert len(bells) >= 3


async def test_removed_session_and_deleted_sessions_dir(project) -> None:
    app = make_app(project, clock=fixed_clock)
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        shutil.rmtree(project.sessions_dir / "2026-03-09-main")
        await wait_until(
            pilot,
            lambda: "2026-03-09-main" not in table_ids(app),
            what="2026-03-09-main to leave the list",
        )
        assert "2026-03-09-main" not in app.sessions

        shutil.rmtree(project.sessions_dir)
        empty = app.main_screen.query_one("#empty", Static)
        await wait_until(
            pilot,
            lambda: app.main_screen.has_class("-empty"),
            what="the list to show its empty state",
        )
        await wait_until(
            pilot,
            lambda: "was deleted" in str(empty.render()),
            what="the empty state to say the directory was deleted",
        )
        assert "keep waiting" in str(empty.render())
        assert table_ids(app) == []

        project.sessions_dir.mkdir()
        write_session(project, "2026-03-11-back", rounds=[RoundSpec({"principal-1": []})])
        await wait_until(
            pilot,
            lambda: table_ids(app) == ["2026-03-11-back"],
            what="the recreated session to be the only row",
        )
        assert not app.main_screen.has_class("-empty")


async def test_the_clock_ticks_without_a_fixed_clock(empty_project) -> None:
    now = datetime.now(UTC)
    # The list shows seconds in a session's first minute, then whole minutes (each change
    # repaints the list): started 30 s ago, the cell counts seconds.
    write_session(empty_project, "2026-03-10-live", started=now - timedelta(seconds=30), mtime=now)
    app = make_app(empty_project)  # real time: the 1 s timer runs
    async with app.run_test(size=SIZE) as pilot:
        await loaded(pilot)
        table = app.main_screen.table
        before = table.get_cell("2026-03-10-live", "elapsed").plain
        assert before.endswith("s") or before == "1m"
        await wait_until(
            pilot,
            lambda: table.get_cell("2026-03-10-live", "elapsed").plain != before,
            what="the elapsed time to tick",
        )
