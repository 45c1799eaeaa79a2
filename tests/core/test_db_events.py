"""The session's log and phase times from ocr.db's `orchestration_events`:
every phase entered with its time and how long it took, the first phase from session_created,
`complete` from session_closed, and the last 200 events in `status --json`."""

from __future__ import annotations

import json
import sqlite3

from ocr_tui.core.engine import encode_json
from ocr_tui.formats.ocr.db import EVENTS_KEPT, MAX_META_CHARS

from .builders import FIXED, ago, iso, sqlite_ts

A = "2026-03-10-feat-a"


def timeline(view) -> dict[str, tuple]:
    return {t.key: (t.state, t.at, t.ended, t.seconds) for t in view.timeline}


def test_each_phase_has_its_time_and_duration(tree):
    tree.session(A)
    db = tree.db
    db.session(A, current_phase="analysis", phase_number=3, started_at=sqlite_ts(ago(hours=1)))
    db.event(A, "session_created", ago(hours=1), phase="context", phase_number=1, round=1)
    db.event(A, "phase_transition", ago(minutes=50), phase="change-context", round=1)
    db.event(A, "phase_transition", ago(minutes=20), phase="analysis", round=1)
    db.save()
    t = timeline(tree.view(A))
    # The first phase starts at session_created: OCR's init writes no transition to it.
    assert t["context"] == ("done", iso(ago(hours=1)), iso(ago(minutes=50)), 600)
    assert t["change-context"] == ("done", iso(ago(minutes=50)), iso(ago(minutes=20)), 1800)
    # The current one grows while the session runs (FIXED is "now").
    assert t["analysis"] == ("current", iso(ago(minutes=20)), None, 1200)
    assert t["reviews"] == ("pending", None, None, None)


def test_a_session_closed_from_synthesis_completes_at_session_closed(tree):
    tree.session(A)
    db = tree.db
    db.session(A, status="closed", current_phase="complete", phase_number=7)
    db.event(A, "session_created", ago(hours=2), round=1)  # no phase: the first one
    db.event(A, "phase_transition", ago(hours=1), phase="synthesis", round=1)
    db.event(A, "session_closed", ago(minutes=45), round=1)
    db.save()
    t = timeline(tree.view(A))
    assert t["context"][1:] == (iso(ago(hours=2)), iso(ago(hours=1)), 3600)
    assert t["synthesis"] == ("done", iso(ago(hours=1)), iso(ago(minutes=45)), 900)
    assert t["complete"] == ("done", iso(ago(minutes=45)), None, None)
    # Phases never entered have no time (the session skipped them or OCR did not say).
    assert t["reviews"] == ("done", None, None, None)


def test_a_later_round_starts_at_its_round_started(tree):
    s = tree.session(A)
    s.round(1)
    s.round(2)
    db = tree.db
    db.session(A, current_phase="reviews", phase_number=4, current_round=2)
    db.event(A, "session_created", ago(hours=3), round=1)
    db.event(A, "phase_transition", ago(hours=2), phase="reviews", round=1)
    db.event(A, "round_started", ago(minutes=30), phase="context", round=2)
    db.event(A, "phase_transition", ago(minutes=10), phase="reviews", round=2)
    db.save()
    t = timeline(tree.view(A))
    assert t["context"][1:] == (iso(ago(minutes=30)), iso(ago(minutes=10)), 1200)
    assert t["reviews"] == ("current", iso(ago(minutes=10)), None, 600)


