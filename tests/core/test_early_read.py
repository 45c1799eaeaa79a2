"""The dashboard's first sessions, read by a child process while the app is imported
(`core.early_read`): what it sends, and that nothing depends on it."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ocr_tui.core import early_read
from ocr_tui.core.early_read import Early, EarlyRead
from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.formats.ocr.sim import build_history

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")


@pytest.fixture
def history(tmp_path: Path) -> Path:
    build_history(tmp_path, sessions=12)
    return tmp_path


def test_the_child_sends_every_session_the_newest_read(history: Path) -> None:
    reader = EarlyRead.start(history / ".ocr" / "sessions", stall_after=1800)
    assert reader is not None
    early = reader.result()
    assert early is not None and early.project_root == history and early.has_dir
    engine = Engine(Project(history))
    scanned = {v.id: v for v in engine.scan()}
    assert {v.id for v in early.views} == set(scanned)
    read = [v for v in early.views if v.source != "loading"]
    assert len(read) == len(scanned)  # (12 < FIRST): every one read, as the engine reads it
    for view in read:
        assert view == scanned[view.id]


def test_only_the_first_are_read_the_others_are_stand_ins(history, monkeypatch) -> None:
    monkeypatch.setattr(early_read, "FIRST", 5)
    reader = EarlyRead.start(history, stall_after=1800)
    early = reader.result()
    assert early is not None and len(early.views) == 12
    read = [v for v in early.views if v.source != "loading"]
    assert 5 <= len(read) < 12  # (derived in small steps: a step may read one more)


def test_no_project_there(tmp_path: Path) -> None:
    early = EarlyRead.start(tmp_path, stall_after=1800).result()
    assert early == Early(None) and early.project_root is None


def test_a_child_that_fails_is_no_answer(history, monkeypatch) -> None:
    def boom(*_a):
        raise RuntimeError("a bug")

    monkeypatch.setattr(early_read, "_read", boom)
    reader = EarlyRead.start(history, stall_after=1800)
    assert reader.result() is None
    with pytest.raises(ChildProcessError):
        os.waitpid(reader.pid, os.WNOHANG)  # reaped


def test_a_slow_child_is_ended_and_no_answer(history, monkeypatch) -> None:
    monkeypatch.setattr(early_read, "_read", lambda *_a: time.sleep(30))
    reader = EarlyRead.start(history, stall_after=1800)
    t0 = time.monotonic()
    assert reader.result(wait_s=0.2) is None
    assert time.monotonic() - t0 < 5
    with pytest.raises(ChildProcessError):
        os.waitpid(reader.pid, os.WNOHANG)  # killed and reaped


def test_garbage_through_the_pipe_is_no_answer(history, monkeypatch) -> None:
    def junk(fd: int, _early: Early) -> None:
        os.write(fd, b"\xc1junk")
        os.close(fd)

    monkeypatch.setattr(early_read, "_send", junk)
    assert EarlyRead.start(history, stall_after=1800).result() is None
