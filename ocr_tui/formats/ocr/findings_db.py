"""The findings `ocr.db` holds for one session (the findings' second source, after
round-meta.json): `review_findings` joined to `reviewer_outputs` and `review_rounds`
(ocr-format.md §2.2), with the user's triage from `user_finding_progress`. No writes, ever.

Only OCR's web dashboard fills these tables (its markdown parser), so many projects have none:
no tables, or no rows of the session, is `{}` and no problem. The same finding (same
normalised title and file) from several reviewers is one `Finding` with all of them, merged as
round-meta.json's are.

Never raises for what the file holds: a corrupt database or a table missing a column the join
needs is `({}, problem)` from `read_findings` / `load_findings` (`findings_from_db` drops the
problem); a wrong value (a severity OCR does not allow, a line that is not a positive integer,
a title that is no text) is that one value missing; a row with neither title nor summary is
skipped; a round number that is not a positive integer drops its rows.
"""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path

import msgspec

from ocr_tui.formats.ocr.db import _as_int, _as_str, _columns, open_snapshot
from ocr_tui.formats.ocr.db import _truthy as _flag
from ocr_tui.formats.ocr.finding import CATEGORIES, SEVERITIES, Finding, finding_id
from ocr_tui.formats.ocr.findings import absorb
from ocr_tui.formats.ocr.findings_meta import MAX_TITLE, as_line, as_text, as_word, location_of

SOURCE = "ocr.db"
TABLES = ("review_rounds", "reviewer_outputs", "review_findings")
# The join's own columns: without one of them no finding can be placed in a round.
REQUIRED = {
    "review_rounds": ("id", "session_id", "round_number"),
    "reviewer_outputs": ("id", "round_id"),
    "review_findings": ("reviewer_output_id",),
}
# Read when there (`category`: migration 7); NULL otherwise.
OPTIONAL = {
    "reviewer_outputs": ("reviewer_type", "instance_number"),
    "review_findings": (
        "id", "title", "severity", "file_path", "line_start", "line_end", "summary",
        "is_blocker", "category",
    ),
}  # fmt: skip
ALIAS = {"review_rounds": "rr", "reviewer_outputs": "ro", "review_findings": "rf"}


def _decode(b: bytes) -> str:
    return b.decode("utf-8", "replace")


def _reviewer(kind: object, instance: object) -> str | None:
    """`{reviewer_type}-{instance_number}`; the type alone without a usable instance."""
    name = as_text(kind)
    if name is None:
        return None
    name = name.lstrip("@").strip()
    number = as_line(instance)
    if not name:
        return None
    return f"{name}-{number}" if number is not None else name


def _triage(con: sqlite3.Connection, session_id: str) -> dict[int, tuple[int, str]]:
    """review_findings.id -> (recency rank, raw status) of its latest progress row, for the
    findings of session `session_id` only (the ranks order those rows as the whole table's
    order would: oldest first). Reading every session's triage for each session made a full
    read of a store quadratic: 86 s at 1,000 sessions with the dashboard's rows."""
    cols = _columns(con, "user_finding_progress")
    if not {"finding_id", "status"} <= cols:
        return {}
    by_time = "p.updated_at, " if "updated_at" in cols else ""
    query = (
        "SELECT p.finding_id, p.status FROM review_findings rf "
        "JOIN reviewer_outputs ro ON ro.id = rf.reviewer_output_id "
        "JOIN review_rounds rr ON rr.id = ro.round_id "
        "JOIN user_finding_progress p ON p.finding_id IN (rf.id, CAST(rf.id AS TEXT)) "
        "WHERE rr.session_id = ? ORDER BY {}"
    )  # the id as text too: a column without affinity keeps what was written
    try:
        rows = con.execute(query.format(f"{by_time}p.rowid"), (session_id,)).fetchall()
    except sqlite3.OperationalError:  # a WITHOUT ROWID copy: no rowid to break ties
        rows = con.execute(query.format(by_time.rstrip(", ") or "NULL"), (session_id,)).fetchall()
    out: dict[int, tuple[int, str]] = {}
    for rank, (fid, status) in enumerate(rows):
        fid, status = _as_int(fid), _as_str(status)
        if fid is not None and status:
            out[fid] = (rank, status)  # ordered oldest first: the latest wins
    return out


