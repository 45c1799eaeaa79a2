"""ocr.db read from what changed: after any sequence of rewrites the
incremental read equals a read of the whole file, and a change to one session's rows derives
that session alone."""

from __future__ import annotations

import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.formats.ocr.db_findings import read_all_findings
from ocr_tui.formats.ocr.db_load import load_db
from ocr_tui.formats.ocr.sim import build_history

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
_SEEDS: dict[str, bytes] = {}


def _seed(tmp: Path) -> tuple[bytes, list[str]]:
    """A simulator-written ocr.db of 6 closed sessions (every table OCR has)."""
    root = tmp / "seed"
    ids = build_history(root, sessions=6, store="ocr.db", now=NOW)
    return (root / ".ocr" / "data" / "ocr.db").read_bytes(), ids


def _write(path: Path, con: sqlite3.Connection) -> None:
    tmp = path.with_name(f"ocr.db.{os.getpid()}.tmp")
    tmp.write_bytes(con.serialize())
    os.replace(tmp, path)  # as OCR's sql.js writer: a new file renamed over the old


def _ts(k: int) -> str:
    return f"2026-03-10 12:{k // 60 % 60:02d}:{k % 60:02d}"


def _act(con: sqlite3.Connection, kind: str, pick: int, k: int, seed: bytes, ids: list[str]):
    sids = [r[0] for r in con.execute("SELECT id FROM sessions ORDER BY rowid")]
    sid = sids[pick % len(sids)] if sids else f"2026-03-10-new-{k}"
    if kind == "transition":  # the CLI: row, event, heartbeat
        con.execute(
            "UPDATE sessions SET status = 'active', current_phase = 'reviews', phase_number = ?, "
            "updated_at = ? WHERE id = ?",
            (4 + k % 3, _ts(k), sid),
        )
        con.execute(
            "INSERT INTO orchestration_events (session_id, event_type, phase, phase_number, "
            "round, created_at) VALUES (?, 'phase_transition', 'reviews', 4, 1, ?)",
            (sid, _ts(k)),
        )
        con.execute(
            "UPDATE command_executions SET last_heartbeat_at = ? "
            "WHERE workflow_id = ? AND finished_at IS NULL",
            (_ts(k), sid),
        )
    elif kind == "heartbeat":
        con.execute(
            "UPDATE command_executions SET last_heartbeat_at = ? WHERE rowid = "
            "(SELECT max(rowid) FROM command_executions)",
            (_ts(k),),
        )
    elif kind == "new":
        new = f"2026-03-10-new-{k}"
        con.execute(
            "INSERT OR REPLACE INTO sessions (id, branch, status, workflow_type, current_phase, "
            "phase_number, current_round, current_map_run, started_at, updated_at, session_dir)"
            " VALUES (?, 'b', 'active', 'review', 'context', 1, 1, 1, ?, ?, ?)",
            (new, _ts(k), _ts(k), new),
        )
        con.execute(
            "INSERT INTO orchestration_events (session_id, event_type, created_at) "
            "VALUES (?, 'session_created', ?)",
            (new, _ts(k)),
        )
        con.execute(
            "INSERT INTO command_executions (command, started_at, workflow_id) "
            "VALUES ('review', ?, ?)",
            (_ts(k), None if k % 2 else new),
        )
    elif kind == "close":
        con.execute(
            "UPDATE sessions SET status = 'closed', current_phase = 'complete', updated_at = ? "
            "WHERE id = ?",
            (_ts(k), sid),
        )
        con.execute(
            "INSERT INTO orchestration_events (session_id, event_type, created_at) "
            "VALUES (?, 'session_closed', ?)",
            (sid, _ts(k)),
        )
        con.execute(
            "UPDATE command_executions SET finished_at = ? WHERE workflow_id = ?", (_ts(k), sid)
        )
    elif kind == "delete":  # rows deleted
        con.execute("DELETE FROM sessions WHERE id = ?", (sid,))
    elif kind == "triage":  # the web dashboard, alone: in place
        con.execute(
            "UPDATE user_finding_progress SET status = ?, updated_at = ? WHERE rowid = "
            "(SELECT min(rowid) + ? FROM user_finding_progress)",
            (("fixed", "read", "wont_fix")[k % 3], _ts(k), pick % 5),
        )
    elif kind == "note":
        con.execute(
            "INSERT INTO user_notes (target_type, target_id, content) VALUES ('session', ?, ?)",
            (sid, f"note {k}"),
        )
    elif kind == "reuse":  # the newest event deleted, another written with its id
        top = con.execute("SELECT max(id) FROM orchestration_events").fetchone()[0]
        con.execute("DELETE FROM orchestration_events WHERE id = ?", (top,))
        con.execute(
            "INSERT INTO orchestration_events (id, session_id, event_type, phase, created_at) "
            "VALUES (?, ?, 'phase_transition', 'discourse', ?)",
            (top, sid, _ts(k)),
        )
    elif kind == "wholesale":  # a different file: the seed again
        con.deserialize(seed)


