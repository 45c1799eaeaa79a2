"""Read OCR >= 1.5's SQLite state store (`.ocr/data/ocr.db`) without touching it.

The file's bytes are read once and deserialised into an in-memory database, so we never
create, lock or write the file nor leave `-journal`/`-wal`/`-shm` files beside it, and we
always see one consistent version even while a writer renames a new one over it.

`sqlite3` is imported when there is a file to read (`load_db`, `open_snapshot`), not with this
module.
"""

from __future__ import annotations

import json
import os
import stat
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ocr_tui.core.lenient import small_int
from ocr_tui.formats.ocr.finding import Finding, finding_id
from ocr_tui.formats.ocr.map_sections import (
    MAX_FILES,
    MAX_SECTIONS,
    MapFile,
    MapSection,
    RunMap,
    clean_title,
)
from ocr_tui.formats.ocr.model import StoredAgent, StoredEvent, StoredNote, StoredState

if TYPE_CHECKING:
    import sqlite3

MAX_DB_BYTES = 512 * 1024 * 1024
SQLITE_MAGIC = b"SQLite format 3\x00"


# Session id -> round number -> that round's findings rows (`findings_db.read_findings`).
SessionFindings = dict[str, dict[int, list[Finding]]]
FindingsReader = Callable[["sqlite3.Connection"], tuple[SessionFindings, str | None]]


@dataclass(frozen=True)
class DbSnapshot:
    """Every session row of one version of ocr.db (or why it could not be read), and, when
    `load_db` was given a reader for them, every session's findings rows."""

    key: tuple | None  # (inode, size, mtime_ns, kind, ctime_ns) of the file; None: absent
    rows: dict[str, StoredState] = field(default_factory=dict)
    error: str | None = None
    findings: SessionFindings = field(default_factory=dict)
    findings_error: str | None = None  # why the findings tables could not be read

    @property
    def present(self) -> bool:
        return self.key is not None


ABSENT = DbSnapshot(key=None)


def _stat_key(path: Path) -> tuple | None:
    # lstat: a symbolic link is not followed (it could lead out of the project).
    try:
        st = os.lstat(path)
    except OSError:
        return None
    kind = "file" if stat.S_ISREG(st.st_mode) else "link" if stat.S_ISLNK(st.st_mode) else "other"
    return (st.st_ino, st.st_size, st.st_mtime_ns, kind, st.st_ctime_ns)


def _as_int(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return small_int(value)
    return None


def _as_str(value: object) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in con.execute(f"PRAGMA table_info({table})")}


def _read_rows(con: sqlite3.Connection) -> dict[str, StoredState]:
    import sqlite3

    cols = _columns(con, "sessions")
    if not cols:
        raise sqlite3.DatabaseError("ocr.db has no `sessions` table")
    if "id" not in cols:
        raise sqlite3.DatabaseError("ocr.db `sessions` table has no `id` column")
    wanted = [
        "id", "branch", "status", "workflow_type", "current_phase", "phase_number",
        "current_round", "current_map_run", "started_at", "updated_at",
    ]  # fmt: skip
    select = ", ".join(c if c in cols else f"NULL AS {c}" for c in wanted)
    raw: dict[str, dict] = {}
    count: dict[str, int] = {}  # rows per id: OCR's `id` is the primary key, a copy may not be
    for row in con.execute(f"SELECT {select} FROM sessions"):
        rec = dict(zip(wanted, row, strict=True))
        sid = _as_str(rec["id"])
        if sid is not None:
            raw[sid] = rec  # the last row of an id is read
            count[sid] = count.get(sid, 0) + 1

    round_start, phase_events, events = _read_events(con)
    triage = _read_round_triage(con)
    active = [sid for sid, rec in raw.items() if _as_str(rec["status"]) == "active"]
    newest = max(active, key=lambda sid: _as_str(raw[sid]["started_at"]) or "", default=None)
    agents = _read_agents(con, set(raw), newest)
    maps = _read_maps(con)
    notes = _read_notes(con)

    rows: dict[str, StoredState] = {}
    for sid, rec in raw.items():
        cur_round = _as_int(rec["current_round"])
        starts = round_start.get(sid, {})
        rstart = starts.get(cur_round)
        times = tuple(
            (phase, at)
            for phase, at in sorted(phase_events.get(sid, []), key=lambda e: e[1])
            if rstart is None or at >= rstart
        )
        rows[sid] = StoredState(
            source="ocr.db",
            branch=_as_str(rec["branch"]),
            workflow_type=_as_str(rec["workflow_type"]),
            status=_as_str(rec["status"]),
            current_phase=_as_str(rec["current_phase"]),
            phase_number=_as_int(rec["phase_number"]),
            current_round=cur_round,
            current_map_run=_as_int(rec["current_map_run"]),
            started_at=_as_str(rec["started_at"]),
            updated_at=_as_str(rec["updated_at"]),
            phase_times=times,
            round_starts=tuple(sorted((n, at) for n, at in starts.items() if n is not None)),
            events=tuple(events.get(sid, ())),
            round_triage=tuple(sorted(triage.get(sid, {}).items())),
            agents=tuple(agents.get(sid, ())),
            map_runs=tuple(sorted(maps.get(sid, {}).items())),
            notes=tuple(notes.get(sid, ())),
            problems=(
                (f"ocr.db has {count[sid]} rows for this session: the last one is read",)
                if count[sid] > 1
                else ()
            ),
        )
    return rows


