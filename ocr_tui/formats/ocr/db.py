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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from ocr_tui.formats.ocr.db_records import read_maps as _read_maps
from ocr_tui.formats.ocr.db_records import read_notes as _read_notes
from ocr_tui.formats.ocr.db_records import truthy as _truthy  # noqa: F401  (findings_db's)
from ocr_tui.formats.ocr.db_values import as_int as _as_int
from ocr_tui.formats.ocr.db_values import as_str as _as_str
from ocr_tui.formats.ocr.db_values import columns as _columns
from ocr_tui.formats.ocr.finding import Finding
from ocr_tui.formats.ocr.model import StoredAgent, StoredEvent, StoredState

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
    rows: Mapping[str, StoredState] = field(default_factory=dict)  # a dict, or `db_delta.Rows`
    error: str | None = None
    findings: SessionFindings = field(default_factory=dict)
    findings_error: str | None = None  # why the findings tables could not be read
    # What an incremental read of the next version starts from (`db_delta`); None: read the
    # next version whole.
    ledger: object | None = None  # a db_delta.Ledger (db_delta reads db: no import back)
    # The sessions whose rows differ from the version before, when the read knows them (an
    # incremental one); None: compare.
    changed: frozenset[str] | None = None

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


SESSION_COLUMNS = (
    "id", "branch", "status", "workflow_type", "current_phase", "phase_number",
    "current_round", "current_map_run", "started_at", "updated_at",
)  # fmt: skip


def session_records(
    con: sqlite3.Connection, where: str = "", params: tuple = ()
) -> tuple[dict[str, dict], dict[str, int]]:
    """The `sessions` rows (`where`: a condition on them), as {id: its columns} (the last row
    of an id) and {id: how many rows it has}. Raises sqlite3.DatabaseError without the table
    or its `id`."""
    import sqlite3

    cols = _columns(con, "sessions")
    if not cols:
        raise sqlite3.DatabaseError("ocr.db has no `sessions` table")
    if "id" not in cols:
        raise sqlite3.DatabaseError("ocr.db `sessions` table has no `id` column")
    select = ", ".join(c if c in cols else f"NULL AS {c}" for c in SESSION_COLUMNS)
    raw: dict[str, dict] = {}
    count: dict[str, int] = {}  # rows per id: OCR's `id` is the primary key, a copy may not be
    for row in con.execute(f"SELECT {select} FROM sessions {where}", params):
        rec = dict(zip(SESSION_COLUMNS, row, strict=True))
        sid = _as_str(rec["id"])
        if sid is not None:
            raw[sid] = rec  # the last row of an id is read
            count[sid] = count.get(sid, 0) + 1
    return raw, count


def newest_active(raw: dict[str, dict]) -> str | None:
    """The project's newest active session (its agents without a `workflow_id` are its)."""
    active = [sid for sid, rec in raw.items() if _as_str(rec["status"]) == "active"]
    return max(active, key=lambda sid: (_as_str(raw[sid]["started_at"]) or "", sid), default=None)


def _read_rows(con: sqlite3.Connection) -> tuple[dict[str, StoredState], list[Running]]:
    """Every session's state, and the running agent commands (`running_commands`)."""
    raw, count = session_records(con)
    running = running_commands(con)
    agents = assign_agents(running, raw, newest_active(raw))
    return build_states(
        raw, count, _read_events(con), agents, _read_round_triage(con), _read_maps(con),
        _read_notes(con),
    ), running  # fmt: skip


def build_states(
    raw: dict[str, dict], count: dict[str, int], events_read, agents, triage, maps, notes
) -> dict[str, StoredState]:
    """The sessions `raw` (`session_records`) as StoredStates, from what `_read_events`,
    `assign_agents`, `_read_round_triage`, `read_maps` and `read_notes` read of them: the one
    place a StoredState of ocr.db is made, for a full read and an incremental one alike."""
    round_start, phase_events, events = events_read
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


def _read_events(con: sqlite3.Connection, only: list[str] | None = None):
    """From `orchestration_events`, per session: {round: its latest round_started time},
    [(phase entered, when)], and the last EVENTS_KEPT events (in the order written). A
    table or column missing (older schemas) reads as no events or a None. `only`: of those
    sessions alone."""
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
    where = f"WHERE session_id IN ({', '.join('?' * len(only))})" if only is not None else ""
    query = f"SELECT {select} FROM orchestration_events {where} ORDER BY {order}"
    for row in con.execute(query, only or ()):
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


class Running(NamedTuple):
    """A `command_executions` row that started and has not finished."""

    order: tuple  # (its id, its rowid): the order written
    rowid: int
    workflow: str | None
    agent: StoredAgent


def running_commands(
    con: sqlite3.Connection, where: str = "", params: tuple = (), *, every: bool = False
) -> list:
    """The `command_executions` rows (`where`: `AND` a condition on them) that started and
    have not finished (no `finished_at`; without that column, no `exit_code`), oldest first,
    as `Running`; with `every`, every row asked for as (rowid, Running or None when it is not
    running). A missing table or column reads as none."""
    cols = _columns(con, "command_executions")
    if "command" not in cols:
        return []
    if "finished_at" in cols:
        running = "finished_at IS NULL"
    elif "exit_code" in cols:
        running = "exit_code IS NULL"
    else:
        return []
    if "started_at" in cols:
        running += " AND started_at IS NOT NULL"
    wanted = (
        "command", "started_at", "pid", "last_heartbeat_at", "persona", "resolved_model",
        "workflow_id",
    )  # fmt: skip
    select = ", ".join(c if c in cols else "NULL" for c in wanted)
    order = "id" if "id" in cols else "rowid"
    cond = f"({where})" if every else f"{running} {'AND ' + where if where else ''}"
    query = (
        f"SELECT rowid, {order}, {running}, {select} FROM command_executions "
        f"WHERE {cond or '1'} ORDER BY {order}, rowid"
    )
    out: list = []
    for rowid, key, live, command, started, pid, beat, persona, model, workflow in con.execute(
        query, params
    ):
        pid = _as_int(pid)
        row = Running(
            order=(key, rowid),
            rowid=rowid,
            workflow=_as_str(workflow),
            agent=StoredAgent(
                command=_as_str(command) or "",
                started_at=_as_str(started),
                pid=pid if pid is not None and 0 < pid < 2**31 else None,
                heartbeat_at=_as_str(beat),
                persona=_as_str(persona),
                model=_as_str(model),
            ),
        )
        out.append((rowid, row if live else None) if every else row)
    return out


def assign_agents(
    running: list[Running], sessions: dict | set, newest: str | None
) -> dict[str, list[StoredAgent]]:
    """session -> its running commands, oldest first (the last AGENTS_KEPT). The table is the
    project's: a row belongs to the session its `workflow_id` names (newer OCR builds), else
    to `newest` (the newest active session)."""
    out: dict[str, list[StoredAgent]] = {}
    for row in running:
        workflow = row.workflow
        sid = workflow if workflow in sessions else None if workflow else newest
        if sid is None:
            continue
        kept = out.setdefault(sid, [])
        kept.append(row.agent)
        del kept[:-AGENTS_KEPT]
    return out


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
