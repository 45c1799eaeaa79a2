"""The persistent result cache: a second scan serves the views of unchanged sessions without
deriving them, exactly as a fresh parse would show them, and any change re-derives exactly
the session it touched."""

from __future__ import annotations

import os
from datetime import timedelta
from pathlib import Path

import msgspec
import pytest

from ocr_tui.core import result_cache
from ocr_tui.core.engine import Engine
from ocr_tui.formats.ocr import file_cache
from ocr_tui.formats.ocr.source import OcrSource

from .builders import FIXED, ProjectTree, ago, final_md, iso, reviewer_md


@pytest.fixture
def cache(tmp_path, monkeypatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", str(d))
    return d


@pytest.fixture
def derived(monkeypatch) -> list[str]:
    """The keys of the OCR sessions derived (not served from the cache), in order."""
    calls: list[str] = []
    real = OcrSource.derive

    def derive(self, key, path, now):
        calls.append(key)
        return real(self, key, path, now)

    monkeypatch.setattr(OcrSource, "derive", derive)
    return calls


def closed(tree: ProjectTree, sid: str, *, reviewers: int = 2) -> None:
    s = tree.session(sid)
    s.state(
        session_id=sid, status="closed", current_phase="complete", phase_number=8,
        current_round=1, started_at=iso(ago(hours=3)), updated_at=iso(ago(hours=2)),
    )  # fmt: skip
    s.round(
        1,
        reviewers={f"principal-{i}": reviewer_md("High", "Low") for i in range(1, reviewers + 1)},
        final=final_md("APPROVE"),
        discourse="# Discourse\n",
    )
    s.write("context.md", "# Context\n")


def running(tree: ProjectTree, sid: str) -> None:
    s = tree.session(sid)
    s.state(
        session_id=sid, status="active", current_phase="reviews", phase_number=4,
        current_round=1, started_at=iso(ago(minutes=20)), updated_at=iso(ago(minutes=5)),
    )  # fmt: skip
    s.round(1, reviewers={"principal-1": reviewer_md("High")}, mtime=ago(minutes=5))


def mixed(tree: ProjectTree) -> None:
    closed(tree, "2026-03-01-a")
    closed(tree, "2026-03-02-b", reviewers=3)
    running(tree, "2026-03-09-live")
    tree.session("2026-03-03-db").round(1, reviewers={"quality-1": reviewer_md("Medium")})
    tree.db.session(
        "2026-03-03-db", status="closed", current_phase="complete", phase_number=8
    ).session("2026-03-04-db2", status="closed", current_phase="complete").save()
    tree.session("2026-03-04-db2").write("notes.md", "x")


def new_process() -> None:
    file_cache.clear()


def scan(tree: ProjectTree, **kw) -> dict[str, object]:
    new_process()
    return {v.id: v for v in tree.engine(**kw).scan()}


def fresh(tree: ProjectTree, monkeypatch, **kw) -> dict[str, object]:
    """The views as a start without any cache shows them."""
    with monkeypatch.context() as m:
        m.setenv("OCR_TUI_CACHE_DIR", "off")
        return scan(tree, **kw)


def test_a_second_scan_serves_unchanged_sessions_from_the_cache(
    tmp_path, cache, derived, monkeypatch
):
    tree = ProjectTree(tmp_path / "proj")
    mixed(tree)
    first = scan(tree)
    assert sorted(derived) == sorted(first)
    assert any(f.name.startswith(f"views-v{result_cache.SCHEMA}-") for f in cache.iterdir())
    derived.clear()
    second = scan(tree)
    assert derived == ["2026-03-09-live"]  # running: its view changes with time alone
    assert second == first
    assert second == fresh(tree, monkeypatch)


def test_time_dependent_parts_are_not_frozen(tmp_path, cache, derived, monkeypatch):
    tree = ProjectTree(tmp_path / "proj")
    mixed(tree)
    scan(tree)
    derived.clear()
    later = FIXED + timedelta(hours=5)
    views = scan(tree, now=later)
    assert derived == ["2026-03-09-live"]
    assert views == fresh(tree, monkeypatch, now=later)
    assert views["2026-03-09-live"].stalled  # 5 h without activity
    # The clock went back: nothing derived "later" is trusted.
    derived.clear()
    scan(tree, now=FIXED - timedelta(days=30))
    assert sorted(derived) == sorted(views)


def test_a_future_timestamp_is_never_cached(tmp_path, cache, derived):
    tree = ProjectTree(tmp_path / "proj")
    s = tree.session("2026-03-05-future")
    s.state(status="closed", current_phase="complete", updated_at=iso(FIXED + timedelta(days=2)))
    s.round(1, reviewers={"principal-1": reviewer_md("High")})
    first = scan(tree)
    assert any("in the future" in p for p in first["2026-03-05-future"].problems)
    derived.clear()
    scan(tree, now=FIXED + timedelta(days=3))
    assert derived == ["2026-03-05-future"]


def _same_size_rewrite(tree: ProjectTree) -> str:
    p = tree.sessions_dir / "2026-03-01-a/rounds/round-1/reviews/principal-1.md"
    st = p.stat()
    text = p.read_text().replace("High", "Info")
    assert len(text) == st.st_size
    p.write_text(text)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))  # the same mtime: ctime still tells
    return "2026-03-01-a"


