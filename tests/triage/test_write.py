"""The write path (`triage_write`): each mark written as OCR's dashboard writes it, read back
by OCR's own queries and by ocr-tui; and every way a store can refuse a write: one line,
nothing written, nothing lost."""

from __future__ import annotations

import errno
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ocr_tui.core import swap
from ocr_tui.core.journal import Journal
from ocr_tui.formats.ocr import api
from ocr_tui.formats.ocr.finding import finding_id
from ocr_tui.formats.ocr.triage_marks import (
    FileMark,
    FindingMark,
    NoteAdd,
    NoteEdit,
    Refused,
    RoundMark,
    now_sql,
)
from ocr_tui.formats.ocr.triage_write import write

from .store import DASHBOARD, MAP_SID, SID, make_store, rows

INJECTION = finding_id("SQL injection in login", "src/auth.py")  # rows 31, 32 (two reviewers)
LOGOUT = finding_id("Missing test for logout", "tests/test_auth.py")  # 33 (round 1), 34 (2)
TIME = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d")


@pytest.fixture
def db(tmp_path) -> Path:
    return make_store(tmp_path)


def _recent(t: str) -> bool:
    at = datetime.strptime(t, "%Y-%m-%d %H:%M:%S").replace(tzinfo=UTC)
    return abs((datetime.now(UTC) - at).total_seconds()) < 120


def _dashboard(db: Path, kind: str, args: tuple) -> None:
    con = sqlite3.connect(db)
    con.execute(DASHBOARD[kind], args)
    con.commit()
    con.close()


def _user_tables(db: Path) -> dict[str, list[tuple]]:
    out = {}
    for table in ("user_finding_progress", "user_round_progress", "user_file_progress",
                  "user_notes"):  # fmt: skip
        out[table] = [
            tuple(
                "<now>" if isinstance(v, str) and TIME.fullmatch(v) and _recent(v) else v
                for v in row
            )  # fmt: skip
            for row in rows(db, f"SELECT * FROM {table} ORDER BY id")
        ]
    return out


def test_each_mark_is_the_rows_ocrs_dashboard_writes(tmp_path):
    """The same clicks in OCR's dashboard (its statements, verbatim) and in ocr-tui leave the
    same rows: tables, columns, values, ids, the time's format."""
    ours = make_store(tmp_path / "ours")
    theirs = make_store(tmp_path / "theirs")
    at = now_sql()
    write(ours, FindingMark(session=SID, round=1, finding=INJECTION, status="fixed", at=at))
    for rid in (31, 32):  # the finding's row of each reviewer, one click each
        _dashboard(theirs, "finding", (rid, "fixed", "fixed"))
    write(ours, RoundMark(session=SID, round=1, status="changes_made", at=at))
    _dashboard(theirs, "round", (11, "changes_made", "changes_made"))
    write(ours, FileMark(session=MAP_SID, run=1, path="src/db.py", reviewed=True, at=at))
    _dashboard(theirs, "file", (62, 1, 1))
    write(ours, NoteAdd(session=SID, target="finding", round=1, finding=INJECTION,
                        text="fixed in 3f2a", at=at))  # fmt: skip
    _dashboard(theirs, "note", ("finding", "31", "fixed in 3f2a"))
    write(ours, NoteAdd(session=SID, target="session", text="ask Ana", at=at))
    _dashboard(theirs, "note", ("session", SID, "ask Ana"))
    assert _user_tables(ours) == _user_tables(theirs)
    # OCR's dashboard's own reads (db.ts) find them.
    assert rows(ours, "SELECT status FROM user_finding_progress WHERE finding_id = ?", (32,)) == [
        ("fixed",)
    ]
    assert rows(ours, "SELECT * FROM user_notes WHERE target_type = ? AND target_id = ? "
                "ORDER BY created_at DESC", ("session", SID))[0][3] == "ask Ana"  # fmt: skip
    assert rows(ours, "PRAGMA integrity_check") == [("ok",)]


def test_rows_the_dashboard_wrote_read_in_ocr_tui(db):
    _dashboard(db, "finding", (33, "wont_fix", "wont_fix"))
    _dashboard(db, "round", (12, "acknowledged", "acknowledged"))
    _dashboard(db, "note", ("round", "11", "round one note"))
    rounds = {r.number: r for r in api.read_rounds(str(db.parents[1] / "sessions" / SID), db, SID)}
    assert {f.id: f.triage for f in rounds[1].current}[LOGOUT] == "wont_fix"
    assert {f.id: f.triage for f in rounds[2].current}[LOGOUT] is None  # row 34: not marked


def test_clear_and_the_states_the_file_allows(db):
    at = now_sql()
    write(db, FindingMark(session=SID, round=1, finding=INJECTION, status="read", at=at))
    write(db, FindingMark(session=SID, round=1, finding=INJECTION, status=None, at=at))
    assert rows(db, "SELECT * FROM user_finding_progress") == []
    assert api.allowed_states(db, "finding") == ("unread", "read", "acknowledged", "fixed",
                                                 "wont_fix")  # fmt: skip
    with pytest.raises(Refused, match="not a state ocr.db allows"):
        write(db, FindingMark(session=SID, round=1, finding=INJECTION, status="done", at=at))


