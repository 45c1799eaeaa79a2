"""The ocr.db store (OCR >= 1.5): row per session, no borrowing (B4), broken databases,
round starts from orchestration_events, and re-reading after a rename."""

from __future__ import annotations

import os
import sqlite3

import pytest

from .builders import FIXED, SCHEMA_V1, ago, final_md, iso, reviewer_md, sqlite_ts

A = "2026-03-10-feat-a"
B = "2026-03-10-feat-b"
C = "2026-03-09-ghost"


def has_problem(view, *words: str) -> bool:
    return any(all(w in p for w in words) for p in view.problems)


def test_db_row_is_the_state(tree):
    s = tree.session(A)
    s.round(1, reviewers={"principal-1": reviewer_md("High")})
    tree.db.session(
        A,
        branch="feat/a",
        status="active",
        workflow_type="review",
        current_phase="reviews",
        phase_number=4,
        current_round=1,
        started_at=sqlite_ts(ago(hours=1)),
        updated_at=sqlite_ts(ago(minutes=2)),
    ).save()
    v = tree.view(A)
    assert (v.source, v.branch, v.status, v.workflow, v.phase, v.phase_number) == (
        "ocr.db",
        "feat/a",
        "active",
        "review",
        "reviews",
        4,
    )
    assert v.started_at == iso(ago(hours=1)) and v.updated_at == iso(ago(minutes=2))
    assert v.elapsed.seconds == 3600 and v.elapsed.since == iso(ago(hours=1))
    assert v.problems == []


def test_db_row_wins_over_state_json_and_the_two_are_not_mixed(tree):
    s = tree.session(A)
    s.state(
        branch="from-state-json",
        workflow_type="review",
        status="active",
        current_phase="reviews",
        started_at=iso(ago(hours=9)),
        round_started_at=iso(ago(hours=8)),
        updated_at=iso(ago(hours=7)),
        mtime=ago(hours=7),
    )
    tree.db.session(
        A,
        branch="feat/a",
        status="closed",
        workflow_type="review",
        current_phase="complete",
        phase_number=7,
        started_at=sqlite_ts(ago(hours=2)),
        updated_at=sqlite_ts(ago(hours=1)),
    ).save()
    v = tree.view(A)
    assert (v.source, v.branch, v.status, v.phase, v.phase_number) == (
        "ocr.db",
        "feat/a",
        "closed",
        "complete",
        8,
    )
    # Nothing from state.json: not its round_started_at, not its started_at.
    assert v.started_at == iso(ago(hours=2))
    assert v.elapsed.since == iso(ago(hours=2)) and v.elapsed.seconds == 3600


def test_corrupt_state_json_beside_a_db_row_is_not_read(tree):
    s = tree.session(A)
    s.write("state.json", "{broken")
    tree.db.session(A, current_phase="analysis", phase_number=3).save()
    v = tree.view(A)
    assert (v.source, v.phase) == ("ocr.db", "analysis") and v.problems == []


def test_session_without_row_does_not_borrow_another_sessions_row_upstream_b4(tree):
    tree.session(A).round(1, reviewers={"principal-1": reviewer_md("Low")})
    tree.db.session(
        A,
        status="active",
        workflow_type="review",
        current_phase="discourse",
        phase_number=6,
        started_at=sqlite_ts(ago(minutes=10)),
    ).save()
    sb = tree.session(B)  # older OCR session: state.json, no row
    sb.state(
        status="closed",
        current_phase="complete",
        started_at=iso(ago(days=2)),
        updated_at=iso(ago(days=2)),
    )
    sc = tree.session(C)  # a folder created before `ocr state init`: files only
    sc.write("discovered-standards.md", "x", mtime=ago(minutes=3))
    views = tree.views()
    a, b, c = views[A], views[B], views[C]
    assert (a.source, a.phase) == ("ocr.db", "discourse")
    assert (b.source, b.phase, b.status, b.started_at) == (
        "state.json",
        "complete",
        "closed",
        iso(ago(days=2)),
    )
    assert (c.source, c.phase, c.status, c.branch) == ("files", "change-context", "active", "ghost")
    assert c.started_at is None and c.elapsed.since == iso(ago(minutes=3))
    assert b.problems == [] and c.problems == []


