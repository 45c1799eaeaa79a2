"""Review-workflow derivation: workflow, phase (stored and artifact-derived), status, rounds,
reviewers, findings, verdicts and counts, branch, legacy layout."""

from __future__ import annotations

import json

import pytest

from ocr_tui.formats.ocr.phases import MAP_PHASES, REVIEW_PHASES

from .builders import ago, final_md, iso, reviewer_md

SID = "2026-03-10-feat-x"


def has_problem(view, *words: str) -> bool:
    return any(all(w in p for w in words) for p in view.problems)


# --- the artifact ladder (no state at all) --------------------------------------------------


def test_empty_session_directory_is_a_review_at_context(tree):
    tree.session(SID)
    v = tree.view(SID)
    assert (v.source, v.workflow, v.phase, v.phase_number, v.phase_total) == (
        "files",
        "review",
        "context",
        1,
        8,
    )
    assert v.phase_label == "Context Discovery"
    assert v.status == "active" and v.complete is False
    assert v.current_round == 1 and v.rounds == []
    assert v.current_map_run is None and v.map_runs == []
    assert v.problems == []


def _ladder(s, step: str) -> None:
    steps = ["standards", "context", "reviews", "discourse", "final"]
    upto = steps[: steps.index(step) + 1] if step != "none" else []
    if "standards" in upto:
        s.write("discovered-standards.md", "# Standards\n")
    if "context" in upto:
        s.write("context.md", "# Context\n")
    if "reviews" in upto:
        s.round(1, reviewers={"principal-1": reviewer_md("High")})
    if "discourse" in upto:
        s.write("rounds/round-1/discourse.md", "# Discourse\n")
    if "final" in upto:
        s.write("rounds/round-1/final.md", final_md("APPROVE"))


@pytest.mark.parametrize(
    "step, phase, number, label",
    [
        ("none", "context", 1, "Context Discovery"),
        ("standards", "change-context", 2, "Change Context"),
        ("context", "analysis", 3, "Tech Lead Analysis"),
        ("reviews", "reviews", 4, "Parallel Reviews"),
        ("discourse", "synthesis", 7, "Final Synthesis"),
        ("final", "complete", 8, "Complete"),
    ],
)
def test_review_artifact_ladder(tree, step, phase, number, label):
    s = tree.session(SID)
    _ladder(s, step)
    v = tree.view(SID)
    assert (v.source, v.workflow, v.phase, v.phase_number, v.phase_label) == (
        "files",
        "review",
        phase,
        number,
        label,
    )
    assert v.complete is (phase == "complete")
    assert v.status == ("closed" if phase == "complete" else "active")


def test_ladder_looks_at_the_current_round_only(tree):
    s = tree.session(SID)
    s.write("context.md", "x")
    s.round(1, reviewers={"principal-1": "x"}, final=final_md())
    s.round(2)  # a new, empty round: the previous round's final.md does not make it complete
    v = tree.view(SID)
    assert v.phase == "analysis" and v.current_round == 2 and not v.complete
    s.write("rounds/round-2/reviews/principal-1.md", reviewer_md("Low"))
    assert tree.view(SID).phase == "reviews"


def test_ladder_ignores_non_markdown_in_reviews(tree):
    s = tree.session(SID)
    s.write("context.md", "x")
    s.write("rounds/round-1/reviews/notes.txt", "x")
    assert tree.view(SID).phase == "analysis"


# --- workflow -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "layout, state, workflow",
    [
        ((), None, "review"),
        (("rounds/round-1",), None, "review"),
        (("map/runs/run-1",), None, "map"),
        (("map",), None, "map"),
        (("map/runs/run-1", "rounds/round-1"), None, "review"),
        (("map/runs/run-1",), {"workflow_type": "review"}, "review"),
        (("rounds/round-1",), {"workflow_type": "map"}, "map"),
        ((), {"current_phase": "topology"}, "map"),
        ((), {"current_phase": "map-flow-tracing"}, "map"),
        ((), {"current_phase": "reviews"}, "review"),
        (("map/runs/run-1", "rounds/round-1"), {"current_phase": "flow-analysis"}, "map"),
        (("map/runs/run-1",), {"current_phase": "synthesis"}, "map"),  # shared key: files decide
        (("rounds/round-1",), {"current_phase": "synthesis"}, "review"),
    ],
)
def test_workflow_detection(tree, layout, state, workflow):
    s = tree.session(SID)
    for d in layout:
        s.mkdir(d)
    if state is not None:
        s.state(**state)
    assert tree.view(SID).workflow == workflow


