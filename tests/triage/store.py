"""A store as OCR leaves it: `ocr_schema.sql` (OCR's migrations 1-9, verbatim), one review
session with two rounds whose findings OCR's dashboard parsed (one finding raised by two
reviewers), and a map run; plus the statements OCR's dashboard runs
(`packages/dashboard/src/server/db.ts`), verbatim, to write rows as it would."""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA = (Path(__file__).parent / "ocr_schema.sql").read_text()
SID = "2026-03-10-feat-auth"
MAP_SID = "2026-03-11-map-api"

ROWS = f"""
INSERT INTO sessions (id, branch, status, workflow_type, current_phase, phase_number,
  current_round, started_at, updated_at, session_dir)
  VALUES ('{SID}', 'feat/auth', 'closed', 'review', 'complete', 8, 2, '2026-03-10 12:00:00',
          '2026-03-10 13:00:00', '.ocr/sessions/{SID}'),
         ('{MAP_SID}', 'map/api', 'closed', 'map', 'complete', 6, 1, '2026-03-11 12:00:00',
          '2026-03-11 13:00:00', '.ocr/sessions/{MAP_SID}');
INSERT INTO review_rounds (id, session_id, round_number, verdict, parsed_at)
  VALUES (11, '{SID}', 1, 'REQUEST CHANGES', '2026-03-10 12:30:00'),
         (12, '{SID}', 2, 'APPROVE', '2026-03-10 13:00:00');
INSERT INTO reviewer_outputs (id, round_id, reviewer_type, instance_number, file_path)
  VALUES (21, 11, 'principal', 1, 'rounds/round-1/reviews/principal-1.md'),
         (22, 11, 'security', 1, 'rounds/round-1/reviews/security-1.md'),
         (23, 12, 'principal', 1, 'rounds/round-2/reviews/principal-1.md');
INSERT INTO review_findings (id, reviewer_output_id, title, severity, file_path, line_start,
  summary, is_blocker)
  VALUES (31, 21, 'SQL injection in login', 'critical', 'src/auth.py', 42, 'Use params.', 1),
         (32, 22, 'SQL injection in login', 'high', 'src/auth.py', 42, 'Bind values.', 1),
         (33, 21, 'Missing test for logout', 'low', 'tests/test_auth.py', NULL, 'Add one.', 0),
         (34, 23, 'Missing test for logout', 'low', 'tests/test_auth.py', NULL, 'Still.', 0);
INSERT INTO map_runs (id, session_id, run_number, file_count) VALUES (41, '{MAP_SID}', 1, 2);
INSERT INTO map_sections (id, map_run_id, section_number, title) VALUES (51, 41, 1, 'Core');
INSERT INTO map_files (id, section_id, file_path) VALUES (61, 51, 'src/api.py'),
  (62, 51, 'src/db.py');
"""

# OCR's dashboard's writes, verbatim (db.ts, 1.10.4).
DASHBOARD = {
    "finding": """INSERT INTO user_finding_progress (finding_id, status, updated_at)
     VALUES (?, ?, datetime('now'))
     ON CONFLICT(finding_id)
     DO UPDATE SET status = ?, updated_at = datetime('now')""",
    "round": """INSERT INTO user_round_progress (round_id, status, updated_at)
     VALUES (?, ?, datetime('now'))
     ON CONFLICT(round_id)
     DO UPDATE SET status = ?, updated_at = datetime('now')""",
    "file": """INSERT INTO user_file_progress (map_file_id, is_reviewed, reviewed_at)
     VALUES (?, ?, datetime('now'))
     ON CONFLICT(map_file_id)
     DO UPDATE SET is_reviewed = ?, reviewed_at = datetime('now')""",
    "note": """INSERT INTO user_notes (target_type, target_id, content)
     VALUES (?, ?, ?)""",
}


def make_store(root: Path) -> Path:
    """`root/.ocr/data/ocr.db` with the rows above; the sessions' directories made."""
    for sid in (SID, MAP_SID):
        (root / ".ocr" / "sessions" / sid).mkdir(parents=True, exist_ok=True)
    for n in (1, 2):
        (root / ".ocr" / "sessions" / SID / "rounds" / f"round-{n}").mkdir(parents=True)
    path = root / ".ocr" / "data" / "ocr.db"
    path.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path)
    con.executescript(SCHEMA + ROWS)
    con.commit()
    con.close()
    return path


def rows(path: Path, sql: str, args: tuple = ()) -> list[tuple]:
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return con.execute(sql, args).fetchall()
    finally:
        con.close()
