"""The session list's column plan and cells, without an app."""

from __future__ import annotations

from datetime import timedelta

import msgspec
import pytest

from ocr_tui.core.lenient import blank_view
from ocr_tui.core.timeutil import human_duration
from ocr_tui.core.view import Elapsed
from ocr_tui.ui.screens.sessions import layout as list_layout
from ocr_tui.ui.screens.sessions.cells import flow_text, session_seconds

from .builders import NOW, iso

NATURAL = {"id": 34, "phase": 29, "verdict": 16, "needs": 30, "agents": 22, "flow": 6}
NATURAL |= {"format": 5, "round": 2, "reviewers": 1, "findings": 2, "started": 12}
EVERY = {"ocr", "code", "analysis", "idumb"}


@pytest.mark.parametrize("width", [40, 60, 79, 100, 119, 150, 199, 260])
@pytest.mark.parametrize("formats", [{"ocr"}, {"code"}, EVERY])
@pytest.mark.parametrize("sort", [("activity", False), ("started", True), ("id", False)])
def test_plan_fits_and_keeps_what_matters(width, formats, sort) -> None:
    # An OCR-only list's Agents cells are blank unless agent commands run: the
    # column is planned all the same (columns never come and go with the cells).
    natural = NATURAL if formats != {"ocr"} else NATURAL | {"agents": 0}
    shown = list_layout.plan(formats, natural, width, sort=sort)
    keys = [s.key for s in shown]
    assert keys[:2] == ["state", "id"] and sort[0] in keys
    assert "phase" in keys or width < 60
    assert keys == [s.key for s in list_layout.SPECS if s.key in keys]  # in their order
    if width >= 60:
        assert sum(s.width + 2 for s in shown) == width  # the whole width, never more
    marked = [s for s in shown if s.label.endswith(("▲", "▼"))]
    assert [s.key for s in marked] == [sort[0]]
    # one meaning: ▲ the values ascend down the list (A→Z), ▼ they descend (newest first)
    ascending = (sort[0] == "id") != sort[1]
    assert marked[0].label.endswith("▲" if ascending else "▼")
    by_key = {s.key: s for s in shown}
    if width >= 79:
        assert by_key["id"].width >= 24  # a readable id before anything but the sorted one
    if "elapsed" in by_key:  # a ticking column holds its longest text without re-planning
        assert by_key["elapsed"].width >= len(human_duration(999 * 86400 + 23 * 3600))
    if "ocr" not in formats:
        assert not {"round", "reviewers", "findings", "verdict"} & set(keys)
    if formats == {"ocr"}:
        assert not {"format", "needs"} & set(keys)


def test_plan_drops_by_rank() -> None:
    wide = [s.key for s in list_layout.plan(EVERY, NATURAL, 260)]
    assert "round_time" not in wide  # several formats: no per-round time
    # (the Project column: with several projects only)
    assert set(wide) == {s.key for s in list_layout.SPECS} - {"round_time", "project"}
    narrow = [s.key for s in list_layout.plan(EVERY, NATURAL, 79)]
    assert narrow == ["state", "id", "phase", "needs", "activity"]


def test_the_project_column_comes_with_several_projects_and_stays() -> None:
    """One project listed: no column. Several: right after the glyph, kept at every width as
    the id is (a session is known by both), as wide as the longest name listed."""
    several = NATURAL | {"project": 8}
    for width in (60, 79, 260):
        shown = list_layout.plan(EVERY, several, width, projects=["api", "frontend"])
        assert [s.key for s in shown][:3] == ["state", "project", "id"]
        assert shown[1].width >= len("frontend")
    for projects in ([], ["api"]):
        keys = [s.key for s in list_layout.plan(EVERY, several, 260, projects=projects)]
        assert "project" not in keys


def _view(framework: str, workflow: str):
    return blank_view("s", "/p", framework, workflow, source="x", problems=[], phase_total=6)


def test_flow_says_only_what_the_format_does_not() -> None:
    assert flow_text(_view("ocr", "review")) == "review"
    assert flow_text(_view("ocr", "map")) == "map"
    assert flow_text(_view("code", "code")) == ""
    assert flow_text(_view("code", "code:fast")) == "fast"
    assert flow_text(_view("analysis", "analysis")) == ""
    assert flow_text(_view("idumb", "session")) == ""
    assert flow_text(_view("plugin", "nightly")) == "nightly"


def test_session_time_counts_from_the_session_start() -> None:
    """OCR's elapsed counts from the round's start; the list's Elapsed from the session's:
    a closed session that ran 40 minutes, its last round 12 s, shows 40m."""
    start = NOW - timedelta(hours=2)
    round_start = start + timedelta(minutes=40) - timedelta(seconds=12)
    view = msgspec.structs.replace(
        _view("ocr", "review"),
        started_at=iso(start),
        elapsed=Elapsed(since=iso(round_start), seconds=12, running=False),
    )
    assert session_seconds(view, NOW) == 40 * 60
    running = msgspec.structs.replace(
        view, elapsed=Elapsed(since=iso(round_start), seconds=None, running=True)
    )
    assert session_seconds(running, NOW) == 2 * 3600
    same = msgspec.structs.replace(
        view, elapsed=Elapsed(since=iso(start), seconds=99, running=False)
    )
    assert session_seconds(same, NOW) == 99
