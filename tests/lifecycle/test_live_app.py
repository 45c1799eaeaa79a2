"""The dashboard beside a live OCR run: a real app watches a simulated review,
re-review and map (ocr.db) as the simulator writes it, one action at a time. At every fifth
step (and the last) the simulator waits until the list row and the detail pane the user sees
say what `status --json` says of the same files: the state glyph, the phase, the round or map
run, its reviewers, findings and verdict, the agents; the pane's blockers."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from textual.pilot import Pilot

from ocr_tui.cli import make_app
from ocr_tui.core.engine import Engine, encode_json
from ocr_tui.core.project import Project
from ocr_tui.formats.ocr.sim import Simulator
from ocr_tui.ui.screens.sessions.detail_pane import DetailPane, Laid, LaidPane
from tests.ui.builders import wait_failure

from . import surfaces as S

START = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)
SIZE = (160, 50)  # the list and the detail pane's three panes side by side
EVERY = 5
ROW = ("state", "position", "label", "unit", "reviewers", "findings", "verdict", "agents")
PANE = ("state", "position", "reviewers", "findings", "verdict", "blockers")
CELLS = ("state", "phase", "round", "reviewers", "findings", "verdict", "agents", "needs",
         "elapsed", "round_time")  # fmt: skip


async def wait_for(pilot: Pilot, what: str, mismatch: Callable[[], str | None],
                   timeout: float = 20.0) -> None:  # fmt: skip
    """Poll the UI until `mismatch()` is None (else it says what still differs); after
    `timeout` seconds, fail saying what was waited for and what the screen showed."""
    deadline = time.monotonic() + timeout
    while (differs := mismatch()) is not None:
        if time.monotonic() > deadline:
            raise AssertionError(wait_failure(pilot.app, what, timeout, differs))
        await pilot.pause(0.05)


def status_json(root: Path, sid: str, now: datetime) -> dict:
    """`status --json`'s facts of the session, read afresh at `now`."""
    engine = Engine(Project(root), clock=lambda: now)
    engine.scan()
    return S.from_json(json.loads(encode_json(engine.snapshot())), sid)


def on_screen(app, sid: str, want: dict) -> str | None:
    """What the list row and the detail pane show that `status --json` (`want`) does not
    say; None when they agree."""
    screen = app.main_screen
    if sid not in screen.table.session_ids:
        return "no row yet"
    data = {k: "".join(t for t, _ in screen.table.row_cell_data(sid, k)) for k in CELLS}
    row = S.list_facts(data)
    pane = screen.query_one(DetailPane)
    if pane.session_id != sid:
        return f"the detail pane shows {pane.session_id}"
    info = pane.query_one("#dp-info", Laid).content_at(1000).plain  # one line a fact
    rounds = pane.query_one("#dp-rounds", LaidPane).plain
    review = (want.get("unit") or "").startswith("R")
    number = int(want["unit"][1:]) if review else None
    shown = S.pane_facts(info, None, rounds if review else None, number)
    diff = [f"list {k}: {row[k]!r} (json {want.get(k)!r})" for k in ROW if row[k] != want.get(k)]
    diff += [f"pane {k}: {shown[k]!r} (json {want.get(k)!r})" for k in PANE
             if k in shown and k in want and shown[k] != want[k]]  # fmt: skip
    return "; ".join(diff) or None


async def test_the_list_row_and_detail_pane_say_what_status_json_says(tmp_path: Path) -> None:
    sim = Simulator(tmp_path, store="ocr.db", seed=1, start=START, speed=0, history=1)
    steps = enumerate(sim.steps())
    next(steps)  # the live session exists: the newest row, highlighted
    now = [sim.now]
    sid = sim.live_session_id
    app = make_app(Project(tmp_path), clock=lambda: now[0])
    checked = []
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            "the first scan to list both sessions",
            lambda: (
                None
                if (
                    app.status != "loading"
                    and len(app.main_screen.table.session_ids) == 2
                    and all(v.source != "loading" for v in app.sessions.values())
                )
                else app.status
            ),
        )
        assert app.main_screen.select_session(sid)
        last = None
        for i, step in steps:
            now[0], last = sim.now, (i, step)
            if i % EVERY:
                continue
            want = status_json(tmp_path, sid, now[0])
            await wait_for(pilot, f"step {i} ({step.description}) on screen as status --json "
                           f"says it: {want['state']} {want['position']} {want['unit']} "
                           f"findings {want.get('findings')}",
                           lambda want=want: on_screen(app, sid, want))  # fmt: skip
            checked.append(i)
        i, step = last
        want = status_json(tmp_path, sid, now[0])
        assert want["state"] == "✓" and want["unit"] == "M1"  # closed, after its map run
        await wait_for(
            pilot,
            f"the last step ({step.description}) on screen as status --json says it: ✓ closed, M1",
            lambda: on_screen(app, sid, want),
        )
    assert len(checked) >= 12
