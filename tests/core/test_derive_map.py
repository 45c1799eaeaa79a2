"""Map-workflow derivation: the artifact ladder, runs, topology file counts, current run."""

from __future__ import annotations

import pytest

from .builders import ago, final_md, iso, reviewer_md, topology_md

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


# --- phase keys both workflows have -------------------------------------
#
# `ocr state init --workflow-type map` and `ocr state sync` of an unfinished map directory store
# workflow_type=map with current_phase=`context`, phase_number=1 (checked against OCR 1.10.4):
# `context` is a phase of both workflows, so it must not turn a stored map into a review.


def _at_context_map(s, layout: str) -> None:
    if layout in ("map", "standards", "topology"):
        s.mkdir("map")
    if layout in ("standards", "topology"):
        s.write("discovered-standards.md", "# Standards\n")
    if layout == "topology":  # what `ocr state sync` backfills as map/context/1
        s.run(1, topology=topology_md("a.py"))


def _assert_map_at_context(v, source: str) -> None:
    assert (v.source, v.workflow, v.phase, v.phase_label, v.phase_number, v.phase_total) == (
        source,
        "map",
        "map-context",
        "Context Discovery",
        1,
        6,
    )
    assert v.current_round is None and v.rounds == []
    assert v.current_map_run == 1
    assert [st.key for st in v.timeline if st.state == "current"] == ["map-context"]
    assert len(v.timeline) == 6
    assert not any("phase" in p for p in v.problems)


@pytest.mark.parametrize("layout", ["empty", "map", "standards", "topology"])
def test_db_map_row_at_context_is_a_map_at_phase_1_with_no_round(tree, layout):
    s = tree.session(SID)
    _at_context_map(s, layout)
    tree.db.session(SID, workflow_type="map", current_phase="context", phase_number=1).save()
    _assert_map_at_context(tree.view(SID), "ocr.db")


def test_db_map_row_backfilled_by_state_sync_is_a_closed_map(tree):
    # `ocr state sync` of an unfinished map directory: map, context, 1, closed.
    s = tree.session(SID)
    _at_context_map(s, "topology")
    tree.db.session(
        SID, workflow_type="map", status="closed", current_phase="context", phase_number=1
    ).save()
    v = tree.view(SID)
    _assert_map_at_context(v, "ocr.db")
    assert (v.status, v.complete, v.running) == ("closed", False, False)


@pytest.mark.parametrize("layout", ["empty", "map", "topology"])
def test_state_json_map_at_context_is_a_map_at_phase_1_with_no_round(tree, layout):
    s = tree.session(SID)
    _at_context_map(s, layout)
    s.state(workflow_type="map", current_phase="context", phase_number=1, status="active")
    _assert_map_at_context(tree.view(SID), "state.json")


def test_map_context_phase_event_is_the_map_context_step(tree):
    tree.session(SID)
    tree.db.session(SID, workflow_type="map", current_phase="context", phase_number=1)
    tree.db.event(SID, "phase_transition", ago(minutes=5), phase="context", phase_number=1)
    tree.db.save()
    v = tree.view(SID)
    assert v.timeline[0].key == "map-context" and v.timeline[0].at == iso(ago(minutes=5))


@pytest.mark.parametrize("store", ["ocr.db", "state.json"])
@pytest.mark.parametrize("with_map_run", [False, True])
def test_rounds_dir_in_a_map_session_at_context_is_a_review(tree, store, with_map_run):
    # `ocr state init` on an existing map session re-opens it at context without changing
    # workflow_type: a `rounds/` directory means a review has started inside the map session.
    s = tree.session(SID)
    s.mkdir("rounds/round-1/reviews")
    if with_map_run:
        s.run(1, topology=topology_md("a.py"), map_md="# map")
    if store == "ocr.db":
        tree.db.session(SID, workflow_type="map", current_phase="context", phase_number=1).save()
    else:
        s.state(workflow_type="map", current_phase="context", phase_number=1)
    v = tree.view(SID)
    assert (v.source, v.workflow, v.phase, v.phase_number, v.phase_total) == (
        store,
        "review",
        "context",
        1,
        8,
    )
    assert v.current_round == 1
    assert v.problems == []


@pytest.mark.parametrize("layout", [(), ("map/runs/run-1",), ("rounds/round-1",)])
@pytest.mark.parametrize("store", ["ocr.db", "state.json"])
def test_stored_review_at_context_is_a_review(tree, store, layout):
    s = tree.session(SID)
    for d in layout:
        s.mkdir(d)
    if store == "ocr.db":
        tree.db.session(SID, workflow_type="review", current_phase="context").save()
    else:
        s.state(workflow_type="review", current_phase="context", phase_number=1)
    v = tree.view(SID)
    assert (v.workflow, v.phase, v.phase_number, v.phase_total) == ("review", "context", 1, 8)
    assert v.current_round == 1