def _new_reviewer(tree: ProjectTree) -> str:
    tree.session("2026-03-02-b").write("rounds/round-1/reviews/security-1.md", reviewer_md("High"))
    return "2026-03-02-b"


def _new_dir(tree: ProjectTree) -> str:
    tree.session("2026-03-02-b").mkdir("rounds/round-2")
    return "2026-03-02-b"


def _db_replaced(tree: ProjectTree) -> str:
    tree.db.sessions[0]["current_phase"] = "synthesis"
    tree.db.sessions[0]["status"] = "active"
    tree.db.save()
    return "2026-03-03-db"


@pytest.mark.parametrize(
    "change", [_same_size_rewrite, _new_reviewer, _new_dir, _db_replaced], ids=lambda f: f.__name__
)
def test_a_change_re_derives_exactly_that_session(tmp_path, cache, derived, monkeypatch, change):
    tree = ProjectTree(tmp_path / "proj")
    mixed(tree)
    scan(tree)
    sid = change(tree)
    derived.clear()
    views = scan(tree)
    assert sorted(derived) == sorted({sid, "2026-03-09-live"})
    assert views == fresh(tree, monkeypatch)
    derived.clear()
    assert scan(tree) == views  # and the new view is cached in turn
    assert derived == ["2026-03-09-live"] or sorted(derived) == sorted({sid, "2026-03-09-live"})


def test_the_db_going_away_re_derives_its_sessions(tmp_path, cache, derived, monkeypatch):
    tree = ProjectTree(tmp_path / "proj")
    mixed(tree)
    scan(tree)
    tree.db_path.unlink()
    derived.clear()
    views = scan(tree)
    assert sorted(derived) == sorted(views)  # every OCR session reads the store's absence
    assert views == fresh(tree, monkeypatch)


def _cache_file(tree: ProjectTree) -> Path:
    f = result_cache.cache_file(tree.root)
    assert f is not None
    return f


def test_a_cache_of_another_build_is_not_read(tmp_path, cache, derived):
    tree = ProjectTree(tmp_path / "proj")
    mixed(tree)
    first = scan(tree)
    f = _cache_file(tree)
    _, stamp, entries = msgspec.msgpack.decode(f.read_bytes())
    # Right fingerprints, a lie for every view, under another build's stamp: not read.
    lies = []
    for fw, key, path, fp, at, view in entries:
        lies.append((fw, key, path, fp, at, {**view, "phase_label": "LIE"}))
    for other in ("0.0.1/schema-1/0000", stamp + "x"):
        f.write_bytes(msgspec.msgpack.encode((result_cache.SCHEMA, other, lies)))
        derived.clear()
        assert scan(tree) == first
        assert sorted(derived) == sorted(first)
    # ... and the file is rewritten by this build, and served again.
    derived.clear()
    assert scan(tree) == first and derived == ["2026-03-09-live"]
    # (The same lies under this build's stamp would be served: the stamp is what guards.)
    f.write_bytes(msgspec.msgpack.encode((result_cache.SCHEMA, stamp, lies)))
    assert {v.phase_label for k, v in scan(tree).items() if k != "2026-03-09-live"} == {"LIE"}


@pytest.mark.parametrize(
    "content",
    [
        os.urandom(300),
        b"",
        msgspec.msgpack.encode([1, 2, 3]),
        msgspec.msgpack.encode((result_cache.SCHEMA + 1, "x", [])),
    ],
    ids=["random", "empty", "wrong-layout", "wrong-schema"],
)
def test_a_corrupt_cache_file_is_ignored(tmp_path, cache, derived, content):
    tree = ProjectTree(tmp_path / "proj")
    mixed(tree)
    first = scan(tree)
    _cache_file(tree).write_bytes(content)
    derived.clear()
    assert scan(tree) == first
    assert sorted(derived) == sorted(first)


@pytest.mark.parametrize(
    "view",
    [
        {"id": 5},
        "not a view",
        {"id": "x", "phase": None},
    ],
    ids=["wrong-field-type", "a-string", "missing-fields"],
)
def test_a_wrong_shape_entry_is_a_miss(tmp_path, cache, derived, view):
    tree = ProjectTree(tmp_path / "proj")
    mixed(tree)
    first = scan(tree)
    f = _cache_file(tree)
    schema, stamp, entries = msgspec.msgpack.decode(f.read_bytes())
    bad = [(*e[:5], msgspec.msgpack.encode(view)) for e in entries]
    f.write_bytes(msgspec.msgpack.encode((schema, stamp, bad)))
    derived.clear()
    assert scan(tree) == first
    assert sorted(derived) == sorted(first)