EVENTS_KEPT = 200  # per session, the newest
MAX_META_CHARS = 16 * 1024  # a metadata text longer than this is not parsed
# Events that put a session in a phase besides phase_transition, and the phase when the row
# names none: a session starts in the first phase, a round in the phase its row then held.
_ENTERS = {"session_created": "context", "round_started": "context", "session_closed": "complete"}


def _meta(text: object) -> dict | None:
    if not isinstance(text, str) or not text or len(text) > MAX_META_CHARS:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _read_events(con: sqlite3.Connection):
    """From `orchestration_events`, per session: {round: its latest round_started time},
    [(phase entered, when)], and the last EVENTS_KEPT events (in the order written). A
    table or column missing (older schemas) reads as no events or a None."""
    round_start: dict[str, dict[int | None, str]] = {}
    phase_events: dict[str, list[tuple[str, str]]] = {}
    kept: dict[str, deque[tuple]] = {}
    cols = _columns(con, "orchestration_events")
    if not {"session_id", "event_type"} <= cols:
        return round_start, phase_events, {}
    wanted = (
        "session_id", "event_type", "phase", "phase_number", "round", "metadata", "created_at",
    )  # fmt: skip
    select = ", ".join(c if c in cols else "NULL" for c in wanted)
    order = "id" if "id" in cols else "rowid"
    for row in con.execute(f"SELECT {select} FROM orchestration_events ORDER BY {order}"):
        sid, etype = _as_str(row[0]), _as_str(row[1])
        if sid is None or etype is None:
            continue
        kept.setdefault(sid, deque(maxlen=EVENTS_KEPT)).append(row)
        created, phase, rnd = _as_str(row[6]), _as_str(row[2]), _as_int(row[4])
        if created is None:
            continue
        if etype == "round_started":
            # The latest by time wins (a replayed round starts anew), whatever the row order.
            starts = round_start.setdefault(sid, {})
            if rnd not in starts or created >= starts[rnd]:
                starts[rnd] = created
        if etype == "phase_transition" and phase:
            phase_events.setdefault(sid, []).append((phase, created))
        elif etype in _ENTERS:
            entered = "complete" if etype == "session_closed" else phase or _ENTERS[etype]
            phase_events.setdefault(sid, []).append((entered, created))
    events = {
        sid: [
            StoredEvent(
                type=_as_str(r[1]) or "",
                phase=_as_str(r[2]),
                phase_number=_as_int(r[3]),
                round=_as_int(r[4]),
                at=_as_str(r[6]),
                meta=_meta(r[5]),
            )
            for r in rows
        ]
        for sid, rows in kept.items()
    }
    return round_start, phase_events, events


def _read_round_triage(con: sqlite3.Connection) -> dict[str, dict[int, str]]:
    """session -> round number -> the user's triage of it (`user_round_progress.status`, as
    stored; the latest row of a round wins), joined through `review_rounds.id`. Missing
    tables or columns (OCR < 1.5.x's migration 2) read as no triage."""
    progress, rounds = _columns(con, "user_round_progress"), _columns(con, "review_rounds")
    if not ({"round_id", "status"} <= progress and {"id", "session_id", "round_number"} <= rounds):
        return {}
    by_time = "p.updated_at, " if "updated_at" in progress else ""
    order = "p.id" if "id" in progress else "p.rowid"
    query = (
        "SELECT r.session_id, r.round_number, p.status FROM user_round_progress p "
        f"JOIN review_rounds r ON r.id = p.round_id ORDER BY {by_time}{order}"
    )
    out: dict[str, dict[int, str]] = {}
    for sid, number, status in con.execute(query):
        sid, number, status = _as_str(sid), _as_int(number), _as_str(status)
        if sid is not None and number is not None and number > 0 and status:
            out.setdefault(sid, {})[number] = status
    return out


