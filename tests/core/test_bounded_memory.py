"""Bounded memory: what the engine and its sources keep depends on the
sessions and files that exist now, never on how many changes were read. Each cache holds one
entry per file it describes (a new version replaces the old), drops the entries of files and
sessions that are gone, and the heap does not grow with rewrites or with sessions created and
removed."""

from __future__ import annotations

import gc
import json
import os
import pathlib
import shutil
import sqlite3
import tracemalloc
from collections.abc import Callable
from pathlib import Path

from ocr_tui.core.engine import Engine
from ocr_tui.formats.ocr import file_cache, parse_cache
from ocr_tui.formats.ocr.source import OcrSource

from .builders import FIXED, ProjectTree, ago, iso

REVIEW = "## Findings\n### Finding 1: {title}\n- **Severity**: High\n- **File**: src/a.py:3\n"
FINAL = "## Verdict\n\n**REQUEST CHANGES**\n\n## Blockers\n\n### 1. {title}\n"


def _replace(path: Path, text: str) -> None:
    """As agents write: a temp file renamed over the old one (a new inode every time)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _state(k: int) -> str:
    # the content cycles (20 values): what varies with every write is the file's stat key
    return json.dumps(
        {"status": "active", "current_phase": "reviews", "phase_number": 4,
         "workflow_type": "review", "updated_at": iso(ago(minutes=k % 20))}
    )  # fmt: skip


def _session(tree: ProjectTree, sid: str, title: str = "race in the watcher") -> Path:
    s = tree.session(sid)
    s.state(status="active", current_phase="reviews", phase_number=4, workflow_type="review",
            updated_at=iso(ago(minutes=1)))  # fmt: skip
    s.round(1, reviewers={"principal-1": REVIEW.format(title=title)},
            final=FINAL.format(title=title))  # fmt: skip
    s.round(2, reviewers={"principal-1": REVIEW.format(title=title)})
    return s.path


def _engine(tree: ProjectTree) -> Engine:
    engine = tree.engine()
    engine.scan()
    return engine


def _kept(session: Path) -> list[tuple[str, str]]:
    return file_cache.session_entries(str(session))


# --- the parse cache: one entry per file --------------------------------------------------------


def test_rewrites_of_one_file_keep_one_entry(tree):
    file_cache.clear()
    sdir = _session(tree, "2026-03-10-main")
    engine = _engine(tree)
    before = _kept(sdir)
    total = file_cache.size()
    review = sdir / "rounds/round-2/reviews/principal-1.md"
    for k in range(40):
        _replace(sdir / "state.json", _state(k))
        _replace(review, REVIEW.format(title=f"race number {k}"))
        engine.apply([sdir / "state.json", review])
    assert engine.views["2026-03-10-main"].rounds[1].reviewers[0].findings == 1
    assert _kept(sdir) == before  # the same files, each once (state.json, findings, tally)
    assert ("findings", "rounds/round-2/reviews/principal-1.md") in before
    assert ("tally", "rounds/round-2") in before
    assert file_cache.size() == total


def test_entries_of_files_gone_are_dropped(tree):
    file_cache.clear()
    sdir = _session(tree, "2026-03-10-main")
    engine = _engine(tree)
    assert ("final", "rounds/round-1/final.md") in _kept(sdir)
    (sdir / "rounds/round-1/final.md").unlink()
    shutil.rmtree(sdir / "rounds/round-2")
    engine.apply([sdir / "rounds/round-1/final.md", sdir / "rounds/round-2"])
    kept = _kept(sdir)
    assert ("final", "rounds/round-1/final.md") not in kept
    assert not [k for k in kept if k[1].startswith("rounds/round-2")]  # findings, tally
    assert ("findings", "rounds/round-1/reviews/principal-1.md") in kept


def test_a_session_gone_leaves_nothing(tree):
    file_cache.clear()
    keep = _session(tree, "2026-03-10-keep")
    gone = _session(tree, "2026-03-10-gone")
    engine = _engine(tree)
    assert _kept(gone)
    shutil.rmtree(gone)
    engine.apply([gone])
    assert "2026-03-10-gone" not in engine.views
    assert _kept(gone) == [] and _kept(keep)
    # ... and a rescan after the watch was re-armed forgets what it no longer lists
    moved = _session(tree, "2026-03-10-moved")
    engine.apply([moved])
    shutil.rmtree(moved)
    engine.rescan()
    assert _kept(moved) == [] and _kept(keep)
    engine.close()  # the engine is dropped: the project's entries go
    assert file_cache.size() == 0


def test_the_persistent_cache_holds_the_sessions_listed(tree, tmp_path, monkeypatch):
    """A session deleted between two starts is not written back (nor kept in memory)."""
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", str(tmp_path / "cache"))
    file_cache.clear()
    _session(tree, "2026-03-10-keep")
    gone = _session(tree, "2026-03-10-gone")
    tree.engine().scan()
    f = parse_cache.cache_file(tree.root)
    assert str(gone) in parse_cache.load(f)
    shutil.rmtree(gone)
    file_cache.clear()  # a new process
    _session(tree, "2026-03-10-new")  # something to parse: the file is written again
    tree.engine().scan()
    saved = parse_cache.load(f)
    assert str(gone) not in saved and str(tree.sessions_dir / "2026-03-10-keep") in saved
    assert str(gone) not in {s for s, *_ in _sessions_kept()}


def _sessions_kept() -> list[tuple[str, str, str]]:
    return [(s, kind, rel) for kind, s, rel, _, _ in file_cache.entries()]


def test_other_formats_forget_a_session_gone(tmp_path):
    """Each source's per-session state (expiry times, stallable paths, decoded files) is
    dropped by `forget`."""
    from ocr_tui.formats.analysis.source import AnalysisSource
    from ocr_tui.formats.codeflow.source import CodeWorkflowSource
    from ocr_tui.formats.idumb.model import SessionMeta
    from ocr_tui.formats.idumb.source import IdumbSource

    p = tmp_path / "s.json"
    p.write_text("{}")
    a = AnalysisSource(tmp_path)
    a._expiry[str(p)] = FIXED
    a.forget("k", p)
    assert a._expiry == {}
    c = CodeWorkflowSource(tmp_path)
    c._stallable.add(str(p))
    c.forget("k", p)
    assert c._stallable == set()
    i = IdumbSource(tmp_path)
    i._expiry[str(p)] = FIXED
    i._files.read(p, SessionMeta, [])
    assert i._files._cache
    i.forget("k", p)
    assert i._expiry == {} and i._files._cache == {}


# --- the heap: no growth with changes ---------------------------------------------------------


def _growth(step: Callable[[int], None], warm: int, n: int) -> int:
    """Bytes the heap grew by over `n` steps, after `warm` steps, the last quarter of them
    traced (what starts once, such as a table's first resize, is not growth): traced by the
    allocating line, pathlib's interning (whose table Python resizes now and then) left out."""
    keep_out = [tracemalloc.Filter(False, pathlib.__file__), tracemalloc.Filter(False, __file__),
                tracemalloc.Filter(False, tracemalloc.__file__)]  # fmt: skip
    for k in range(warm - warm // 4):
        step(k)
    gc.collect()
    tracemalloc.start(1)
    try:
        for k in range(warm - warm // 4, warm):
            step(k)
        gc.collect()
        before = tracemalloc.take_snapshot().filter_traces(keep_out)
        for k in range(warm, warm + n):
            step(k)
        gc.collect()
        after = tracemalloc.take_snapshot().filter_traces(keep_out)
    finally:
        tracemalloc.stop()
    return sum(s.size_diff for s in after.compare_to(before, "lineno"))


# Before the fix a state.json rewrite kept ~1.1 KB (its decoded state and key, every version);
# 400 rewrites held ~450 KB. The bound leaves room for the heap's own noise.
BOUND = 48 * 1024


def test_state_json_rewrites_do_not_grow_the_heap(tree):
    file_cache.clear()
    sdir = _session(tree, "2026-03-10-main")
    engine = _engine(tree)

    def step(k: int) -> None:
        _replace(sdir / "state.json", _state(k))
        engine.apply([sdir / "state.json"])

    assert _growth(step, 100, 400) < BOUND


def test_ocr_db_rewrites_do_not_grow_the_heap(tree):
    file_cache.clear()
    sdir = _session(tree, "2026-03-10-main")
    tree.db.session("2026-03-10-main", status="active", current_phase="reviews",
                    phase_number=4, workflow_type="review").save()  # fmt: skip
    engine = _engine(tree)
    con = sqlite3.connect(":memory:", isolation_level=None)  # autocommit: serialize sees it
    con.deserialize(tree.db_path.read_bytes())

    def step(k: int) -> None:
        at = f"2026-03-10 11:{k % 20:02d}:00"
        con.execute("UPDATE sessions SET updated_at = ? WHERE id = ?", (at, sdir.name))
        tmp = tree.db_path.with_name(f"ocr.db.{os.getpid()}.tmp")
        tmp.write_bytes(con.serialize())
        os.replace(tmp, tree.db_path)
        engine.apply([tree.db_path])

    assert _growth(step, 100, 400) < BOUND
    assert engine.views[sdir.name].updated_at == "2026-03-10T11:19:00Z"  # (k = 499)


def test_sessions_created_and_removed_do_not_grow_the_heap(tree):
    """Three sessions live at a time: one created, the oldest removed, at every step."""
    file_cache.clear()
    engine = _engine(tree)

    def step(k: int) -> None:
        sdir = _session(tree, f"2026-03-10-s{k}", title=f"race {k % 10}")
        old = tree.sessions_dir / f"2026-03-10-s{k - 3}"
        shutil.rmtree(old, ignore_errors=True)
        engine.apply([sdir, old, tree.sessions_dir])

    assert _growth(step, 80, 120) < BOUND
    assert len(engine.views) == 3
    assert {s for s, _, _ in _sessions_kept()} <= {str(p) for p in tree.sessions_dir.iterdir()}


def test_ocr_source_forget_is_what_the_engine_calls(tree, monkeypatch):
    seen = []
    monkeypatch.setattr(OcrSource, "forget", lambda self, key, path: seen.append(key))
    _session(tree, "2026-03-10-a")
    engine = _engine(tree)
    shutil.rmtree(tree.sessions_dir / "2026-03-10-a")
    engine.apply([tree.sessions_dir / "2026-03-10-a"])
    assert seen == ["2026-03-10-a"]


# --- the watcher: a consumer behind holds each path once ----------------------------------------


def test_batches_waiting_for_a_busy_consumer_merge():
    """1,000 batches of the same two paths, none taken: one batch waits, with both paths."""
    import asyncio

    from ocr_tui.core.watcher import BatchQueue

    async def run() -> list:
        q = BatchQueue()
        for k in range(1000):
            q.put_batch({(2, "/p/.ocr/sessions/s/state.json"), (1, f"/p/.ocr/sessions/s{k % 2}")})
            q.put_batch(set())  # a tick behind a waiting batch adds nothing
        return [q.get_nowait() for _ in range(q.qsize())]

    got = asyncio.run(run())
    assert len(got) == 1 and len(got[0]) == 3


def test_a_tick_waiting_takes_the_paths_and_errors_stay_in_order():
    import asyncio

    from ocr_tui.core.watcher import BatchQueue

    async def run() -> list:
        q = BatchQueue()
        q.put_batch(set())
        q.put_batch({(2, "/a")})
        q.put_nowait(OSError("refused"))
        q.put_batch({(2, "/b")})
        return [q.get_nowait() for _ in range(q.qsize())]

    first, err, last = asyncio.run(run())
    assert first == {(2, "/a")} and isinstance(err, OSError) and last == {(2, "/b")}