def test_a_cache_entry_of_a_wrong_shape_tuple_ignores_the_file(tmp_path, cache, derived):
    tree = ProjectTree(tmp_path / "proj")
    mixed(tree)
    first = scan(tree)
    f = _cache_file(tree)
    schema, stamp, entries = msgspec.msgpack.decode(f.read_bytes())
    f.write_bytes(msgspec.msgpack.encode((schema, stamp, [e[:4] for e in entries])))
    derived.clear()
    assert scan(tree) == first
    assert sorted(derived) == sorted(first)


def test_off_disables_it(tmp_path, monkeypatch, derived):
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", "off")
    tree = ProjectTree(tmp_path / "proj")
    mixed(tree)
    first = scan(tree)
    derived.clear()
    assert scan(tree) == first
    assert sorted(derived) == sorted(first)
    assert result_cache.cache_file(tree.root) is None


def test_never_inside_the_project(tmp_path, monkeypatch, derived):
    tree = ProjectTree(tmp_path / "proj")
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", str(tree.ocr / "cache"))
    mixed(tree)
    scan(tree)
    derived.clear()
    scan(tree)
    assert len(derived) == 5
    assert not (tree.ocr / "cache").exists()


def test_a_broken_reader_is_not_cached(tmp_path, cache, monkeypatch):
    tree = ProjectTree(tmp_path / "proj")
    closed(tree, "2026-03-01-a")
    calls = []

    def boom(self, key, path, now):
        calls.append(key)
        raise RuntimeError("a reader's bug")

    monkeypatch.setattr(OcrSource, "derive", boom)
    views = scan(tree)
    assert "a reader's bug" in views["2026-03-01-a"].problems[0]
    scan(tree)
    assert calls == ["2026-03-01-a", "2026-03-01-a"]


def test_a_session_gone_is_dropped_from_the_file(tmp_path, cache, derived):
    tree = ProjectTree(tmp_path / "proj")
    mixed(tree)
    scan(tree)
    import shutil

    shutil.rmtree(tree.sessions_dir / "2026-03-01-a")
    scan(tree)
    _, _, entries = msgspec.msgpack.decode(_cache_file(tree).read_bytes())
    assert "2026-03-01-a" not in {e[1] for e in entries}


def test_the_fingerprint_covers_the_tree_and_stats_only(tmp_path, monkeypatch):
    """Cheap: stat calls and listings, never a read of a file."""
    tree = ProjectTree(tmp_path / "proj")
    closed(tree, "2026-03-01-a")
    src = OcrSource(tree.root)
    src.begin_scan()
    path = tree.sessions_dir / "2026-03-01-a"
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open", lambda *a, **k: opened.append(a) or real_open(*a, **k))
    fp = src.fingerprint("2026-03-01-a", path)
    assert opened == [] and fp is not None and len(fp) == 20
    assert src.fingerprint("2026-03-01-a", path) == fp
    (path / "rounds" / "round-1" / "x").mkdir()
    assert src.fingerprint("2026-03-01-a", path) != fp


def test_an_engine_of_an_unrelated_project_shares_nothing(tmp_path, cache, derived):
    a, b = ProjectTree(tmp_path / "a"), ProjectTree(tmp_path / "b")
    closed(a, "2026-03-01-a")
    closed(b, "2026-03-01-a", reviewers=3)
    va = scan(a)
    vb = scan(b)
    assert va != vb and len(derived) == 2
    assert Engine(b.project, clock=lambda: FIXED).scan() == list(vb.values())


def test_a_name_not_valid_utf8_is_derived_every_time(tmp_path, cache, derived, monkeypatch):
    tree = ProjectTree(tmp_path / "proj")
    closed(tree, "2026-03-01-a")
    bad = os.fsencode(tree.sessions_dir) + b"/2026-03-02-\xff"
    os.mkdir(bad)
    with open(bad + b"/final.md\xfe", "w") as fh:
        fh.write("x")
    first = scan(tree)
    assert len(first) == 2
    derived.clear()
    assert scan(tree) == first
    assert len(derived) == 1 and derived[0] != "2026-03-01-a"
    assert first == fresh(tree, monkeypatch)


def test_a_re_read_during_the_first_scan_is_served_from_what_it_derived(
    tmp_path, cache, derived, monkeypatch
):
    """What the app reads before its watch is armed is read again after (`relist`): the
    sessions unchanged since are not derived twice."""
    tree = ProjectTree(tmp_path / "proj")
    mixed(tree)
    new_process()
    e = tree.engine()
    e.begin()
    early = [v.id for v in e.step(budget_s=None)]
    assert sorted(derived) == sorted(early)
    derived.clear()
    e.relist(early)
    e.settle()
    assert derived == ["2026-03-09-live"]
    assert {v.id: v for v in e.sessions()} == fresh(tree, monkeypatch)