def _read(con: sqlite3.Connection, session_id: str) -> tuple[dict[int, list[Finding]], str | None]:
    cols = {t: _columns(con, t) for t in TABLES}
    if not all(cols.values()):
        return {}, None  # not a database the dashboard has parsed artifacts into
    for table, needed in REQUIRED.items():
        missing = [c for c in needed if c not in cols[table]]
        if missing:
            return {}, f"ocr.db `{table}` has no `{missing[0]}` column: its findings are not read"
    select = ["rr.round_number"]
    for table, names in OPTIONAL.items():
        a = ALIAS[table]
        select += [f"{a}.{c}" if c in cols[table] else "NULL" for c in names]
    order = "ro.id, rf.id" if "id" in cols["review_findings"] else "ro.id"
    query = (
        f"SELECT {', '.join(select)} FROM review_findings rf "
        "JOIN reviewer_outputs ro ON ro.id = rf.reviewer_output_id "
        "JOIN review_rounds rr ON rr.id = ro.round_id "
        f"WHERE rr.session_id = ? ORDER BY {order}"
    )
    rows = con.execute(query, (session_id,)).fetchall()
    triage = _triage(con, session_id) if rows and "id" in cols["review_findings"] else {}

    found: dict[int, dict[str, Finding]] = {}
    latest: dict[tuple[int, str], tuple[int, str]] = {}  # (round, id) -> latest triage
    for row in rows:
        rnd, kind, instance, rf_id, title, severity, file_path, start, end, summary = row[:10]
        is_blocker, category = row[10:]
        number = as_line(rnd)
        if number is None:
            continue
        text = summary.strip() if isinstance(summary, str) else ""
        named = _named(title, text, file_path, start, end)
        if named is None:
            continue
        title, location = named
        category = as_word(category, CATEGORIES)
        name = _reviewer(kind, instance)
        finding = Finding(
            id=finding_id(title, location.file),
            title=title,
            severity=as_word(severity, SEVERITIES),
            location=location,
            category=category,
            blocker=_flag(is_blocker) or category == "blocker",
            reviewers=[name] if name else [],
            source=SOURCE,
            path=None,
            line=None,
            text=text,
        )
        in_round = found.setdefault(number, {})
        prev = in_round.get(finding.id)
        in_round[finding.id] = absorb(prev, finding) if prev else finding
        mark = triage.get(_as_int(rf_id))
        key = (number, finding.id)
        if mark is not None and (key not in latest or mark[0] > latest[key][0]):
            latest[key] = mark
    out: dict[int, list[Finding]] = {}
    for number in sorted(found):
        out[number] = [
            msgspec.structs.replace(f, triage=latest[(number, fid)][1])
            if (number, fid) in latest
            else f
            for fid, f in found[number].items()
        ]
    return out, None


def _named(title: object, text: str, file_path: object, start: object, end: object):
    """(title, location) of a `review_findings` row, the title from the summary's first line
    when it has none; None for a row with neither. Its id: `finding_id(title, location.file)`."""
    title = as_text(title)
    if title is None and text:
        title = " ".join(text.splitlines()[0].split())[:MAX_TITLE].rstrip() or None
    if title is None:
        return None
    return title, location_of({"file_path": file_path, "line_start": start, "line_end": end})


