"""state.json (OCR <= 1.4) in its three schema eras, and every way it can be unreadable."""

from __future__ import annotations

import json

import pytest

from .builders import ago, final_md, iso, reviewer_md

SID = "2026-01-27-main"


def has_problem(view, *words: str) -> bool:
    return any(all(w in p for w in words) for p in view.problems)


def test_v1_0_completed_phases_and_reviewers(tree):
    """v1.0: no status, `completed_phases`, a `reviewers` object, `requirements` key, flat."""
    s = tree.session(SID)
    s.state(
        session_id=SID,
        branch="main",
        started_at="2026-01-26T17:00:00Z",
        current_phase="requirements",
        phase_number=2,
        completed_phases=["context"],
        reviewers={"assigned": ["principal-1", "quality-1"], "complete": ["principal-1"]},
        updated_at="2026-01-26T17:05:00Z",
    )
    s.write("discovered-standards.md", "x")
    v = tree.view(SID)
    assert (v.source, v.workflow, v.status, v.phase, v.phase_number, v.phase_label) == (
        "state.json",
        "review",
        "active",
        "change-context",
        2,
        "Change Context",
    )
    assert (v.branch, v.started_at, v.updated_at) == (
        "main",
        "2026-01-26T17:00:00Z",
        "2026-01-26T17:05:00Z",
    )
    assert v.current_round == 1 and v.current_map_run is None
    assert v.problems == []


def test_v1_0_completed_session(tree):
    tree.session(SID).state(
        session_id=SID,
        current_phase="complete",
        phase_number=8,
        completed_phases=["context", "requirements", "analysis", "reviews"],
        started_at="2026-01-26T17:00:00Z",
        updated_at="2026-01-26T18:00:00Z",
    )
    v = tree.view(SID)
    assert (v.status, v.complete, v.elapsed.seconds, v.elapsed.running) == (
        "closed",
        True,
        3600,
        False,
    )


def test_v1_1_status(tree):
    """v1.1: adds `status`; closing writes status closed, phase complete, number 8."""
    s = tree.session(SID)
    s.state(
        session_id=SID,
        status="closed",
        current_phase="complete",
        phase_number=8,
        completed_phases=["context", "requirements", "analysis", "reviews", "aggregation"],
        started_at="2026-01-27T09:00:00Z",
        updated_at="2026-01-27T09:45:00.000Z",
    )
    v = tree.view(SID)
    assert (v.source, v.status, v.complete, v.phase_number) == ("state.json", "closed", True, 8)
    assert v.elapsed.seconds == 45 * 60


def test_v1_2_round_first_review(tree):
    """v1.2-1.4: workflow_type, current_round, round_started_at, map_started_at."""
    s = tree.session(SID)
    s.write("discovered-standards.md", "x")
    s.write("context.md", "x")
    s.round(1, reviewers={"principal-1": reviewer_md("High")}, final=final_md("REQUEST CHANGES"))
    s.round(2, reviewers={"principal-1": reviewer_md(), "quality-1": reviewer_md("Low")})
    s.state(
        session_id=SID,
        workflow_type="review",
        status="active",
        current_phase="reviews",
        phase_number=4,
        current_round=2,
        started_at=iso(ago(hours=2)),
        round_started_at=iso(ago(minutes=15)),
        updated_at=iso(ago(minutes=1)),
    )
    v = tree.view(SID)
    assert (v.workflow, v.phase, v.phase_number, v.current_round) == ("review", "reviews", 4, 2)
    assert [(r.number, r.complete, r.verdict) for r in v.rounds] == [
        (1, True, "REQUEST CHANGES"),
        (2, False, None),
    ]
    assert [r.name for r in v.current.reviewers] == ["principal-1", "quality-1"]
    assert v.elapsed.seconds == 15 * 60 and v.running and not v.stalled
    assert v.problems == []


def test_v1_4_map_with_legacy_complete_key(tree):
    s = tree.session(SID)
    s.run(1, map_md="# map")
    s.state(
        session_id=SID,
        workflow_type="map",
        status="active",
        current_phase="map-complete",
        phase_number=6,
        current_map_run=1,
        started_at=iso(ago(hours=1)),
        map_started_at=iso(ago(minutes=40)),
        updated_at=iso(ago(minutes=10)),
    )
    v = tree.view(SID)
    assert (v.workflow, v.phase, v.phase_number, v.complete, v.status) == (
        "map",
        "complete",
        6,
        True,
        "active",
    )
    assert v.elapsed.seconds == 30 * 60 and not v.elapsed.running


