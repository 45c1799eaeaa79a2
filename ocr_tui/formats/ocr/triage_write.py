"""Writing the user's marks into `ocr.db`, losing neither theirs nor any OCR CLI write.

The protocol, for each mark (`write`):

1. Refuse before touching anything when the store cannot take it: no `ocr.db` (OCR ≤ 1.4,
   files only: never created here), a link or not a regular file, a `-journal` or `-wal`
   beside it or a write lock on it (an SQLite program is writing it in place), a WAL-mode
   file, a corrupt one (`PRAGMA quick_check`), a schema without the table or column the mark
   needs, a target OCR's store has no row for (`triage_marks.Refused`).
2. Keep the mark in the journal (`core.journal`, outside the tree).
3. Read the file's bytes once, load them into an in-memory database, make the change there
   with OCR's dashboard's statements (nothing else changes), and swap the result in with
   `core.swap.replace_checked`: it never replaces a version it did not read (a write that
   landed meanwhile is merged into: the change is made again on it).
4. Read the file back: the mark must be there. A CLI write that read the file before the
   swap and renamed its copy after it drops the mark: it is written again (3), and later by
   the journal (`settle`), which any ocr-tui dashboard, `watch` or `triage` that runs
   afterwards checks.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import sqlite3
import struct
import time
from collections.abc import Callable
from pathlib import Path

import msgspec

from ocr_tui.core.journal import Entry, Journal
from ocr_tui.core.swap import Busy, SwapError, replace_checked
from ocr_tui.formats.ocr.db import MAX_DB_BYTES, SQLITE_MAGIC, open_snapshot
from ocr_tui.formats.ocr.triage_marks import (
    GONE,
    IN,
    FileMark,
    FindingMark,
    Mark,
    NoteAdd,
    NoteEdit,
    Pending,
    Refused,
    Restore,
    RoundMark,
    apply,
    now_sql,
    state,
)

READ_BACK_TRIES = 8


PENDING = (
    "ocr.db is being rewritten continuously: the mark is kept and written again as soon as "
    "it is quiet (by this dashboard, or the next ocr-tui that runs)"
)
_ENC = msgspec.msgpack.Encoder()
_DEC = msgspec.msgpack.Decoder(Mark)
_PENDING_BYTE = 0x40000000  # SQLite's lock bytes: PENDING, RESERVED (os.c)


def key_of(m: Mark) -> str:
    """What a mark marks: a newer mark of the same key replaces an older one in the journal."""
    if isinstance(m, FindingMark):
        return f"finding\x00{m.session}\x00{m.round}\x00{m.finding}"
    if isinstance(m, RoundMark):
        return f"round\x00{m.session}\x00{m.round}"
    if isinstance(m, FileMark):
        return f"file\x00{m.session}\x00{m.run}\x00{m.path}"
    if isinstance(m, NoteEdit):
        return f"note\x00{m.note}"
    if isinstance(m, Restore):
        digest = hashlib.sha256(_ENC.encode(m.rows)).hexdigest()[:16]
        return f"restore\x00{digest}"
    digest = hashlib.sha256(m.text.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return f"note-add\x00{m.session}\x00{m.target}\x00{m.at}\x00{digest}"


def _write_locked(path: Path) -> bool:
    """Whether an SQLite program holds a write lock (RESERVED or PENDING) on the file."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        probe = struct.pack("=hh4xqqi4x", fcntl.F_WRLCK, os.SEEK_SET, _PENDING_BYTE, 2, 0)
        got = fcntl.fcntl(fd, fcntl.F_GETLK, probe)
        return struct.unpack("=hh4xqqi4x", got)[0] != fcntl.F_UNLCK
    except OSError:
        return False
    finally:
        os.close(fd)


