"""Writing the simulated dashboard rows into `.ocr/data/ocr.db`: the five tables upstream's
migrations make for them (made here when missing, with their schema_version entries), the
session's old rows removed first so a re-run over an old tree leaves one set.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ocr_tui.formats.ocr.sim_dashboard_rows import RoundRow

# Migration 1's three artifact tables and user_finding_progress, migration 2's
# user_round_progress, with migration 6's and 7's columns (last, where their ALTER TABLE puts
# them): packages/cli/src/lib/db/migrations.ts, the CHECKs included.
SCHEMA = """
CREATE TABLE IF NOT EXISTS review_rounds (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  round_number INTEGER NOT NULL, verdict TEXT, blocker_count INTEGER DEFAULT 0,
  suggestion_count INTEGER DEFAULT 0, should_fix_count INTEGER DEFAULT 0, final_md_path TEXT,
  parsed_at TEXT, source TEXT DEFAULT NULL, reviewer_count INTEGER DEFAULT 0,
  total_finding_count INTEGER DEFAULT 0, UNIQUE(session_id, round_number));
CREATE TABLE IF NOT EXISTS reviewer_outputs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  round_id INTEGER NOT NULL REFERENCES review_rounds(id) ON DELETE CASCADE,
  reviewer_type TEXT NOT NULL, instance_number INTEGER NOT NULL DEFAULT 1,
  file_path TEXT NOT NULL, finding_count INTEGER DEFAULT 0, parsed_at TEXT,
  UNIQUE(round_id, reviewer_type, instance_number));
CREATE TABLE IF NOT EXISTS review_findings (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  reviewer_output_id INTEGER NOT NULL REFERENCES reviewer_outputs(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  severity TEXT NOT NULL CHECK(severity IN ('critical', 'high', 'medium', 'low', 'info')),
  file_path TEXT, line_start INTEGER, line_end INTEGER, summary TEXT,
  is_blocker INTEGER NOT NULL DEFAULT 0, parsed_at TEXT, category TEXT DEFAULT NULL);
CREATE INDEX IF NOT EXISTS idx_findings_severity ON review_findings(severity);
CREATE TABLE IF NOT EXISTS user_finding_progress (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  finding_id INTEGER NOT NULL REFERENCES review_findings(id) ON DELETE CASCADE,
  status TEXT NOT NULL DEFAULT 'unread'
    CHECK(status IN ('unread', 'read', 'acknowledged', 'fixed', 'wont_fix')),
  updated_at TEXT NOT NULL DEFAULT (datetime('now')), UNIQUE(finding_id));
CREATE TABLE IF NOT EXISTS user_round_progress (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  round_id INTEGER NOT NULL REFERENCES review_rounds(id) ON DELETE CASCADE,
  status TEXT NOT NULL DEFAULT 'needs_review'
    CHECK(status IN ('needs_review', 'in_progress', 'changes_made', 'acknowledged', 'dismissed')),
  updated_at TEXT NOT NULL DEFAULT (datetime('now')), UNIQUE(round_id));
INSERT OR IGNORE INTO schema_version VALUES
  (2, '1970-01-01 00:00:00', 'Add chat conversations, messages, and round progress tables'),
  (6, '1970-01-01 00:00:00',
   'Add orchestrator-first columns to review_rounds for round-meta.json support'),
  (7, '1970-01-01 00:00:00',
   'Add category column to review_findings for blocker/should_fix/suggestion classification');
"""


def forget(con: sqlite3.Connection, sid: str) -> None:
    """Remove the session's rows from the five tables (a re-run over an old tree; nothing
    cascades without `PRAGMA foreign_keys`)."""
    rounds = "SELECT id FROM review_rounds WHERE session_id = ?"
    if not con.execute(f"{rounds} LIMIT 1", (sid,)).fetchone():
        return  # the usual case: nothing to scan the other tables for
    outputs = f"SELECT id FROM reviewer_outputs WHERE round_id IN ({rounds})"
    findings = f"SELECT id FROM review_findings WHERE reviewer_output_id IN ({outputs})"
    con.execute(f"DELETE FROM user_finding_progress WHERE finding_id IN ({findings})", (sid,))
    con.execute(f"DELETE FROM review_findings WHERE id IN ({findings})", (sid,))
    con.execute(f"DELETE FROM reviewer_outputs WHERE id IN ({outputs})", (sid,))
    con.execute(f"DELETE FROM user_round_progress WHERE round_id IN ({rounds})", (sid,))
    con.execute("DELETE FROM review_rounds WHERE session_id = ?", (sid,))


def write(con: sqlite3.Connection, sid: str, rows: Sequence[RoundRow]) -> None:
    """Put session `sid`'s rows into `con` (an autocommit connection, as DbStore's): the
    tables and their schema_version entries made if missing, the session's old rows
    replaced. The session's clicks are inserted in time order (their ids follow its clock)."""
    if not rows:
        return
    con.executescript(SCHEMA)
    con.execute("BEGIN")
    try:
        forget(con, sid)
        clicks: list[tuple[str, int, str]] = []
        marks: list[tuple[str, int, str]] = []
        for r in rows:
            round_id = con.execute(
                "INSERT INTO review_rounds (session_id, round_number, verdict, blocker_count, "
                "suggestion_count, should_fix_count, final_md_path, parsed_at, source, "
                "reviewer_count, total_finding_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (sid, r.round_number, r.verdict, r.blocker_count, r.suggestion_count,
                 r.should_fix_count, r.final_md_path, r.parsed_at, r.source, r.reviewer_count,
                 r.total_finding_count),
            ).lastrowid  # fmt: skip
            for o in r.outputs:
                output_id = con.execute(
                    "INSERT INTO reviewer_outputs (round_id, reviewer_type, instance_number, "
                    "file_path, finding_count, parsed_at) VALUES (?, ?, ?, ?, ?, ?)",
                    (round_id, o.reviewer_type, o.instance_number, o.file_path,
                     o.finding_count, o.parsed_at),
                ).lastrowid  # fmt: skip
                for f in o.findings:
                    finding = con.execute(
                        "INSERT INTO review_findings (reviewer_output_id, title, severity, "
                        "file_path, line_start, line_end, summary, is_blocker, parsed_at, "
                        "category) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (output_id, f.title, f.severity, f.file_path, f.line_start,
                         f.line_end, f.summary, int(f.is_blocker), f.parsed_at, f.category),
                    ).lastrowid  # fmt: skip
                    if f.triage:
                        clicks.append((f.triage[1], finding, f.triage[0]))  # type: ignore[arg-type]
            if r.progress:
                marks.append((r.progress[1], round_id, r.progress[0]))  # type: ignore[arg-type]
        con.executemany(
            "INSERT INTO user_finding_progress (finding_id, status, updated_at) VALUES (?, ?, ?)",
            [(fid, status, at) for at, fid, status in sorted(clicks)],
        )
        con.executemany(
            "INSERT INTO user_round_progress (round_id, status, updated_at) VALUES (?, ?, ?)",
            [(rid, status, at) for at, rid, status in sorted(marks)],
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
