"""The session list fits its cells (a new user's findings), at 80, 120 and 200 columns:

1. no cell is cut while a column has room to spare (`8/8 Complete` in a 21-cell Phase column
   planned for a bar it did not draw, beside `NEEDS D…`); when the room is short, the
   less-telling columns (Round time, Agents, Elapsed…) give way before a phase's label or a
   verdict is cut; the phase's bar only gets room no cell wants, never a column's;
2. a map session's row says its map run (`M1`, its files), never the review round it had
   before (`M1  5  6  APPROVE`: round 2's reviewers, findings and verdict).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

import pytest

from ocr_tui.cli import make_app
from ocr_tui.core import display
from ocr_tui.core.view import (
    Elapsed,
    MapRun,
    MapSection,
    Reviewer,
    Round,
    SessionView,
    Severity,
)
from ocr_tui.ui import list_layout
from ocr_tui.ui.app import OcrTuiApp
from ocr_tui.ui.list_cells import TICKING, row_cells

from .builders import NOW, RoundSpec, fixed_clock, loaded, make_project, write_session
from .mixed_project import mixed_project

SIZES = [(80, 24), (120, 40), (200, 60)]
EVERY = {"ocr", "code", "analysis", "idumb"}

# Each column's widest cell in the demo the user tried (`phase`: with its bar).
OCR_DEMO = {"id": 32, "id_core": 21, "phase": 31, "phase_label": 22, "verdict": 16}
OCR_DEMO |= {"agents": 9, "round": 2, "reviewers": 1, "findings": 2, "flow": 6}
OCR_DEMO |= {"started": 12, "round_time": 2, "elapsed": 6, "activity": 8}
ALL_DEMO = OCR_DEMO | {"id": 32, "id_core": 26, "format": 8, "phase": 32, "phase_label": 23}
ALL_DEMO |= {"agents": 22, "needs": 44}
CODE_DEMO = {"id": 29, "id_core": 22, "phase": 21, "phase_label": 12, "agents": 22}
CODE_DEMO |= {"flow": 4, "started": 12, "elapsed": 3, "activity": 8}
# The demo's OCR sessions a minute in (Context Discovery): `Rev` went for nothing.
OCR_LATER = OCR_DEMO | {"format": 3, "phase": 30, "phase_label": 21}
NATURALS = {
    "ocr": ({"ocr"}, OCR_DEMO),
    "ocr-later": ({"ocr"}, OCR_LATER),
    "every": (EVERY, ALL_DEMO),
    "code": ({"code"}, CODE_DEMO),
}


def check_fit(
    shown: list[display.Shown], natural: Mapping[str, int], bars: bool, sorted_key: str
) -> int:
    """What the user saw, as rules: a cut cell only when no column has room to spare; a cut
    phase label or verdict only when no column ranked after them is left to give way; the
    bar only when no cell is cut. Returns the room left (beyond every cell)."""
    width = {s.key: s.width for s in shown}
    cut, spare = [], 0
    for s in shown:
        spec = display.BY_KEY[s.key]
        if s.key in TICKING:
            continue  # as wide as its longest text, whatever the cells now
        if s.key == "id":  # narrower than the widest id: every row without its prefix
            whole = natural.get("id", 0)
            need = whole if s.width >= whole else natural.get("id_core", whole)
        else:
            cells = natural.get(s.key, 0)
            if s.key == "phase" and not bars:
                cells = natural.get("phase_label", cells)
            need = max(len(s.label), min(spec.cap, cells))
        if s.width < need:
            cut.append(s.key)
        elif s.key != "id":  # the id takes what is left (the table's width is filled)
            spare += s.width - need
    assert not (cut and spare), (cut, spare, width)
    if not cut and "id" in width:  # what the id has beyond its cells is room left too
        spare += width["id"] - min(natural.get("id_core", 999), natural.get("id", 0))
    assert not (cut and bars), (cut, width)
    for key in ("phase", "verdict"):
        if key in cut:
            yielding = [
                k for k in width
                if k != sorted_key and display.BY_KEY[k].rank > display.GIVE_WAY
            ]  # fmt: skip
            assert not yielding, (key, yielding, width)
    return spare


# -- the plan ----------------------------------------------------------------------------------


@pytest.mark.parametrize("width", [w for w, _ in SIZES] + [100, 119, 150])
@pytest.mark.parametrize("case", NATURALS)
@pytest.mark.parametrize("sort", [("activity", False), ("started", False)])
def test_plan_cuts_no_cell_while_room_is_left(width, case, sort) -> None:
    formats, natural = NATURALS[case]
    shown = list_layout.plan(formats, natural, width, sort=sort)
    phase = next(s for s in shown if s.key == "phase")
    spare = check_fit(shown, natural, phase.width >= natural["phase"], sort[0])
    assert sum(s.width + 2 for s in shown) == width
    # a column that gave way does not fit in the room left
    keys = {s.key for s in shown}
    for spec in list_layout.SPECS:
        if spec.key not in keys and display.applies(spec, formats, natural):
            cells = min(spec.grow or spec.cap, natural.get(spec.key, 0))
            narrowest = spec.cap if spec.key in TICKING else max(len(spec.header), cells)
            assert narrowest + 2 > spare, (spec.key, spare, keys)


def test_the_demo_at_120_shows_the_verdict_and_phase_whole() -> None:
    """`8/8 Complete  R1  6  10  NEEDS D…  —  5m  5m  6d ago`, the Phase column 12 cells
    blank: now the verdict whole, a less-telling column gone."""
    shown = {s.key: s.width for s in list_layout.plan({"ocr"}, OCR_DEMO, 120)}
    assert shown["verdict"] >= len("NEEDS DISCUSSION")
    assert shown["phase"] >= OCR_DEMO["phase_label"]
    assert shown["phase"] < OCR_DEMO["phase"]  # no room for the bar
    assert {"round", "findings", "elapsed", "activity"} <= set(shown)
    assert not {"reviewers", "agents"} <= set(shown)  # the least telling gave way


def test_the_bar_never_costs_a_column() -> None:
    """A plan for the labels alone keeps the same columns: the bar (9 cells) is never what
    makes Elapsed (or any other column) give way."""
    for formats, natural in NATURALS.values():
        for width in range(70, 230):
            with_bar = list_layout.plan(formats, natural, width)
            bare = {**natural, "phase": natural["phase_label"]}
            bare.pop("phase_label")
            without = list_layout.plan(formats, bare, width)
            assert [s.key for s in with_bar] == [s.key for s in without], width


def test_the_bar_comes_with_room_to_spare() -> None:
    shown = {s.key: s.width for s in list_layout.plan({"ocr"}, OCR_DEMO, 200)}
    assert shown["phase"] >= OCR_DEMO["phase"]  # wide: the bar too
    assert "elapsed" in shown and "round_time" in shown


def test_a_blank_column_keeps_no_room() -> None:
    """The code demo's Needs column held 13 blank cells beside `1× reviewe…`."""
    shown = {s.key: s.width for s in list_layout.plan({"code"}, CODE_DEMO, 118)}
    assert shown["needs"] == len("Needs")
    assert shown["agents"] >= CODE_DEMO["agents"]


# -- the app, on the project holding every format -----------------------------------------------


def table_lines(app: OcrTuiApp) -> list[str]:
    table = app.main_screen.table
    return [table.render_line(y).text.rstrip() for y in range(table.size.height)]


def check_table(app: OcrTuiApp) -> None:
    table = app.main_screen.table
    check_fit(table.shown, table._natural, table._bars.shown, app.main_screen.sort)
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
        assert "Reviewer Discourse" in text, text
        if size != (80, 24):  # at 80, nothing is left to give way: see check_fit
            assert "NEEDS DISCUSSION" in text and "NEEDS D…" not in text, text
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
    # A map run has no verdict: the Verdict column held its file count (issue 24, item 8).
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