def test_row_id_must_match_the_directory_name_exactly(tree):
    tree.session(A)
    tree.db.session(A.upper(), current_phase="reviews").session(A + "-x", current_phase="reviews")
    tree.db.save()
    assert tree.view(A).source == "files"


def test_rows_without_a_directory_are_not_sessions(tree):
    tree.session(A)
    tree.db.session(A).session(B).save()
    assert list(tree.views()) == [A]


def test_db_current_round_default_is_not_a_round_for_a_map_session(tree):
    tree.session(A).run(1)
    tree.db.session(A, workflow_type="map", current_phase="topology", phase_number=2).save()
    v = tree.view(A)
    assert (v.workflow, v.current_round, v.current_map_run) == ("map", None, 1)


def test_db_map_run_default_is_not_a_run_for_a_review_session(tree):
    tree.session(A).round(1)
    tree.db.session(A, workflow_type="review", current_phase="reviews").save()
    assert tree.view(A).current_map_run is None


def test_db_map_phase_in_a_review_row_upstream_b6(tree):
    s = tree.session(A)
    s.round(1, final=final_md())
    s.run(1)
    tree.db.session(A, workflow_type="review", current_phase="map-context", phase_number=1).save()
    v = tree.view(A)
    assert (v.workflow, v.phase_label) == ("map", "Context Discovery")


def test_null_columns_are_absent(tree):
    s = tree.session(A)
    s.write("context.md", "x", mtime=ago(minutes=6))
    tree.db.session(
        A, status=None, current_phase=None, phase_number=None, started_at=None, updated_at=None
    ).save()
    v = tree.view(A)
    assert (v.source, v.status, v.phase) == ("ocr.db", "active", "analysis")
    assert v.elapsed.since == iso(ago(minutes=6))


# --- round starts from orchestration_events -------------------------------------------------


def test_round_start_is_the_latest_round_started_event_of_the_highest_round(tree):
    s = tree.session(A)
    s.round(1, final=final_md())
    s.round(2)
    db = tree.db
    db.session(
        A,
        current_phase="reviews",
        phase_number=4,
        current_round=2,
        started_at=sqlite_ts(ago(days=1)),
    )
    db.session(B)
    db.event(A, "session_created", ago(days=1), round=1)
    db.event(A, "round_started", ago(minutes=30), round=2)  # later by time, inserted first
    db.event(A, "round_started", ago(minutes=45), round=2)
    db.event(A, "round_started", ago(minutes=5), round=1)  # another round
    db.event(B, "round_started", ago(minutes=1), round=2)  # another session
    db.event(A, "phase_transition", ago(minutes=2), round=2, phase="reviews", phase_number=4)
    db.save()
    e = tree.view(A).elapsed
    assert (e.since, e.seconds) == (iso(ago(minutes=30)), 30 * 60)


def test_round_start_follows_the_highest_round_directory_not_the_row(tree):
    s = tree.session(A)
    s.round(1, final=final_md())
    s.round(2)
    db = tree.db
    db.session(A, current_phase="reviews", current_round=1, started_at=sqlite_ts(ago(days=1)))
    db.event(A, "round_started", ago(minutes=20), round=2)
    db.save()
    v = tree.view(A)
    assert v.current_round == 2 and v.elapsed.since == iso(ago(minutes=20))


def test_no_round_started_event_uses_started_at(tree):
    tree.session(A).round(1)
    db = tree.db
    db.session(A, current_phase="reviews", started_at=sqlite_ts(ago(minutes=50)))
    db.event(A, "session_created", ago(minutes=50))
    db.event(A, "round_started", ago(minutes=10), round=3)  # no such round directory
    db.save()
    assert tree.view(A).elapsed.since == iso(ago(minutes=50))


def test_db_without_orchestration_events_table(tree):
    tree.session(A).round(1)
    tree.db.schema = SCHEMA_V1.split("CREATE TABLE orchestration_events")[0]
    tree.db.session(A, current_phase="reviews", started_at=sqlite_ts(ago(minutes=8))).save()
    v = tree.view(A)
    assert (v.source, v.elapsed.seconds, v.problems) == ("ocr.db", 480, [])


