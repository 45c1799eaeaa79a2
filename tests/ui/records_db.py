"""What OCR's web dashboard records in ocr.db, for the sample project (`builders.sample_project`):
the user's triage of the feat-auth review's rounds, and the map-onboarding session's map run
(map-meta.json on disk, its sections in ocr.db with the files the user marked reviewed). Written
as OCR's sql.js writer does: the whole database, renamed over ocr.db."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from ocr_tui.core.project import Project

AUTH = "2026-03-10-feat-auth"
MAP = "2026-03-10-map-onboarding"
RUN = "map/runs/run-1"

SCHEMA = f"""
CREATE TABLE sessions (id TEXT PRIMARY KEY, branch TEXT NOT NULL, status TEXT,
  workflow_type TEXT, current_phase TEXT, phase_number INT, current_round INT,
  current_map_run INT, started_at TEXT, updated_at TEXT, session_dir TEXT);
CREATE TABLE review_rounds (id INTEGER PRIMARY KEY, session_id TEXT, round_number INT);
CREATE TABLE user_round_progress (id INTEGER PRIMARY KEY, round_id INT, status TEXT,
  updated_at TEXT);
CREATE TABLE map_runs (id INTEGER PRIMARY KEY, session_id TEXT, run_number INT);
CREATE TABLE map_sections (id INTEGER PRIMARY KEY, map_run_id INT, section_number INT,
  title TEXT, display_order INT);
CREATE TABLE map_files (id INTEGER PRIMARY KEY, section_id INT, file_path TEXT,
  display_order INT);
CREATE TABLE user_file_progress (id INTEGER PRIMARY KEY, map_file_id INT, is_reviewed INT,
  reviewed_at TEXT);
INSERT INTO sessions VALUES ('{AUTH}', 'feat/auth', 'active', 'review', 'reviews', 4, 2, 1,
  '2026-03-10 14:10:00', '2026-03-10 14:57:00', 'x');
INSERT INTO sessions VALUES ('{MAP}', 'map/onboarding', 'active', 'map', 'topology', 2, 1, 1,
  '2026-03-10 14:45:00', '2026-03-10 14:59:00', 'x');
INSERT INTO review_rounds VALUES (1, '{AUTH}', 1);
INSERT INTO review_rounds VALUES (2, '{AUTH}', 2);
INSERT INTO user_round_progress VALUES (1, 1, 'changes_made', NULL);
INSERT INTO user_round_progress VALUES (2, 2, 'needs_review', NULL);
INSERT INTO map_runs VALUES (1, '{MAP}', 1);
INSERT INTO map_sections VALUES (1, 1, 1, 'Section 1: Entry points', 1);
INSERT INTO map_sections VALUES (2, 1, 2, 'Section 2: Onboarding flow', 2);
INSERT INTO map_files VALUES (1, 1, 'src/app.py', 1);
INSERT INTO map_files VALUES (2, 1, 'src/cli.py', 2);
INSERT INTO map_files VALUES (3, 2, 'src/onboarding/steps.py', 1);
INSERT INTO map_files VALUES (4, 2, 'src/onboarding/[bold]form.py', 2);
INSERT INTO map_files VALUES (5, 2, 'tests/test_onboarding.py', 3);
INSERT INTO user_file_progress VALUES (1, 1, 1, '2026-03-10 14:58:00');
"""

MAP_META = {
    "schema_version": 1,
    "sections": [
        {
            "section_number": 1,
            "title": "Entry points",
            "description": "Where a new user lands: the app and the CLI.",
            "files": [
                {"file_path": "src/app.py", "role": "entry", "lines_added": 40,
                 "lines_deleted": 3},
                {"file_path": "src/cli.py", "role": "entry", "lines_added": 12,
                 "lines_deleted": 0},
            ],
        },
        {
            "section_number": 2,
            "title": "Onboarding flow",
            "files": [
                {"file_path": "src/onboarding/steps.py", "role": "core", "lines_added": 120,
                 "lines_deleted": 14},
                {"file_path": "src/onboarding/[bold]form.py", "role": "ui\x1b[31m",
                 "lines_added": 33, "lines_deleted": 2},
                {"file_path": "tests/test_onboarding.py", "role": "test", "lines_added": 58,
                 "lines_deleted": 0},
            ],
        },
    ],
    "dependencies": [
        {"from_section": 2, "from_title": "Onboarding flow", "to_section": 1,
         "to_title": "Entry points", "relationship": "calls into"},
    ],
}  # fmt: skip


def replace_db(path: Path, sql: str) -> None:
    """Like OCR's sql.js writer: the whole database, changed, renamed over ocr.db."""
    con = sqlite3.connect(":memory:")
    if path.exists():
        con.deserialize(path.read_bytes())
    con.executescript(sql)
    data = con.serialize()
    con.close()
    tmp = path.with_name(f"ocr.db.{os.getpid()}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def give_records(project: Project) -> None:
    """The sample project's ocr.db (triage, the map run's sections and reviewed marks) and
    the map run's map-meta.json."""
    run = project.sessions_dir / MAP / RUN
    meta = run / "map-meta.json"
    meta.write_text(json.dumps(MAP_META, indent=2))
    st = (run / "topology.md").stat()
    os.utime(meta, (st.st_atime, st.st_mtime))  # as old as the run's other files
    project.data_dir.mkdir(parents=True, exist_ok=True)
    replace_db(project.db_path, SCHEMA)
    os.utime(project.db_path, (st.st_atime, st.st_mtime))
