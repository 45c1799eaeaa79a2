"""One state vocabulary: precedence (attention outranks closed) and one glyph per state."""

from __future__ import annotations

import msgspec
import pytest

from ocr_tui.core.states import STATES, glyph, session_state
from ocr_tui.core.view import Elapsed, SessionView


def view(**kw) -> SessionView:
    base = SessionView(framework="ocr",
        id="s", branch=None, source="state.json", status="active", workflow="review",
        phase="reviews", phase_label="Parallel Reviews", phase_number=4, phase_total=8,
        complete=False, started_at=None, updated_at=None, last_activity=None, stalled=False,
        elapsed=Elapsed(since=None, seconds=None, running=False), current_round=None,
        rounds=[], current_map_run=None, map_runs=[], problems=[], path="/p",
    )  # fmt: skip
    return msgspec.structs.replace(base, **kw)


@pytest.mark.parametrize(
    ("kw", "state"),
    [
        ({}, "running"),
        ({"status": "closed"}, "closed"),
        ({"status": "closed", "alerts": ["interrupted"]}, "alert"),  # not a red ✓
        ({"status": "closed", "stalled": True}, "closed"),  # a closed session cannot stall
        ({"stalled": True, "alerts": ["x"]}, "stalled"),
        ({"problems": ["state.json is cut off"], "status": "closed"}, "problem"),
        ({"complete": True}, "waiting"),
        ({"source": "loading", "problems": ["x"]}, "loading"),
    ],
)
def test_attention_outranks_closed(kw, state) -> None:
    assert session_state(view(**kw)) == state


def test_one_glyph_per_state() -> None:
    glyphs = [glyph(s) for s in STATES]
    assert len(set(glyphs)) == len(glyphs)
