"""`core.discover`: which directories `--scan DIR` takes for projects (depth-limited, never
into symlinks, hidden directories, node_modules or virtualenvs, bounded), and the short names
they are shown by (unique, and never changed for a project shown already)."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from ocr_tui.cli import main
from ocr_tui.core.discover import find_projects, short_names
from ocr_tui.core.registry import markers

from .builders import ProjectTree, ago, iso

OCR = [".ocr"]


def mark(d: Path, marker: str = ".ocr") -> Path:
    (d / marker).mkdir(parents=True, exist_ok=True)
    return d


def found(top: Path, marks=OCR, **kw) -> list[str]:
    """The roots found, relative to `top` ('.' for itself)."""
    return [os.path.relpath(r, top) for r in find_projects(top, marks, **kw).roots]


# --- depth -----------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [0, 1, 2, 3])
def test_finds_projects_down_to_depth_and_not_one_below(tmp_path, depth):
    chain = ["a", "b", "c", "d", "e"]
    mark(tmp_path)
    for i in range(1, len(chain) + 1):
        mark(tmp_path.joinpath(*chain[:i]))
    expected = ["."] + [os.path.join(*chain[:i]) for i in range(1, depth + 1)]
    assert found(tmp_path, depth=depth) == sorted(expected)


def test_every_format_marker_is_found(tmp_path):
    """The registry's markers, as `--scan` passes them: each format's project is found."""
    for name, marker in [("o", ".ocr"), ("i", ".idumb"), ("c", ".claude/.docs")]:
        mark(tmp_path / name, marker)
    assert found(tmp_path, markers(), depth=1) == ["c", "i", "o"]


def test_roots_are_in_path_order_across_levels(tmp_path):
    for rel in ["z", "a/deep", "m", "a/b/c"]:
        mark(tmp_path / rel)
    roots = find_projects(tmp_path, OCR, depth=3).roots
    assert roots == sorted(roots)
    assert [os.path.relpath(r, tmp_path) for r in roots] == ["a/b/c", "a/deep", "m", "z"]


# --- what is skipped -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "skipped",
    [
        "node_modules",
        ".git",
        ".venv",
        ".cache",
        "__pycache__",
        "site-packages",
        "venv",
        "env",
        "bower_components",
        "pkg.egg-info",
    ],
)
def test_never_enters_skipped_directories(tmp_path, skipped):
    mark(tmp_path / "real")
    mark(tmp_path / skipped / "inner")
    mark(tmp_path / skipped / "inner" / "deeper")
    assert found(tmp_path, depth=4) == ["real"]


def test_a_virtualenv_of_any_name_is_not_entered(tmp_path):
    """Any directory holding `pyvenv.cfg` is a virtualenv: nothing under it is looked at."""
    venv = tmp_path / "tools-py311"
    (venv / "lib").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    mark(venv / "lib" / "vendored")
    mark(tmp_path / "tools-py312" / "lib" / "vendored")  # same shape, no pyvenv.cfg
    assert found(tmp_path, depth=4) == ["tools-py312/lib/vendored"]


def test_symlinked_directories_are_not_followed_and_cycles_end(tmp_path):
    mark(tmp_path / "real")
    os.symlink(tmp_path / "real", tmp_path / "alias")  # a second way to the same project
    os.symlink(tmp_path, tmp_path / "real" / "loop")  # a cycle
    os.symlink(tmp_path, tmp_path / "up")
    out = find_projects(tmp_path, OCR, depth=12, max_dirs=1_000)
    assert [os.path.relpath(r, tmp_path) for r in out.roots] == ["real"]
    assert not out.truncated  # the cycle was never walked into


def test_a_symlink_to_a_directory_elsewhere_is_not_entered(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    mark(elsewhere / "proj")
    top = tmp_path / "top"
    top.mkdir()
    os.symlink(elsewhere, top / "link")
    assert found(top, depth=3) == []


# --- nested projects, markers with a path ----------------------------------------------------


def test_a_marker_that_links_to_a_directory_counts(tmp_path):
    """`p/.ocr` a symlink to a directory: a project, as `ocr-tui status p` sees it (the link
    is looked through for the marker only, never walked into)."""
    (tmp_path / "store" / "sessions").mkdir(parents=True)
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / ".ocr").symlink_to(tmp_path / "store")
    (tmp_path / "q").mkdir()
    (tmp_path / "q" / ".ocr").symlink_to(tmp_path / "nowhere")  # dangling: not one
    assert found(tmp_path, depth=2) == ["p"]


def test_projects_inside_projects_are_found(tmp_path):
    """A monorepo with a store at the top and one per package: every one."""
    mono = mark(tmp_path / "mono")
    mark(mono / "packages" / "api")
    mark(mono / "packages" / "web")
    assert found(tmp_path, depth=3) == [
        "mono",
        "mono/packages/api",
        "mono/packages/web",
    ]


def test_a_marker_with_a_path_needs_its_inner_directory(tmp_path):
    marks = [".claude/.docs"]
    (tmp_path / "half" / ".claude").mkdir(parents=True)  # .claude without .docs
    (tmp_path / "file" / ".claude").mkdir(parents=True)
    (tmp_path / "file" / ".claude" / ".docs").write_text("a file, not a directory")
    mark(tmp_path / "whole", ".claude/.docs")
    assert found(tmp_path, marks, depth=1) == ["whole"]


def test_markers_sharing_a_first_part_each_count(tmp_path):
    marks = [".claude/.docs", ".claude/other"]
    mark(tmp_path / "a", ".claude/other")
    mark(tmp_path / "b", ".claude/.docs")
    (tmp_path / "c" / ".claude" / "neither").mkdir(parents=True)
    assert found(tmp_path, marks, depth=1) == ["a", "b"]


def test_a_marker_that_is_a_file_is_not_a_project(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / ".ocr").write_text("not a directory")
    assert found(tmp_path, depth=2) == []


# --- bounds, failures ------------------------------------------------------------------------


def test_stops_at_max_dirs_and_says_so(tmp_path):
    for i in range(30):
        mark(tmp_path / f"p{i:02d}")
    whole = find_projects(tmp_path, OCR, depth=2, max_dirs=10_000)
    assert len(whole.roots) == 30 and not whole.truncated
    cut = find_projects(tmp_path, OCR, depth=2, max_dirs=10)
    assert cut.truncated
    assert len(cut.roots) < 30
    assert set(cut.roots) <= set(whole.roots)
    # depth 1 looks into 31 directories (top and its 30 children): 31 is enough, 30 is not
    exact = find_projects(tmp_path, OCR, depth=1, max_dirs=31)
    assert not exact.truncated and len(exact.roots) == 30
    short = find_projects(tmp_path, OCR, depth=1, max_dirs=30)
    assert short.truncated and len(short.roots) == 29


def test_a_missing_top_finds_nothing(tmp_path):
    out = find_projects(tmp_path / "nope", OCR)
    assert out.roots == [] and not out.truncated


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any directory")
def test_an_unreadable_directory_is_skipped(tmp_path):
    mark(tmp_path / "ok")
    locked = tmp_path / "locked"
    mark(locked / "inside")
    locked.chmod(0)
    try:
        assert found(tmp_path, depth=3) == ["ok"]
    finally:
        locked.chmod(0o755)


def test_a_directory_that_fails_to_list_is_skipped(tmp_path, monkeypatch):
    """As an unreadable one (or one gone meanwhile), whoever runs the tests."""
    mark(tmp_path / "ok")
    mark(tmp_path / "locked" / "inside")
    mark(tmp_path / "locked")
    real = os.scandir

    def scandir(path):
        if os.path.basename(path) == "locked":
            raise PermissionError(13, "Permission denied", path)
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    assert found(tmp_path, depth=3) == ["ok"]


# --- a hostile directory name ----------------------------------------------------------------

EVIL = "\x1b[31mevil"


def test_a_name_with_an_escape_sequence_is_found_and_never_printed_raw(tmp_path, capsys):
    evil = ProjectTree(tmp_path / EVIL)
    session = evil.session("2026-03-10-main")
    session.state(current_phase="reviews", status="active", started_at=iso(ago(hours=1)))
    plain = ProjectTree(tmp_path / "plain")
    plain.session("2026-03-10-main").state(current_phase="context", status="active")
    assert found(tmp_path, markers(), depth=1) == [EVIL, "plain"]

    for extra in ([], ["--oneline"], ["--json"], ["--session", f"{EVIL}/2026-03-10-main"]):
        code = main(["status", "--scan", str(tmp_path), *extra])
        out, err = capsys.readouterr()
        assert code == 0, err
        assert "\x1b" not in out and "\x1b" not in err
        assert "evil" in out  # shown, made harmless
    code = main(["status", "--scan", str(tmp_path), "--session", "2026-03-10-main"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert "\x1b" not in err and "evil" in err and err.count("\n") == 1


# --- short names -----------------------------------------------------------------------------


def P(*parts: str) -> Path:
    return Path("/", *parts)


def test_short_names_are_basenames_when_they_differ():
    roots = [P("w", "api"), P("w", "web"), P("x", "docs")]
    assert short_names(roots) == {roots[0]: "api", roots[1]: "web", roots[2]: "docs"}


def test_colliding_basenames_get_their_parents():
    a, b, api = P("w", "team-a", "web"), P("w", "team-b", "web"), P("w", "api")
    assert short_names([a, b, api]) == {a: "team-a/web", b: "team-b/web", api: "api"}


def test_as_many_parents_as_it_takes():
    a, b = P("one", "x", "web"), P("two", "x", "web")
    assert short_names([a, b]) == {a: "one/x/web", b: "two/x/web"}


def test_a_project_shown_keeps_its_name_when_a_colliding_one_arrives():
    first = P("w", "team-a", "web")
    names = short_names([first])
    assert names == {first: "web"}
    later = P("w", "team-b", "web")
    names = short_names([later], names)
    assert names[first] == "web"
    assert names[later] == "team-b/web"
    # and a third, with the same parent name as neither
    third = P("v", "team-b", "web")
    names = short_names([third], names)
    assert names[first] == "web" and names[later] == "team-b/web"
    assert names[third] == "v/team-b/web"


def test_a_root_given_again_keeps_its_name():
    a = P("w", "api")
    names = short_names([a])
    assert short_names([a, P("x", "api")], names)[a] == "api"


def test_the_filesystem_root_has_a_name():
    names = short_names([Path("/"), P("x")])
    assert len(set(names.values())) == 2 and all(names.values())


def _suffix_of(name: str, root: Path) -> bool:
    return root.as_posix().endswith("/" + name) or root.as_posix() == name


@pytest.mark.parametrize("seed", range(8))
def test_short_names_are_always_unique_and_suffixes_of_their_paths(seed):
    rng = random.Random(seed)
    alphabet = ["a", "b", "web", "api", "x"]
    roots = {P(*(rng.choice(alphabet) for _ in range(rng.randint(1, 5)))) for _ in range(40)}
    ordered = sorted(roots)
    rng.shuffle(ordered)
    # all at once
    names = short_names(ordered)
    assert set(names) == roots
    assert len(set(names.values())) == len(roots)
    for root, name in names.items():
        assert _suffix_of(name, root), (root, name)
        # the shortest suffix that is unique: one part fewer is another root's suffix too
        n = len(Path(name).parts)
        if n > 1:
            shorter = "/".join(root.parts[-(n - 1) :])
            assert (
                any(o != root and "/".join(o.parts[-(n - 1) :]) == shorter for o in roots)
                or shorter in names.values()
            ), (root, name)
    # a few at a time, as scans find them: names given stay, all stay unique
    names = {}
    for i in range(0, len(ordered), 7):
        before = dict(names)
        names = short_names(ordered[i : i + 7], names)
        assert all(names[r] == n for r, n in before.items())
        assert len(set(names.values())) == len(names)
        assert all(_suffix_of(n, r) for r, n in names.items())
