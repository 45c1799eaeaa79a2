"""The rest of what OCR records in `.ocr/data/ocr.db` for the simulator's sessions:
the dashboard's map rows (`map_runs`, `map_sections`, `map_files`) with the files the user
marked reviewed (`user_file_progress`), a few of the user's notes (`user_notes`), and the
agent command each session ran (`command_executions`, with the heartbeat columns of newer
OCR builds: migrations 3, 4, 9 and the unmerged 11). `sim_store.DbStore` calls these.

Like `sim_dashboard`: map rows and notes only for closed history sessions (the dashboard had
parsed them), from a `random.Random` of their own seeded from the simulator's seed and the
session id, never the scenario's (the files must not change), nothing later than `until`.
The command row is every session's, live ones too: started at session_created, its heartbeat
at each state change, finished at session_closed; its pid is the simulator's own (alive while
it plays)."""

from __future__ import annotations

import os
import random
import re
import sqlite3
from collections.abc import Sequence
from datetime import datetime, timedelta

from ocr_tui.formats.ocr.sim_scenario import Action

SCHEMA = """
CREATE TABLE IF NOT EXISTS map_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL, run_number INTEGER NOT NULL,
  file_count INTEGER, map_md_path TEXT, parsed_at TEXT, source TEXT, section_count INTEGER,
  UNIQUE(session_id, run_number));
CREATE TABLE IF NOT EXISTS map_sections (
  id INTEGER PRIMARY KEY AUTOINCREMENT, map_run_id INTEGER NOT NULL REFERENCES map_runs(id),
  section_number INTEGER NOT NULL, title TEXT NOT NULL, description TEXT, file_count INTEGER,
  display_order INTEGER);
CREATE TABLE IF NOT EXISTS map_files (
  id INTEGER PRIMARY KEY AUTOINCREMENT, section_id INTEGER NOT NULL REFERENCES map_sections(id),
  file_path TEXT NOT NULL, role TEXT, lines_added INTEGER, lines_deleted INTEGER,
  display_order INTEGER);
CREATE TABLE IF NOT EXISTS user_file_progress (
  id INTEGER PRIMARY KEY AUTOINCREMENT, map_file_id INTEGER NOT NULL REFERENCES map_files(id),
  is_reviewed INTEGER NOT NULL DEFAULT 0, reviewed_at TEXT, UNIQUE(map_file_id));
CREATE TABLE IF NOT EXISTS user_notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  target_type TEXT NOT NULL
    CHECK(target_type IN ('session', 'round', 'finding', 'run', 'section', 'file')),
  target_id TEXT NOT NULL, content TEXT NOT NULL,
  created_at TEXT NOT NULL DEFAULT (datetime('now')),
  updated_at TEXT NOT NULL DEFAULT (datetime('now')));
CREATE TABLE IF NOT EXISTS command_executions (
  id INTEGER PRIMARY KEY AUTOINCREMENT, command TEXT NOT NULL, args TEXT, exit_code INTEGER,
  started_at TEXT NOT NULL DEFAULT (datetime('now')), finished_at TEXT, output TEXT,
  pid INTEGER, is_detached INTEGER DEFAULT 0, uid TEXT, workflow_id TEXT, persona TEXT,
  resolved_model TEXT, last_heartbeat_at TEXT);
INSERT OR IGNORE INTO schema_version VALUES
  (3, '1970-01-01 00:00:00', 'Add pid to command_executions'),
  (4, '1970-01-01 00:00:00', 'Add is_detached to command_executions'),
  (8, '1970-01-01 00:00:00', 'Add source and section_count to map_runs'),
  (9, '1970-01-01 00:00:00', 'Add uid to command_executions');
"""

_MAP_META = re.compile(r"^map/runs/run-(\d+)/map-meta\.json$")
REVIEWED_SHARE = 0.6  # of a map's files, the share the user marked reviewed
MODEL = "claude-sonnet-4-5"


def _sql(t: datetime) -> str:  # ocr.db: YYYY-MM-DD HH:MM:SS, UTC, no zone
    return t.isoformat(" ", "seconds")[:19]


# --- the agent command of a session ----------------------------------------------------------


def command_event(con: sqlite3.Connection, sid: str, event: str, workflow: str, t: datetime):
    """Keep `command_executions` in step with a state change of session `sid` (the tables
    made by `SCHEMA` first)."""
    ts = _sql(t)
    if event == "session_created":
        con.execute(
            "INSERT INTO command_executions (command, args, started_at, pid, uid, workflow_id, "
            "persona, resolved_model, last_heartbeat_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (workflow, f"--session {sid}", ts, os.getpid(), f"sim-{sid}", sid, "orchestrator",
             MODEL, ts),
        )  # fmt: skip
    elif event == "session_closed":
        con.execute(
            "UPDATE command_executions SET finished_at = ?, exit_code = 0, last_heartbeat_at = ? "
            "WHERE workflow_id = ? AND finished_at IS NULL",
            (ts, ts, sid),
        )
    else:
        con.execute(
            "UPDATE command_executions SET last_heartbeat_at = ? "
            "WHERE workflow_id = ? AND finished_at IS NULL",
            (ts, sid),
        )


