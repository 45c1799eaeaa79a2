"""`ocr-tui status` is byte-for-byte read-only: nothing under `.ocr` is created, changed,
removed or touched, with either store, even with a broken database or stray journal files."""

from __future__ import annotations

import pytest

from ocr_tui.cli import main

from .builders import ago, final_md, iso, reviewer_md, sqlite_ts, topology_md, tree_digest


def _sessions(tree) -> None:
    a = tree.session("2026-03-10-db-review")
    a.write("discovered-standards.md", "x")
    a.round(1, reviewers={"principal-1": reviewer_md("High")}, final=final_md("APPROVE"))
    a.round(2, reviewers={"principal-1": reviewer_md()})
    b = tree.session("2026-03-10-db-map")
    b.run(1, topology=topology_md("a.py"), map_md="# map")
    c = tree.session("2026-01-27-legacy")
    c.state(status="active", current_phase="requirements", started_at=iso(ago(days=40)))
    c.write("reviews/principal-1.md", reviewer_md("Low"))  # pre-1.2 flat layout
    d = tree.session("2026-03-09-files-only")
    d.write("context.md", "x")
    e = tree.session("2026-03-08-bad-json")
    e.write("state.json", "{nope")
    e.round(1, meta="{also bad", final="## Verdict\n\nAPPROVE\n")
    tree.session("empty")


def _db(tree) -> None:
    db = tree.db
    db.session("2026-03-10-db-review", current_phase="reviews", current_round=2)
    db.session("2026-03-10-db-map", workflow_type="map", current_phase="complete", status="closed")
    db.event("2026-03-10-db-review", "round_started", sqlite_ts(ago(minutes=5)), round=2)
    db.save()


def _run_all_formats(capsys, root) -> None:
    for fmt in (["--json"], [], ["--oneline"]):
        for path in (root, root / ".ocr", root / ".ocr" / "sessions"):
            assert main(["status", str(path), *fmt]) == 0
            capsys.readouterr()


def assert_read_only(tree, capsys) -> None:
    before = tree_digest(tree.ocr)
    _run_all_formats(capsys, tree.root)
    after = tree_digest(tree.ocr)
    assert sorted(after) == sorted(before), "paths created or removed under .ocr"
    assert after == before, "a file or directory under .ocr changed"
    assert not [p for p in after if p.endswith(("-journal", "-wal", "-shm"))]


def test_read_only_with_the_db_store(tree, capsys):
    _sessions(tree)
    _db(tree)
    assert_read_only(tree, capsys)


def test_read_only_with_state_json_and_files_only(tree, capsys):
    _sessions(tree)
    assert not tree.db_path.exists()
    assert_read_only(tree, capsys)
    assert not tree.data_dir.exists()


@pytest.mark.parametrize(
    "content", [b"", b"not a database" * 50, b"SQLite format 3\x00" + b"\x00" * 90]
)
def test_read_only_with_a_broken_db(tree, capsys, content):
    _sessions(tree)
    tree.data_dir.mkdir(parents=True)
    tree.db_path.write_bytes(content)
    assert_read_only(tree, capsys)


def test_stray_journal_files_are_neither_used_nor_touched(tree, capsys):
    """A hot `-journal` would make SQLite roll it back into the file (a write) on open."""
    _sessions(tree)
    _db(tree)
    (tree.data_dir / "ocr.db-journal").write_bytes(
        b"\xd9\xd5\x05\xf9\x20\xa1\x63\xd7" + b"\x00" * 500
    )
    (tree.data_dir / "ocr.db-wal").write_bytes(b"\x37\x7f\x06\x82" + b"\x00" * 500)
    before = tree_digest(tree.ocr)
    _run_all_formats(capsys, tree.root)
    assert tree_digest(tree.ocr) == before


def test_engine_scan_and_apply_are_read_only(tree):
    _sessions(tree)
    _db(tree)
    before = tree_digest(tree.ocr)
    engine = tree.engine()
    engine.scan()
    engine.apply([tree.db_path, tree.sessions_dir / "2026-03-10-db-review" / "rounds"])
    engine.apply([tree.sessions_dir])
    assert tree_digest(tree.ocr) == before
