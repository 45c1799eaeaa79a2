"""Real concurrency: a process that replaces `ocr.db` as OCR's CLI does (load, sleep a random
few ms, write a temporary file, rename) in a tight loop while ocr-tui writes marks. Afterwards
every CLI write and every mark is in the file and `PRAGMA integrity_check` is ok.

The short form runs in every `make test` (RACE_RUNS runs of RACE_MARKS marks); `make fuzz`
runs the long form (hundreds of marks a run)."""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from ocr_tui.core import swap
from ocr_tui.formats.ocr import triage_write
from ocr_tui.formats.ocr.finding import finding_id
from ocr_tui.formats.ocr.triage_marks import (
    FINDING_STATES,
    IN,
    FindingMark,
    NoteAdd,
    RoundMark,
    now_sql,
    state,
)

from .store import SCHEMA, SID, rows

RUNS = int(os.environ.get("RACE_RUNS", "100"))
MARKS = int(os.environ.get("RACE_MARKS", "12"))
FINDINGS = max(8, MARKS)
WRITER = Path(__file__).with_name("ocr_cli_writer.py")


def race_store(root: Path) -> Path:
    path = root / "ocr.db"
    con = sqlite3.connect(path)
    con.executescript(SCHEMA)
    con.execute(
        "INSERT INTO sessions (id, branch, workflow_type, session_dir) VALUES (?, 'b', 'review',"
        " '.ocr/sessions/x')", (SID,),
    )  # fmt: skip
    con.execute("INSERT INTO review_rounds (id, session_id, round_number) VALUES (1, ?, 1)", (SID,))
    con.execute("INSERT INTO review_rounds (id, session_id, round_number) VALUES (2, ?, 2)", (SID,))
    con.execute(
        "INSERT INTO reviewer_outputs (id, round_id, reviewer_type, instance_number, file_path)"
        " VALUES (1, 1, 'principal', 1, 'r.md')"
    )
    con.executemany(
        "INSERT INTO review_findings (reviewer_output_id, title, severity, file_path)"
        " VALUES (1, ?, 'low', ?)",
        [(f"Finding number {i}", f"src/m{i}.py") for i in range(FINDINGS)],
    )
    con.commit()
    con.close()
    return path


def marks(rng: random.Random, n: int) -> list:
    out: list = []
    order = list(range(FINDINGS))
    rng.shuffle(order)
    for k in range(n):
        kind = rng.random()
        if kind < 0.7:
            i = order[k % FINDINGS]
            fid = finding_id(f"Finding number {i}", f"src/m{i}.py")
            out.append(FindingMark(session=SID, round=1, finding=fid,
                                   status=rng.choice(FINDING_STATES), at=now_sql()))  # fmt: skip
        elif kind < 0.8:
            out.append(RoundMark(session=SID, round=rng.choice((1, 2)),
                                 status="in_progress", at=now_sql()))  # fmt: skip
        else:
            out.append(NoteAdd(session=SID, target="session", text=f"note {k} {rng.random()}",
                               at=now_sql()))  # fmt: skip
    # A later mark of the same finding or round is the one that must stay.
    last: dict = {}
    for m in out:
        last[triage_write.key_of(m)] = m
    return out, list(last.values())


