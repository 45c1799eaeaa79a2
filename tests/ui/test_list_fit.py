"""The session list fits its cells (a new user's findings), at 80, 120 and 200 columns:

1. a layout that holds still: which columns show, the phase's bar and the room
   planned for a column whose values come from a known set (the phase's labels, the
   verdicts) depend on the width, the formats and the ids, never on the cells of the moment;
   the cells only share the room left, and no cell is cut while room is left (air, or an id
   wider than it needs);
2. a map session's row says its map run (`M1`, its files), never the review round it had
   before (`M1  5  6  APPROVE`: round 2's reviewers, findings and verdict).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

import pytest

from ocr_tui.cli import make_app
from ocr_tui.core import columns, display
from ocr_tui.core.view import (
    Elapsed,
    MapRun,
    MapSection,
    Reviewer,
    Round,
    SessionView,
    Severity,
)
from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.screens.sessions import layout as list_layout
from ocr_tui.ui.screens.sessions.cells import BAR_CELLS, TICKING, row_cells

from .builders import NOW, RoundSpec, fixed_clock, loaded, make_project, write_session
from .mixed_project import mixed_project

SIZES = [(80, 24), (120, 40), (200, 60)]
EVERY = {"ocr", "code", "analysis", "idumb"}

# Each column's widest cell in the demo the user tried (`phase`: its label, without the bar).
OCR_DEMO = {"id": 32, "id_core": 21, "phase": 22, "verdict": 16}
OCR_DEMO |= {"agents": 9, "round": 2, "reviewers": 1, "findings": 2, "flow": 6}
OCR_DEMO |= {"started": 12, "round_time": 2, "elapsed": 6, "activity": 8}
ALL_DEMO = OCR_DEMO | {"id": 32, "id_core": 26, "format": 8, "phase": 23}
ALL_DEMO |= {"agents": 22, "needs": 44}
CODE_DEMO = {"id": 29, "id_core": 22, "phase": 12, "agents": 22}
CODE_DEMO |= {"flow": 4, "started": 12, "elapsed": 3, "activity": 8}
# The demo's OCR sessions a minute in (Context Discovery): every cell blank but the phase's.
OCR_LATER = {"id": 32, "id_core": 21, "phase": 21, "flow": 6, "started": 12, "activity": 8}
NATURALS = {
    "ocr": ({"ocr"}, OCR_DEMO),
    "ocr-later": ({"ocr"}, OCR_LATER),
    "every": (EVERY, ALL_DEMO),
    "code": ({"code"}, CODE_DEMO),
}


def cells_width(s: columns.Shown) -> int:
    """The room a column gives its cells: without its air and its bar."""
    return s.width - s.air - (BAR_CELLS if s.bar else 0)


def check_fit(shown: list[columns.Shown], natural: Mapping[str, int]) -> None:
    """What the user saw, as rules: a cell is cut only when no room is left (no air between
    the columns, no id wider than its name: its prefix and air come last); a verdict column
    narrower than `REQUEST CHANGES` says the verdicts' short forms, whole."""
    width = {s.key: cells_width(s) for s in shown}
    cut = []
    for s in shown:
        spec = columns.BY_KEY[s.key]
        if s.key in TICKING or s.key == "id":
            continue  # as wide as its longest text; the id takes what is left
        need = max(len(s.label), min(spec.cap, natural.get(s.key, 0)))
        if s.key == "verdict" and width["verdict"] >= spec.short:
            need = min(need, spec.short)  # APPROVE, CHANGES, DISCUSS: whole
        if width[s.key] < need:
            cut.append(s.key)
    if cut:
        assert not any(s.air for s in shown), (cut, width)
        ids = natural.get("id_core", natural.get("id", 0))
        assert width["id"] <= max(len("Session"), columns.BY_KEY["id"].grow, ids), (cut, width)


# -- the plan ----------------------------------------------------------------------------------


@pytest.mark.parametrize("width", [w for w, _ in SIZES] + [100, 119, 150])
@pytest.mark.parametrize("case", NATURALS)
@pytest.mark.parametrize("sort", [("activity", False), ("started", False)])
def test_plan_cuts_no_cell_while_room_is_left(width, case, sort) -> None:
    formats, natural = NATURALS[case]
    shown = list_layout.plan(formats, natural, width, sort=sort)
    check_fit(shown, natural)
    assert sum(s.width + 2 for s in shown) == width


