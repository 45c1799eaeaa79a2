"""Finding the project from PATH, and listing its session directories."""

from __future__ import annotations

import json
import os

import pytest

from ocr_tui.cli import main
from ocr_tui.core.project import ProjectNotFound, find_project, session_dirs

from .builders import ProjectTree


@pytest.mark.parametrize(
    "rel",
    [
        "",
        ".ocr",
        ".ocr/",
        ".ocr/sessions",
        ".ocr/sessions/2026-03-10-main",
        ".ocr/data",
        "src",
        "src/pkg/deep",
        "src/pkg/deep/file.py",
        "src/not-created-yet",
    ],
)
def test_find_project_from_any_path_inside(tree, rel):
    tree.session("2026-03-10-main")
    (tree.root / "src/pkg/deep").mkdir(parents=True)
    (tree.root / "src/pkg/deep/file.py").write_text("x")
    p = find_project(tree.root / rel if rel else tree.root)
    assert p.root == tree.root
    assert p.sessions_dir == tree.sessions_dir and p.db_path == tree.db_path


def test_find_project_relative_and_default_path(tree, monkeypatch):
    (tree.root / "src").mkdir()
    monkeypatch.chdir(tree.root / "src")
    assert find_project().root == tree.root
    assert find_project(".").root == tree.root
    assert find_project("..").root == tree.root  # no `..` left in the project path
    assert find_project("../.ocr/sessions/..").root == tree.root
    monkeypatch.chdir(tree.ocr)
    assert find_project(".").root == tree.root


def test_nearest_project_wins(tree):
    inner = ProjectTree(tree.root / "vendor" / "lib")
    (inner.root / "src").mkdir()
    assert find_project(inner.root / "src").root == inner.root
    assert find_project(tree.root / "vendor").root == tree.root


def test_dot_ocr_file_is_not_a_project(tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / ".ocr").write_text("not a directory")
    with pytest.raises(ProjectNotFound):
        find_project(tmp_path / "proj")


def test_no_project_found(tmp_path):
    with pytest.raises(ProjectNotFound) as exc:
        find_project(tmp_path / "nowhere")
    assert str(tmp_path / "nowhere") in str(exc.value)


@pytest.mark.parametrize("fmt", [[], ["--json"], ["--oneline"]])
def test_cli_without_project_exits_2_with_one_line_naming_where_it_looked(tmp_path, capsys, fmt):
    start = tmp_path / "somewhere"
    start.mkdir()
    assert main(["status", str(start), *fmt]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and str(start) in lines[0]


def test_cli_without_project_default_path(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["status"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and str(tmp_path) in err


def test_project_without_sessions_dir_has_zero_sessions(tmp_path, capsys):
    t = ProjectTree(tmp_path / "proj", sessions=False)
    assert not t.sessions_dir.exists()
    assert t.engine().scan() == []
    assert main(["status", str(t.root), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sessions"] == [] and out["project"] == str(t.root)
    assert main(["status", str(t.root)]) == 0
    cap = capsys.readouterr()
    assert cap.err == "" and "No sessions" in cap.out
    assert main(["status", str(t.root), "--oneline"]) == 0
    assert capsys.readouterr().out.strip() != ""
    assert not t.sessions_dir.exists()  # and nothing was created


def test_sessions_path_given_before_it_exists(tmp_path):
    t = ProjectTree(tmp_path / "proj", sessions=False)
    assert find_project(t.sessions_dir).root == t.root


# --- listing --------------------------------------------------------------------------------


def test_every_directory_is_a_session_dot_dirs_and_files_are_not(tree):
    tree.session("2026-03-10-main")
    tree.session("2026-03-09-feat-x").write("context.md", "x")
    tree.session("sqlite-review")  # non-date ids are sessions too
    tree.session("empty")  # an empty directory is a session
    (tree.sessions_dir / ".DS_Store").write_text("x")
    (tree.sessions_dir / ".trash").mkdir()
    (tree.sessions_dir / ".2026-03-08-hidden").mkdir()
    (tree.sessions_dir / "notes.md").write_text("x")
    (tree.sessions_dir / "2026-03-07-file").write_text("a file named like a session")
    names = sorted(p.name for p in session_dirs(tree.project))
    assert names == ["2026-03-09-feat-x", "2026-03-10-main", "empty", "sqlite-review"]
    assert sorted(tree.views()) == names


def test_symlinked_session_directories_are_not_followed(tree, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "context.md").write_text("x")
    os.symlink(outside, tree.sessions_dir / "2026-03-10-link")
    tree.session("2026-03-10-real")
    assert sorted(tree.views()) == ["2026-03-10-real"]


def test_sessions_path_is_a_file(tmp_path):
    t = ProjectTree(tmp_path / "proj", sessions=False)
    t.sessions_dir.write_text("oops")
    assert t.engine().scan() == []


def test_new_and_removed_session_directories_via_apply(tree):
    tree.session("2026-03-10-a")
    engine = tree.engine()
    assert [v.id for v in engine.scan()] == ["2026-03-10-a"]
    b = tree.session("2026-03-10-b")
    changed, removed = engine.apply([b.path])
    assert [v.id for v in changed] == ["2026-03-10-b"] and removed == []
    (tree.sessions_dir / "2026-03-10-a").rmdir()
    changed, removed = engine.apply([tree.sessions_dir / "2026-03-10-a"])
    assert changed == [] and removed == ["2026-03-10-a"]
    assert [v.id for v in engine.sessions()] == ["2026-03-10-b"]