def race(tmp_path: Path, seed: int, n: int) -> dict:
    db = race_store(tmp_path)
    stop = tmp_path / "stop"
    proc = subprocess.Popen(
        [sys.executable, str(WRITER), str(db), str(stop), str(seed)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        first = proc.stdout.readline()  # waits for: the writer's first rename done
        assert first.strip() == "1"
        written, kept = marks(random.Random(seed), n)
        for m in written:
            try:
                triage_write.write(db, m)
            except triage_write.Pending:
                pass  # kept in the journal: the writer in a loop drops every mark it did not
                # read (it reads the file only right after its own rename)
    finally:
        stop.touch()
        out = proc.stdout.read()  # to its end: the writer has stopped (not communicate():
        # with a timeout it reads the pipe itself and misses what readline() buffered)
        proc.wait(timeout=30)
    assert proc.returncode == 0
    cli = {1} | {int(x) for x in out.split()}
    triage_write.settle(db)  # the marks a CLI write dropped, and those it never let in
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        got = {int(m) for (m,) in con.execute(
            "SELECT metadata FROM orchestration_events WHERE event_type = 'race'")}  # fmt: skip
        assert got == cli, f"CLI writes lost: {sorted(cli - got)[:10]}"
        lost = [m for m in kept if state(con, m) != IN]
        assert not lost, f"marks lost: {lost[:3]}"
    finally:
        con.close()
    return {"cli": len(cli)}


@pytest.mark.parametrize("seed", range(RUNS))
def test_marks_and_cli_writes_all_kept(tmp_path, seed):
    race(tmp_path, seed, MARKS)


def test_a_version_replaced_meanwhile_is_merged_into(tmp_path, monkeypatch):
    """Deterministic: a CLI write lands between ocr-tui's read and its swap; the swap hands
    it back, ocr-tui puts it back and makes its change on it: both are in the file."""
    db = race_store(tmp_path)
    real = swap._write_temp
    done = []

    def cli_writes_first(path, data, mode, tag):
        if not done:
            done.append(1)
            con = sqlite3.connect(path)
            con.execute("INSERT INTO orchestration_events (session_id, event_type, metadata)"
                        " VALUES ('race', 'race', 'meanwhile')")  # fmt: skip
            con.commit()
            con.close()
            tmp = path.with_name("ocr.db.cli.tmp")
            tmp.write_bytes(path.read_bytes())
            os.rename(tmp, path)  # a new file: OCR's CLI's temp + rename
        return real(path, data, mode, tag)

    monkeypatch.setattr(swap, "_write_temp", cli_writes_first)
    fid = finding_id("Finding number 3", "src/m3.py")
    triage_write.write(db, FindingMark(session=SID, round=1, finding=fid, status="fixed",
                                       at=now_sql()))  # fmt: skip
    assert rows(db, "SELECT metadata FROM orchestration_events") == [("meanwhile",)]
    assert [r[0] for r in rows(db, "SELECT status FROM user_finding_progress")] == ["fixed"]
    assert not list(tmp_path.glob(".ocr.db.*.tmp"))


def test_a_mark_a_late_cli_write_dropped_is_written_again(tmp_path):
    """A CLI write that read the file before ours and renamed after it drops the mark; the
    journal writes it again at the next settle."""
    db = race_store(tmp_path)
    before = db.read_bytes()
    fid = finding_id("Finding number 1", "src/m1.py")
    m = FindingMark(session=SID, round=1, finding=fid, status="acknowledged", at=now_sql())
    triage_write.write(db, m)
    tmp = db.with_name("ocr.db.99.tmp")
    tmp.write_bytes(before)
    os.rename(tmp, db)  # the late CLI write: the version before the mark
    assert rows(db, "SELECT * FROM user_finding_progress") == []
    assert triage_write.settle(db) == 1
    assert [r[0] for r in rows(db, "SELECT status FROM user_finding_progress")] == ["acknowledged"]


def _cli_write(db: Path, meta: str, data: bytes | None = None) -> None:
    """One write as OCR's CLI makes it, from `data` (default: the file as it is now)."""
    con = sqlite3.connect(":memory:")
    con.deserialize(db.read_bytes() if data is None else data)
    con.execute("INSERT INTO orchestration_events (session_id, event_type, metadata)"
                " VALUES ('race', 'race', ?)", (meta,))  # fmt: skip
    con.commit()
    tmp = db.with_name(f"ocr.db.{os.getpid()}.tmp")
    tmp.write_bytes(con.serialize())
    con.close()
    os.rename(tmp, db)


def test_a_write_handed_back_by_the_exchange_is_put_back_and_guarded(tmp_path, monkeypatch):
    """A CLI write lands between ocr-tui's last check and its exchange: the exchange hands it
    back, it is put back at once, and its rows are kept (a `Restore` in the journal): a
    later CLI write made from the version the file held for those microseconds (ours,
    without it) loses it, and the next settle puts it back, next to that later write."""
    db = race_store(tmp_path)
    base = db.read_bytes()
    real = swap._exchange
    calls = []

    def cli_lands_first(tmp, path):
        if not calls:
            _cli_write(path, "C")
        calls.append(1)
        return real(tmp, path)

    monkeypatch.setattr(swap, "_exchange", cli_lands_first)
    monkeypatch.setattr(triage_write, "GUARD_S", 0.0)
    fid = finding_id("Finding number 2", "src/m2.py")
    m = FindingMark(session=SID, round=1, finding=fid, status="fixed", at=now_sql())
    triage_write.write(db, m)
    assert len(calls) == 2  # the exchange that handed C back, and the one that kept
    assert rows(db, "SELECT metadata FROM orchestration_events") == [("C",)]
    # The writer that read the file while it held our bytes without C writes its own.
    interim = sqlite3.connect(":memory:")
    interim.deserialize(base)
    interim.execute("INSERT INTO user_finding_progress (finding_id, status, updated_at) "
                    "SELECT id, 'fixed', ? FROM review_findings WHERE title = ?",
                    (m.at, "Finding number 2"))  # fmt: skip
    interim.commit()
    _cli_write(db, "e", interim.serialize())
    assert rows(db, "SELECT metadata FROM orchestration_events") == [("e",)]
    triage_write.settle(db)
    assert sorted(r[0] for r in rows(db, "SELECT metadata FROM orchestration_events")) == [
        "C", "e"
    ]  # fmt: skip
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    assert state(con, m) == IN
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    con.close()