ACTIONS = ["transition", "heartbeat", "new", "close", "delete", "triage", "note", "reuse"]
ACTIONS += ["wholesale"]


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.tuples(st.sampled_from(ACTIONS), st.integers(0, 50)), min_size=1, max_size=12))
def test_incremental_read_equals_a_whole_read(tmp_path_factory, steps):
    tmp = tmp_path_factory.mktemp("delta")
    if "seed" not in _SEEDS:
        data, _ = _seed(tmp_path_factory.mktemp("seed"))
        _SEEDS["seed"] = data
    seed = _SEEDS["seed"]
    path = tmp / ".ocr" / "data" / "ocr.db"
    path.parent.mkdir(parents=True)
    con = sqlite3.connect(":memory:", isolation_level=None)
    con.deserialize(seed)
    _write(path, con)
    snap = load_db(path, findings=read_all_findings)
    for k, (kind, pick) in enumerate(steps):
        _act(con, kind, pick, k, seed, [])
        _write(path, con)
        snap = load_db(path, snap, findings=read_all_findings)
        whole = load_db(path, findings=read_all_findings)
        assert snap.rows == whole.rows, (k, kind)
        assert snap.findings == whole.findings, (k, kind)
        assert snap.error == whole.error


def test_a_transition_reads_only_what_changed_and_derives_one_session(tmp_path, monkeypatch):
    root = tmp_path / "p"
    ids = build_history(root, sessions=8, store="ocr.db", now=NOW)
    path = root / ".ocr" / "data" / "ocr.db"
    engine = Engine(Project(root), clock=lambda: NOW)
    engine.scan()
    con = sqlite3.connect(":memory:", isolation_level=None)
    con.deserialize(path.read_bytes())
    _act(con, "transition", ids.index(ids[3]), 1, b"", ids)
    sid = con.execute("SELECT id FROM sessions ORDER BY rowid").fetchall()[3][0]
    _write(path, con)

    from ocr_tui.formats.ocr import db as ocr_db
    from ocr_tui.formats.ocr import source as ocr_source

    whole = []
    real_read = ocr_db._read_rows
    monkeypatch.setattr(ocr_db, "_read_rows", lambda c: whole.append(1) or real_read(c))
    derived = []
    real_derive = ocr_source.OcrSource.derive
    monkeypatch.setattr(
        ocr_source.OcrSource,
        "derive",
        lambda self, key, p, now: derived.append(key) or real_derive(self, key, p, now),
    )
    changed, removed = engine.apply([path])
    assert whole == []  # the file was not read whole
    assert derived == [sid]  # one derivation, of the session whose rows changed
    assert [v.id for v in changed] == [sid] and removed == []
    assert engine.views[sid].phase == "reviews"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sets(st.integers(0, 300), max_size=4), st.sets(st.integers(0, 300), max_size=2)
        ),
        max_size=400,
    )
)
def test_rows_of_a_version_are_the_last_ones_with_what_changed(steps):
    """`Rows` (a version's rows over the last whole read's, without copying them) is at each
    step the dict it stands for, before and after its changes are folded into a new base."""
    from ocr_tui.formats.ocr.db_delta import Rows

    base = {f"s{i}": ("base", i) for i in range(0, 200, 2)}
    rows, want = Rows.of(dict(base)), dict(base)
    for k, (changed, deleted) in enumerate(steps):
        states = {f"s{i}": ("v", k, i) for i in changed}
        gone = {f"s{i}" for i in deleted}
        rows = rows.updated(states, gone)
        for sid in gone:
            want.pop(sid, None)
        want.update(states)
        assert rows == want and len(rows) == len(want) and sorted(rows) == sorted(want)
        for sid in (f"s{i}" for i in range(0, 301, 7)):
            assert (sid in rows) == (sid in want) and rows.get(sid) == want.get(sid)
    assert base == {f"s{i}": ("base", i) for i in range(0, 200, 2)}  # never changed in place