def finding_rows(con: sqlite3.Connection, session_id: str) -> dict[tuple[int, str], list[int]]:
    """(round number, finding id) -> the `review_findings.id`s of that finding in session
    `session_id` (one per reviewer who raised it), as `read_findings` identifies them: the
    rows a triage of the finding marks. Raises sqlite3.Error for a store without the tables
    or columns."""
    saved = con.text_factory
    con.text_factory = _decode
    try:
        rows = con.execute(
            "SELECT rr.round_number, rf.id, rf.title, rf.summary, rf.file_path, rf.line_start, "
            "rf.line_end FROM review_findings rf "
            "JOIN reviewer_outputs ro ON ro.id = rf.reviewer_output_id "
            "JOIN review_rounds rr ON rr.id = ro.round_id "
            "WHERE rr.session_id = ? ORDER BY rf.id",
            (session_id,),
        ).fetchall()
    finally:
        con.text_factory = saved
    out: dict[tuple[int, str], list[int]] = {}
    for rnd, rf_id, title, summary, file_path, start, end in rows:
        number, rid = as_line(rnd), _as_int(rf_id)
        fid = _row_finding_id(title, summary, file_path, start, end)
        if number is not None and rid is not None and fid is not None:
            out.setdefault((number, fid), []).append(rid)
    return out


@functools.lru_cache(maxsize=8192)
def _row_finding_id(title, summary, file_path, start, end) -> str | None:
    """The finding id of a row's values (cached: a write reads every row of the session again
    on each try)."""
    text = summary.strip() if isinstance(summary, str) else ""
    named = _named(title, text, file_path, start, end)
    return None if named is None else finding_id(named[0], named[1].file)


def read_findings(
    con: sqlite3.Connection, session_id: str
) -> tuple[dict[int, list[Finding]], str | None]:
    """(round number -> that round's findings in first-read order, problem or None). Never
    raises for the database's content: a corrupt one is `({}, "ocr.db findings could not be
    read: …")`. The connection's text_factory is set to decode bad UTF-8 as U+FFFD for the
    read and put back after it."""
    saved = con.text_factory
    con.text_factory = _decode
    try:
        return _read(con, session_id)
    except (sqlite3.Error, ValueError, MemoryError) as exc:
        return {}, f"ocr.db findings could not be read: {exc}"
    finally:
        con.text_factory = saved


def findings_from_db(con: sqlite3.Connection, session_id: str) -> dict[int, list[Finding]]:
    """`read_findings` without the problem: `{}` for no rows and for an unreadable database."""
    return read_findings(con, session_id)[0]


def load_findings(db_path: Path, session_id: str) -> tuple[dict[int, list[Finding]], str | None]:
    """`read_findings` on a read-only in-memory copy of the ocr.db at `db_path` (no lock, no
    side file; see `db.open_snapshot`). No file is `({}, None)`; one that cannot be read (a
    link, not a regular file, too big, empty, not SQLite) is `({}, problem)`."""
    rows, _, problem = load_store(db_path, session_id)
    return rows, problem


def load_store(
    db_path: Path, session_id: str
) -> tuple[dict[int, list[Finding]], frozenset[int], str | None]:
    """`load_findings`, and the rounds the store records as completed (`completed_rounds`)."""
    try:
        con = open_snapshot(db_path)
    except FileNotFoundError:
        return {}, frozenset(), None
    except (sqlite3.Error, OSError, ValueError, MemoryError) as exc:
        return {}, frozenset(), f"ocr.db could not be read: {exc}"
    try:
        rows, problem = read_findings(con, session_id)
        return rows, completed_rounds(con, session_id), problem
    finally:
        con.close()


def completed_rounds(con: sqlite3.Connection, session_id: str) -> frozenset[int]:
    """The rounds of the session's `round_completed` events (`ocr state round-complete`): OCR
    records them as done. Empty when the store has no such table or cannot be read."""
    try:
        rows = con.execute(
            "SELECT round FROM orchestration_events WHERE session_id = ? "
            "AND event_type = 'round_completed'",
            (session_id,),
        ).fetchall()
    except (sqlite3.Error, ValueError, MemoryError):
        return frozenset()
    return frozenset(n for (r,) in rows if (n := _as_int(r)) is not None and n > 0)
