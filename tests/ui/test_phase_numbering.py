"""One numbering, words and units: a scientific analysis showed `3/8` in the
list, `phase 2 (…)` in its details and `approval 3` beside `4 Structure Review`; raw enum
values (`status in_progress`); iDumb's `compacted (185283)` had no unit. Every pane now counts
phases from 1, as the timeline and the list's fraction do, in words, with units."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

from ocr_tui.ui import fmt
from ocr_tui.ui.screens.session.screen import SessionScreen
from ocr_tui.ui.widgets.fit_table import FitTable
from ocr_tui.ui.widgets.labelled_rows import LabelledRows

from .drilldown_tree import DrillApp
from .mixed_project import mixed_project
from .test_drilldown import wait_for

NOW = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)


def shown(app) -> bool:
    return isinstance(app.screen, SessionScreen) and app.screen._last_meta is not None


def first_of(app: DrillApp, framework: str) -> str:
    return next(v.id for v in app.sessions.values() if v.framework == framework)


def text_of(app) -> tuple[str, str, list[str]]:
    """(timeline, facts, step labels) of the session screen shown."""
    screen = app.screen
    timeline = str(screen.query_one("#timeline").render())
    facts = " ".join(screen.query_one("#facts", LabelledRows).plain.split())
    steps = screen.query_one("#steps", FitTable)
    labels = [steps.get_row_at(i)[1].plain for i in range(steps.row_count)]
    return timeline, facts, labels


async def test_analysis_numbers_phases_as_the_timeline_does(home: Path) -> None:
    root = home / "proj"
    mixed_project(root)  # current_phase 4 (0-based): Plan Review; gate phase_3 approved
    app = DrillApp(root, lambda: SessionScreen(first_of(app, "analysis")), now=NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(
            pilot, lambda: shown(app), what="the session screen to open and draw the session"
        )
        view = app.sessions[first_of(app, "analysis")]
        timeline, facts, labels = text_of(app)
        assert fmt.phase_fraction(view) == "5/8"  # the list
        assert "▶ 5 Plan Review" in timeline and "4 Structure Review" in timeline
        assert "phase 5/8 Plan Review" in facts  # the list's words, not "phase phase 5 (…)"
        assert "phases done 1–4" in facts
        assert "approval phase 4 (Structure Review): approved" in facts
        assert "waiting on you phase 5 (Plan Review) needs your approval" in facts
        assert "approval: phase 4 (Structure Review)" in labels
        assert "phase 2 (Birds-Eye Planning)" in app.screen.query_one("#steps").get_row_at(0)[4]
        # Words, not the skill's enum values.
        assert "status in progress" in facts and "in_progress" not in facts
        assert not re.search(r"\b(gate|approval) \d", facts + " ".join(labels))


async def test_code_workflow_progress_in_words(home: Path) -> None:
    """`progress 2/6` beside the list's `3/6 Plan` read as two numberings of one thing."""
    root = home / "proj"
    mixed_project(root)
    sid = "260310-rate-limiter"
    app = DrillApp(root, lambda: SessionScreen(sid), now=NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(
            pilot, lambda: shown(app), what="the session screen to open and draw the session"
        )
        _, facts, _ = text_of(app)
        assert fmt.phase_fraction(app.sessions[sid]) == "3/6"
        assert "progress 2 of 6 phases done" in facts


async def test_idumb_compaction_has_a_unit(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    sessions = root / ".idumb" / "sessions"
    sessions.mkdir(parents=True)
    meta = {
        "sessionId": "ses_x", "createdAt": "2026-03-10T14:20:00Z",
        "lastUpdated": "2026-03-10T14:52:00Z", "phase": "2/4 (Phase 2: build)",
        "compactedAt": "2026-03-10T14:50:00Z", "contextSize": 185283,
    }  # fmt: skip
    (sessions / "ses_x.json").write_text(json.dumps(meta))
    app = DrillApp(root, lambda: SessionScreen("ses_x"), now=NOW)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(
            pilot, lambda: shown(app), what="the session screen to open and draw the session"
        )
        facts = " ".join(app.screen.query_one("#facts", LabelledRows).plain.split())
        assert "compacted 14:50 UTC (10m ago); the context was 185,283 tokens" in facts
        assert "compacted" in app.sessions["ses_x"].badges
        assert "185283" not in facts
