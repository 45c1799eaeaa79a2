"""Hostile inputs that need more than a tree: `.ocr/sessions` replaced by a file, `ocr.db`
replaced while it is being read, unreadable files, the OS refusing more watches, and names
that differ only in undecodable bytes."""

from __future__ import annotations

import errno
import json
import os
import shutil
import stat
import threading
import time

import pytest

from ocr_tui.core import inotify
from ocr_tui.formats.ocr import db as ocr_db

from .cases import GOOD_A, GOOD_B, make_project, sdir
from .support import (
    LiveWatch,
    cli_output,
    db_bytes,
    fresh_scan,
    put,
    reviewer_md,
    tree_digest,
    watch_jsonl,
    write_db,
)

# --- .ocr/sessions replaced by a file --------------------------------------------------------


def test_sessions_dir_replaced_by_a_file(tmp_path, capsys) -> None:
    root = make_project(tmp_path / "proj")
    sessions = root / ".ocr" / "sessions"
    shutil.rmtree(sessions)
    sessions.write_bytes(b"\x1b]0;not a directory\x07\n")
    digest = tree_digest(tmp_path)
    assert fresh_scan(root) == {}
    assert "No sessions" in cli_output(capsys, "status", str(root))
    assert json.loads(cli_output(capsys, "status", str(root), "--json"))["sessions"] == []
    lines = watch_jsonl(root, 0)
    assert [d["type"] for d in lines] == ["headers", "waiting"]  # headers always first
    assert tree_digest(tmp_path) == digest


def test_sessions_dir_replaced_by_a_file_while_watched(tmp_path) -> None:
    root = make_project(tmp_path / "proj")
    sessions = root / ".ocr" / "sessions"
    saved = tmp_path / "saved"
    w = LiveWatch(root).start()
    try:
        assert set(w.settle()) == {GOOD_A, GOOD_B}
        os.rename(sessions, saved)
        sessions.write_text("oops")
        w.touched()
        assert w.settle() == {}
        sessions.unlink()
        os.rename(saved, sessions)
        w.touched()
        assert set(w.settle()) == {GOOD_A, GOOD_B}  # nothing lost for good
    finally:
        w.close()


# --- ocr.db replaced while it is being read -------------------------------------------------


def _db_project(tmp_path):
    root = make_project(tmp_path / "proj")
    db = root / ".ocr" / "data" / "ocr.db"
    versions = [
        db_bytes({GOOD_A: {"current_phase": phase, "status": "active"}})
        for phase in ("discourse", "synthesis")
    ]
    write_db(db, versions[0])
    return root, db, versions


def test_ocr_db_replaced_between_stat_and_open(tmp_path, monkeypatch) -> None:
    """The snapshot read is the new file's, and the next read sees that the file changed."""
    root, db, versions = _db_project(tmp_path)
    real_open = os.open
    swaps = []

    def racing_open(path, flags, *a, **kw):
        if str(path) == str(db) and not swaps:
            swaps.append(1)
            write_db(db, versions[1])
        return real_open(path, flags, *a, **kw)

    monkeypatch.setattr(ocr_db.os, "open", racing_open)
    assert fresh_scan(root)[GOOD_A].phase == "synthesis"
    monkeypatch.setattr(ocr_db.os, "open", real_open)
    assert fresh_scan(root)[GOOD_A].phase == "synthesis"


@pytest.mark.parametrize("replacement", ["fifo", "symlink", "directory"])
def test_ocr_db_swapped_for_something_else_while_read(tmp_path, monkeypatch, replacement):
    """Swapped for a FIFO (opening it must not block), a link (not followed) or a directory
    after it was looked at: a problem, never a hang or a crash."""
    root, db, _ = _db_project(tmp_path)
    (tmp_path / "outside.db").write_bytes(db_bytes({GOOD_A: {"current_phase": "complete"}}))
    real_open = os.open

    def racing_open(path, flags, *a, **kw):
        if str(path) == str(db) and db.is_file() and not db.is_symlink():
            db.unlink()
            {"fifo": os.mkfifo, "directory": os.mkdir}.get(
                replacement, lambda p: os.symlink(tmp_path / "outside.db", p)
            )(db)
        return real_open(path, flags, *a, **kw)

    monkeypatch.setattr(ocr_db.os, "open", racing_open)
    views = fresh_scan(root)
    assert views[GOOD_A].phase == "reviews"  # its state.json: the store could not be read
    assert all(any("ocr.db" in p for p in v.problems) for v in views.values())


def test_ocr_db_rewritten_continuously_while_scanned(tmp_path) -> None:
    """A writer swaps versions (renames, and in-place rewrites that can be read torn) while
    the engine scans: every scan shows one of the versions, or the store's problem."""
    root, db, versions = _db_project(tmp_path)
    stop = threading.Event()
    writes = [0]

    def writer() -> None:
        while not stop.is_set():
            data = versions[writes[0] % 2]
            write_db(db, data, atomic=writes[0] % 3 != 0)
            writes[0] += 1

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    outcomes = set()
    scans = 0
    deadline = time.monotonic() + 30
    try:
        while (scans < 40 or writes[0] < 20) and time.monotonic() < deadline:
            scans += 1
            v = fresh_scan(root)[GOOD_A]
            if v.source == "ocr.db":
                assert v.phase in ("discourse", "synthesis")
                outcomes.add(v.phase)
            else:
                assert v.phase == "reviews" and any("ocr.db" in p for p in v.problems)
                outcomes.add("problem")
    finally:
        stop.set()
        t.join(10)
    assert writes[0] >= 20 and scans >= 40 and outcomes
    leftovers = sorted(p.name for p in db.parent.iterdir())
    assert leftovers == ["ocr.db"]  # no -journal, -wal or -shm of ours


