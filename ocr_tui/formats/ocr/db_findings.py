"""Every session's findings rows of one ocr.db version, for the session views: the
rows `ocr-tui findings` reads (`findings_db.read_findings`), read once per version of the file
from the in-memory copy `db_load.load_db` already made, not once per session and change.

Only the sessions that have rounds in `review_rounds` are queried, each on indexes made in
that private in-memory copy (never in the file), so a project of thousands of sessions costs
one indexed lookup per session that has rows. A database without the findings tables (most:
only OCR's web dashboard fills them) costs one `PRAGMA` per table.
"""

from __future__ import annotations

import sqlite3

from ocr_tui.formats.ocr.db import SessionFindings, _columns
from ocr_tui.formats.ocr.findings_db import REQUIRED, TABLES, read_findings

# What each table is looked up by in `findings_db`'s join.
_LOOKUPS = (
    ("review_rounds", "session_id"),
    ("reviewer_outputs", "round_id"),
    ("review_findings", "reviewer_output_id"),
)


def read_all_findings(con: sqlite3.Connection) -> tuple[SessionFindings, str | None]:
    """(session id -> round -> rows, problem or None): `read_findings` of every session the
    store has rounds of. A problem of the tables (a missing column, a corrupt page) is the
    same for every session: the first one found is returned, with no rows. Never raises for
    the database's content."""
    try:
        return _read_all(con)
    except (sqlite3.Error, ValueError, MemoryError) as exc:
        return {}, f"ocr.db findings could not be read: {exc}"


def _read_all(con: sqlite3.Connection) -> tuple[SessionFindings, str | None]:
    cols = {t: _columns(con, t) for t in TABLES}
    if not all(cols.values()):
        return {}, None  # not a database the dashboard has parsed artifacts into
    if any(c not in cols[t] for t, needed in REQUIRED.items() for c in needed):
        return read_findings(con, "")  # ({}, "ocr.db `…` has no `…` column: …")
    for table, column in _LOOKUPS:
        try:  # our in-memory copy only: the file is never written
            con.execute(f"CREATE INDEX IF NOT EXISTS ocr_tui_{table} ON {table}({column})")
        except sqlite3.Error:
            pass  # a read-only copy or an odd schema: the queries still work, unindexed
    ids = [sid for (sid,) in con.execute("SELECT DISTINCT session_id FROM review_rounds")]
    out: SessionFindings = {}
    for sid in ids:
        if not isinstance(sid, str):  # `ocr-tui findings` asks by a text id: never matches
            continue
        rows, problem = read_findings(con, sid)
        if problem:
            return {}, problem
        if rows:
            out[sid] = rows
    return out, None