def test_events_in_status_json(tree):
    tree.session(A)
    db = tree.db
    db.session(A, current_phase="synthesis", phase_number=7)
    meta = {"verdict": "APPROVE", "blocker_count": 0, "note": "\x1b[31mred\x1b[0m"}
    db.event(A, "session_created", ago(hours=1), phase="context", round=1)
    db.event(A, "round_completed", ago(minutes=5), round=1, metadata=json.dumps(meta))
    db.event(A, "phase_transition", ago(minutes=9), phase="synthesis", round=1)  # id order
    db.event(A, "session_synced", ago(minutes=1), metadata="not json")
    db.event(A, "map_completed", ago(minutes=1), metadata="[1, 2]")  # JSON, not an object
    db.event(A, "session_resumed", "yesterday", metadata=json.dumps({"x": 1}))
    db.save()
    view = tree.view(A)
    out = json.loads(encode_json(view))
    assert [e["type"] for e in out["events"]] == [
        "session_created", "round_completed", "phase_transition", "session_synced",
        "map_completed", "session_resumed",
    ]  # fmt: skip
    first, done = out["events"][:2]
    assert first == {
        "type": "session_created", "phase": "context", "round": 1,
        "at": iso(ago(hours=1)), "meta": None,
    }  # fmt: skip
    assert done["meta"] == meta and done["at"].endswith("Z")
    assert [e["meta"] for e in out["events"][3:5]] == [None, None]
    assert out["events"][5]["at"] is None  # an unparsable time: null, never a raw string
    assert "\x1b" not in encode_json(view)  # escaped in the JSON text
    timeline_json = {t["key"]: t for t in out["timeline"]}
    assert timeline_json["synthesis"]["seconds"] == 9 * 60


def test_the_last_200_events_are_kept_and_huge_metadata_is_not_parsed(tree):
    tree.session(A)
    db = tree.db
    db.session(A)
    for i in range(EVENTS_KEPT + 50):
        db.event(A, "session_resumed", ago(hours=5), metadata=json.dumps({"i": i}))
    db.event(A, "round_completed", ago(minutes=1), metadata=json.dumps({"x": "a" * MAX_META_CHARS}))
    db.save()
    events = tree.view(A).events
    assert len(events) == EVENTS_KEPT
    assert events[0].meta == {"i": 51} and events[-1].type == "round_completed"
    assert events[-1].meta is None


def test_old_schemas_and_missing_tables(tree, tmp_path):
    tree.session(A)
    db = tree.db
    db.session(A)
    db.schema = db.schema.replace("    metadata TEXT,\n", "").replace("    round INTEGER,\n", "")
    db.event(A, "session_created", ago(hours=1), phase="context")
    db.save()
    (event,) = tree.view(A).events
    assert (event.type, event.round, event.meta) == ("session_created", None, None)

    con = sqlite3.connect(tree.db_path)
    con.execute("DROP TABLE orchestration_events")
    con.commit()
    con.close()
    view = tree.view(A)
    assert view.events == [] and not view.problems


def test_hostile_event_values(tree):
    tree.session(A)
    db = tree.db
    db.session(A, current_phase="reviews", phase_number=4)
    db.event(A, "phase_transition", "2026-03-10 11:00:00", phase="reviews", round="x")
    db.event(A, "\x1b]0;pwned\x07", FIXED, phase=12, round="9" * 30, metadata="{" * 100000)
    db.save()
    view = tree.view(A)
    assert [e.round for e in view.events] == [None, None]
    assert view.events[1].meta is None
    assert timeline(view)["reviews"][1] == "2026-03-10T11:00:00Z"


# --- the user's triage of a round ----------------------------------------

TRIAGE_TABLES = """
CREATE TABLE review_rounds (id INTEGER PRIMARY KEY, session_id TEXT, round_number INTEGER);
CREATE TABLE user_round_progress (id INTEGER PRIMARY KEY, round_id INTEGER, status TEXT,
  updated_at TEXT);
"""


def test_round_triage_joined_through_review_rounds(tree):
    s = tree.session(A)
    s.round(1)
    s.round(2)
    s.round(3)
    other = "2026-03-09-other"
    tree.session(other).round(1)
    db = tree.db
    db.session(A, current_round=3).session(other)
    db.schema += TRIAGE_TABLES
    db.save()
    con = sqlite3.connect(tree.db_path)
    con.executescript(
        f"""
        INSERT INTO review_rounds VALUES (10, '{A}', 1), (11, '{A}', 2), (12, '{other}', 1),
          (13, '{A}', 'x');
        INSERT INTO user_round_progress (round_id, status, updated_at) VALUES
          (10, 'in_progress', '2026-03-10 10:00:00'), (10, 'changes_made', '2026-03-10 11:00:00'),
          (12, 'dismissed', '2026-03-10 09:00:00'), (13, 'acknowledged', NULL),
          (99, 'needs_review', NULL);
        """
    )
    con.commit()
    con.close()
    views = tree.views()
    assert [r.triage for r in views[A].rounds] == ["changes_made", None, None]
    assert [r.triage for r in views[other].rounds] == ["dismissed"]
    out = json.loads(encode_json(views[A]))
    assert [r["triage"] for r in out["rounds"]] == ["changes_made", None, None]


