"""The user's notes from OCR's dashboard (`user_notes`): each placed on the
session, round, finding, map run, section or file its target_id names; notes on rows that are
gone, and databases without the tables, show nothing."""

from __future__ import annotations

import json
import sqlite3

from ocr_tui.core.engine import encode_json
from ocr_tui.formats.ocr.finding import finding_id

from .builders import ago, iso, sqlite_ts

A = "2026-03-10-feat-a"
B = "2026-03-10-feat-b"

TABLES = """
CREATE TABLE review_rounds (id INTEGER PRIMARY KEY, session_id TEXT, round_number INTEGER);
CREATE TABLE reviewer_outputs (id INTEGER PRIMARY KEY, round_id INTEGER, reviewer_type TEXT,
  instance_number INTEGER);
CREATE TABLE review_findings (id INTEGER PRIMARY KEY, reviewer_output_id INTEGER, title TEXT,
  severity TEXT, file_path TEXT);
CREATE TABLE map_runs (id INTEGER PRIMARY KEY, session_id TEXT, run_number INTEGER);
CREATE TABLE map_sections (id INTEGER PRIMARY KEY, map_run_id INTEGER, section_number INTEGER,
  title TEXT);
CREATE TABLE map_files (id INTEGER PRIMARY KEY, section_id INTEGER, file_path TEXT);
CREATE TABLE user_notes (id INTEGER PRIMARY KEY, target_type TEXT, target_id TEXT,
  content TEXT, created_at TEXT, updated_at TEXT);
INSERT INTO review_rounds VALUES (7, '2026-03-10-feat-a', 2);
INSERT INTO reviewer_outputs VALUES (70, 7, 'principal', 1);
INSERT INTO review_findings VALUES (700, 70, 'SQL injection', 'high', 'db.py');
INSERT INTO map_runs VALUES (5, '2026-03-10-feat-b', 1);
INSERT INTO map_sections VALUES (50, 5, 3, 'Core');
INSERT INTO map_files VALUES (500, 50, 'src/a.ts');
"""


def test_notes_are_placed_on_their_targets(tree):
    s = tree.session(A)
    s.round(1)
    s.round(2)
    tree.session(B)
    tree.db.session(A).session(B)
    tree.db.schema += TABLES
    tree.db.save()
    con = sqlite3.connect(tree.db_path)
    t = sqlite_ts(ago(minutes=5))
    con.executemany(
        "INSERT INTO user_notes (target_type, target_id, content, created_at, updated_at) "
        "VALUES (?, ?, ?, ?, ?)",
        [
            ("session", A, "check with Ana", t, None),
            ("round", "7", "round two looks better", t, t),
            ("finding", 700, "fixed in 3f2a", t, t),
            ("run", 5, "map run note", t, t),
            ("section", 50, "\x1b[2Jsection note", t, t),
            ("file", 500, "file note", t, t),
            ("round", 999, "a round that is gone", t, t),
            ("session", "nobody", "a session that is gone", t, t),
            ("chat", 1, "an unknown kind", t, t),
            ("session", A, "   ", t, t),
        ],
    )
    con.commit()
    con.close()
    views = tree.views()
    a = [(n.target, n.round, n.key, n.text) for n in views[A].notes]
    assert a == [
        ("session", None, None, "check with Ana"),
        ("round", 2, None, "round two looks better"),
        ("finding", 2, finding_id("SQL injection", "db.py"), "fixed in 3f2a"),
    ]
    b = [(n.target, n.run, n.section, n.key, n.text) for n in views[B].notes]
    assert b == [
        ("run", 1, None, None, "map run note"),
        ("section", 1, 3, None, "\x1b[2Jsection note"),
        ("file", 1, 3, "src/a.ts", "file note"),
    ]
    assert views[A].notes[0].at == iso(ago(minutes=5))
    out = json.loads(encode_json(views[B]))
    assert out["notes"][1]["text"].startswith("\x1b")  # JSON escapes it as \u001b
    assert "\x1b" not in encode_json(views[B])


def test_no_notes_table(tree):
    tree.session(A)
    tree.db.session(A).save()
    view = tree.view(A)
    assert view.notes == [] and not view.problems
