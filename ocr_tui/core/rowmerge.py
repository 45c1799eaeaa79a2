"""Row-level three-way merge of SQLite databases: what another writer changed between two
versions of a file (`delta`), which of those changes a later version lost (`lost`), and
putting them back (`restore`). Format-neutral: every table with a rowid, `sqlite_sequence`
included.

Used after a swap handed back another writer's version (`core.swap`): for the time of two
system calls the file held our version without that writer's change, and a writer that read
the file just then may write a version without it. The rule, per row the other writer
changed: where the later version still holds the row as it was before (base), the other
writer's row goes back; a row the later version changed again is left as it is. An inserted
row whose rowid the later version gave to another row is inserted under a new rowid.
"""

from __future__ import annotations

import sqlite3

Row = tuple
# (table, rowid) -> (the row in the base version, the row in the other writer's); None: absent
Delta = dict[tuple[str, int], tuple[Row | None, Row | None]]


def _tables(con: sqlite3.Connection) -> dict[str, tuple[str, ...]]:
    out = {}
    names = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for name in names:
        if name.startswith("sqlite_") and name != "sqlite_sequence":
            continue
        cols = tuple(r[1] for r in con.execute(f'PRAGMA table_info("{name}")'))
        try:
            con.execute(f'SELECT rowid FROM "{name}" LIMIT 1').fetchall()
        except sqlite3.OperationalError:  # WITHOUT ROWID: not merged
            continue
        out[name] = cols
    return out


def _rows(con: sqlite3.Connection, table: str) -> dict[int, Row]:
    return {r[0]: tuple(r[1:]) for r in con.execute(f'SELECT rowid, * FROM "{table}"')}


def _text(b: bytes) -> str:
    return b.decode("utf-8", "surrogateescape")


def open_bytes(data: bytes) -> sqlite3.Connection:
    con = sqlite3.connect(":memory:")
    con.text_factory = _text  # any bytes a row holds, compared and written back as they were
    con.deserialize(data)
    return con


def delta(
    base: sqlite3.Connection, theirs: sqlite3.Connection, skip: frozenset[str] = frozenset()
) -> tuple[Delta, dict]:
    """The rows `theirs` added or changed from `base` (tables whose columns differ, and those
    in `skip`: not merged), and each table's columns. Rows `theirs` lacks are not: the other
    writer may have started from a version older than `base` (a row it lacks may be one it
    never saw, not one it deleted)."""
    tb, tt = _tables(base), _tables(theirs)
    out: Delta = {}
    for table, cols in tt.items():
        if tb.get(table, cols) != cols or table in skip:
            continue
        old = _rows(base, table) if table in tb else {}
        new = _rows(theirs, table)
        for rid, row in new.items():
            if old.get(rid) != row:
                out[(table, rid)] = (old.get(rid), row)
    return out, tt


# What restoring a lost change takes: (table, rowid, action, the other writer's row).
Fix = tuple[str, int, str, Row | None]


def lost(now: sqlite3.Connection, d: Delta, cols: dict) -> list[Fix]:
    """The changes of `d` that `now` does not have and did not change again."""
    have = _tables(now)
    out: list[Fix] = []
    cache: dict[str, dict[int, Row]] = {}
    for (table, rid), (old, new) in d.items():
        if have.get(table) != cols.get(table):
            continue
        rows = cache.setdefault(table, _rows(now, table))
        cur = rows.get(rid)
        if cur == new:
            continue
        if cur == old:
            out.append((table, rid, "delete" if new is None else "set" if old else "insert", new))
        elif old is None and new is not None and new not in rows.values():
            out.append((table, rid, "append", new))  # its rowid went to another row meanwhile
    return out


def _rowid_alias(con: sqlite3.Connection, table: str) -> str | None:
    """The table's INTEGER PRIMARY KEY column (the rowid under another name), if any."""
    info = list(con.execute(f'PRAGMA table_info("{table}")'))
    pks = [r for r in info if r[5]]
    if len(pks) == 1 and str(pks[0][2]).upper() == "INTEGER":
        return pks[0][1]
    return None


def stored_value(v: object) -> object:
    """A value read with `_text` as SQLite (and msgpack) can keep it: text that is not UTF-8
    back to its bytes."""
    if isinstance(v, str):
        try:
            v.encode("utf-8")
        except UnicodeEncodeError:
            return v.encode("utf-8", "surrogateescape")
    return v


def restore(con: sqlite3.Connection, fixes: list[Fix], cols: dict) -> None:
    """Put the rows `lost` found back into `con` (the version `lost` looked at)."""
    for table, rid, action, new in sorted(fixes, key=lambda f: f[0] == "sqlite_sequence"):
        names = cols[table]
        quoted = ", ".join(f'"{c}"' for c in names)
        marks = ", ".join("?" * len(names))
        row = tuple(stored_value(v) for v in new) if new is not None else ()
        if action == "delete":
            con.execute(f'DELETE FROM "{table}" WHERE rowid = ?', (rid,))
        elif action == "insert":
            con.execute(f'INSERT INTO "{table}" (rowid, {quoted}) VALUES (?, {marks})', (rid, *row))
        elif action == "append":
            if table != "sqlite_sequence":
                alias = _rowid_alias(con, table)
                keep = [i for i, c in enumerate(names) if c != alias]
                sub = ", ".join(f'"{names[i]}"' for i in keep)
                con.execute(
                    f'INSERT INTO "{table}" ({sub}) VALUES ({", ".join("?" * len(keep))})',
                    tuple(row[i] for i in keep),
                )
        else:
            sets = ", ".join(f'"{c}" = ?' for c in names)
            con.execute(f'UPDATE "{table}" SET {sets} WHERE rowid = ?', (*row, rid))
    if "sqlite_sequence" in cols:  # AUTOINCREMENT counters at least past every rowid
        for (name,) in con.execute("SELECT name FROM sqlite_sequence").fetchall():
            try:
                top = con.execute(f'SELECT MAX(rowid) FROM "{name}"').fetchone()[0]
            except sqlite3.Error:
                continue
            if top is not None:
                con.execute(
                    "UPDATE sqlite_sequence SET seq = MAX(seq, ?) WHERE name = ?", (top, name)
                )