def test_map_phase_key_beats_a_stale_review_workflow_type_upstream_b6(tree):
    # Upstream keeps workflow_type=review when a map starts in a review session (B6) and then
    # shows the map phase with a blank label; we show the map workflow.
    s = tree.session(SID)
    s.round(1, final=final_md())
    s.run(1)
    s.state(workflow_type="review", current_phase="map-context", status="active")
    v = tree.view(SID)
    assert (v.workflow, v.phase, v.phase_number, v.phase_label) == (
        "map",
        "map-context",
        1,
        "Context Discovery",
    )
    assert v.problems == []


def test_invalid_workflow_type_is_a_problem_and_treated_absent(tree):
    s = tree.session(SID)
    s.mkdir("map/runs/run-1")
    s.state(workflow_type="audit", current_phase="synthesis")  # a key both workflows have
    v = tree.view(SID)
    assert (v.workflow, v.phase_label) == ("map", "Map Synthesis")  # the files decide
    assert has_problem(v, "workflow_type", "audit")
    s.state(workflow_type=" review", current_phase="complete")
    v = tree.view(SID)
    assert v.workflow == "map" and has_problem(v, "workflow_type")


# --- phase from the state -------------------------------------------------------------------


@pytest.mark.parametrize(
    "number, key, label", [(i, k, lab) for i, (k, lab) in enumerate(REVIEW_PHASES, start=1)]
)
def test_review_phase_numbers_and_labels(tree, number, key, label):
    tree.session(SID).state(workflow_type="review", current_phase=key, phase_number=99)
    v = tree.view(SID)
    assert (v.phase, v.phase_number, v.phase_label, v.phase_total) == (key, number, label, 8)
    assert v.problems == []


@pytest.mark.parametrize(
    "number, key, label", [(i, k, lab) for i, (k, lab) in enumerate(MAP_PHASES, start=1)]
)
def test_map_phase_numbers_and_labels(tree, number, key, label):
    tree.session(SID).state(workflow_type="map", current_phase=key, phase_number=1)
    v = tree.view(SID)
    assert (v.phase, v.phase_number, v.phase_label, v.phase_total) == (key, number, label, 6)
    assert v.problems == []


@pytest.mark.parametrize(
    "legacy, workflow, key, number",
    [
        ("requirements", "review", "change-context", 2),
        ("map-topology", "map", "topology", 2),
        ("map-flow", "map", "flow-analysis", 3),
        ("map-flow-tracing", "map", "flow-analysis", 3),
        ("map-requirements", "map", "requirements-mapping", 4),
        ("map-synthesis", "map", "synthesis", 5),
        ("map-complete", "map", "complete", 6),
    ],
)
def test_legacy_phase_keys(tree, legacy, workflow, key, number):
    tree.session(SID).state(current_phase=legacy, phase_number=number)
    v = tree.view(SID)
    assert (v.workflow, v.phase, v.phase_number) == (workflow, key, number)
    assert v.complete is (key == "complete")
    assert v.problems == []


def test_phase_number_comes_from_the_key_not_the_stored_number(tree):
    # `ocr state close` leaves phase_number at 7 with current_phase complete.
    tree.session(SID).state(current_phase="complete", phase_number=7, status="closed")
    v = tree.view(SID)
    assert (v.phase_number, v.complete) == (8, True)