def test_notes_edit_and_delete(db):
    at = now_sql()
    write(db, NoteAdd(session=SID, target="round", round=2, text="first", at=at))
    (nid,) = rows(db, "SELECT id FROM user_notes")[0]
    write(db, NoteEdit(note=nid, text="second", at=at))
    assert rows(db, "SELECT target_type, target_id, content FROM user_notes") == [
        ("round", "12", "second")
    ]
    write(db, NoteEdit(note=nid, text=None, at=at))
    assert rows(db, "SELECT * FROM user_notes") == []
    with pytest.raises(Refused, match="no note"):
        write(db, NoteEdit(note=nid, text="gone", at=at))


def _refused(db: Path, mark, match: str) -> None:
    before = db.read_bytes() if db.exists() else None
    with pytest.raises(Refused, match=match) as got:
        write(db, mark)
    assert "\n" not in str(got.value)
    assert (db.read_bytes() if db.exists() else None) == before
    assert sorted(p.name for p in db.parent.iterdir() if "tmp" in p.name) == []


MARK = FindingMark(
    session=SID, round=1, finding=INJECTION, status="fixed", at="2026-03-10 14:00:00"
)


def test_no_store_is_never_created(tmp_path):
    db = tmp_path / ".ocr" / "data" / "ocr.db"
    db.parent.mkdir(parents=True)
    _refused(db, MARK, "need OCR ≥ 1.5's store")
    assert not db.exists()


def test_no_row_for_the_finding(db):
    _refused(
        db,
        FindingMark(session=SID, round=2, finding=INJECTION, status="fixed", at=now_sql()),
        "no row for finding .* open the session once",
    )


def test_a_schema_older_than_the_table_needs(db):
    con = sqlite3.connect(db)
    con.execute("DROP TABLE user_round_progress")
    con.commit()
    con.close()
    _refused(db, RoundMark(session=SID, round=1, status="in_progress", at=now_sql()),
             "no user_round_progress table")  # fmt: skip
    write(db, MARK)  # what the schema has is still written


def test_a_corrupt_store(db):
    data = bytearray(db.read_bytes())
    data[4096:8192] = b"\xff" * 4096
    db.write_bytes(bytes(data))
    _refused(db, MARK, "corrupt")
    db.write_bytes(b"not a database at all")
    _refused(db, MARK, "not an SQLite database")


@pytest.mark.parametrize(
    "err, match",
    [
        (errno.ENOSPC, "no space left"),
        (errno.EACCES, "is not writable"),
        (errno.EROFS, "read-only file system"),
    ],
)
def test_the_directory_refuses(db, monkeypatch, err, match):
    def refuse(*a, **k):
        raise OSError(err, os.strerror(err))

    monkeypatch.setattr(swap, "_write_temp", refuse)
    _refused(db, MARK, match)


def test_a_full_disk_mid_write_leaves_nothing(db, monkeypatch):
    real_fsync = os.fsync

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(swap.os, "fsync", full)
    _refused(db, MARK, "no space left")
    monkeypatch.setattr(swap.os, "fsync", real_fsync)


HOLD = """
import sqlite3, sys, time
con = sqlite3.connect(sys.argv[1], isolation_level=None)
con.execute("BEGIN IMMEDIATE")
if sys.argv[2] == "write":
    con.execute("UPDATE sessions SET branch = branch")
print("held", flush=True)
sys.stdin.read()
"""


@pytest.mark.parametrize("how", ["lock", "write"])
def test_a_store_an_sqlite_program_is_writing(db, how):
    p = subprocess.Popen([sys.executable, "-c", HOLD, str(db), how], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert p.stdout.readline() == "held\n"  # waits for: the lock taken
        _refused(db, MARK, "locked by an SQLite program")
    finally:
        p.communicate("", timeout=10)
    write(db, MARK)  # once it is done


@pytest.mark.parametrize("side", ["-journal", "-wal"])
def test_a_store_with_an_sqlite_journal_beside_it(db, side):
    Path(f"{db}{side}").write_bytes(b"\0" * 512)
    _refused(db, MARK, f"being written by an SQLite program \\(ocr.db{side}")


def test_a_link_is_not_followed(db):
    real = db.with_name("real.db")
    shutil.move(db, real)
    db.symlink_to(real)
    before = real.read_bytes()
    with pytest.raises(Refused, match="symbolic link"):
        write(db, MARK)
    assert real.read_bytes() == before


def test_the_mode_of_the_file_is_kept(db):
    os.chmod(db, 0o640)
    write(db, MARK)
    assert (db.stat().st_mode & 0o777) == 0o640


def test_a_refused_mark_leaves_the_journal_as_it_was(db):
    write(db, MARK)
    assert len(Journal(db).pending()) == 1
    with pytest.raises(Refused):
        write(db, FindingMark(session=SID, round=1, finding=INJECTION, status="bogus",
                              at=now_sql()))  # fmt: skip
    assert len(Journal(db).pending()) == 1
