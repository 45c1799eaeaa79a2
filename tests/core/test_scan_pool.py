"""The first scan in worker processes: the same views as in-thread, hostile files included;
a worker's crash falls back to the thread; workers die with the parent and write nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from ocr_tui.core import pool
from ocr_tui.core.engine import Engine

from .builders import FIXED, ProjectTree, ago, final_md, iso, reviewer_md, tree_digest


def hostile_project(tree: ProjectTree, n: int = 12) -> None:
    for i in range(n):
        s = tree.session(f"2026-03-{i + 1:02d}-s{i}")
        s.state(
            session_id=s.id, status="closed", current_phase="complete", phase_number=8,
            current_round=1, started_at=iso(ago(hours=30 - i)), updated_at=iso(ago(hours=29 - i)),
        )  # fmt: skip
        s.round(1, reviewers={"principal-1": reviewer_md("High", "Low")}, final=final_md())
    bad = tree.session("2026-03-20-bad-json")
    bad.write("state.json", '{"status": "active", "current_phase": ')
    bad.round(1, reviewers={"quality-1": reviewer_md("Medium")})
    binary = tree.session("2026-03-21-binary")
    binary.write("rounds/round-1/reviews/principal-1.md", os.urandom(4096) + b"\x00\xff\xfe")
    binary.write("rounds/round-1/final.md", b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    huge = tree.session("2026-03-22-huge")
    huge.write(
        "rounds/round-1/reviews/principal-1.md",
        reviewer_md("High") + ("x" * 1023 + "\n") * (5 * 1024),  # over 4 MiB
    )
    huge.write("state.json", json.dumps({"status": "closed", "pad": "y" * (2 * 1024 * 1024)}))
    live = tree.session("2026-03-23-live")
    live.state(status="active", current_phase="reviews", updated_at=iso(ago(minutes=2)))
    live.round(1, reviewers={"principal-1": reviewer_md("High")}, mtime=ago(minutes=2))
    (tree.sessions_dir / "2026-03-24-ctl\x1b[31m").mkdir()
    tree.db.session("2026-03-01-s0", status="closed", current_phase="complete").save()
    code = tree.root / ".claude" / ".docs" / "task-1"  # another format: derived in-thread
    code.mkdir(parents=True)
    (code / "state.json").write_text(json.dumps({"task": "x", "phase": "plan"}))


def scan(tree: ProjectTree, monkeypatch, mode: str) -> tuple[list, Engine]:
    with monkeypatch.context() as m:
        m.setenv("OCR_TUI_POOL", mode)
        e = Engine(tree.project, clock=lambda: FIXED)
        return e.scan(), e


def test_the_pool_gives_the_views_the_thread_gives(tmp_path, monkeypatch):
    tree = ProjectTree(tmp_path / "proj")
    hostile_project(tree)
    before = tree_digest(tree.root)
    threaded, et = scan(tree, monkeypatch, "off")
    pooled, ep = scan(tree, monkeypatch, "on")
    assert et._scan.pooled == 0 and ep._scan.pooled == len(threaded) - 1  # all OCR ones
    assert pooled == threaded
    assert {v.framework for v in pooled} == {"ocr", "code"}
    by_id = {v.id: v for v in pooled}
    assert by_id["2026-03-20-bad-json"].problems
    assert any("larger than" in p for p in by_id["2026-03-22-huge"].problems)
    assert tree_digest(tree.root) == before  # the workers wrote nothing into the tree


def test_a_reader_raising_in_a_worker_is_the_sessions_problem(tmp_path, monkeypatch):
    """A reader's bug shows on the session exactly as in-process: the worker catches it."""
    tree = ProjectTree(tmp_path / "proj")
    s = tree.session("2026-03-01-a")
    s.round(1, reviewers={"principal-1": reviewer_md("High")})
    # A session directory the listing sees but that is a file by the time it is read.
    victim = tree.sessions_dir / "2026-03-02-b"
    victim.mkdir()
    threaded, _ = scan(tree, monkeypatch, "off")
    pooled, _ = scan(tree, monkeypatch, "on")
    assert pooled == threaded


def test_a_worker_crash_falls_back_to_the_thread(tmp_path, monkeypatch):
    tree = ProjectTree(tmp_path / "proj")
    hostile_project(tree)
    threaded, _ = scan(tree, monkeypatch, "off")
    monkeypatch.setenv("OCR_TUI_POOL", "on")
    e = Engine(tree.project, clock=lambda: FIXED)
    e.begin()
    assert e._scan.pooled > 0
    procs = dict(e._scan._pool._ex._processes or {})  # type: ignore[union-attr]
    assert procs
    for p in procs.values():
        os.kill(p.pid, signal.SIGKILL)
    while e.pending:
        e.step(budget_s=None)
    assert e.sessions() == threaded


def test_a_batch_that_fails_is_derived_in_thread(tmp_path, monkeypatch):
    tree = ProjectTree(tmp_path / "proj")
    hostile_project(tree)
    threaded, _ = scan(tree, monkeypatch, "off")

    def broken(self, src, items, now):
        from concurrent.futures import Future

        f: Future = Future()
        f.set_exception(RuntimeError("a worker died"))
        return f

    monkeypatch.setattr(pool.Pool, "submit", broken)
    pooled, e = scan(tree, monkeypatch, "on")
    assert e._scan.pooled > 0 and pooled == threaded