def test_unknown_phase_key_is_shown_verbatim_with_the_stored_number(tree):
    tree.session(SID).state(workflow_type="review", current_phase="triage", phase_number=5)
    v = tree.view(SID)
    assert (v.phase, v.phase_label, v.phase_number) == ("triage", "triage", 5)
    assert has_problem(v, "unknown review phase", "triage")
    assert v.complete is False


def test_unknown_phase_key_without_stored_number(tree):
    tree.session(SID).state(current_phase="mystery")
    v = tree.view(SID)
    assert (v.phase, v.phase_number) == ("mystery", None)
    assert has_problem(v, "mystery")


def test_review_phase_key_beats_a_stale_map_workflow_type(tree):
    # The mirror of B6: a review started in a map session keeps workflow_type=map upstream.
    s = tree.session(SID)
    s.run(1, map_md="# map")
    s.state(workflow_type="map", current_phase="reviews", phase_number=4)
    v = tree.view(SID)
    assert (v.workflow, v.phase, v.phase_number, v.phase_label) == (
        "review",
        "reviews",
        4,
        "Parallel Reviews",
    )
    assert v.problems == [] and v.current_round == 1 and v.current_map_run == 1


@pytest.mark.parametrize(
    "key, dirs, workflow",
    [
        ("synthesis", ("map/runs/run-1",), "map"),
        ("synthesis", (), "review"),
        ("complete", ("map",), "map"),
        ("complete", ("map", "rounds"), "review"),
        ("context", ("map",), "map"),  # both workflows have `context`: the files decide
        ("context", ("map", "rounds"), "review"),
        ("context", (), "review"),
        ("requirements", ("map",), "review"),  # legacy review key
        ("map-synthesis", ("rounds",), "map"),  # legacy map key
    ],
)
def test_one_workflow_keys_decide_shared_keys_follow_files(tree, key, dirs, workflow):
    s = tree.session(SID)
    for d in dirs:
        s.mkdir(d)
    s.state(current_phase=key)
    v = tree.view(SID)
    assert v.workflow == workflow and v.problems == []


def test_state_without_phase_falls_back_to_the_artifact_ladder(tree):
    s = tree.session(SID)
    s.write("context.md", "x")
    s.state(status="active", started_at="2026-03-10T10:00:00Z")
    v = tree.view(SID)
    assert (v.source, v.phase) == ("state.json", "analysis")


# --- status ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "state, status, complete",
    [
        ({"current_phase": "reviews", "status": "active"}, "active", False),
        ({"current_phase": "reviews", "status": "closed"}, "closed", False),
        ({"current_phase": "complete", "status": "closed"}, "closed", True),
        ({"current_phase": "complete", "status": "active"}, "active", True),
        ({"current_phase": "complete"}, "closed", True),
        ({"current_phase": "reviews"}, "active", False),
    ],
)
def test_status_and_complete(tree, state, status, complete):
    tree.session(SID).state(**state)
    v = tree.view(SID)
    assert (v.status, v.complete) == (status, complete)
    assert v.running is (status == "active" and not complete)


@pytest.mark.parametrize("bad", ["done", "ACTIVE", ""])
def test_invalid_status_is_a_problem_and_treated_absent(tree, bad):
    tree.session(SID).state(current_phase="complete", status=bad)
    v = tree.view(SID)
    assert v.status == "closed"  # as if absent: derived from the complete phase
    assert has_problem(v, "status")


# --- rounds ---------------------------------------------------------------------------------


def test_rounds_are_numeric_and_only_round_n_directories(tree):
    s = tree.session(SID)
    for n in (1, 2, 9, 10):
        s.round(n)
    s.mkdir("rounds/round-x")
    s.mkdir("rounds/round-3.bak")
    s.mkdir("rounds/Round-4")
    s.write("rounds/round-5", "a file, not a round")
    v = tree.view(SID)
    assert [r.number for r in v.rounds] == [1, 2, 9, 10]
    assert v.current_round == 10
    assert v.rounds[-1].path == "rounds/round-10"


