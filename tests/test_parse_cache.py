"""The persistent parse cache: a second engine serves parse results without re-reading."""

from __future__ import annotations

import os
from pathlib import Path

from ocr_tui.core import result_cache
from ocr_tui.core.engine import Engine
from ocr_tui.core.project import Project
from ocr_tui.formats.ocr import file_cache, parse_cache
from ocr_tui.formats.ocr import fs as ocr_fs

REVIEW = "## Findings\n### Finding 1: a\n- **Severity**: High\n### Finding 2: b\n"
FINAL = "## Verdict\n\n**REQUEST CHANGES**\n\n## Blockers\n\n### 1. x\n"


def make(tmp: Path) -> Project:
    r = tmp / "proj" / ".ocr" / "sessions" / "2026-11-22-main" / "rounds" / "round-1"
    (r / "reviews").mkdir(parents=True)
    (r / "reviews" / "principal-1.md").write_text(REVIEW)
    (r / "final.md").write_text(FINAL)
    return Project(tmp / "proj")


def test_second_engine_uses_the_cache_and_sees_rewrites(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", str(cache))
    monkeypatch.setattr(result_cache, "cache_file", lambda root: None)  # parse cache alone
    project = make(tmp_path)
    first = Engine(project).scan()
    files = list(cache.iterdir())
    assert len(files) == 1 and files[0].name.startswith(f"parse-v{parse_cache.SCHEMA}-")

    file_cache.clear()  # a new process
    calls = []
    real = ocr_fs._read_text
    monkeypatch.setattr(ocr_fs, "_read_text", lambda *a: calls.append(a) or real(*a))
    second = Engine(project).scan()
    assert calls == []  # nothing re-read
    assert second == first
    r = second[0].rounds[0]
    assert r.reviewers[0].findings == 2 and r.reviewers[0].severity.high == 1
    assert r.verdict == "REQUEST CHANGES" and r.counts.blockers == 1

    review = project.sessions_dir / "2026-11-22-main/rounds/round-1/reviews/principal-1.md"
    review.write_text(REVIEW + "### Finding 3: c\n")
    file_cache.clear()
    third = Engine(project).scan()
    assert third[0].rounds[0].reviewers[0].findings == 3


def test_cache_never_inside_the_project(tmp_path, monkeypatch):
    project = make(tmp_path)
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", str(project.root / ".ocr" / "cache"))
    assert parse_cache.cache_file(project.root) is None
    Engine(project).scan()
    assert not (project.root / ".ocr" / "cache").exists()


def test_corrupt_cache_file_is_ignored(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", str(cache))
    project = make(tmp_path)
    f = parse_cache.cache_file(project.root)
    f.parent.mkdir(parents=True)
    f.write_bytes(os.urandom(256))
    file_cache.clear()
    views = Engine(project).scan()
    assert views[0].rounds[0].reviewers[0].findings == 2


def test_unreadable_directory_is_a_problem_not_a_crash(tmp_path, monkeypatch):
    """An unlistable directory (simulated: the suite may run as root) becomes a problem."""
    project = make(tmp_path)
    real = os.scandir

    def scandir(p):
        if str(p).endswith("reviews"):
            raise PermissionError(13, "Permission denied")
        return real(p)

    monkeypatch.setattr(ocr_fs.os, "scandir", scandir)
    views = Engine(project).scan()
    assert views[0].id == "2026-11-22-main"
    assert any("cannot be listed: Permission denied" in p for p in views[0].problems)