AGENTS_KEPT = 50  # running commands per session, the newest


def _read_agents(
    con: sqlite3.Connection, sessions: set[str], newest_active: str | None
) -> dict[str, list[StoredAgent]]:
    """session -> its `command_executions` rows that started and have not finished (no
    `finished_at`; without that column, no `exit_code`), oldest first. The table is the
    project's: a row belongs to the session its `workflow_id` names (newer OCR builds), else
    to `newest_active`. Missing columns read as None; a missing table as no agents."""
    cols = _columns(con, "command_executions")
    if "command" not in cols:
        return {}
    if "finished_at" in cols:
        running = "finished_at IS NULL"
    elif "exit_code" in cols:
        running = "exit_code IS NULL"
    else:
        return {}
    if "started_at" in cols:
        running += " AND started_at IS NOT NULL"
    wanted = (
        "command", "started_at", "pid", "last_heartbeat_at", "persona", "resolved_model",
        "workflow_id",
    )  # fmt: skip
    select = ", ".join(c if c in cols else "NULL" for c in wanted)
    order = "id" if "id" in cols else "rowid"
    out: dict[str, list[StoredAgent]] = {}
    query = f"SELECT {select} FROM command_executions WHERE {running} ORDER BY {order}"
    for command, started, pid, beat, persona, model, workflow in con.execute(query):
        workflow = _as_str(workflow)
        sid = workflow if workflow in sessions else None if workflow else newest_active
        if sid is None:
            continue
        pid = _as_int(pid)
        agent = StoredAgent(
            command=_as_str(command) or "",
            started_at=_as_str(started),
            pid=pid if pid is not None and 0 < pid < 2**31 else None,
            heartbeat_at=_as_str(beat),
            persona=_as_str(persona),
            model=_as_str(model),
        )
        kept = out.setdefault(sid, [])
        kept.append(agent)
        del kept[:-AGENTS_KEPT]
    return out


def _read_maps(con: sqlite3.Connection) -> dict[str, dict[int, RunMap]]:
    """session -> map run number -> its sections and files as OCR's dashboard stored them
    (`map_runs` → `map_sections` → `map_files`, in display order), each file marked reviewed
    from `user_file_progress`. Missing tables or columns read as no map rows."""
    runs, secs = _columns(con, "map_runs"), _columns(con, "map_sections")
    files = _columns(con, "map_files")
    if not (
        {"id", "session_id", "run_number"} <= runs
        and {"id", "map_run_id"} <= secs
        and {"section_id", "file_path"} <= files
    ):
        return {}
    progress = _columns(con, "user_file_progress")
    has_progress = {"map_file_id", "is_reviewed"} <= progress and "id" in files

    def col(table: set[str], alias: str, name: str) -> str:
        return f"{alias}.{name}" if name in table else "NULL"

    reviewed = (
        "(SELECT MAX(p.is_reviewed) FROM user_file_progress p WHERE p.map_file_id = f.id)"
        if has_progress
        else "NULL"
    )
    query = (
        "SELECT r.session_id, r.run_number, s.id, "
        f"{col(secs, 's', 'section_number')}, {col(secs, 's', 'title')}, "
        f"{col(secs, 's', 'description')}, f.file_path, {col(files, 'f', 'role')}, "
        f"{col(files, 'f', 'lines_added')}, {col(files, 'f', 'lines_deleted')}, {reviewed} "
        "FROM map_runs r JOIN map_sections s ON s.map_run_id = r.id "
        "LEFT JOIN map_files f ON f.section_id = s.id "
        f"ORDER BY r.id, {col(secs, 's', 'display_order')}, s.id, "
        f"{col(files, 'f', 'display_order')}, f.rowid"
    )
    raw: dict[str, dict[int, dict[object, list]]] = {}
    for sid, run, sec_id, number, title, desc, path, role, added, deleted, done in con.execute(
        query
    ):
        sid, run = _as_str(sid), _as_int(run)
        if sid is None or run is None or run <= 0:
            continue
        section = raw.setdefault(sid, {}).setdefault(run, {})
        entry = section.setdefault(sec_id, [number, title, desc, []])
        path = _as_str(path)
        if path and len(entry[3]) < MAX_FILES:
            entry[3].append(
                MapFile(
                    path=path.strip()[:1000],
                    role=_as_str(role),
                    added=_count(added),
                    deleted=_count(deleted),
                    reviewed=_truthy(done),
                )  # fmt: skip
            )
    out: dict[str, dict[int, RunMap]] = {}
    for sid, by_run in raw.items():
        for run, by_section in by_run.items():
            sections = []
            for i, (number, title, desc, mapped) in enumerate(by_section.values(), start=1):
                n = _as_int(number)
                n = n if n is not None and n > 0 else i
                sections.append(
                    MapSection(
                        number=n,
                        title=clean_title(_as_str(title)) or f"Section {n}",
                        description=_as_str(desc),
                        files=tuple(mapped),
                    )  # fmt: skip
                )
            out.setdefault(sid, {})[run] = RunMap(tuple(sections[:MAX_SECTIONS]), origin="ocr.db")
    return out


