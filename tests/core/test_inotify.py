"""The inotify watcher's own edges: the syscall layer is inotify_simple's, what is
checked here is what we put on top of it."""

from __future__ import annotations

import errno
import fcntl
import os
import sys

import pytest
from watchfiles import Change

from ocr_tui.core import inotify

linux = pytest.mark.skipif(not inotify.available(), reason="inotify is Linux-only")


@pytest.fixture
def fresh_lib():
    inotify._lib.cache_clear()
    yield
    inotify._lib.cache_clear()


def test_unavailable_off_linux(fresh_lib, monkeypatch) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    assert not inotify.available()
    with pytest.raises(OSError) as exc:
        inotify.Inotify("/")
    assert exc.value.errno == errno.ENOSYS


def test_unavailable_when_the_library_cannot_load(fresh_lib, monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "inotify_simple", None)  # import raises ImportError
    assert not inotify.available()


@linux
def test_fd_is_cloexec_nonblocking_and_symlinks_are_not_followed(tmp_path) -> None:
    (tmp_path / "a" / "b").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "a")
    ino = inotify.Inotify(str(tmp_path))
    try:
        assert fcntl.fcntl(ino.fd, fcntl.F_GETFD) & fcntl.FD_CLOEXEC
        assert fcntl.fcntl(ino.fd, fcntl.F_GETFL) & os.O_NONBLOCK
        assert sorted(ino.wds) == [str(tmp_path), str(tmp_path / "a"), str(tmp_path / "a/b")]
        assert ino.read() == set()  # nothing pending: returns at once
    finally:
        ino.close()
    assert ino.read() == set()  # closed: nothing, no error


@linux
def test_new_directories_are_armed_and_reported_with_their_contents(tmp_path) -> None:
    ino = inotify.Inotify(str(tmp_path))
    try:
        (tmp_path / "s" / "r").mkdir(parents=True)
        (tmp_path / "s" / "r" / "x.md").write_text("x")
        got = ino.read()
        assert (Change.added, str(tmp_path / "s" / "r" / "x.md")) in got
        assert str(tmp_path / "s" / "r") in ino.wds
        (tmp_path / "s" / "r" / "x.md").unlink()
        (tmp_path / "s" / "r").rmdir()
        assert (Change.deleted, str(tmp_path / "s" / "r")) in ino.read()
        assert str(tmp_path / "s" / "r") not in ino.wds
    finally:
        ino.close()


@linux
@pytest.mark.parametrize("code", [errno.ENOENT, errno.ENOTDIR, errno.EACCES])
def test_vanished_or_unreadable_directories_are_skipped(tmp_path, monkeypatch, code) -> None:
    (tmp_path / "gone").mkdir()
    ino = inotify.Inotify(str(tmp_path))
    try:
        real = ino.ino.add_watch

        def add_watch(path, mask):
            if path.endswith("new"):
                raise OSError(code, os.strerror(code))
            return real(path, mask)

        monkeypatch.setattr(ino.ino, "add_watch", add_watch)
        (tmp_path / "new").mkdir()
        assert (Change.added, str(tmp_path / "new")) in ino.read()
        assert str(tmp_path / "new") not in ino.wds
    finally:
        ino.close()


@linux
def test_the_watch_limit_is_raised_naming_the_directory(tmp_path, monkeypatch) -> None:
    import inotify_simple

    (tmp_path / "deep").mkdir()
    real = inotify_simple.INotify.add_watch
    opened = []

    def add_watch(self, path, mask):
        opened.append(self)
        if str(path).endswith("deep"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(self, path, mask)

    monkeypatch.setattr(inotify_simple.INotify, "add_watch", add_watch)
    with pytest.raises(OSError) as exc:
        inotify.Inotify(str(tmp_path))
    assert exc.value.errno == errno.ENOSPC and "deep" in str(exc.value)
    assert opened and opened[0].closed  # the descriptor is not left open


@linux
def test_queue_overflow_is_reported(tmp_path, monkeypatch) -> None:
    import inotify_simple

    ino = inotify.Inotify(str(tmp_path))
    try:
        queued = [[inotify_simple.Event(-1, inotify_simple.flags.Q_OVERFLOW, 0, "")], []]
        monkeypatch.setattr(ino.ino, "read", lambda timeout=None: queued.pop(0))
        assert ino.read() == {(Change.modified, inotify.OVERFLOW)}
    finally:
        ino.close()
