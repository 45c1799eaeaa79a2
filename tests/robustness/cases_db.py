"""Hostile `ocr.db` files. A store that cannot be read is shared by every session: each of
them names the problem and falls back to its own state.json or files."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from .cases import GOOD_A, Case, _finish, case, sdir
from .support import db_bytes, put, write_db


def _db(root: Path) -> Path:
    return root / ".ocr/data/ocr.db"


def _rows() -> dict[str, dict]:
    # Enough rows for several pages, so a truncated copy loses whole pages.
    rows = {f"2026-01-01-old-{i}": {"current_phase": "complete", "status": "closed"}
            for i in range(300)}  # fmt: skip
    rows[GOOD_A] = {"current_phase": "discourse", "status": "active"}
    return rows


@case
def db_corrupt(root: Path, outside: Path) -> Case:
    data = bytearray(db_bytes(_rows()))
    for i in range(100, len(data), 7):
        data[i] = (data[i] * 31 + 7) & 0xFF
    write_db(_db(root), bytes(data))
    return _finish(root, Case(None, project_wide=True))


@case
def db_truncated(root: Path, outside: Path) -> Case:
    data = db_bytes(_rows())
    write_db(_db(root), data[: len(data) // 2 + 100])
    return _finish(root, Case(None, project_wide=True))


@case
def db_missing_tables(root: Path, outside: Path) -> Case:
    write_db(_db(root), db_bytes({}, schema="CREATE TABLE sessions_old (x TEXT);"))
    return _finish(root, Case(None, project_wide=True))


@case
def db_sessions_without_id(root: Path, outside: Path) -> Case:
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE sessions (name TEXT, current_phase TEXT)")
    con.execute("INSERT INTO sessions VALUES (?, 'complete')", (GOOD_A,))
    con.commit()
    write_db(_db(root), con.serialize())
    con.close()
    return _finish(root, Case(None, project_wide=True))


@case
def db_empty_and_garbage(root: Path, outside: Path) -> Case:
    write_db(_db(root), b"SQLite format 3\x00" + b"\xff" * 84)
    return _finish(root, Case(None, project_wide=True))


@case
def db_not_a_file(root: Path, outside: Path) -> Case:
    _db(root).parent.mkdir(parents=True)
    os.mkfifo(_db(root))  # opening a FIFO for reading would block until a writer comes
    return _finish(root, Case(None, project_wide=True))


@case
def db_row_wrong_types(root: Path, outside: Path) -> Case:
    """One row of the wrong types: that session only."""
    sid = "2026-11-22-db-types"
    sdir(root, sid).mkdir(parents=True)
    put(sdir(root, sid) / "state.json", '{"current_phase": "reviews"}')  # ignored: a row exists
    con = sqlite3.connect(":memory:")
    con.executescript(
        "CREATE TABLE sessions (id, branch, status, workflow_type, current_phase, phase_number,"
        " current_round, current_map_run, started_at, updated_at, session_dir);"
    )
    con.execute(
        "INSERT INTO sessions VALUES (?, x'ff1b5b32 4a', 3.5, 7, x'00', 'abc', 'x', -5,"
        " 12345, x'c328', NULL)".replace(" 4a", "4a"),
        (sid,),
    )
    con.execute("INSERT INTO sessions VALUES (x'ff00', NULL, NULL, NULL, NULL, NULL, NULL,"
                " NULL, NULL, NULL, NULL)")  # fmt: skip
    con.execute("INSERT INTO sessions VALUES (NULL, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10)")
    con.commit()
    write_db(_db(root), con.serialize())
    con.close()
    return _finish(root, Case(sid))