NOTES_KEPT = 200  # per session
MAX_NOTE_CHARS = 20_000


def _read_notes(con: sqlite3.Connection) -> dict[str, list[StoredNote]]:
    """session -> the user's notes (`user_notes`) on it, its rounds, findings, map runs,
    sections and files, each placed through the table its `target_id` names; a note whose
    target is gone is not shown. Missing tables or columns read as no notes."""
    cols = _columns(con, "user_notes")
    if not {"target_type", "target_id", "content"} <= cols:
        return {}
    at = "COALESCE(updated_at, created_at)" if {"updated_at", "created_at"} <= cols else "NULL"
    order = "id" if "id" in cols else "rowid"
    rows = con.execute(
        f"SELECT target_type, target_id, content, {at} FROM user_notes ORDER BY {order}"
    )
    places = _note_places(con)
    out: dict[str, list[StoredNote]] = {}
    for kind, target, content, when in rows:
        kind, text = _as_str(kind), _as_str(content)
        if not kind or not text or not text.strip():
            continue
        if kind == "session":
            sid, where = _as_str(target), {}
        else:
            sid, where = places.get((kind, _as_int(target)), (None, {}))
        if sid is None:
            continue
        kept = out.setdefault(sid, [])
        kept.append(StoredNote(target=kind, text=text[:MAX_NOTE_CHARS], at=_as_str(when), **where))
        del kept[:-NOTES_KEPT]
    return out


def _note_places(con: sqlite3.Connection) -> dict[tuple[str, int | None], tuple[str, dict]]:
    """(target type, row id) -> (session, where in it) for every row a note can target."""
    import sqlite3

    places: dict[tuple[str, int | None], tuple[str, dict]] = {}
    queries = {
        "round": (("review_rounds", {"id", "session_id", "round_number"}),
                  "SELECT id, session_id, round_number FROM review_rounds"),
        "run": (("map_runs", {"id", "session_id", "run_number"}),
                "SELECT id, session_id, run_number FROM map_runs"),
        "section": (("map_sections", {"id", "map_run_id", "section_number"}),
                    "SELECT s.id, r.session_id, r.run_number, s.section_number FROM map_sections s "
                    "JOIN map_runs r ON r.id = s.map_run_id"),
        "file": (("map_files", {"id", "section_id", "file_path"}),
                 "SELECT f.id, r.session_id, r.run_number, s.section_number, f.file_path "
                 "FROM map_files f JOIN map_sections s ON s.id = f.section_id "
                 "JOIN map_runs r ON r.id = s.map_run_id"),
        "finding": (("review_findings", {"id", "reviewer_output_id", "title"}),
                    "SELECT f.id, rr.session_id, rr.round_number, f.title, f.file_path "
                    "FROM review_findings f JOIN reviewer_outputs o ON o.id = f.reviewer_output_id "
                    "JOIN review_rounds rr ON rr.id = o.round_id"),
    }  # fmt: skip
    for kind, ((table, needed), query) in queries.items():
        if not needed <= _columns(con, table):
            continue
        try:
            found = con.execute(query).fetchall()
        except sqlite3.Error:  # a joined table or column missing (older schemas)
            continue
        for row in found:
            rid, sid = _as_int(row[0]), _as_str(row[1])
            if rid is None or sid is None:
                continue
            if kind == "round":
                where = {"round": _as_int(row[2])}
            elif kind == "run":
                where = {"run": _as_int(row[2])}
            elif kind == "section":
                where = {"run": _as_int(row[2]), "section": _as_int(row[3])}
            elif kind == "file":
                where = {"run": _as_int(row[2]), "section": _as_int(row[3]), "key": _as_str(row[4])}
            else:
                title = _as_str(row[3])
                if not title:
                    continue
                where = {"round": _as_int(row[2]), "key": finding_id(title, _as_str(row[4]))}
            places[(kind, rid)] = (sid, where)
    return places


