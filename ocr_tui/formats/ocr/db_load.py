"""Reading ocr.db: a new version from what changed since the last when that can be told
(`db_delta`), else the whole file (`db`)."""

from __future__ import annotations

from pathlib import Path

from ocr_tui.formats.ocr import db
from ocr_tui.formats.ocr.db_delta import ledger_of, read_delta


def load_db(
    path: Path, previous: db.DbSnapshot | None = None, *, findings: db.FindingsReader | None = None
) -> db.DbSnapshot:
    """Read ocr.db; returns `previous` unchanged when the file has not changed. `findings`
    reads every session's findings rows from the same in-memory copy (one read of the file
    for both)."""
    key = db._stat_key(path)
    if key is None:
        return db.ABSENT
    if previous is not None and previous.key == key:
        return previous
    import sqlite3

    if previous is not None and previous.ledger is not None:
        delta = read_delta(path, key, previous)  # what changed alone, when that can be told
        if delta is not None:
            return delta

    found: db.SessionFindings = {}
    found_error: str | None = None
    try:
        con = db.open_snapshot(path, key)
        try:
            if findings is not None:  # first: a store without session rows can still hold them
                found, found_error = findings(con)
            rows, running = db._read_rows(con)
            ledger = ledger_of(con, rows, running)
        finally:
            con.close()
    except FileNotFoundError:
        return db.ABSENT  # gone since the stat
    except (sqlite3.Error, OSError, ValueError, MemoryError) as exc:
        return db.DbSnapshot(
            key=key, error=f"ocr.db could not be read: {exc}", findings=found,
            findings_error=found_error,
        )  # fmt: skip
    return db.DbSnapshot(
        key=key, rows=rows, findings=found, findings_error=found_error, ledger=ledger
    )