def test_small_projects_start_no_pool(tmp_path, monkeypatch):
    monkeypatch.delenv("OCR_TUI_POOL", raising=False)
    tree = ProjectTree(tmp_path / "proj")
    hostile_project(tree)
    e = Engine(tree.project, clock=lambda: FIXED)
    e.scan()
    assert e._scan.pooled == 0
    assert not pool.wanted(pool.POOL_MIN - 1)
    assert pool.wanted(pool.POOL_MIN) == (pool.workers() > 1)


def test_progressive_scan_merges_the_workers_views(tmp_path, monkeypatch):
    tree = ProjectTree(tmp_path / "proj")
    hostile_project(tree)
    threaded, _ = scan(tree, monkeypatch, "off")
    monkeypatch.setenv("OCR_TUI_POOL", "on")
    e = Engine(tree.project, clock=lambda: FIXED)
    stand_ins = e.begin()
    assert {v.source for v in stand_ins} == {"loading"}
    got = {}
    deadline = time.monotonic() + 60
    while e.pending and time.monotonic() < deadline:
        for v in e.step(budget_s=0.05):
            got[v.id] = v
    assert not e.pending
    assert e.sessions() == threaded
    assert set(got) == {v.id for v in threaded}


def test_a_live_change_during_the_scan_is_not_overwritten(tmp_path, monkeypatch):
    """A session re-derived here (a file event) while its batch is in a worker keeps the
    newer view."""
    tree = ProjectTree(tmp_path / "proj")
    hostile_project(tree)
    monkeypatch.setenv("OCR_TUI_POOL", "on")
    e = Engine(tree.project, clock=lambda: FIXED)
    e.begin()
    sid = "2026-03-01-s0"
    tree.session(sid).write("rounds/round-2/reviews/principal-1.md", reviewer_md("High"))
    e.apply([tree.sessions_dir / sid / "rounds" / "round-2" / "reviews" / "principal-1.md"])
    while e.pending:
        e.step(budget_s=None)
    assert e.views[sid].current_round == 2


WORKERS_DIE = textwrap.dedent(
    """
    import os, sys, time
    from datetime import UTC, datetime
    from pathlib import Path
    from ocr_tui.core import pool
    from ocr_tui.formats.ocr.source import OcrSource

    src = OcrSource(Path(sys.argv[1]))
    p = pool.Pool()
    futs = [p.submit(src, list(src.list_sessions().items()), datetime.now(UTC))]
    futs[0].result(timeout=60)
    print(" ".join(str(x.pid) for x in p._ex._processes.values()), flush=True)
    time.sleep(60)
    """
)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_workers_die_with_the_parent(tmp_path):
    tree = ProjectTree(tmp_path / "proj")
    hostile_project(tree, n=3)
    proc = subprocess.Popen(
        [sys.executable, "-c", WORKERS_DIE, str(tree.root)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "OCR_TUI_CACHE_DIR": "off"},
    )
    try:
        pids = [int(x) for x in proc.stdout.readline().split()]  # type: ignore[union-attr]
        assert pids and all(_alive(p) for p in pids)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids)


def test_re_reading_what_the_workers_sent_derives_nothing_here(tmp_path, monkeypatch):
    """The app re-reads what came before its watch was armed: from the views the workers
    sent (unchanged sessions), not by deriving them in the UI process."""
    from ocr_tui.formats.ocr.source import OcrSource

    monkeypatch.setenv("OCR_TUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("OCR_TUI_POOL", "on")
    tree = ProjectTree(tmp_path / "proj")
    for i in range(8):
        s = tree.session(f"2026-03-{i + 1:02d}-s{i}")
        s.state(status="closed", current_phase="complete", updated_at=iso(ago(hours=i + 1)))
        s.round(1, reviewers={"principal-1": reviewer_md("High")}, final=final_md())
    here: list[str] = []
    real = OcrSource.derive
    monkeypatch.setattr(
        OcrSource, "derive", lambda self, k, p, now: here.append(k) or real(self, k, p, now)
    )
    e = Engine(tree.project, clock=lambda: FIXED)
    e.begin()
    early: list[str] = []
    deadline = time.monotonic() + 60
    while not early and time.monotonic() < deadline:
        early = [v.id for v in e.step(budget_s=0.05)]
    e.relist(early)
    while e.pending:
        e.step(budget_s=None)
    e.settle()
    assert early and here == []


def test_scans_at_once_share_one_set_of_workers() -> None:
    """Several projects' scans (a workspace) use one executor, ended by the last to close;
    one whose worker died is replaced (and shut down) for the next scan."""
    a, b = pool.Pool(), pool.Pool()
    try:
        assert a._ex is b._ex
        a.close()
        a.close()  # twice: counted once
        assert pool.Pool._shared is b._ex and not getattr(b._ex, "_shutdown_thread", False)
        c = pool.Pool()
        assert c._ex is b._ex
        c.close()
    finally:
        b.close()
    assert pool.Pool._shared is None and pool.Pool._users == 0
    d = pool.Pool()
    try:
        d._ex._broken = "a worker died"  # as ProcessPoolExecutor marks itself
        e = pool.Pool()
        assert e._ex is not d._ex and pool.Pool._shared is e._ex
        e.close()
    finally:
        d.close()
    assert pool.Pool._shared is None and pool.Pool._users == 0