def test_later_migrations_do_not_matter(tree):
    tree.session(A)
    tree.db.schema = SCHEMA_V1 + (
        "ALTER TABLE sessions ADD COLUMN agent_notes TEXT;"
        "CREATE TABLE review_rounds (id INTEGER PRIMARY KEY, session_id TEXT, round_number INT);"
        "INSERT INTO schema_version (version, description) VALUES (9, 'later');"
    )
    tree.db.session(A, current_phase="aggregation", agent_notes="hi").save()
    v = tree.view(A)
    assert (v.source, v.phase, v.phase_number) == ("ocr.db", "aggregation", 5)


def test_wal_mode_file_is_readable(tree):
    tree.session(A)
    tree.db.session(A, current_phase="discourse").save()
    con = sqlite3.connect(tree.db_path)
    con.execute("PRAGMA journal_mode=WAL")
    con.close()
    for leftover in ("-wal", "-shm"):
        p = tree.db_path.with_name("ocr.db" + leftover)
        if p.exists():
            p.unlink()
    assert tree.db_path.read_bytes()[18:20] == b"\x02\x02"
    v = tree.view(A)
    assert (v.source, v.phase) == ("ocr.db", "discourse")


# --- unreadable databases -------------------------------------------------------------------


def _valid_db_bytes(tree) -> bytes:
    tree.db.session(A, current_phase="complete", status="closed")
    for i in range(60):
        tree.db.session(f"2026-01-01-filler-{i}", branch="x" * 400)
    tree.db.save()
    data = tree.db_path.read_bytes()
    assert len(data) > 8192
    return data


