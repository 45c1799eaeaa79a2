"""Map-workflow derivation: the artifact ladder, runs, topology file counts, current run."""

from __future__ import annotations

import pytest

from .builders import final_md, topology_md

SID = "2026-03-10-feat-map"


def _map_ladder(s, step: str) -> None:
    steps = ["standards", "topology", "flow", "reqmap", "map"]
    upto = steps[: steps.index(step) + 1] if step != "none" else []
    s.mkdir("map/runs/run-1")
    if "standards" in upto:
        s.write("discovered-standards.md", "# Standards\n")
    if "topology" in upto:
        s.write("map/runs/run-1/topology.md", topology_md("a.py", "b.py"))
    if "flow" in upto:
        s.write("map/runs/run-1/flow-analysis.md", "# Flow\n")
    if "reqmap" in upto:
        s.write("map/runs/run-1/requirements-mapping.md", "# Req\n")
    if "map" in upto:
        s.write("map/runs/run-1/map.md", "# Code Review Map\n")


@pytest.mark.parametrize(
    "step, phase, number, label",
    [
        ("none", "map-context", 1, "Context Discovery"),
        ("standards", "topology", 2, "Topology Analysis"),
        ("topology", "flow-analysis", 3, "Flow Tracing"),
        ("flow", "requirements-mapping", 4, "Requirements Mapping"),
        ("reqmap", "synthesis", 5, "Map Synthesis"),
        ("map", "complete", 6, "Complete"),
    ],
)
def test_map_artifact_ladder(tree, step, phase, number, label):
    s = tree.session(SID)
    _map_ladder(s, step)
    v = tree.view(SID)
    assert (v.source, v.workflow, v.phase, v.phase_number, v.phase_label, v.phase_total) == (
        "files",
        "map",
        phase,
        number,
        label,
        6,
    )
    assert v.complete is (phase == "complete")
    assert v.status == ("closed" if phase == "complete" else "active")
    assert v.current_round is None and v.current_map_run == 1


def test_map_ladder_uses_the_highest_run(tree):
    s = tree.session(SID)
    s.run(1, topology=topology_md("a"), map_md="# map")
    s.run(2)
    s.write("discovered-standards.md", "x")
    v = tree.view(SID)
    assert (v.phase, v.current_map_run) == ("topology", 2)
    assert [(r.number, r.complete) for r in v.map_runs] == [(1, True), (2, False)]


def test_map_dir_without_runs(tree):
    s = tree.session(SID)
    s.mkdir("map")
    v = tree.view(SID)
    assert (v.workflow, v.phase, v.current_map_run, v.map_runs) == ("map", "map-context", 1, [])


def test_runs_numeric_with_topology_file_counts(tree):
    s = tree.session(SID)
    s.run(1, topology=topology_md("a.py", "b.py", "c.py"), map_md="# map")
    s.run(10, topology="# Topology\n\nno canonical list\n")
    s.run(9, topology=topology_md())
    s.run(2)
    s.mkdir("map/runs/run-two")
    s.write("map/runs/run-3", "a file")
    v = tree.view(SID)
    assert [(r.number, r.complete, r.files) for r in v.map_runs] == [
        (1, True, 3),
        (2, False, None),
        (9, False, 0),
        (10, False, None),
    ]
    assert v.current_map_run == 10
    assert v.map_runs[0].path == "map/runs/run-1"


def test_current_map_run_from_the_state_when_no_run_directories(tree):
    s = tree.session(SID)
    s.state(workflow_type="map", current_phase="map-context", current_map_run=3)
    assert tree.view(SID).current_map_run == 3
    s.state(workflow_type="map", current_phase="map-context")
    assert tree.view(SID).current_map_run == 1


def test_highest_run_directory_beats_the_state(tree):
    s = tree.session(SID)
    s.run(1)
    s.run(2)
    s.state(workflow_type="map", current_phase="topology", current_map_run=1)
    assert tree.view(SID).current_map_run == 2


def test_current_map_run_is_null_for_a_review_only_session(tree):
    s = tree.session(SID)
    s.round(1)
    s.state(workflow_type="review", current_phase="reviews", current_map_run=1)
    v = tree.view(SID)
    assert v.current_map_run is None and v.map_runs == []


def test_review_and_map_in_one_session(tree):
    s = tree.session(SID)
    s.round(1, final=final_md("APPROVE"))
    s.round(2)
    s.run(1, topology=topology_md("x", "y"))
    s.state(workflow_type="map", current_phase="flow-analysis", current_round=2)
    v = tree.view(SID)
    assert (v.workflow, v.phase, v.phase_number) == ("map", "flow-analysis", 3)
    assert (v.current_round, v.current_map_run) == (2, 1)
    assert [r.number for r in v.rounds] == [1, 2]
    assert v.map_runs[0].files == 2


def test_map_complete_session_may_stay_active(tree):
    # Upstream's map workflow keeps status active after phase 6.
    s = tree.session(SID)
    s.run(1, map_md="# map")
    s.state(workflow_type="map", current_phase="complete", status="active")
    v = tree.view(SID)
    assert (v.status, v.complete, v.running) == ("active", True, False)


@pytest.mark.parametrize("stored", [0, -1])
def test_non_positive_stored_map_run_counts_as_absent(tree, stored):
    tree.session(SID).state(workflow_type="map", current_phase="topology", current_map_run=stored)
    assert tree.view(SID).current_map_run == 1