def check_store(path: Path) -> None:
    """Refused when `path` is no store a mark can be written to (step 1, before the read)."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise Refused(
            "no .ocr/data/ocr.db: triage and notes need OCR ≥ 1.5's store (ocr-tui never "
            "creates it; run any `ocr state` command with OCR ≥ 1.5 to make one)"
        ) from None
    except OSError as exc:
        raise Refused(f"ocr.db cannot be read ({exc.strerror}): nothing written") from None
    import stat

    if stat.S_ISLNK(st.st_mode):
        raise Refused("ocr.db is a symbolic link: not followed, nothing written")
    if not stat.S_ISREG(st.st_mode):
        raise Refused("ocr.db is not a regular file: nothing written")
    for side in ("-journal", "-wal"):
        if os.path.lexists(f"{path}{side}"):
            raise Refused(
                f"ocr.db is being written by an SQLite program (ocr.db{side} beside it): "
                "nothing written; try again when it is done"
            )
    if _write_locked(path):
        raise Refused("ocr.db is locked by an SQLite program: nothing written; try again")


def _changed(m: Mark):
    def change(data: bytes) -> bytes:
        if data[:16] != SQLITE_MAGIC:
            raise Refused("ocr.db is not an SQLite database (corrupt?): nothing written")
        if data[18:20] == b"\x02\x02":
            raise Refused("ocr.db is in WAL mode (not OCR's own writer): nothing written")
        con = sqlite3.connect(":memory:")
        try:
            try:
                con.deserialize(data)
                ok = con.execute("PRAGMA quick_check").fetchone()
            except sqlite3.DatabaseError as exc:
                raise Refused(f"ocr.db is corrupt ({exc}): nothing written") from None
            if not ok or ok[0] != "ok":
                raise Refused(f"ocr.db is corrupt ({ok[0] if ok else '?'}): nothing written")
            with con:
                apply(con, m)
            return con.serialize()
        finally:
            con.close()

    return change


_OCR_TEMP = re.compile(r"ocr\.db\.\d{1,10}\.tmp")
STALE_TEMP_S = 2.0


def ocr_writing(path: Path) -> Callable[[], bool]:
    """Whether OCR's CLI or dashboard is in the middle of a write of `path`: its temporary
    file (`ocr.db.{pid}.tmp`, `packages/*/src/**/db*.ts`) is there, and fresh (one older than
    STALE_TEMP_S was left by a writer that died)."""
    d = path.parent

    def busy() -> bool:
        try:
            names = [n for n in os.listdir(d) if _OCR_TEMP.fullmatch(n)]
        except OSError:
            return False
        now = time.time()
        for n in names:
            try:
                if now - os.lstat(d / n).st_mtime < STALE_TEMP_S:
                    return True
            except OSError:
                continue
        return False

    return busy


def _now_state(path: Path, m: Mark) -> str:
    try:
        con = open_snapshot(path)
    except (OSError, ValueError, MemoryError, sqlite3.Error):
        return GONE
    try:
        return state(con, m)
    finally:
        con.close()


GUARD_S = 1.0
# The tables of the user's marks: ours are in the journal; another writer's version of them
# is not restored (it may be older than ours).
USER_TABLES = frozenset(
    {"user_finding_progress", "user_round_progress", "user_file_progress", "user_notes"}
)


def _put(path: Path, m: Mark) -> None:
    """Swap `m` into the store; another writer's version an exchange handed back (and that
    was put back) is guarded afterwards (`_guard`)."""
    check_store(path)
    returned: list[tuple[bytes, bytes]] = []
    try:
        replace_checked(
            path, _changed(m), limit=MAX_DB_BYTES, tag="ocr-tui", busy=ocr_writing(path),
            returned=lambda base, theirs: returned.append((base, theirs)),
        )  # fmt: skip
    except FileNotFoundError:
        raise Refused("ocr.db was removed while being written: nothing written") from None
    except Busy:
        raise
    except SwapError as exc:
        raise Refused(str(exc)) from None
    except OSError as exc:
        raise Refused(f"ocr.db could not be written ({exc.strerror or exc})") from None
    finally:
        for base, theirs in returned:
            _guard(path, base, theirs)


def _guard(path: Path, base: bytes, theirs: bytes) -> None:
    """Another writer's version (`theirs`, made from `base`) came back from an exchange and
    was put back two system calls later; a writer that read the file in between holds our
    version without that writer's rows and may write it back. Those rows are kept in the
    journal as a `Restore` (put back, by the 3-way rule of `core.rowmerge`, into any later
    version that lost them, as the user's marks are) and watched for GUARD_S here."""
    from ocr_tui.core import rowmerge

    try:
        b, t = rowmerge.open_bytes(base), rowmerge.open_bytes(theirs)
        try:
            d, cols = rowmerge.delta(b, t, skip=USER_TABLES)
        finally:
            b.close()
            t.close()
    except (sqlite3.Error, MemoryError):
        return
    if not d:
        return
    r = Restore(
        rows=[(table, rid, _listed(old), _listed(new)) for (table, rid), (old, new) in d.items()],
        cols={table: list(c) for table, c in cols.items()},
        at=now_sql(),
    )
    try:
        Journal(path).add(key_of(r), _ENC.encode(r))
    except (OSError, TypeError, ValueError):
        pass
    until = time.monotonic() + GUARD_S
    while time.monotonic() < until:
        time.sleep(0.002)
        if _now_state(path, r) == GONE:
            try:
                _put(path, r)  # guarded in turn
            except (Busy, Refused, OSError):
                pass


def _listed(row: tuple | None) -> list | None:
    from ocr_tui.core.rowmerge import stored_value

    return None if row is None else [stored_value(v) for v in row]


def write(path: Path, m: Mark, *, journal: bool = True) -> None:
    """Write `m` into the store at `path` and read it back (the module's protocol). Raises
    Refused (one plain line) when it cannot: then nothing was written and the journal is as
    it was. Raises Pending when another writer keeps replacing the file (before our write, or
    dropping it after each one): the mark is kept in the journal, to be written again."""
    book = Journal(path) if journal else None
    try:
        _put(path, m)
    except Busy:
        if book is None:
            raise Refused(PENDING.split(":")[0] + ": nothing written") from None
        book.add(key_of(m), _ENC.encode(m), written=1.0)  # never written: due at once
        raise Pending(PENDING) from None
    if book is not None:
        book.add(key_of(m), _ENC.encode(m))
    for _ in range(READ_BACK_TRIES):
        if _now_state(path, m) != GONE:
            return
        try:
            _put(path, m)
        except Busy:
            break
    if book is None:
        raise Refused(PENDING.split(":")[0] + ": the mark could not be kept")
    raise Pending(PENDING)


def settle(path: Path) -> int:
    """Check the journal of `path`'s marks against the store as it is now; write again each
    mark a writer dropped. Returns how many were written again. Never raises."""
    book = Journal(path)

    def judge(e: Entry) -> str:
        try:
            return _now_state(path, _DEC.decode(e.mark))
        except (msgspec.DecodeError, ValueError):
            return "superseded"

    try:
        gone = book.settle(judge)
    except OSError:
        return 0
    again = 0
    for e in gone:
        try:
            m = _DEC.decode(e.mark)
            _put(path, m)
            book.add(e.key, bytes(e.mark))
            again += 1
        except Busy:
            continue  # still busy: kept, tried at the next settle
        except Refused:
            book.drop(e.key, bytes(e.mark))  # can no longer be written (its row is gone)
        except (msgspec.DecodeError, ValueError, OSError):
            continue
    return again


__all__ = ["IN", "Pending", "Refused", "check_store", "key_of", "settle", "write", "NoteAdd"]
