"""What OCR records beyond the session row reaches the watcher's events as a phase change does
("Live"): ocr.db is replaced whole, so an event appended, a round's triage changed,
a map file marked reviewed or an agent finishing re-derive the session it belongs to."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from test_watch import TIMEOUT, Collector
from ui.records_db import replace_db  # OCR's writer: the whole file renamed over ocr.db

from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.core.watch import Changed, Scanned

SID = "2026-11-22-main"
SCHEMA = """
CREATE TABLE sessions (id TEXT PRIMARY KEY, branch TEXT NOT NULL, status TEXT,
  workflow_type TEXT, current_phase TEXT, phase_number INT, current_round INT,
  current_map_run INT, started_at TEXT, updated_at TEXT, session_dir TEXT);
CREATE TABLE orchestration_events (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT,
  event_type TEXT, phase TEXT, phase_number INT, round INT, metadata TEXT, created_at TEXT);
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
CREATE TABLE command_executions (id INTEGER PRIMARY KEY AUTOINCREMENT, command TEXT,
  started_at TEXT, finished_at TEXT, exit_code INT);
INSERT INTO sessions VALUES ('2026-11-22-main', 'main', 'active', 'review', 'reviews', 4, 1, 1,
  '2026-11-22 01:00:00', '2026-11-22 01:00:00', 'x');
INSERT INTO orchestration_events (session_id, event_type, phase, round, created_at)
  VALUES ('2026-11-22-main', 'session_created', 'context', 1, '2026-11-22 01:00:00');
INSERT INTO review_rounds VALUES (1, '2026-11-22-main', 1);
INSERT INTO map_runs VALUES (1, '2026-11-22-main', 1);
INSERT INTO map_sections VALUES (1, 1, 1, 'Core', 1);
INSERT INTO map_files VALUES (1, 1, 'src/a.py', 1);
INSERT INTO command_executions (command, started_at) VALUES ('review', '2026-11-22 01:00:00');
"""


def changed(pred):
    return lambda ev: isinstance(ev, Changed) and any(v.id == SID and pred(v) for v in ev.sessions)


@pytest.mark.parametrize("poll", [False, True], ids=["inotify", "polling"])
async def test_records_show_live(tmp_path: Path, poll: bool):
    project = Project(tmp_path)
    (project.sessions_dir / SID / "rounds" / "round-1").mkdir(parents=True)
    (project.sessions_dir / SID / "map" / "runs" / "run-1").mkdir(parents=True)
    project.data_dir.mkdir(parents=True)
    replace_db(project.db_path, SCHEMA)
    c = Collector(Engine(project), poll=poll)
    task = asyncio.create_task(c.run())
    try:
        first = await c.wait_for(lambda ev: isinstance(ev, Scanned), what="the first scan")
        (view,) = first.sessions
        assert [a.command for a in view.agents] == ["review"]
        assert view.rounds[0].triage is None and view.map_runs[0].sections[0].reviewed == 0

        replace_db(
            project.db_path,
            "INSERT INTO orchestration_events (session_id, event_type, round, metadata, "
            f"created_at) VALUES ('{SID}', 'round_completed', 1, '{{\"verdict\": \"APPROVE\"}}', "
            "'2026-11-22 01:30:00');",
        )
        await c.wait_for(
            changed(lambda v: v.events[-1].meta == {"verdict": "APPROVE"}),
            what="the session's last event to carry the APPROVE verdict",
        )

        replace_db(
            project.db_path, "INSERT INTO user_round_progress VALUES (1, 1, 'in_progress', NULL);"
        )
        await c.wait_for(
            changed(lambda v: v.rounds[0].triage == "in_progress"),
            what="the first round's triage to show in progress",
        )

        replace_db(project.db_path, "INSERT INTO user_file_progress VALUES (1, 1, 1, NULL);")
        await c.wait_for(
            changed(lambda v: v.map_runs[0].sections[0].reviewed == 1),
            what="the map run's first section to count one file reviewed",
        )

        replace_db(
            project.db_path,
            "UPDATE command_executions SET finished_at = '2026-11-22 01:40:00', exit_code = 0;",
        )
        await c.wait_for(
            changed(lambda v: v.agents == []), what="the session to list no running agent"
        )
    finally:
        c.stop.set()
        await asyncio.wait_for(task, TIMEOUT)
