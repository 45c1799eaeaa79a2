"""The user's marks in `ocr.db`'s user tables, written exactly as OCR's web dashboard writes
them (`packages/dashboard/src/server/db.ts`, OCR 1.10.4): the same tables, columns, value
spellings, `YYYY-MM-DD HH:MM:SS` UTC times and id references.

- a finding's triage: `user_finding_progress(finding_id → review_findings.id, status,
  updated_at)`, one row per `review_findings` row of the finding (a finding several reviewers
  raised has one row each; OCR's dashboard shows them one by one); cleared: the rows deleted;
- a round's triage: `user_round_progress(round_id → review_rounds.id, status, updated_at)`;
- a map file reviewed: `user_file_progress(map_file_id, is_reviewed, reviewed_at)`;
- a note: `user_notes(target_type, target_id, content, created_at, updated_at)`, `target_id`
  the session's id or the target row's id as text.

A mark names its target as the user sees it (session, round number, finding id, run number,
file path) and is placed on the rows of the version of the file it is written into, so a
store re-parsed by OCR's dashboard between two writes (new row ids) is still marked right.
Never a row in a table OCR's CLI or dashboard own; a target without its row is `Refused`.

No IO: `apply` and `state` work on a connection the caller made from the file's bytes.
"""

from __future__ import annotations

import re
import sqlite3
from datetime import UTC, datetime

import msgspec

from ocr_tui.formats.ocr.db_values import as_int, as_str, columns
from ocr_tui.formats.ocr.findings_db import finding_rows

# OCR's migrations' CHECK lists (1 and 2), used when the file's own schema does not say.
FINDING_STATES = ("unread", "read", "acknowledged", "fixed", "wont_fix")
ROUND_STATES = ("needs_review", "in_progress", "changes_made", "acknowledged", "dismissed")
NOTE_TARGETS = ("session", "round", "finding", "run", "file")
MAX_NOTE = 20_000

_CHECK = re.compile(r"(?i)CHECK\s?\(\s?status\s+IN\s?\(([^)]{0,400})\)")
_QUOTED = re.compile(r"'([a-z_]{1,40})'")


class Refused(Exception):
    """The mark cannot be written to this store; `str()` is one plain line saying why and
    what would make it possible. Nothing was written."""


class Pending(Exception):
    """The mark is kept in the journal but not in ocr.db yet: another writer keeps replacing
    the file (OCR's CLI or dashboard in a burst of writes). The next ocr-tui that runs (this
    dashboard within seconds) writes it. `str()`: one plain line."""


def now_sql() -> str:
    """The time as OCR's `datetime('now')` writes it: UTC, `YYYY-MM-DD HH:MM:SS`."""
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")


class FindingMark(msgspec.Struct, frozen=True, tag="finding", kw_only=True):
    session: str
    round: int
    finding: str  # the id `ocr-tui findings --json` prints
    status: str | None  # None: clear
    at: str


class RoundMark(msgspec.Struct, frozen=True, tag="round", kw_only=True):
    session: str
    round: int
    status: str | None
    at: str


class FileMark(msgspec.Struct, frozen=True, tag="file", kw_only=True):
    session: str
    run: int
    path: str  # map_files.file_path as stored
    reviewed: bool | None  # None: clear
    at: str


class NoteAdd(msgspec.Struct, frozen=True, tag="note", kw_only=True):
    session: str
    target: str  # session | round | finding | run | file
    text: str
    at: str  # created_at (and updated_at)
    round: int | None = None
    finding: str | None = None
    run: int | None = None
    path: str | None = None
    remove: bool = False  # the undo of an add: the note added at `at` with `text`, removed


class NoteEdit(msgspec.Struct, frozen=True, tag="note-edit", kw_only=True):
    note: int  # user_notes.id
    text: str | None  # None: delete
    at: str


class Restore(msgspec.Struct, frozen=True, tag="restore", kw_only=True):
    """Not the user's: rows another writer wrote that a version of ours may have hidden for
    the time of two system calls (`core.rowmerge`; see `triage_write._guard`): each
    (table, rowid, the row before, the row it wrote), and each table's columns."""

    rows: list[tuple[str, int, list | None, list | None]]
    cols: dict[str, list[str]]
    at: str


Mark = FindingMark | RoundMark | FileMark | NoteAdd | NoteEdit | Restore