def test_round_complete_by_final_md_whatever_the_state_says(tree):
    s = tree.session(SID)
    s.round(1, final=final_md("APPROVE"))
    s.round(2, discourse="# d")
    s.state(current_phase="reviews", status="active", current_round=1)
    v = tree.view(SID)
    assert [(r.number, r.complete, r.discourse) for r in v.rounds] == [
        (1, True, False),
        (2, False, True),
    ]
    assert v.current_round == 2  # the highest existing round, not the state's 1
    assert v.phase == "reviews" and v.complete is False  # the phase is still the state's
    assert not has_problem(v, "round")


def test_state_naming_a_higher_round_is_a_problem(tree):
    s = tree.session(SID)
    s.round(1)
    s.round(2)
    s.state(current_phase="reviews", current_round=3)
    v = tree.view(SID)
    assert v.current_round == 2
    assert has_problem(v, "round 3", "round-2")


def test_no_round_directories_uses_the_state_round_or_1(tree):
    s = tree.session(SID)
    s.state(current_phase="context", current_round=2)
    assert tree.view(SID).current_round == 2
    s.state(current_phase="context")
    assert tree.view(SID).current_round == 1
    s.mkdir("rounds")  # an empty rounds/ is still no round
    v = tree.view(SID)
    assert v.current_round == 1 and v.rounds == []


def test_current_round_is_null_for_a_map_only_session(tree):
    s = tree.session(SID)
    s.run(1)
    s.state(workflow_type="map", current_phase="topology", current_round=1)
    v = tree.view(SID)
    assert v.current_round is None and v.rounds == []


# --- reviewers and findings -----------------------------------------------------------------


def test_reviewers_in_natural_order_with_labels_and_findings(tree):
    s = tree.session(SID)
    s.round(
        1,
        reviewers={
            "principal-10": reviewer_md("Low"),
            "principal-2": reviewer_md("High", "High", "Critical"),
            "quality-1": reviewer_md(),
            "staff-engineer-2": reviewer_md("Medium", None),
            "principal-balanced": "## Issue: one\nSeverity: info\n",
        },
    )
    s.write("rounds/round-1/reviews/notes.txt", "not a reviewer")
    s.write("rounds/round-1/reviews/.principal-3.md", "editor backup, not a reviewer")
    s.mkdir("rounds/round-1/reviews/drafts.md")  # a directory, not a file
    v = tree.view(SID)
    revs = v.rounds[0].reviewers
    assert [r.name for r in revs] == [
        "principal-2",
        "principal-10",
        "principal-balanced",
        "quality-1",
        "staff-engineer-2",
    ]
    assert [r.label for r in revs] == [
        "Principal #2",
        "Principal #10",
        "Principal Balanced",
        "Quality #1",
        "Staff Engineer #2",
    ]
    assert [r.findings for r in revs] == [3, 1, 1, 0, 2]
    p2 = revs[0].severity
    assert (p2.critical, p2.high, p2.medium, p2.low, p2.info) == (1, 2, 0, 0, 0)
    se = revs[4].severity
    assert (se.medium, se.info) == (1, 1)
    assert revs[0].path == "rounds/round-1/reviews/principal-2.md"
    # Seven reported, four distinct: "Problem number 1..3" (one title and file in every
    # reviewer_md) are each one finding whoever raised it, and "one"; the critical one blocks.
    r = v.rounds[0]
    assert (r.reviewer_findings, r.findings, r.blockers, r.evolution) == (7, 4, 1, None)


def test_each_round_has_its_own_reviewers(tree):
    s = tree.session(SID)
    s.round(1, reviewers={"principal-1": reviewer_md("High"), "quality-1": reviewer_md()})
    s.round(2, reviewers={"principal-1": reviewer_md()})
    v = tree.view(SID)
    assert [len(r.reviewers) for r in v.rounds] == [2, 1]
    assert v.current is v.rounds[1]


def test_undecodable_reviewer_file_does_not_crash(tree):
    s = tree.session(SID)
    s.round(1)
    s.write(
        "rounds/round-1/reviews/principal-1.md", b"### Finding 1: \xff\xfe\n**Severity**: high\n"
    )
    v = tree.view(SID)
    assert v.rounds[0].reviewers[0].severity.high == 1


