"""Reading a new version of ocr.db from what changed since the last.

OCR >= 1.5 rewrites the whole file (temp + rename) on every `ocr state` command and
heartbeat, and a project's store keeps every session it ran: a full read costs with the
history (31 s at 10,000 sessions with the dashboard's rows). Its CLI's writes change three
tables: a `sessions` row, an `orchestration_events` row appended, `command_executions`
heartbeats. So the new file is opened where it is (read-only, `immutable`: no lock, no side
file, pages read as asked) and only these are read:

- every table's shape (`Ledger`): the schema, and per table its row count, largest rowid and
  the row at it; the tables the CLI does not write must be as they were, the others may only
  have grown by the rows read below (a deleted row, a reused id or a file rebuilt otherwise
  changes a count or a last row);
- the events past the last one read (they name the sessions the CLI changed), the rows of
  those sessions, of the sessions that were active and of rows added; the commands that were
  running and those added.

Only the sessions among those whose rows differ are derived again (`DbSnapshot.changed`),
each by `db.build_states` as a full read does. Anything else (the file rewritten in place, a
new schema, a table the CLI does not write changed, rows deleted, nothing of the CLI's
changed: another writer's) is `None`: the caller reads the file whole. What this trusts of
OCR's writers: a closed session's row changes only with an event of it, and the web
dashboard's tables are not updated in place in the same version as a CLI change.
"""

from __future__ import annotations

import math
import os
import sqlite3
import stat
import urllib.parse
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ocr_tui.formats.ocr import db
from ocr_tui.formats.ocr.db_values import as_str

CLI_TABLES = ("sessions", "orchestration_events", "command_executions")
# What the web dashboard writes (and `db` reads): unchanged, or the version is read whole.
OTHER_TABLES = (
    "review_rounds", "reviewer_outputs", "review_findings", "user_finding_progress",
    "user_round_progress", "map_runs", "map_sections", "map_files", "user_file_progress",
    "user_notes",
)  # fmt: skip
MAX_ASKED = 500  # sessions asked for by id in one read; more: read whole


@dataclass(frozen=True)
class Ledger:
    """What one version held, for reading the next from it."""

    schema: tuple
    marks: dict[str, tuple | None]  # table -> (rows, largest rowid, the row at it); None: none
    running: dict[int, db.Running] = field(default_factory=dict)  # by rowid
    agents: dict[str, tuple] = field(default_factory=dict)  # session -> its running agents
    active: dict[str, str] = field(default_factory=dict)  # active session -> its started_at
    duplicates: bool = False  # some id has several `sessions` rows


def _schema(con: sqlite3.Connection) -> tuple:
    rows = con.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name")
    return tuple(r for r in rows if not str(r[1]).startswith("ocr_tui_"))  # our indexes


def _mark(con: sqlite3.Connection, table: str) -> tuple | None:
    """(rows or None, largest rowid, the row at it) of a table; None without the table. The
    rows are counted for `sessions` alone: a count reads every page of an index (at 10,000
    sessions ~1 ms a table, as much as the rest of a change)."""
    if not db._columns(con, table):
        return None
    count = None
    if table == "sessions":
        (count,) = con.execute(f"SELECT count(*) FROM {table}").fetchone()
    (top,) = con.execute(f"SELECT max(rowid) FROM {table}").fetchone()
    tail = con.execute(f"SELECT * FROM {table} WHERE rowid = ?", (top,)).fetchone()
    return (count, top, tail)


def _active(states: dict) -> dict[str, str]:
    return {sid: s.started_at or "" for sid, s in states.items() if s.status == "active"}


def ledger_of(con: sqlite3.Connection, rows: dict, running: list[db.Running]) -> Ledger | None:
    """The ledger of the version `con` holds, whose full read gave `rows` and `running`."""
    try:
        marks = {t: _mark(con, t) for t in CLI_TABLES + OTHER_TABLES}
        schema = _schema(con)
    except sqlite3.Error:
        return None  # e.g. a table without rowid: every version is read whole
    agents = {sid: s.agents for sid, s in rows.items() if s.agents}
    return Ledger(
        schema=schema,
        marks=marks,
        running={r.rowid: r for r in running},
        agents=agents,
        active=_active(rows),
        duplicates=any(s.problems for s in rows.values()),
    )


def open_in_place(path: Path, key: tuple) -> tuple[sqlite3.Connection, int] | None:
    """ocr.db opened where it is, read-only and `immutable` (no lock, no journal, nothing
    written beside it), with a descriptor on the same file kept to check it did not change
    while read; None when it is not a regular rollback-journal SQLite file of `key`'s inode."""
    if key[3] != "file" or key[1] > db.MAX_DB_BYTES:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        head = os.pread(fd, 20, 0)
        if not stat.S_ISREG(st.st_mode) or st.st_ino != key[0] or len(head) < 20:
            raise ValueError
        if head[:16] != db.SQLITE_MAGIC or head[18:20] != b"\x01\x01":  # WAL: read whole
            raise ValueError
        uri = f"file:{urllib.parse.quote(os.fspath(path))}?mode=ro&immutable=1"
        con = sqlite3.connect(uri, uri=True, check_same_thread=False)
    except (OSError, ValueError, sqlite3.Error):
        os.close(fd)
        return None
    con.text_factory = lambda b: b.decode("utf-8", "replace")
    return con, fd