def _delta(m: Restore):
    d = {(t, rid): (tuple(old) if old is not None else None,
                    tuple(new) if new is not None else None)
         for t, rid, old, new in m.rows}  # fmt: skip
    return d, {t: tuple(c) for t, c in m.cols.items()}


def states(con: sqlite3.Connection, table: str) -> tuple[str, ...]:
    """The status values `table`'s CHECK allows in this file (OCR's migrations' list when the
    schema's text does not say)."""
    row = con.execute("SELECT sql FROM sqlite_master WHERE type='table' AND name=?", (table,))
    sql = as_str((row.fetchone() or (None,))[0]) or ""
    m = _CHECK.search(sql)
    found = tuple(_QUOTED.findall(m.group(1))) if m else ()
    if found:
        return found
    return FINDING_STATES if table == "user_finding_progress" else ROUND_STATES


def _need(con: sqlite3.Connection, table: str, cols: set[str], why: str) -> None:
    have = columns(con, table)
    if not have:
        raise Refused(f"ocr.db has no {table} table ({why}): nothing written")
    missing = sorted(cols - have)
    if missing:
        raise Refused(f"ocr.db's {table} has no {missing[0]} column ({why}): nothing written")


_NO_ROWS = (
    "OCR's dashboard writes them when it reads the round: open the session once in `ocr dashboard`"
)


def round_row(con: sqlite3.Connection, session: str, number: int) -> int:
    _need(con, "review_rounds", {"id", "session_id", "round_number"}, "an OCR store before 1.5")
    got = con.execute(
        "SELECT id FROM review_rounds WHERE session_id = ? AND round_number = ? ORDER BY id",
        (session, number),
    ).fetchone()
    rid = as_int(got[0]) if got else None
    if rid is None:
        raise Refused(f"ocr.db has no row for round {number} of {session} yet; {_NO_ROWS}")
    return rid


def finding_ids(con: sqlite3.Connection, session: str, number: int, finding: str) -> list[int]:
    need = {"id", "reviewer_output_id", "title", "summary", "file_path", "line_start", "line_end"}
    _need(con, "review_findings", need, "an OCR store before 1.5")
    _need(con, "reviewer_outputs", {"id", "round_id"}, "an OCR store before 1.5")
    round_row(con, session, number)
    ids = finding_rows(con, session).get((number, finding))
    if not ids:
        raise Refused(
            f"ocr.db has no row for finding {finding} in round {number} of {session}; {_NO_ROWS}"
        )
    return ids


def file_row(con: sqlite3.Connection, session: str, run: int, path: str) -> int:
    for table, cols in (
        ("map_runs", {"id", "session_id", "run_number"}),
        ("map_sections", {"id", "map_run_id"}),
        ("map_files", {"id", "section_id", "file_path"}),
    ):
        _need(con, table, cols, "an OCR store before 1.5")
    got = con.execute(
        "SELECT f.id FROM map_files f JOIN map_sections s ON s.id = f.section_id "
        "JOIN map_runs r ON r.id = s.map_run_id "
        "WHERE r.session_id = ? AND r.run_number = ? AND f.file_path = ? ORDER BY f.id",
        (session, run, path),
    ).fetchone()
    fid = as_int(got[0]) if got else None
    if fid is None:
        raise Refused(
            f"ocr.db has no row for {path} in map run {run} of {session}; OCR's dashboard "
            "writes them when it reads the run: open the session once in `ocr dashboard`"
        )
    return fid


def _run_row(con: sqlite3.Connection, session: str, run: int) -> int:
    _need(con, "map_runs", {"id", "session_id", "run_number"}, "an OCR store before 1.5")
    got = con.execute(
        "SELECT id FROM map_runs WHERE session_id = ? AND run_number = ? ORDER BY id",
        (session, run),
    ).fetchone()
    rid = as_int(got[0]) if got else None
    if rid is None:
        raise Refused(f"ocr.db has no row for map run {run} of {session} yet; {_NO_ROWS}")
    return rid


def _session_known(con: sqlite3.Connection, session: str) -> None:
    if "id" in columns(con, "sessions"):
        if con.execute("SELECT 1 FROM sessions WHERE id = ?", (session,)).fetchone():
            return
    if "session_id" in columns(con, "review_rounds"):
        if con.execute("SELECT 1 FROM review_rounds WHERE session_id = ?", (session,)).fetchone():
            return
    raise Refused(f"ocr.db has no session {session}: nothing written")