# --- unreadable files ------------------------------------------------------------------------


def _make_unreadable(root):
    sid = "2026-11-22-locked"
    d = sdir(root, sid)
    put(d / "state.json", '{"current_phase": "reviews", "branch": "SECRET-STATE"}')
    put(d / "context.md", "# SECRET-CONTEXT\n")
    put(d / "rounds/round-1/reviews/principal-1.md", reviewer_md("p", ["high"]))
    put(d / "rounds/round-2/reviews/quality-1.md", reviewer_md("q", ["low"]))
    locked = [
        d / "state.json",
        d / "context.md",
        d / "rounds/round-1/reviews/principal-1.md",
        d / "rounds/round-2",
    ]
    for p in locked:
        os.chmod(p, 0)
    return sid, locked


def _check_unreadable(views, sid) -> None:
    v = views[sid]
    assert v.source == "files"
    problems = " ".join(v.problems)
    assert "state.json cannot be read" in problems
    assert "principal-1.md cannot be read" in problems
    assert "rounds/round-2/ cannot be listed" in problems
    assert [r.number for r in v.rounds] == [1, 2]
    assert not views[GOOD_A].problems and not views[GOOD_B].problems


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_unreadable_files(tmp_path, capsys) -> None:
    root = make_project(tmp_path / "proj")
    sid, locked = _make_unreadable(root)
    try:
        digest = tree_digest(tmp_path)
        views = fresh_scan(root)
        _check_unreadable(views, sid)
        out = cli_output(capsys, "status", str(root), "--json")
        assert "SECRET" not in out
        assert {d["session"]["id"] for d in watch_jsonl(root, 3)} == set(views)
        assert tree_digest(tmp_path) == digest
    finally:
        for p in locked:
            os.chmod(p, 0o755)


def test_unreadable_files_emulated(tmp_path, monkeypatch) -> None:
    """The same refusals, raised by hand where the kernel would (this runs as root too)."""
    root = make_project(tmp_path / "proj")
    sid, locked = _make_unreadable(root)

    def refused(path) -> bool:
        try:
            return stat.S_IMODE(os.stat(path, follow_symlinks=False).st_mode) == 0
        except (OSError, TypeError, ValueError):
            return False

    real_open, real_scandir = open, os.scandir

    def fake_open(path, *a, **kw):
        if refused(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *a, **kw)

    def fake_scandir(path="."):
        if refused(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_scandir(path)

    from ocr_tui.formats.ocr import fs as ocr_fs

    digest = tree_digest(tmp_path)
    monkeypatch.setattr(ocr_fs, "open", fake_open, raising=False)
    monkeypatch.setattr(os, "scandir", fake_scandir)
    try:
        _check_unreadable(fresh_scan(root), sid)
        monkeypatch.undo()
        assert tree_digest(tmp_path) == digest
    finally:
        for p in locked:
            os.chmod(p, 0o755)


# --- the OS refusing more watches ------------------------------------------------------------

REFUSE = """
import errno
from ocr_tui.core import inotify
def _refuse(self, path):
    raise OSError(errno.ENOSPC, "No space left on device")
inotify.Inotify._add = _refuse
"""


def _refuse_after_first(monkeypatch) -> None:
    """The first watch is granted; the limit is reached at the next one."""
    real_add = inotify.Inotify._add

    def add(self, path):
        if self.wds:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_add(self, path)

    monkeypatch.setattr(inotify.Inotify, "_add", add)


def test_os_refuses_more_watches_falls_back_to_polling(tmp_path, monkeypatch) -> None:
    if not inotify.available():
        pytest.skip("inotify is Linux-only")
    _refuse_after_first(monkeypatch)
    root = make_project(tmp_path / "proj")
    w = LiveWatch(root).start()
    try:
        deadline = time.monotonic() + 20
        while "PollingFallback" not in w.kinds:  # it follows the first Scanned
            assert time.monotonic() < deadline, f"no PollingFallback: {w.kinds}"
            time.sleep(0.01)
        put(sdir(root, GOOD_A) / "rounds/round-2/reviews/new-1.md", reviewer_md("n", ["high"]))
        w.touched()
        live = w.settle()
        assert [r.number for r in live[GOOD_A].rounds] == [1, 2]  # still following changes
    finally:
        w.close()


def test_os_refusing_watches_is_said_in_watch_jsonl(tmp_path) -> None:
    if not inotify.available():
        pytest.skip("inotify is Linux-only")
    root = make_project(tmp_path / "proj")
    lines = watch_jsonl(
        root,
        2,
        prelude=REFUSE,
        until=lambda ls: (
            any(d["type"] == "polling" for d in ls)
            and sum(d["type"] == "snapshot" for d in ls) == 2
        ),
    )
    (polling,) = [d for d in lines if d["type"] == "polling"]
    assert "No space left on device" in polling["reason"] and "polling" in polling["reason"]


# --- names that differ only in undecodable bytes ---------------------------------------------


def test_names_differing_only_in_undecodable_bytes_are_two_sessions(tmp_path) -> None:
    root = make_project(tmp_path / "proj")
    for raw in (b"2026-11-22-x\xff", b"2026-11-22-x\xfe"):
        put(sdir(root, raw) / "state.json", '{"current_phase": "reviews"}')
    assert len(fresh_scan(root)) == 4