# --- verdict and counts ---------------------------------------------------------------------


def counts(r):
    return (
        None if r.counts is None else (r.counts.blockers, r.counts.should_fix, r.counts.suggestions)
    )


def test_round_meta_synthesis_counts_win_over_final_md(tree):
    s = tree.session(SID)
    s.round(
        1,
        meta={
            "schema_version": 1,
            "verdict": "request changes",
            "synthesis_counts": {"blockers": 1, "should_fix": 3, "suggestions": 5},
            "reviewers": [],
        },
        final=final_md("APPROVE", "**Blockers**: 9\n"),
    )
    r = tree.view(SID).rounds[0]
    assert r.verdict == "REQUEST CHANGES" and counts(r) == (1, 3, 5)


def test_round_meta_categories_counted_style_excluded(tree):
    def f(category, severity="medium"):
        return {"title": "t", "category": category, "severity": severity, "extra": [1, 2]}

    meta = {
        "schema_version": 1,
        "verdict": "APPROVE",
        "reviewers": [
            {"type": "principal", "instance": 1, "findings": [f("blocker"), f("style")]},
            {
                "type": "quality",
                "instance": 2,
                "severity_high": 1,
                "findings": [f("should_fix"), f("suggestion"), f("suggestion"), f("style")],
            },
        ],
    }
    s = tree.session(SID)
    s.round(1, meta=meta, final=final_md("REQUEST CHANGES", "## Blockers\n### 1. a\n### 2. b\n"))
    r = tree.view(SID).rounds[0]
    assert r.verdict == "APPROVE" and counts(r) == (1, 1, 2)


def test_round_meta_without_verdict_takes_final_md_verdict(tree):
    s = tree.session(SID)
    s.round(
        1,
        meta={"synthesis_counts": {"blockers": 0, "should_fix": 1, "suggestions": 2}},
        final=final_md("NEEDS DISCUSSION"),
    )
    r = tree.view(SID).rounds[0]
    assert r.verdict == "NEEDS DISCUSSION" and counts(r) == (0, 1, 2)


@pytest.mark.parametrize(
    "bad",
    ["{not json", "", '{"verdict": 3}', '{"synthesis_counts": {"blockers": "two"}}', "[1, 2]"],
)
def test_invalid_round_meta_is_a_problem_and_final_md_is_used(tree, bad):
    s = tree.session(SID)
    s.round(1, meta=bad, final=final_md("REQUEST CHANGES", "## Blockers\n\n### 1. A\n"))
    v = tree.view(SID)
    r = v.rounds[0]
    assert r.verdict == "REQUEST CHANGES" and counts(r) == (1, 0, 0)
    assert has_problem(v, "round-meta.json")


def test_final_md_counts_and_verdict(tree):
    s = tree.session(SID)
    s.round(
        1,
        final=final_md(
            "REQUEST CHANGES",
            "## Blockers\n\n### 🚫 A\n\n## Should Fix\n\n### 1. B\n### 2. C\n\n"
            "## Suggestions\n\n- d\n- None\n",
        ),
    )
    r = tree.view(SID).rounds[0]
    assert r.complete and r.verdict == "REQUEST CHANGES" and counts(r) == (1, 2, 1)


def test_no_meta_no_final_means_null_verdict_and_counts(tree):
    s = tree.session(SID)
    s.round(1, reviewers={"principal-1": reviewer_md("Low")}, discourse="x")
    r = tree.view(SID).rounds[0]
    assert (r.verdict, r.counts, r.complete) == (None, None, False)


def test_final_md_without_verdict_or_sections(tree):
    tree.session(SID).round(1, final="# Notes\n\nWe ran out of time.\n")
    r = tree.view(SID).rounds[0]
    assert r.complete and r.verdict is None and r.counts is None