def _unchanged(path: Path, key: tuple, fd: int) -> bool:
    st = os.fstat(fd)
    return db._stat_key(path) == key and (st.st_ino, st.st_size, st.st_mtime_ns) == (
        key[0], key[1], key[2],
    ) and st.st_ctime_ns == key[4]  # fmt: skip


def read_delta(path: Path, key: tuple, old: db.DbSnapshot) -> db.DbSnapshot | None:
    """The version of ocr.db at `path` (of stat key `key`) read from `old`'s, or None when
    what changed cannot be told this way (see the module's docstring)."""
    ledger = old.ledger
    if ledger is None or old.error or old.key is None or ledger.duplicates:
        return None
    if old.key[0] == key[0]:
        return None  # the same file written in place: not OCR's writer
    opened = open_in_place(path, key)
    if opened is None:
        return None
    con, fd = opened
    try:
        new = _read(con, ledger, old, key)
        return new if new is not None and _unchanged(path, key, fd) else None
    except (sqlite3.Error, ValueError, MemoryError):
        return None
    finally:
        con.close()
        os.close(fd)


def _marks(ledger: Ledger, con: sqlite3.Connection, table: str) -> tuple[tuple, int] | None:
    """(the new mark, the old largest rowid) of a CLI table that may only have grown."""
    old = ledger.marks[table]
    mark = _mark(con, table)
    if old is None or mark is None:
        return None
    top = old[1] if old[1] is not None else -(2**63)
    if old[1] is not None and table == "orchestration_events":  # appended only; the others'
        # rows change in place
        last = con.execute(f"SELECT * FROM {table} WHERE rowid = ?", (old[1],)).fetchone()
        if last != old[2]:
            return None
    return mark, top


def _ask(ids: set[str] | list[str]) -> str:
    return ", ".join("?" * len(ids))


def _read(con, ledger: Ledger, old: db.DbSnapshot, key: tuple) -> db.DbSnapshot | None:
    if _schema(con) != ledger.schema:
        return None
    if any(_mark(con, t) != ledger.marks[t] for t in OTHER_TABLES):
        return None
    got = [_marks(ledger, con, t) for t in CLI_TABLES]
    if any(g is None for g in got):
        return None
    (s_mark, s_top), (e_mark, e_top), (c_mark, c_top) = got  # type: ignore[misc]
    # Events: appended only.
    added = con.execute(
        "SELECT session_id FROM orchestration_events WHERE rowid > ?", (e_top,)
    ).fetchall()
    named = {sid for (v,) in added if (sid := as_str(v)) is not None}
    # Commands: the running ones and the new ones, re-read.
    ids = list(ledger.running)
    reread = db.running_commands(con, f"rowid IN ({_ask(ids)})", tuple(ids), every=True)
    reread += db.running_commands(con, "rowid > ?", (c_top,), every=True)  # (one OR: a scan)
    running = dict(ledger.running)
    ran = False  # a command started, finished or beat
    for rowid, row in reread:
        ran = ran or row != running.get(rowid)
        if row is None:
            running.pop(rowid, None)
        else:
            running[rowid] = row
    # Sessions: those events name, the active ones, rows added.
    asked = named | set(ledger.active)
    if len(asked) > MAX_ASKED:
        return None
    raw, count = db.session_records(
        con, f"WHERE id IN ({_ask(asked)}) OR rowid > ?", (*sorted(asked), s_top)
    )
    if any(n > 1 for n in count.values()):
        return None
    gone = {sid for sid in asked if sid not in raw}
    before = sum(1 for sid in asked | set(raw) if sid in old.rows)
    if s_mark[0] != ledger.marks["sessions"][0] - before + len(raw):
        return None  # a row deleted or copied elsewhere
    fresh = [sid for sid in raw if sid not in old.rows]
    if fresh and _has_records(con, fresh):
        return None  # a new row whose dashboard rows are already there: read whole
    active = dict(ledger.active)
    for sid in asked | set(raw):
        active.pop(sid, None)
    for sid, rec in raw.items():
        if as_str(rec["status"]) == "active":
            active[sid] = as_str(rec["started_at"]) or ""
    newest = max(active, key=lambda sid: (active[sid], sid), default=None)
    members = _Members(raw, old.rows, gone)
    agents = db.assign_agents(sorted(running.values(), key=lambda r: r.order), members, newest)
    moved = {
        sid for sid in set(agents) | set(ledger.agents)
        if tuple(agents.get(sid, ())) != ledger.agents.get(sid, ())
    }  # fmt: skip
    rebuild = (set(raw) | named | moved) - gone
    missing = [sid for sid in rebuild if sid not in raw]
    if missing:
        more, more_count = db.session_records(con, f"WHERE id IN ({_ask(missing)})", tuple(missing))
        if any(n > 1 for n in more_count.values()):
            return None
        raw |= more
        count |= more_count
    rebuild = [sid for sid in rebuild if sid in raw]
    keep = {sid: old.rows[sid] for sid in rebuild if sid in old.rows}
    states = db.build_states(
        {sid: raw[sid] for sid in rebuild}, count, db._read_events(con, rebuild), agents,
        {sid: dict(s.round_triage) for sid, s in keep.items()},
        {sid: dict(s.map_runs) for sid, s in keep.items()},
        {sid: list(s.notes) for sid, s in keep.items()},
    )  # fmt: skip
    rows = Rows.of(old.rows).updated(states, gone)
    changed = {sid for sid in rebuild if old.rows.get(sid) != rows.get(sid)} | gone
    if not (named or ran or changed):
        return None  # nothing of the CLI's changed: another writer's version, read whole
    marks = dict(ledger.marks)
    marks.update(sessions=s_mark, orchestration_events=e_mark, command_executions=c_mark)
    return db.DbSnapshot(
        key=key, rows=rows, findings=old.findings, findings_error=old.findings_error,
        ledger=Ledger(
            schema=ledger.schema, marks=marks, running=running,
            agents={sid: tuple(a) for sid, a in agents.items()}, active=active,
        ),
        changed=frozenset(changed),
    )  # fmt: skip


