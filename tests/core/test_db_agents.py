"""Running agents from ocr.db's `command_executions`: rows started and not
finished, placed by workflow_id or on the newest active session, with heartbeat and pid
staleness, at the oldest and newest schemas."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys

from ocr_tui.core.engine import encode_json

from .builders import FIXED, ago, iso, sqlite_ts

A = "2026-03-10-feat-a"
B = "2026-03-09-feat-b"
OLD = "2026-03-08-old"

V1 = """CREATE TABLE command_executions (id INTEGER PRIMARY KEY AUTOINCREMENT, command TEXT,
  args TEXT, exit_code INTEGER, started_at TEXT, finished_at TEXT, output TEXT);"""
V11 = V1.replace(
    "output TEXT)",
    "output TEXT, pid INTEGER, is_detached INTEGER, uid TEXT, workflow_id TEXT, parent_id "
    "INTEGER, vendor TEXT, vendor_session_id TEXT, persona TEXT, instance_index INTEGER, "
    "name TEXT, resolved_model TEXT, last_heartbeat_at TEXT, notes TEXT)",
)


def project(tree, schema: str, rows: list[dict]):
    for sid in (A, B, OLD):
        tree.session(sid)
    db = tree.db
    db.session(A, status="active", started_at=sqlite_ts(ago(hours=1)))
    db.session(B, status="active", started_at=sqlite_ts(ago(hours=5)))
    db.session(OLD, status="closed", started_at=sqlite_ts(ago(minutes=5)))
    db.schema += schema
    db.save()
    con = sqlite3.connect(tree.db_path)
    for row in rows:
        cols = ", ".join(row)
        con.execute(
            f"INSERT INTO command_executions ({cols}) VALUES ({', '.join('?' * len(row))})",
            list(row.values()),
        )
    con.commit()
    con.close()
    return tree.views()


def test_oldest_schema_rows_go_to_the_newest_active_session(tree):
    views = project(tree, V1, [
        {"command": "review", "started_at": sqlite_ts(ago(minutes=3))},
        {"command": "map", "started_at": sqlite_ts(ago(hours=2)), "finished_at": sqlite_ts(FIXED),
         "exit_code": 0},
        {"command": "never started"},
    ])  # fmt: skip
    (agent,) = views[A].agents
    assert (agent.command, agent.started_at, agent.pid, agent.stale) == (
        "review", iso(ago(minutes=3)), None, None,  # neither heartbeat nor pid: unknown
    )  # fmt: skip
    assert views[B].agents == [] and views[OLD].agents == []
    out = json.loads(encode_json(views[A]))
    assert out["agents"] == [{
        "command": "review", "started_at": iso(ago(minutes=3)), "pid": None,
        "heartbeat_at": None, "persona": None, "model": None, "stale": None,
    }]  # fmt: skip


def test_newest_schema_by_workflow_id_with_heartbeats_and_pids(tree):
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # a pid that no longer runs
    views = project(tree, V11, [
        {"command": "review", "started_at": sqlite_ts(ago(minutes=9)), "workflow_id": B,
         "persona": "principal", "resolved_model": "claude-x", "instance_index": 1,
         "last_heartbeat_at": sqlite_ts(ago(seconds=20)), "pid": os.getpid()},
        {"command": "review", "started_at": sqlite_ts(ago(minutes=9)), "workflow_id": B,
         "persona": "quality", "last_heartbeat_at": sqlite_ts(ago(minutes=5))},
        {"command": "review", "started_at": sqlite_ts(ago(minutes=9)), "workflow_id": B,
         "pid": gone.pid},
        {"command": "map", "started_at": sqlite_ts(ago(minutes=1)), "workflow_id": None},
        {"command": "x", "started_at": sqlite_ts(ago(minutes=1)), "workflow_id": "nobody"},
    ])  # fmt: skip
    fresh, old_beat, dead = views[B].agents
    assert (fresh.persona, fresh.model, fresh.pid, fresh.stale) == (
        "principal", "claude-x", os.getpid(), False,
    )  # fmt: skip
    assert fresh.heartbeat_at == iso(ago(seconds=20))
    assert old_beat.stale is True  # heartbeat older than 60 s
    assert dead.stale is True  # the process is gone
    assert [a.command for a in views[A].agents] == ["map"]  # no workflow_id: newest active
    assert views[OLD].agents == []  # a workflow_id naming no session: no one's


def test_a_fresh_heartbeat_schedules_its_own_staleness(tree):
    from ocr_tui.formats.ocr.derive_records import heartbeat_due

    views = project(tree, V11, [
        {"command": "review", "started_at": sqlite_ts(ago(minutes=9)), "workflow_id": A,
         "last_heartbeat_at": sqlite_ts(ago(seconds=20))},
    ])  # fmt: skip
    assert heartbeat_due(views[A]) == ago(seconds=20 - 61)
    later = tree.view(A, now=ago(seconds=-45))
    assert later.agents[0].stale is True


def test_no_table_and_hostile_values(tree):
    tree.session(A)
    tree.db.session(A, status="active").save()
    assert tree.view(A).agents == []
    tree.db.sessions.clear()
    views = project(tree, V11, [
        {"command": "\x1b]52;c;cHduZWQ=\x07rm", "started_at": "soon", "pid": -5,
         "workflow_id": A, "last_heartbeat_at": "\x1b[2J"},
        {"command": 12345, "started_at": sqlite_ts(ago(minutes=1)), "pid": "9" * 40,
         "workflow_id": A},
    ])  # fmt: skip
    first, second = views[A].agents
    assert (first.started_at, first.pid, first.heartbeat_at, first.stale) == (None,) * 3 + (None,)
    assert second.command == "12345" and second.pid is None
    assert "\x1b" not in encode_json(views[A])