def note_target(con: sqlite3.Connection, m: NoteAdd) -> tuple[str, str]:
    """(target_type, target_id) of a note, as OCR's dashboard stores them."""
    if m.target == "session":
        _session_known(con, m.session)
        return "session", m.session
    if m.target == "round" and m.round is not None:
        return "round", str(round_row(con, m.session, m.round))
    if m.target == "finding" and m.round is not None and m.finding:
        return "finding", str(finding_ids(con, m.session, m.round, m.finding)[0])
    if m.target == "run" and m.run is not None:
        return "run", str(_run_row(con, m.session, m.run))
    if m.target == "file" and m.run is not None and m.path:
        return "file", str(file_row(con, m.session, m.run, m.path))
    raise Refused(f"a note on {m.target!r} needs what it is on: nothing written")


def _check_state(con: sqlite3.Connection, table: str, status: str) -> None:
    allowed = states(con, table)
    if status not in allowed:
        raise Refused(f"{status!r} is not a state ocr.db allows ({', '.join(allowed)})")


def apply(con: sqlite3.Connection, m: Mark) -> None:
    """Write `m` into `con` with the dashboard's own statements. Raises Refused."""
    try:
        _apply(con, m)
    except sqlite3.IntegrityError as exc:
        raise Refused(f"ocr.db refused the mark ({exc}): nothing written") from None
    except sqlite3.OperationalError as exc:  # e.g. a table without OCR's UNIQUE constraint
        raise Refused(f"ocr.db's schema is not OCR's ({exc}): nothing written") from None


def _apply(con: sqlite3.Connection, m: Mark) -> None:
    if isinstance(m, Restore):
        from ocr_tui.core import rowmerge

        d, cols = _delta(m)
        saved = con.text_factory
        con.text_factory = rowmerge._text
        try:
            rowmerge.restore(con, rowmerge.lost(con, d, cols), cols)
        finally:
            con.text_factory = saved
    elif isinstance(m, FindingMark):
        _need(con, "user_finding_progress", {"finding_id", "status", "updated_at"},
              "an OCR store before 1.5")  # fmt: skip
        ids = finding_ids(con, m.session, m.round, m.finding)
        if m.status is None:
            con.executemany(
                "DELETE FROM user_finding_progress WHERE finding_id = ?", [(i,) for i in ids]
            )
            return
        _check_state(con, "user_finding_progress", m.status)
        con.executemany(
            "INSERT INTO user_finding_progress (finding_id, status, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT(finding_id) DO UPDATE SET status = ?, updated_at = ?",
            [(i, m.status, m.at, m.status, m.at) for i in ids],
        )
    elif isinstance(m, RoundMark):
        _need(con, "user_round_progress", {"round_id", "status", "updated_at"},
              "an OCR store before migration 2, OCR 1.5.1")  # fmt: skip
        rid = round_row(con, m.session, m.round)
        if m.status is None:
            con.execute("DELETE FROM user_round_progress WHERE round_id = ?", (rid,))
            return
        _check_state(con, "user_round_progress", m.status)
        con.execute(
            "INSERT INTO user_round_progress (round_id, status, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT(round_id) DO UPDATE SET status = ?, updated_at = ?",
            (rid, m.status, m.at, m.status, m.at),
        )
    elif isinstance(m, FileMark):
        _need(con, "user_file_progress", {"map_file_id", "is_reviewed", "reviewed_at"},
              "an OCR store before 1.5")  # fmt: skip
        fid = file_row(con, m.session, m.run, m.path)
        if m.reviewed is None:
            con.execute("DELETE FROM user_file_progress WHERE map_file_id = ?", (fid,))
            return
        flag = 1 if m.reviewed else 0
        con.execute(
            "INSERT INTO user_file_progress (map_file_id, is_reviewed, reviewed_at) "
            "VALUES (?, ?, ?) ON CONFLICT(map_file_id) DO UPDATE SET is_reviewed = ?, "
            "reviewed_at = ?",
            (fid, flag, m.at, flag, m.at),
        )
    elif isinstance(m, NoteAdd):
        _need(con, "user_notes", {"target_type", "target_id", "content", "created_at",
                                  "updated_at"}, "an OCR store before 1.5")  # fmt: skip
        kind, target = note_target(con, m)
        if m.remove:
            con.execute(
                "DELETE FROM user_notes WHERE target_type = ? AND target_id = ? AND content = ? "
                "AND created_at = ?",
                (kind, target, m.text[:MAX_NOTE], m.at),
            )
            return
        if not m.text.strip():
            raise Refused("an empty note: nothing written")
        con.execute(
            "INSERT INTO user_notes (target_type, target_id, content, created_at, updated_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (kind, target, m.text[:MAX_NOTE], m.at, m.at),
        )
    else:
        _need(con, "user_notes", {"id", "content", "updated_at"}, "an OCR store before 1.5")
        if not con.execute("SELECT 1 FROM user_notes WHERE id = ?", (m.note,)).fetchone():
            raise Refused(f"ocr.db has no note {m.note} (deleted meanwhile?): nothing written")
        if m.text is None:
            con.execute("DELETE FROM user_notes WHERE id = ?", (m.note,))
        elif not m.text.strip():
            raise Refused("an empty note: nothing written (delete it instead)")
        else:
            con.execute(
                "UPDATE user_notes SET content = ?, updated_at = ? WHERE id = ?",
                (m.text[:MAX_NOTE], m.at, m.note),
            )