@pytest.mark.parametrize("layout", [(), ("map/runs/run-1",)])
def test_context_with_no_stored_workflow_follows_the_files(tree, layout):
    s = tree.session(SID)
    for d in layout:
        s.mkdir(d)
    s.state(current_phase="context", phase_number=1)
    v = tree.view(SID)
    expected = ("map", "map-context", 1, None) if layout else ("review", "context", 1, 1)
    assert (v.workflow, v.phase, v.phase_number, v.current_round) == expected


@pytest.mark.parametrize(
    "stored, key, workflow",
    [
        ("review", "map-context", "map"),  # B6: a map started in a review session
        ("review", "topology", "map"),
        ("map", "change-context", "review"),  # its reverse: a review started in a map session
        ("map", "reviews", "review"),
        (None, "flow-analysis", "map"),
        (None, "discourse", "review"),
    ],
)
def test_a_key_only_one_workflow_has_decides_even_over_the_store(tree, stored, key, workflow):
    # `ocr state transition` never changes workflow_type, so the stored type is the session's
    # first workflow; the phase key is the latest write.
    s = tree.session(SID)
    s.round(1, final=final_md())
    s.run(1, map_md="# map")
    tree.db.session(SID, workflow_type=stored, current_phase=key).save()
    v = tree.view(SID)
    assert v.workflow == workflow and v.problems == []


# Shared `synthesis` and `complete` in a session that holds both workflows: the stored
# workflow_type names the first one, so the files say which workflow is at that phase.


def test_map_synthesis_after_a_review_upstream_b6_at_a_shared_key(tree):
    s = tree.session(SID)
    s.round(1, final=final_md(), mtime=ago(hours=2))
    s.run(1, topology=topology_md("a"), flow="# f", mtime=ago(minutes=10))
    tree.db.session(SID, workflow_type="review", current_phase="synthesis", phase_number=5).save()
    v = tree.view(SID)
    assert (v.workflow, v.phase_label, v.phase_number, v.phase_total) == (
        "map",
        "Map Synthesis",
        5,
        6,
    )


def test_review_synthesis_after_a_map(tree):
    s = tree.session(SID)
    s.run(1, map_md="# map", mtime=ago(hours=2))
    s.round(1, reviewers={"principal-1": reviewer_md("Low")}, discourse="# d")
    tree.db.session(SID, workflow_type="map", current_phase="synthesis", phase_number=7).save()
    v = tree.view(SID)
    assert (v.workflow, v.phase_label, v.phase_number, v.phase_total) == (
        "review",
        "Final Synthesis",
        7,
        8,
    )
    assert v.current_round == 1


@pytest.mark.parametrize("key", ["synthesis", "complete"])
@pytest.mark.parametrize(
    "stored, newer, workflow",
    [("map", "final.md", "review"), ("review", "map.md", "map"), ("map", "map.md", "map")],
)
def test_both_finished_the_one_that_finished_last_is_at_the_shared_phase(
    tree, key, stored, newer, workflow
):
    s = tree.session(SID)
    s.round(1, final=final_md(), mtime=ago(minutes=5 if newer == "final.md" else 50))
    s.run(1, map_md="# map", mtime=ago(minutes=5 if newer == "map.md" else 50))
    tree.db.session(SID, workflow_type=stored, current_phase=key).save()
    assert tree.view(SID).workflow == workflow


def test_complete_is_the_workflow_that_finished(tree):
    # e.g. `ocr state sync` of a finished review with an unfinished map: review, complete.
    s = tree.session(SID)
    s.round(1, final=final_md(), mtime=ago(hours=2))
    s.run(1, topology=topology_md("a"), mtime=ago(minutes=5))
    tree.db.session(SID, workflow_type="review", current_phase="complete", status="closed").save()
    v = tree.view(SID)
    assert (v.workflow, v.phase_number, v.phase_total, v.complete) == ("review", 8, 8, True)


@pytest.mark.parametrize("stored", ["review", "map"])
def test_both_unfinished_at_a_shared_phase_the_store_decides(tree, stored):
    s = tree.session(SID)
    s.round(1)
    s.run(1)
    tree.db.session(SID, workflow_type=stored, current_phase="synthesis").save()
    assert tree.view(SID).workflow == stored


@pytest.mark.parametrize(
    "stored, layout, workflow",
    [("map", "rounds/round-1", "review"), ("review", "map/runs/run-1", "map")],
)
def test_only_the_other_workflow_has_files_at_a_shared_phase(tree, stored, layout, workflow):
    s = tree.session(SID)
    s.mkdir(layout)
    tree.db.session(SID, workflow_type=stored, current_phase="synthesis").save()
    assert tree.view(SID).workflow == workflow