@pytest.mark.parametrize("width", range(60, 230, 3))
@pytest.mark.parametrize("case", ["ocr", "every", "code"])
def test_the_columns_never_depend_on_the_cells_of_the_moment(width, case) -> None:
    """From the first frame (every cell blank) to the end of a run (every cell at its widest),
    the same columns, the known columns as wide: only the id (and the phase's bar, air) make
    room for a cell that grew. OCR's cells all come from known sets: its bar stays too."""
    formats, widest = NATURALS[case]
    ids = {"id": widest["id"], "id_core": widest["id_core"]}
    first = list_layout.plan(formats, ids, width)
    for natural in (OCR_LATER | ids, widest) if case == "ocr" else (widest,):
        later = list_layout.plan(formats, natural, width)
        assert [s.key for s in later] == [s.key for s in first], width
        if case == "ocr":
            assert [s.bar for s in later] == [s.bar for s in first]
        before = {s.key: cells_width(s) for s in first}
        for s in later:
            if s.key in ("phase", "verdict", "round", "reviewers", "findings", *TICKING):
                assert cells_width(s) == before[s.key], (s.key, width, natural)


def test_a_verdict_column_planned_short_says_the_short_forms() -> None:
    """At 80 columns an OCR list plans its Verdict at the short forms: `REQUEST CHANGES`
    never pushes Elapsed out (it did, as the verdict came)."""
    shown = {s.key: s for s in list_layout.plan({"ocr"}, {"id_core": 16}, 79)}
    assert len("CHANGES") <= cells_width(shown["verdict"]) < len("REQUEST CHANGES")
    assert "elapsed" in shown and "activity" in shown
    assert columns.short_verdict("REQUEST CHANGES") == "CHANGES"
    assert columns.short_verdict("needs  discussion") == "DISCUSS"
    assert columns.short_verdict("Ship it with nits") == "Ship it with nits"


def test_the_demo_at_120_shows_the_verdict_and_phase_whole() -> None:
    """`8/8 Complete  R1  6  10  NEEDS D…  —  5m  5m  6d ago`, the Phase column 12 cells
    blank: now the verdict whole, a less-telling column gone."""
    shown = {s.key: cells_width(s) for s in list_layout.plan({"ocr"}, OCR_DEMO, 120)}
    assert shown["verdict"] >= len("NEEDS DISCUSSION")
    assert shown["phase"] >= len("4/6 Requirements Mapping")  # every OCR phase, whole
    assert {"round", "findings", "elapsed", "activity"} <= set(shown)
    assert "agents" not in shown  # the least telling gave way


def test_the_bar_comes_with_room_to_spare() -> None:
    shown = {s.key: s for s in list_layout.plan({"ocr"}, OCR_DEMO, 200)}
    assert shown["phase"].bar  # wide: the bar too
    assert "elapsed" in shown and "round_time" in shown
    narrow = {s.key: s for s in list_layout.plan({"ocr"}, OCR_DEMO, 120)}
    assert not narrow["phase"].bar


def test_a_column_grows_for_its_cells_and_never_shrinks_back() -> None:
    """The code demo's Agents cells (`1× reviewer, 2× scouter`) take the room left; Needs
    keeps the room planned for `your approval`, blank or not; and a column that grew keeps
    its width (`floors`) when its long cell goes."""
    shown = {s.key: cells_width(s) for s in list_layout.plan({"code"}, CODE_DEMO, 160)}
    assert shown["needs"] == len("your approval")
    assert shown["agents"] >= CODE_DEMO["agents"]
    floors = dict(shown)
    after = {s.key: cells_width(s) for s in list_layout.plan(
        {"code"}, CODE_DEMO | {"agents": 9}, 160, floors=floors)}  # fmt: skip
    assert after["agents"] == shown["agents"]


# -- the app, on the project holding every format -----------------------------------------------


def table_lines(app: OcrTuiApp) -> list[str]:
    table = app.main_screen.table
    return [table.render_line(y).text.rstrip() for y in range(table.size.height)]


def check_table(app: OcrTuiApp) -> None:
    table = app.main_screen.table
    check_fit(table.shown, table._natural)
    assert sum(s.width + 2 for s in table.shown) == table.scrollable_content_region.width


@pytest.mark.parametrize("size", SIZES)
async def test_every_format_at_each_width(home, size) -> None:
    app = make_app(mixed_project(home / "proj"), clock=fixed_clock)
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        app.clear_notifications()
        await pilot.pause()
        for _ in range(5):  # all the formats, then each alone (`t`)
            check_table(app)
            if "elapsed" in app.main_screen.table.columns_shown:
                assert not any("Tech Lead Analys…" in line for line in table_lines(app))
            await pilot.press("t")
            await pilot.pause()