def _count(value: object) -> int | None:
    n = _as_int(value)
    return n if n is not None and 0 <= n < 10**9 else None


def _truthy(value: object) -> bool:
    """A flag column: 1 / a non-zero number / `"1"`, `"true"`, `"yes"`."""
    if isinstance(value, bool | int | float):
        return bool(value)
    return isinstance(value, str) and value.strip().lower() in ("1", "true", "yes")


def load_db(
    path: Path, previous: DbSnapshot | None = None, *, findings: FindingsReader | None = None
) -> DbSnapshot:
    """Read ocr.db; returns `previous` unchanged when the file has not changed. `findings`
    reads every session's findings rows from the same in-memory copy (one read of the file
    for both)."""
    key = _stat_key(path)
    if key is None:
        return ABSENT
    if previous is not None and previous.key == key:
        return previous
    import sqlite3

    found: SessionFindings = {}
    found_error: str | None = None
    try:
        con = open_snapshot(path, key)
        try:
            if findings is not None:  # first: a store without session rows can still hold them
                found, found_error = findings(con)
            rows = _read_rows(con)
        finally:
            con.close()
    except FileNotFoundError:
        return ABSENT  # gone since the stat
    except (sqlite3.Error, OSError, ValueError, MemoryError) as exc:
        return DbSnapshot(
            key=key, error=f"ocr.db could not be read: {exc}", findings=found,
            findings_error=found_error,
        )  # fmt: skip
    return DbSnapshot(key=key, rows=rows, findings=found, findings_error=found_error)


def open_snapshot(path: Path, key: tuple | None = None) -> sqlite3.Connection:
    """ocr.db's bytes, read once, as an in-memory database the caller closes (`key`: the
    file's `_stat_key`, when the caller has it), so nothing is created, locked or written
    beside the file.

    Raises FileNotFoundError when there is no file, else OSError, ValueError, MemoryError or
    sqlite3.Error (a corrupt file shows only when queried: "file is not a database")."""
    import sqlite3

    key = key or _stat_key(path)
    if key is None:
        raise FileNotFoundError(f"no {path.name}")
    if key[3] == "link":
        raise ValueError("ocr.db is a symbolic link: not followed")
    if key[3] != "file":  # a directory, a FIFO (whose open would block), a device…
        raise ValueError("ocr.db is not a regular file")
    if key[1] > MAX_DB_BYTES:
        raise ValueError(f"ocr.db is {key[1] // (1024 * 1024)} MiB, over the 512 MiB limit")
    # O_NOFOLLOW | O_NONBLOCK: replaced by a link or a FIFO since the lstat, it still is
    # neither followed nor waited on.
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise ValueError("ocr.db is not a regular file")
        data = fh.read(MAX_DB_BYTES + 1)
    if len(data) > MAX_DB_BYTES:
        raise ValueError("ocr.db grew over the 512 MiB limit while being read")
    if not data:
        raise sqlite3.DatabaseError("ocr.db is empty")
    if data[:16] == SQLITE_MAGIC and data[18:20] == b"\x02\x02":
        # A WAL-mode file (left by a tool other than OCR's sql.js writer): an in-memory
        # copy cannot be opened in WAL mode, so read it as a rollback-journal database.
        data = data[:18] + b"\x01\x01" + data[20:]
    con = sqlite3.connect(":memory:")
    # One row with bytes that are not UTF-8 must not cost every other session its state.
    con.text_factory = lambda b: b.decode("utf-8", "replace")
    try:
        con.deserialize(data)
    except BaseException:
        con.close()
        raise
    return con