def test_no_triage_tables_no_triage(tree):
    tree.session(A).round(1)
    tree.db.session(A).save()
    view = tree.view(A)
    assert view.rounds[0].triage is None and not view.problems


def test_a_session_that_reviewed_then_mapped_times_each_workflow_apart(tree):
    s = tree.session(A)
    s.round(1)
    s.run(1, topology="# t\n")
    db = tree.db
    db.session(A, workflow_type="map", current_phase="flow-analysis", phase_number=3)
    db.event(A, "session_created", ago(hours=2), phase="context", round=1)
    db.event(A, "phase_transition", ago(hours=1), phase="synthesis", round=1)
    db.event(A, "phase_transition", ago(minutes=50), phase="complete", round=1)
    db.event(A, "phase_transition", ago(minutes=40), phase="map-context", round=1)
    db.event(A, "phase_transition", ago(minutes=30), phase="topology", round=1)
    db.event(A, "phase_transition", ago(minutes=10), phase="flow-analysis", round=1)
    db.save()
    t = timeline(tree.view(A))
    # The map's own run: its context is map-context's, not the review's context.
    assert t["map-context"][1:] == (iso(ago(minutes=40)), iso(ago(minutes=30)), 600)
    assert t["topology"][3] == 1200 and t["flow-analysis"] == (
        "current",
        iso(ago(minutes=10)),
        None,
        600,
    )
    assert t["synthesis"] == ("pending", None, None, None)  # the review's synthesis is not it


# --- sessions without events: times guessed from files (approximate) -------------------------


def test_state_json_sessions_get_approximate_times_from_their_files(tree):
    from .builders import reviewer_md

    s = tree.session(A)
    s.state(
        session_id=A, current_phase="discourse", status="active",
        started_at=iso(ago(hours=1)), updated_at=iso(ago(minutes=4)),
    )  # fmt: skip
    s.write("discovered-standards.md", "# s", mtime=ago(minutes=55))
    s.write("context.md", "# c", mtime=ago(minutes=40))
    s.round(1, reviewers={"principal-1": reviewer_md("High")}, mtime=ago(minutes=10))
    t = {x.key: x for x in tree.view(A).timeline}
    assert (t["context"].at, t["context"].ended, t["context"].seconds) == (
        iso(ago(hours=1)), iso(ago(minutes=55)), 300,
    )  # fmt: skip
    assert t["change-context"].at == iso(ago(minutes=55)) and t["change-context"].ended is None
    assert t["analysis"].at is None and t["analysis"].ended == iso(ago(minutes=40))
    assert (t["reviews"].at, t["reviews"].seconds) == (iso(ago(minutes=40)), 1800)
    assert (t["aggregation"].at, t["aggregation"].ended) == (iso(ago(minutes=10)), None)
    # The current phase: no file says when it began; state.json's updated_at does, roughly.
    assert (t["discourse"].state, t["discourse"].at) == ("current", iso(ago(minutes=4)))
    assert t["discourse"].seconds == 240
    assert all(x.approximate for x in t.values() if x.at or x.ended)
    assert not t["synthesis"].approximate and t["synthesis"].at is None


def test_database_times_are_not_approximate(tree):
    tree.session(A)
    tree.db.session(A, current_phase="change-context", phase_number=2)
    tree.db.event(A, "session_created", ago(hours=1), phase="context")
    tree.db.event(A, "phase_transition", ago(minutes=5), phase="change-context")
    tree.db.save()
    assert not any(x.approximate for x in tree.view(A).timeline)