# --- the dashboard's map rows and the user's notes (closed history sessions) -----------------


def write(
    con: sqlite3.Connection,
    sid: str,
    played: Sequence[tuple[Action, datetime]],
    *,
    seed: int,
    until: datetime,
) -> None:
    """Map rows (from the map-meta.json the session wrote), the files the user reviewed, and
    two notes, for closed session `sid`; its old rows replaced."""
    con.executescript(SCHEMA)
    rng = random.Random(f"ocr-sim/{seed}/{sid}/records")
    closed = max((t for _, t in played), default=until)
    con.execute("BEGIN")
    try:
        _forget(con, sid)
        for act, t in played:
            for rel, body in act.writes:
                m = _MAP_META.match(rel)
                if m and isinstance(body, dict):
                    _map_run(con, sid, int(m[1]), body, t, closed, until, rng)
        _notes(con, sid, closed, until, rng)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def _forget(con: sqlite3.Connection, sid: str) -> None:
    runs = "SELECT id FROM map_runs WHERE session_id = ?"
    sections = f"SELECT id FROM map_sections WHERE map_run_id IN ({runs})"
    files = f"SELECT id FROM map_files WHERE section_id IN ({sections})"
    con.execute(f"DELETE FROM user_file_progress WHERE map_file_id IN ({files})", (sid,))
    con.execute(f"DELETE FROM map_files WHERE id IN ({files})", (sid,))
    con.execute(f"DELETE FROM map_sections WHERE id IN ({sections})", (sid,))
    con.execute("DELETE FROM map_runs WHERE session_id = ?", (sid,))
    con.execute("DELETE FROM user_notes WHERE target_type = 'session' AND target_id = ?", (sid,))


def _map_run(con, sid, number, meta, written, closed, until, rng) -> None:
    sections = [s for s in meta.get("sections", []) if isinstance(s, dict)]
    files = sum(len(s.get("files", [])) for s in sections)
    run_id = con.execute(
        "INSERT INTO map_runs (session_id, run_number, file_count, map_md_path, parsed_at, "
        "source, section_count) VALUES (?, ?, ?, ?, ?, 'orchestrator', ?)",
        (sid, number, files, f"map/runs/run-{number}/map.md", _sql(written), len(sections)),
    ).lastrowid
    lo, hi = closed + timedelta(seconds=60), until - timedelta(seconds=10)
    for order, s in enumerate(sections, start=1):
        section_id = con.execute(
            "INSERT INTO map_sections (map_run_id, section_number, title, description, "
            "file_count, display_order) VALUES (?, ?, ?, ?, ?, ?)",
            (run_id, s.get("section_number", order), s.get("title", ""), s.get("description"),
             len(s.get("files", [])), order),
        ).lastrowid  # fmt: skip
        for i, f in enumerate(s.get("files", []), start=1):
            file_id = con.execute(
                "INSERT INTO map_files (section_id, file_path, role, lines_added, "
                "lines_deleted, display_order) VALUES (?, ?, ?, ?, ?, ?)",
                (section_id, f.get("file_path"), f.get("role"), f.get("lines_added"),
                 f.get("lines_deleted"), i),
            ).lastrowid  # fmt: skip
            if rng.random() < REVIEWED_SHARE and lo < hi:
                at = lo + timedelta(seconds=rng.uniform(0, (hi - lo).total_seconds()))
                con.execute(
                    "INSERT INTO user_file_progress (map_file_id, is_reviewed, reviewed_at) "
                    "VALUES (?, 1, ?)",
                    (file_id, _sql(at)),
                )


NOTES = (
    "Asked Ana to double-check the token expiry path before merging.",
    "Re-run after the rebase; the flaky test is unrelated.",
    "Blocker agreed with the team; fix goes in a follow-up PR.",
)


def _notes(con, sid, closed, until, rng) -> None:
    at = min(closed + timedelta(seconds=rng.randint(120, 900)), until - timedelta(seconds=5))
    con.execute(
        "INSERT INTO user_notes (target_type, target_id, content, created_at, updated_at) "
        "VALUES ('session', ?, ?, ?, ?)",
        (sid, rng.choice(NOTES), _sql(at), _sql(at)),
    )
    try:
        last = con.execute(
            "SELECT id, round_number FROM review_rounds WHERE session_id = ? "
            "ORDER BY round_number DESC LIMIT 1",
            (sid,),
        ).fetchone()
    except sqlite3.OperationalError:  # no review rows were written (sim_dashboard)
        last = None
    if last is not None:
        con.execute(
            "DELETE FROM user_notes WHERE target_type = 'round' AND target_id = ?", (str(last[0]),)
        )
        con.execute(
            "INSERT INTO user_notes (target_type, target_id, content, created_at, updated_at) "
            "VALUES ('round', ?, ?, ?, ?)",
            (str(last[0]), f"Round {last[1]}: triaged with the team.", _sql(at), _sql(at)),
        )
