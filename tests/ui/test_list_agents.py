"""Running agents on the session list and in `status`: OCR sessions' Agents
cells say the agent commands running (`1 running`, stale ones named and in the bad tone); the
other formats keep their phase's agents. The column is there for every format, whether agents
run or not (columns never come and go with the values of the moment)."""

from __future__ import annotations

from datetime import UTC, datetime

import msgspec

from ocr_tui.core.columns import COLUMNS, applies
from ocr_tui.core.display import agents_text
from ocr_tui.core.view import Elapsed, RunningAgent, SessionView
from ocr_tui.ui.screens.sessions.cells import row_cells

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
BASE = SessionView(framework="ocr",
    id="2026-03-10-a", branch="a", source="ocr.db", status="active", workflow="review",
    phase="reviews", phase_label="Parallel Reviews", phase_number=4, phase_total=8,
    complete=False, started_at=None, updated_at=None, last_activity=None, stalled=False,
    elapsed=Elapsed(since=None, seconds=None, running=True), current_round=1, rounds=[],
    current_map_run=None, map_runs=[], problems=[], path="/p",
)  # fmt: skip
AGENTS = next(s for s in COLUMNS if s.key == "agents")


def with_agents(*stale: bool | None) -> SessionView:
    agents = [RunningAgent(command="review", stale=s) for s in stale]
    return msgspec.structs.replace(BASE, agents=agents)


def test_agents_text():
    assert agents_text(BASE) == ""
    assert agents_text(with_agents(None)) == "1 running"
    assert agents_text(with_agents(False, True)) == "1 running · 1 stale"
    assert agents_text(with_agents(True)) == "1 stale"
    other = msgspec.structs.replace(BASE, framework="code", summary="2× reviewer")
    assert agents_text(other) == "2× reviewer"


def test_the_column_is_every_formats_whether_agents_run_or_not():
    assert applies(AGENTS, ["ocr"]) and applies(AGENTS, ["ocr", "code"])


def test_a_stale_agent_is_in_the_bad_tone():
    ((text, tone),) = row_cells(with_agents(True), NOW)["agents"]
    assert (text, tone) == ("1 stale", "bad")
    ((text, tone),) = row_cells(with_agents(False), NOW)["agents"]
    assert (text, tone) == ("1 running", "")