_GONE = object()  # a row the version deleted (`Rows`)
_NONE = object()


class Rows(Mapping):
    """Every session's row of a version read from the last (session id -> StoredState): the
    rows of the last version read whole (`base`, shared, never changed) under those the
    incremental reads since changed (`top`; `_GONE`: deleted). A new version costs what
    changed, not a copy of every session's row (a dict of 10,000 rows copied and freed at
    every change was ~0.35 ms of 4); `top` is folded into a new base once it holds more than
    max(FOLD, sqrt(len(base))) sessions: a copy of every row once every that many sessions
    changed, and `top`'s copy at each change stays as short."""

    FOLD = 64
    __slots__ = ("_base", "_top", "_len")

    def __init__(self, base: Mapping, top: dict | None = None, length: int | None = None):
        self._base, self._top = base, top or {}
        self._len = len(base) if length is None else length

    @classmethod
    def of(cls, rows: Mapping) -> Rows:
        return rows if isinstance(rows, Rows) else cls(rows)

    def __getitem__(self, sid: str):
        v = self._top.get(sid, _NONE)
        if v is _NONE:
            return self._base[sid]
        if v is _GONE:
            raise KeyError(sid)
        return v

    def get(self, sid, default=None):
        v = self._top.get(sid, _NONE)
        if v is _NONE:
            return self._base.get(sid, default)
        return default if v is _GONE else v

    def __contains__(self, sid: object) -> bool:
        v = self._top.get(sid, _NONE)  # type: ignore[call-overload]
        return sid in self._base if v is _NONE else v is not _GONE

    def __iter__(self) -> Iterator[str]:
        top = self._top
        yield from (sid for sid in self._base if sid not in top)
        yield from (sid for sid, v in top.items() if v is not _GONE)

    def __len__(self) -> int:
        return self._len

    def updated(self, states: Mapping, gone: set[str]) -> Rows:
        """These rows without `gone`, then with `states` (new or changed)."""
        base, top, n = self._base, dict(self._top), self._len

        def has(sid: str) -> bool:
            v = top.get(sid, _NONE)
            return sid in base if v is _NONE else v is not _GONE

        for sid in gone:
            if has(sid):
                n -= 1
                top[sid] = _GONE
        for sid, state in states.items():
            n += not has(sid)
            top[sid] = state
        if len(top) <= max(self.FOLD, math.isqrt(len(base))):
            return Rows(base, top, n)
        folded = {k: v for k, v in base.items() if k not in top}
        folded.update((k, v) for k, v in top.items() if v is not _GONE)
        return Rows(folded)


class _Members:
    """`sid in` the new version's sessions, without copying the old ones."""

    def __init__(self, raw: dict, old: dict, gone: set[str]) -> None:
        self.raw, self.old, self.gone = raw, old, gone

    def __contains__(self, sid: object) -> bool:
        return sid in self.raw or (sid in self.old and sid not in self.gone)


def _has_records(con: sqlite3.Connection, sids: list[str]) -> bool:
    """Do the dashboard's tables hold rows of any of these sessions (rounds, map runs, a
    note on the session)?"""
    for table, where in (
        ("review_rounds", "session_id IN ({})"),
        ("map_runs", "session_id IN ({})"),
        ("user_notes", "target_type = 'session' AND target_id IN ({})"),
    ):
        cols = db._columns(con, table)
        if not cols:
            continue
        try:
            hit = con.execute(
                f"SELECT 1 FROM {table} WHERE {where.format(_ask(sids))} LIMIT 1", tuple(sids)
            ).fetchone()
        except sqlite3.Error:
            return True
        if hit:
            return True
    return False