def demo_like(home) -> OcrTuiApp:
    """The demo's OCR sessions: a live review in its discourse, a finished one whose verdict
    needs discussion, and a map session that reviewed before (round 2 approved)."""
    project = make_project(home / "ocr")
    reviewers = {f"r{i}": ["should_fix", "suggestion"] for i in range(6)}
    write_session(
        project, "2026-03-10-feat-live-review", phase="discourse", updated=NOW,
        rounds=[RoundSpec(reviewers={"r0": ["blocker"]})],
    )  # fmt: skip
    write_session(
        project, "2026-03-04-fix-token-refresh", phase="complete", status="closed",
        updated=NOW - timedelta(days=6),
        rounds=[RoundSpec(reviewers=reviewers, verdict="NEEDS DISCUSSION", counts=(1, 4, 5))],
    )  # fmt: skip
    write_session(
        project, "2026-03-06-feat-billing-webhooks", phase="flow-analysis", workflow="map",
        updated=NOW - timedelta(days=4), map_runs=[False],
        rounds=[RoundSpec(reviewers={"a": ["blocker"]}, verdict="REQUEST CHANGES"),
                RoundSpec(reviewers=reviewers, verdict="APPROVE")],
    )  # fmt: skip
    return make_app(project, clock=fixed_clock)


@pytest.mark.parametrize("size", SIZES)
async def test_ocr_sessions_at_each_width(home, size) -> None:
    app = demo_like(home)
    async with app.run_test(size=size) as pilot:
        await loaded(pilot)
        app.clear_notifications()
        await pilot.pause()
        check_table(app)
        table = app.main_screen.table
        lines = table_lines(app)
        text = "\n".join(lines)
        if size != (80, 24):
            assert "Reviewer Discourse" in text, text
            assert "NEEDS DISCUSSION" in text and "NEEDS D…" not in text, text
        else:  # at 80, the verdicts' short forms; the phase planned for every OCR phase's
            # label (`Requirements Mapping`) is cut to its `grow` beside a readable id
            assert "DISCUSS" in text and "NEEDS" not in text and "Elapsed" in text, text
            assert "Reviewer Discou…" in text
        # the map session: its map run, not round 2's reviewers, findings and verdict
        cells = {key: table.get_cell("2026-03-06-feat-billing-webhooks", key).plain
                 for key in ("round", "reviewers", "findings", "verdict")}  # fmt: skip
        # (a map run has no verdict: its files are the detail pane's, not the Verdict column's)
        assert cells == {"round": "M1", "reviewers": "—", "findings": "—", "verdict": "—"}
        assert "APPROVE" not in text


# -- the map session's cells ----------------------------------------------------------------------

T = datetime(2026, 11, 23, 19, 45, tzinfo=UTC)


def map_view(**kw) -> SessionView:
    none = Severity(medium=1)
    reviewers = [Reviewer(name=f"r{i}", label=f"R{i}", findings=1, severity=none, path=f"r{i}")
                 for i in range(5)]  # fmt: skip
    review = Round(number=2, complete=True, discourse=False, verdict="APPROVE", counts=None,
                   reviewers=reviewers, findings=6, path="rounds/round-2")  # fmt: skip
    fields = dict(
        framework="ocr",
        id="2026-11-23-feat-live-review", branch=None, source="ocr.db", status="active",
        workflow="map", phase="flow-analysis", phase_label="Flow Tracing", phase_number=3,
        phase_total=6, complete=False, started_at=None, updated_at=None, last_activity=None,
        stalled=False, elapsed=Elapsed(since=None, seconds=None, running=True),
        current_round=2, rounds=[review], current_map_run=1,
        map_runs=[MapRun(number=1, complete=False, files=None, path="map/runs/run-1")],
        problems=[], path="/s",
    )  # fmt: skip
    return SessionView(**{**fields, **kw})


def plain(cell) -> str:
    return "".join(text for text, _ in cell)


def test_a_map_row_says_its_map_run_not_the_review_round() -> None:
    cells = {k: plain(c) for k, c in row_cells(map_view(), T).items()}
    assert (cells["round"], cells["reviewers"], cells["findings"]) == ("M1", "—", "—")
    assert cells["verdict"] == "—"
    # A map run has no verdict: the Verdict column held its file count.
    runs = [MapRun(number=1, complete=True, files=12, path="m1")]
    assert plain(row_cells(map_view(map_runs=runs), T)["verdict"]) == "—"
    assert display.map_run_text(map_view(map_runs=runs)) == "12 files"  # the detail's words
    sections = [MapSection(number=n, title="s", files=n) for n in (1, 2, 3)]
    runs = [MapRun(number=1, complete=False, files=None, path="m1", sections=sections)]
    assert display.map_run_text(map_view(map_runs=runs)) == "6 files"
    # a map session before its first run: no unit yet, never the review round's `R2`
    assert plain(row_cells(map_view(current_map_run=None, map_runs=[]), T)["round"]) == "—"
    # a review session: its round, as before
    review = row_cells(map_view(workflow="review", current_map_run=None), T)
    assert [plain(review[k]) for k in ("round", "reviewers", "findings", "verdict")] == [
        "R2", "5", "6", "APPROVE",
    ]  # fmt: skip