IN, GONE, SUPERSEDED = "in", "gone", "superseded"


def state(con: sqlite3.Connection, m: Mark) -> str:
    """Where `m` stands in this version of the store: IN (there), GONE (not there: a writer
    that had read an older version dropped it; write it again) or SUPERSEDED (a later mark,
    or its target gone: nothing to do)."""
    try:
        return _state(con, m)
    except (Refused, sqlite3.Error):
        return SUPERSEDED


def _rows_state(found: list[tuple[object, object]], want: object, at: str) -> str:
    """`found`: (value, time) of each of the mark's rows (a missing row: (None, None))."""
    if any((as_str(t) or "") > at for _, t in found):
        return SUPERSEDED
    if all(v == want for v, _ in found):
        return IN
    return GONE


def _state(con: sqlite3.Connection, m: Mark) -> str:
    if isinstance(m, Restore):
        from ocr_tui.core import rowmerge

        d, cols = _delta(m)
        saved = con.text_factory
        con.text_factory = rowmerge._text
        try:
            return GONE if rowmerge.lost(con, d, cols) else IN
        finally:
            con.text_factory = saved
    if isinstance(m, FindingMark | RoundMark | FileMark):
        if isinstance(m, FindingMark):
            ids = finding_ids(con, m.session, m.round, m.finding)
            table, key, val, at = "user_finding_progress", "finding_id", "status", "updated_at"
            want: object = m.status
        elif isinstance(m, RoundMark):
            ids = [round_row(con, m.session, m.round)]
            table, key, val, at = "user_round_progress", "round_id", "status", "updated_at"
            want = m.status
        else:
            ids = [file_row(con, m.session, m.run, m.path)]
            table, key, val, at = "user_file_progress", "map_file_id", "is_reviewed", "reviewed_at"
            want = None if m.reviewed is None else (1 if m.reviewed else 0)
        found = []
        for i in ids:
            row = con.execute(f"SELECT {val}, {at} FROM {table} WHERE {key} = ?", (i,)).fetchone()
            found.append((row[0], row[1]) if row else (None, None))
        return _rows_state(found, want, m.at)
    if isinstance(m, NoteAdd):
        kind, target = note_target(con, m)
        row = con.execute(
            "SELECT 1 FROM user_notes WHERE target_type = ? AND target_id = ? AND content = ? "
            "AND created_at = ?",
            (kind, target, m.text[:MAX_NOTE], m.at),
        ).fetchone()
        return IN if bool(row) != m.remove else GONE
    row = con.execute("SELECT content, updated_at FROM user_notes WHERE id = ?", (m.note,))
    got = row.fetchone()
    if m.text is None:
        return IN if got is None else (SUPERSEDED if (as_str(got[1]) or "") > m.at else GONE)
    if got is None:
        return SUPERSEDED  # deleted since
    return _rows_state([(got[0], got[1])], m.text[:MAX_NOTE], m.at)