def test_unknown_fields_are_ignored_and_every_field_is_optional(tree):
    s = tree.session(SID)
    s.state(
        current_phase="discourse",
        some_future_field={"nested": [1, 2, 3]},
        rounds=[{"round": 1}],
        tech_lead="me",
    )
    v = tree.view(SID)
    assert (v.source, v.phase, v.problems) == ("state.json", "discourse", [])
    s.state()
    v = tree.view(SID)
    assert (v.source, v.phase, v.status, v.problems) == ("state.json", "context", "active", [])


def test_null_fields_are_absent(tree):
    tree.session(SID).state(
        workflow_type=None, status=None, current_phase=None, current_round=None, started_at=None
    )
    v = tree.view(SID)
    assert (v.source, v.workflow, v.phase, v.status, v.problems) == (
        "state.json",
        "review",
        "context",
        "active",
        [],
    )


BROKEN = {
    "invalid json": b'{"current_phase": "reviews",',
    "truncated": json.dumps({"current_phase": "reviews", "status": "active"}).encode()[:-7],
    "empty": b"",
    "whitespace": b"  \n",
    "not an object": b'["reviews"]',
    "null": b"null",
    "wrong type number": b'{"current_phase": "reviews", "phase_number": "four"}',
    "wrong type phase": b'{"current_phase": 4}',
    "wrong type list": b'{"current_phase": "reviews", "completed_phases": "context"}',
    "binary": b"\x00\xff\xfe garbage \x00",
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_unreadable_state_json_is_a_problem_and_files_are_used(tree, kind):
    s = tree.session(SID)
    s.write("discovered-standards.md", "x")
    s.write("context.md", "x")
    s.write("state.json", BROKEN[kind])
    v = tree.view(SID)
    assert (v.source, v.phase, v.status) == ("files", "analysis", "active")
    assert has_problem(v, "state.json")


def test_utf8_bom_is_tolerated(tree):
    tree.session(SID).write("state.json", b'\xef\xbb\xbf{"current_phase": "reviews"}')
    v = tree.view(SID)
    assert (v.source, v.phase, v.problems) == ("state.json", "reviews", [])


def test_state_json_directory_is_ignored(tree):
    s = tree.session(SID)
    s.mkdir("state.json")
    assert tree.view(SID).source == "files"


def test_deeply_nested_json_does_not_crash(tree):
    s = tree.session(SID)
    s.write("state.json", b'{"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    v = tree.view(SID)
    assert v.source in ("files", "state.json")


def test_state_json_is_re_read_when_it_changes(tree):
    s = tree.session(SID)
    s.state(current_phase="context")
    engine = tree.engine()
    engine.scan()
    s.state(current_phase="analysis", mtime=ago(minutes=1))
    changed, removed = engine.apply([s.path / "state.json"])
    assert [(v.id, v.phase) for v in changed] == [(SID, "analysis")] and removed == []
    s.write("state.json", "{oops", mtime=ago(seconds=30))
    changed, _ = engine.apply([s.path / "state.json"])
    assert changed[0].source == "files" and has_problem(changed[0], "state.json")


def test_invalid_utf8_in_state_json_does_not_crash(tree):
    s = tree.session(SID)
    s.write("state.json", b'{"branch": "caf\xe9", "current_phase": "reviews", "status": "active"}')
    v = tree.view(SID)
    assert (v.source, v.phase, v.branch) == ("state.json", "reviews", "caf\ufffd")


def test_invalid_utf8_in_round_meta_does_not_crash(tree):
    s = tree.session(SID)
    s.round(1, meta=None, final=final_md("APPROVE"))
    s.write("rounds/round-1/round-meta.json", b'{"verdict": "APPROVE \xff", "reviewers": []}')
    r = tree.view(SID).rounds[0]
    assert r.verdict == "APPROVE \ufffd"


def test_same_size_rewrite_within_the_same_mtime_is_seen(tree):
    """Coarse file-system clocks: a rewrite can keep size and mtime; it must still be read."""
    s = tree.session(SID)
    s.state(current_phase="context")  # same length as "reviews"
    s.round(1, reviewers={"principal-1": "### Finding 1: a\nSeverity: high\n"})
    engine = tree.engine()
    (v,) = engine.scan()
    assert v.phase == "context" and v.rounds[0].reviewers[0].severity.high == 1
    s.state(current_phase="reviews")  # the builder sets the very same mtime again
    s.write("rounds/round-1/reviews/principal-1.md", "### Finding 1: a\nSeverity: info\n")
    (v,) = engine.scan()
    assert v.phase == "reviews" and v.rounds[0].reviewers[0].severity.info == 1