BROKEN = {
    "empty": lambda good: b"",
    "truncated-to-half": lambda good: good[: len(good) // 2],
    "truncated-header": lambda good: good[:50],
    "text": lambda good: b"this is not a database\n" * 100,
    "header-then-garbage": lambda good: good[:100] + os.urandom(4096),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_unreadable_db_is_a_problem_and_sessions_fall_back(tree, kind):
    good = _valid_db_bytes(tree)
    tree.db_path.write_bytes(BROKEN[kind](good))
    sa = tree.session(A)
    sa.state(status="active", current_phase="reviews", started_at=iso(ago(minutes=1)))
    sb = tree.session(B)
    sb.write("context.md", "x")
    views = tree.views()
    assert (views[A].source, views[A].phase) == ("state.json", "reviews")
    assert (views[B].source, views[B].phase) == ("files", "analysis")
    for v in views.values():
        assert has_problem(v, "ocr.db")


def test_db_that_is_a_directory(tree):
    tree.db_path.mkdir(parents=True)
    tree.session(A)
    v = tree.view(A)
    assert v.source == "files" and has_problem(v, "ocr.db")


@pytest.mark.parametrize(
    "schema",
    [
        "CREATE TABLE other (x INT);",
        "CREATE TABLE sessions (name TEXT, branch TEXT);",
    ],
)
def test_db_missing_the_sessions_table_or_id(tree, schema):
    con = sqlite3.connect(tree.data_dir.mkdir(parents=True) or tree.db_path)
    con.executescript(schema)
    con.close()
    tree.session(A).state(current_phase="discourse")
    v = tree.view(A)
    assert (v.source, v.phase) == ("state.json", "discourse")
    assert has_problem(v, "ocr.db", "sessions")


def test_sessions_table_with_missing_columns_and_odd_types(tree):
    tree.data_dir.mkdir(parents=True)
    con = sqlite3.connect(tree.db_path)
    con.execute("CREATE TABLE sessions (id TEXT, current_phase BLOB, current_round TEXT)")
    con.execute("INSERT INTO sessions VALUES (?, ?, ?)", (A, b"reviews", "2"))
    con.commit()
    con.close()
    tree.session(A)
    v = tree.view(A)
    assert (v.source, v.phase, v.current_round, v.branch) == ("ocr.db", "reviews", 2, "feat-a")


# --- change detection -----------------------------------------------------------------------


def test_db_replaced_by_rename_is_re_read_by_apply(tree):
    tree.session(A)
    tree.session(B)
    tree.db.session(A, current_phase="context").session(B, current_phase="context").save()
    engine = tree.engine()
    views = {v.id: v for v in engine.scan()}
    assert views[A].phase == "context"
    old_inode = os.stat(tree.db_path).st_ino

    tree.db.sessions[0]["current_phase"] = "reviews"  # only A changes
    tree.db.save(mtime=FIXED.timestamp() - 3600)  # same mtime on purpose: the inode differs
    assert os.stat(tree.db_path).st_ino != old_inode
    changed, removed = engine.apply([tree.db_path])
    assert [v.id for v in changed] == [A] and removed == []
    assert changed[0].phase == "reviews" and changed[0].source == "ocr.db"
    assert engine.views[A].phase == "reviews"

    # Nothing changed since: nothing re-derived.
    assert engine.apply([tree.db_path]) == ([], [])


def test_db_turning_bad_then_good_again(tree):
    tree.session(A).state(current_phase="analysis")
    tree.db.session(A, current_phase="reviews").save()
    engine = tree.engine()
    assert engine.scan()[0].source == "ocr.db"

    tmp = tree.data_dir / "ocr.db.tmp"
    tmp.write_bytes(b"garbage" * 100)
    os.replace(tmp, tree.db_path)
    changed, _ = engine.apply([tree.db_path])
    assert [(v.source, v.phase) for v in changed] == [("state.json", "analysis")]
    assert has_problem(changed[0], "ocr.db")

    tree.db.save()
    changed, _ = engine.apply([tree.db_path])
    assert [(v.source, v.phase, v.problems) for v in changed] == [("ocr.db", "reviews", [])]


def test_db_deleted(tree):
    tree.session(A)
    tree.db.session(A, current_phase="reviews").save()
    engine = tree.engine()
    assert engine.scan()[0].source == "ocr.db"
    tree.db_path.unlink()
    changed, _ = engine.apply([tree.db_path])
    assert [v.source for v in changed] == ["files"]


def test_db_created_after_start(tree):
    tree.session(A)
    engine = tree.engine()
    assert engine.scan()[0].source == "files"
    tree.db.session(A, current_phase="synthesis").save()
    changed, _ = engine.apply([tree.db_path])
    assert [(v.source, v.phase) for v in changed] == [("ocr.db", "synthesis")]


def test_invalid_utf8_in_one_row_does_not_lose_the_database(tree):
    tree.session(A)
    tree.session(B)
    tree.db.session(A, current_phase="reviews").session(B, current_phase="discourse").save()
    con = sqlite3.connect(tree.db_path)
    con.execute("UPDATE sessions SET branch = CAST(x'66ff6f' AS TEXT) WHERE id = ?", (A,))
    con.commit()
    con.close()
    views = tree.views()
    assert (views[A].source, views[A].phase, views[A].branch) == ("ocr.db", "reviews", "f\ufffdo")
    assert (views[B].source, views[B].phase) == ("ocr.db", "discourse")
    assert views[A].problems == [] and views[B].problems == []


def test_db_that_is_a_fifo_is_not_opened(tree):
    tree.data_dir.mkdir(parents=True)
    os.mkfifo(tree.db_path)  # opening it for reading would block forever
    tree.session(A).state(current_phase="analysis")
    v = tree.view(A)
    assert (v.source, v.phase) == ("state.json", "analysis")
    assert has_problem(v, "ocr.db", "regular file")


def test_db_rewritten_in_place_with_the_same_size_and_mtime_is_re_read(tree):
    tree.session(A)
    tree.db.session(A, current_phase="context").save()
    engine = tree.engine()
    assert engine.scan()[0].phase == "context"
    st = os.stat(tree.db_path)
    con = sqlite3.connect(tree.db_path)  # in place, as the sqlite3 shell would
    con.execute("UPDATE sessions SET current_phase = 'reviews'")
    con.commit()
    con.close()
    os.utime(tree.db_path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert os.stat(tree.db_path).st_size == st.st_size
    changed, _ = engine.apply([tree.db_path])
    assert [v.phase for v in changed] == ["reviews"]