def test_round_meta_alone_gives_verdict_and_completes_the_round_before_final_md_exists(tree):
    """`ocr state round-complete` writes round-meta.json: OCR records the round as done (its
    findings are all in), before the agent writes final.md."""
    s = tree.session(SID)
    s.round(1, meta=json.dumps({"verdict": "APPROVE", "reviewers": []}))
    r = tree.view(SID).rounds[0]
    assert r.verdict == "APPROVE" and counts(r) == (0, 0, 0) and r.complete


def test_an_invalid_round_meta_completes_nothing(tree):
    s = tree.session(SID)
    s.round(1, meta="{not json")
    assert not tree.view(SID).rounds[0].complete


# --- branch ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sid, state, branch",
    [
        ("2026-03-10-feat-add-auth", None, "feat-add-auth"),
        ("2026-03-10-feat-add-auth", {"branch": "feat/add-auth"}, "feat/add-auth"),
        ("sqlite-review", None, None),
        ("2026-3-10-main", None, None),
        ("2026-03-10-", None, None),
        ("2026-03-10-main", {"branch": ""}, "main"),
    ],
)
def test_branch(tree, sid, state, branch):
    s = tree.session(sid)
    if state is not None:
        s.state(**state)
    assert tree.view(sid).branch == branch


# --- pre-1.2 flat layout --------------------------------------------------------------------


def test_flat_layout_is_a_problem_and_not_read_as_rounds(tree):
    s = tree.session("2026-01-26-main")
    s.state(
        session_id="2026-01-26-main",
        current_phase="reviews",
        phase_number=4,
        completed_phases=["context", "requirements", "analysis"],
        reviewers={"assigned": ["principal-1"], "complete": []},
        started_at="2026-01-26T17:00:00Z",
        updated_at="2026-01-26T17:05:00Z",
    )
    s.write("context.md", "x")
    s.write("reviews/principal-1.md", reviewer_md("High"))
    s.write("final.md", final_md("APPROVE"))
    v = tree.view("2026-01-26-main")
    assert v.rounds == [] and v.phase == "reviews"
    assert has_problem(v, "flat layout")


def test_rounds_dir_beside_a_stray_reviews_dir_is_not_flat(tree):
    s = tree.session(SID)
    s.round(1, reviewers={"principal-1": reviewer_md("Low")})
    s.mkdir("reviews")
    v = tree.view(SID)
    assert len(v.rounds) == 1 and not has_problem(v, "flat")


@pytest.mark.parametrize("stored", [0, -3])
def test_non_positive_stored_round_counts_as_absent(tree, stored):
    tree.session(SID).state(current_phase="context", current_round=stored)
    assert tree.view(SID).current_round == 1


def test_round_meta_categories_are_matched_leniently(tree):
    findings = [{"category": c} for c in ("Blocker", "should-fix", "Should Fix", "SUGGESTION")]
    findings += [{"category": None}, {"category": "Style"}, {}]
    tree.session(SID).round(1, meta={"verdict": "x", "reviewers": [{"findings": findings}]})
    assert counts(tree.view(SID).rounds[0]) == (1, 2, 1)


def test_crlf_reviewer_and_final_files(tree):
    s = tree.session(SID)
    s.round(
        1,
        reviewers={
            "principal-1": "## Findings\r\n\r\n### Finding 1: a\r\n- **Severity**: High\r\n"
        },
        final="## Verdict\r\n\r\n**APPROVE**\r\n\r\n## Suggestions\r\n\r\n- a\r\n- b\r\n",
    )
    r = tree.view(SID).rounds[0]
    assert r.reviewers[0].severity.high == 1
    assert r.verdict == "APPROVE" and counts(r) == (0, 0, 2)


def test_flat_layout_files_still_count_as_activity(tree):
    s = tree.session("2026-01-26-main")
    s.write("context.md", "x", mtime=ago(hours=5))
    s.write("reviews/principal-1.md", reviewer_md("High"), mtime=ago(minutes=3))
    v = tree.view("2026-01-26-main")
    assert v.last_activity == iso(ago(minutes=3)) and v.rounds == []
