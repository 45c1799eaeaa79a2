"""Problems and stalls in plain words, where they are seen: the problem sat
below the fold of a narrow pane in a parser's words (`Input data was truncated`); a stall said
`no activity for a while`. Now the problems come first, under the session's header, and a
stall says how long against the limit: `no activity for 36m (limit 30m)`."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from ocr_tui.ui import fmt
from ocr_tui.ui.screens.session.screen import SessionScreen

from .drilldown_tree import NOW, SID, DrillApp, build_tree
from .test_drilldown import wait_for


def shown(app) -> bool:
    return isinstance(app.screen, SessionScreen) and app.screen._last_meta is not None


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
async def test_a_problem_is_in_plain_words_above_the_fold(tmp_path: Path, size) -> None:
    session = build_tree(tmp_path / "proj")
    (session / "state.json").write_text('{"session_id": "x", "current_phase": ')
    app = DrillApp(tmp_path / "proj", lambda: SessionScreen(SID))
    async with app.run_test(size=size) as pilot:
        await wait_for(
            pilot, lambda: shown(app), what="the session screen to open and draw the session"
        )
        await pilot.pause()
        screen = app.screen
        text = str(screen.query_one("#problems").render())
        assert text == f"{fmt.glyph('problem')} state.json is cut off (ends mid-object)"
        pane = screen.query_one("#problems-pane").region
        assert pane.bottom <= size[1] - 1  # on screen, above the footer, without scrolling
        assert pane.y < screen.query_one("#session-body").region.y


async def test_a_stall_says_for_how_long_against_the_limit(tmp_path: Path) -> None:
    build_tree(tmp_path / "proj")  # last activity 10:30; the default limit is 30 minutes
    now = NOW + timedelta(minutes=24)  # 11:06
    app = DrillApp(tmp_path / "proj", lambda: SessionScreen(SID), now=now)
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(
            pilot, lambda: shown(app), what="the session screen to open and draw the session"
        )
        assert app.sessions[SID].stalled
        meta = str(app.screen.query_one("#session-meta").render()).replace("\xa0", " ")
        assert "stalled: no activity for 36m (limit 30m)" in meta
        assert "a while" not in meta


def test_stall_text_uses_the_limit_it_is_given():
    view = build_view()
    assert fmt.stall_text(view, NOW, 90) == "no activity for 12m (limit 1m 30s)"
    assert fmt.stall_text(view, NOW, None) == "no activity for 12m"


def build_view():
    from ocr_tui.core.view import Elapsed, SessionView

    return SessionView(framework="ocr",
        id="x", branch=None, source="files", status="active", workflow="review", phase="p",
        phase_label="P", phase_number=None, phase_total=8, complete=False, started_at=None,
        updated_at=None, last_activity="2026-11-22T10:30:05Z", stalled=True,
        elapsed=Elapsed(since=None, seconds=None, running=True), current_round=None, rounds=[],
        current_map_run=None, map_runs=[], problems=[], path="/x",
    )  # fmt: skip
