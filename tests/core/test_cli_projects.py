"""The commands with several projects (`ocr-tui status A B`, `--scan DIR`, `--depth N`): the
PROJECT column, the JSON's `projects` and each session's `project`, `--session PROJECT/ID` or
an id one project only has, the errors (one line, exit 2), and `watch --jsonl`'s projects
line. With one project the output is as before (test_status_cli.py, test_workspace.py)."""

from __future__ import annotations

import functools
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import ocr_tui.cli as cli
import ocr_tui.core.workspace as workspace
from ocr_tui.cli import main

from .builders import FIXED, ProjectTree, ago, iso

SID = "2026-03-10-main"
OTHER = "2026-03-09-only-web"


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    """The CLI builds its own engine: give it the tests' fixed `now`."""
    fixed = functools.partial(workspace.make_engine, clock=lambda: FIXED)
    monkeypatch.setattr(workspace, "make_engine", fixed)


def make_project(root: Path, *sids: str, phase: str = "reviews") -> Path:
    tree = ProjectTree(root)
    for sid in sids:
        tree.session(sid).state(
            current_phase=phase, status="active", started_at=iso(ago(minutes=30))
        )
    return root


@pytest.fixture
def two(tmp_path) -> tuple[Path, Path]:
    """`api` with SID, `web` with SID and OTHER."""
    api = make_project(tmp_path / "api", SID)
    web = make_project(tmp_path / "web", SID, OTHER, phase="context")
    return api, web


def run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(["status", *argv])
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code if isinstance(exc.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(code: int, out: str, err: str) -> str:
    assert code == 2, (code, out, err)
    assert out == ""
    assert err.startswith("ocr-tui: ") and err.endswith("\n") and err.count("\n") == 1, err
    return err


# --- the table -------------------------------------------------------------------------------


def test_table_has_a_project_column_and_every_project(capsys, two):
    code, out, err = run(capsys, *map(str, two), "--max-width", "0")
    assert code == 0 and err == ""
    head, *rows = out.splitlines()
    assert head.split()[:2] == ["PROJECT", "SESSION"]
    cells = sorted((r.split()[0], r.split()[1]) for r in rows)
    assert cells == [("api", SID), ("web", OTHER), ("web", SID)]


def test_one_project_named_twice_is_one_project(capsys, two):
    api, _ = two
    code, out, _ = run(capsys, str(api), str(api / ".ocr"), "--max-width", "0")
    assert code == 0
    assert out.splitlines()[0].split()[0] == "SESSION"  # no PROJECT column


def test_oneline_with_several_projects(capsys, two):
    code, out, err = run(capsys, *map(str, two), "--oneline")
    assert code == 0 and err == ""
    assert out.count("\n") == 1
    assert any(f"{p}/" in out for p in ("api", "web"))


def test_scan_lists_the_projects_under_dir(capsys, two, tmp_path):
    make_project(tmp_path / "deep" / "er" / "still" / "too-deep", SID)
    code, out, _ = run(capsys, "--scan", str(tmp_path), "--max-width", "0")
    assert code == 0
    assert sorted({r.split()[0] for r in out.splitlines()[1:]}) == ["api", "web"]
    code, out, _ = run(capsys, "--scan", str(tmp_path), "--depth", "4", "--max-width", "0")
    assert code == 0
    assert sorted({r.split()[0] for r in out.splitlines()[1:]}) == ["api", "too-deep", "web"]


def test_scan_with_no_project_says_so(capsys, tmp_path):
    (tmp_path / "empty" / "node_modules" / "x" / ".ocr").mkdir(parents=True)
    code, out, err = run(capsys, "--scan", str(tmp_path / "empty"), "--depth", "2")
    assert (code, err) == (0, "")
    assert out == f"No projects under {tmp_path / 'empty'} (2 levels down at most)\n"


def test_several_projects_with_no_session_say_so(capsys, tmp_path):
    make_project(tmp_path / "a")
    make_project(tmp_path / "b")
    code, out, _ = run(capsys, "--scan", str(tmp_path))
    assert code == 0
    assert out == f"No sessions yet in the 2 projects under {tmp_path}\n"


# --- --json ----------------------------------------------------------------------------------


def test_json_names_the_projects_and_each_sessions_project(capsys, two, tmp_path):
    api, web = two
    code, out, err = run(capsys, str(api), str(web), "--json")
    assert code == 0 and err == ""
    doc = json.loads(out)
    assert list(doc) == ["version", "project", "generated_at", "sessions", "headers", "projects"]
    assert doc["project"] == str(tmp_path)
    assert doc["projects"] == [
        {"name": "api", "path": str(api)},
        {"name": "web", "path": str(web)},
    ]
    assert sorted((s["id"], s["project"]) for s in doc["sessions"]) == [
        (f"api/{SID}", "api"),
        (f"web/{OTHER}", "web"),
        (f"web/{SID}", "web"),
    ]
    for s in doc["sessions"]:
        assert list(s)[:3] == ["id", "project", "branch"]
        assert s["path"].startswith(str(tmp_path / s["project"]))


def test_json_of_one_project_has_no_project_keys(capsys, two):
    code, out, _ = run(capsys, str(two[0]), "--json")
    doc = json.loads(out)
    assert code == 0 and "projects" not in doc
    assert [s["id"] for s in doc["sessions"]] == [SID]
    assert "project" not in doc["sessions"][0]


# --- --session -------------------------------------------------------------------------------


def session_ids(capsys, paths, *given: str) -> list[str]:
    argv = [*map(str, paths), "--json"]
    for g in given:
        argv += ["--session", g]
    code, out, err = run(capsys, *argv)
    assert code == 0 and err == "", err
    return sorted(s["id"] for s in json.loads(out)["sessions"])


def test_session_by_project_and_id(capsys, two):
    assert session_ids(capsys, two, f"web/{SID}") == [f"web/{SID}"]
    assert session_ids(capsys, two, f"api/{SID}", f"web/{SID}") == [f"api/{SID}", f"web/{SID}"]


def test_session_by_an_id_one_project_only_has(capsys, two):
    assert session_ids(capsys, two, OTHER) == [f"web/{OTHER}"]
    assert session_ids(capsys, two, OTHER, f"api/{SID}") == [f"api/{SID}", f"web/{OTHER}"]
    code, out, err = run(capsys, *map(str, two), "--session", OTHER, "--max-width", "0")
    assert code == 0 and err == ""
    (row,) = out.splitlines()[1:]
    assert row.split()[:2] == ["web", OTHER]


def test_session_id_of_several_projects_is_an_error_naming_them(capsys, two):
    err = one_error_line(*run(capsys, *map(str, two), "--session", SID))
    assert "api, web" in err and f"PROJECT/{SID}" in err


def test_unknown_session_is_an_error(capsys, two):
    for wrong in ("nope", f"nope/{SID}", f"api/{OTHER}"):
        err = one_error_line(*run(capsys, *map(str, two), "--session", wrong))
        assert "no session" in err and wrong in err


# --- errors ----------------------------------------------------------------------------------


def test_a_path_that_is_no_project_among_several(capsys, two, tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    err = one_error_line(*run(capsys, str(two[0]), str(plain)))
    assert "no OCR project found" in err
    err = one_error_line(*run(capsys, str(two[0]), str(tmp_path / "missing")))
    assert "no such directory" in err and "missing" in err


def test_scan_of_a_missing_directory(capsys, tmp_path):
    err = one_error_line(*run(capsys, "--scan", str(tmp_path / "nope")))
    assert err == f"ocr-tui: no such directory: {tmp_path / 'nope'}\n"
    (tmp_path / "file").write_text("x")
    one_error_line(*run(capsys, "--scan", str(tmp_path / "file")))


@pytest.mark.parametrize("bad", ["-1", "13", "x", "1.5", ""])
def test_a_bad_depth_is_a_usage_error(capsys, tmp_path, bad):
    code, out, err = run(capsys, "--scan", str(tmp_path), "--depth", bad)
    assert code == 2 and out == ""
    assert "--depth" in err and "not a depth from 0 to 12" in err


@pytest.mark.parametrize("good", ["0", "12"])
def test_depth_bounds_are_accepted(capsys, tmp_path, good):
    make_project(tmp_path, SID)
    code, out, _ = run(capsys, "--scan", str(tmp_path), "--depth", good, "--json")
    assert code == 0
    assert [p["path"] for p in json.loads(out)["projects"]] == [str(tmp_path)]


# --- the dashboard ---------------------------------------------------------------------------


@pytest.fixture
def built(monkeypatch) -> list[dict]:
    """The dashboards `main` builds (none runs)."""
    apps: list[dict] = []

    class FakeApp:
        return_code = 0

        def run(self) -> None:
            pass

    def make_app(project, **kw):
        apps.append({"project": project, **kw})
        return FakeApp()

    monkeypatch.setattr(cli, "make_app", make_app)
    monkeypatch.setenv(cli.FORCE_TTY, "1")
    return apps


def test_dashboard_of_several_projects_gets_their_scope(two, tmp_path, built):
    api, web = two
    assert main(["dashboard", str(api), str(web)]) == 0
    assert main([str(api), "--scan", str(tmp_path), "--depth", "2"]) == 0
    first, second = built
    assert first["project"] is None
    assert [p.root for p in first["scope"].projects] == [api, web]
    assert first["scope"].scan is None
    assert [p.root for p in second["scope"].projects] == [api]
    assert second["scope"].scan == tmp_path and second["scope"].depth == 2


def test_dashboard_with_a_path_that_is_no_project_among_several(capsys, two, tmp_path, built):
    (tmp_path / "plain").mkdir()
    code = main(["dashboard", str(two[0]), str(tmp_path / "plain")])
    _, err = capsys.readouterr()
    assert code == 2 and "no OCR project found" in err and built == []


# --- watch --jsonl ---------------------------------------------------------------------------

WAIT_S = 20.0
TERM_S = 3.0  # a watch ends within milliseconds of SIGTERM


def watch_lines(
    argv: list[str],
    until: Callable[[list[dict]], bool],
    *,
    prelude: str = "",
    sigterm: bool = False,
) -> tuple[list[dict], bool]:
    """`ocr-tui watch --jsonl ARGV` as a real process: its lines until `until(lines)`, then
    it is killed (`sigterm`: sent SIGTERM); and whether it then ended within TERM_S."""
    env = dict(os.environ, OCR_TUI_CACHE_DIR="off", OCR_TUI_CONFIG="off")
    code = f"{prelude}\nimport sys\nfrom ocr_tui.cli import main\nsys.exit(main(sys.argv[1:]))"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "watch", "--jsonl", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    buf, lines = b"", []
    end = time.monotonic() + WAIT_S
    ended = True
    try:
        while not until(lines):
            left = end - time.monotonic()
            if left <= 0 or proc.poll() is not None:
                err = proc.stderr.read() if proc.poll() is not None else b""
                raise AssertionError(f"watch gave {lines!r}; stderr: {err[-2000:]!r}")
            ready, _, _ = select.select([proc.stdout], [], [], min(left, 0.5))
            if ready:
                buf += os.read(proc.stdout.fileno(), 1 << 20)
                *done, buf = buf.split(b"\n")
                for raw in done:
                    assert raw.isascii() and b"\x1b" not in raw
                    lines.append(json.loads(raw))
        if sigterm:
            proc.terminate()
            try:
                proc.wait(TERM_S)
            except subprocess.TimeoutExpired:
                ended = False
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
        proc.stderr.close()
    return lines, ended


def snapshots(lines: list[dict]) -> list[dict]:
    return [d["session"] for d in lines if d["type"] == "snapshot"]


def test_watch_of_several_projects_streams_a_projects_line(two):
    api, web = two
    lines, _ = watch_lines([str(api), str(web)], lambda ls: len(snapshots(ls)) >= 3)
    assert lines[0] == {
        "type": "projects",
        "projects": [{"name": "api", "path": str(api)}, {"name": "web", "path": str(web)}],
    }
    assert lines[1] == {"type": "headers", "headers": []}  # then the headers, as with one
    assert sum(d["type"] == "projects" for d in lines) == 1
    assert sorted((s["id"], s["project"]) for s in snapshots(lines)) == [
        (f"api/{SID}", "api"),
        (f"web/{OTHER}", "web"),
        (f"web/{SID}", "web"),
    ]


def test_watch_of_one_project_streams_as_before(two):
    lines, _ = watch_lines([str(two[1])], lambda ls: len(snapshots(ls)) >= 2)
    # the headers first, `[]` when no format has project-level state (with one
    # project there was no headers line at all, as README says there is)
    assert lines[0] == {"type": "headers", "headers": []}
    assert sum(d["type"] == "headers" for d in lines) == 1
    assert all(d["type"] != "projects" for d in lines)
    assert sorted(s["id"] for s in snapshots(lines)) == [OTHER, SID]
    assert all("project" not in s for s in snapshots(lines))


def test_watch_says_the_headers_first_while_waiting_too(tmp_path):
    (tmp_path / ".ocr").mkdir()  # no sessions directory yet
    lines, _ = watch_lines([str(tmp_path)], lambda ls: len(ls) >= 2)
    assert lines[:2] == [
        {"type": "headers", "headers": []},
        {"type": "waiting", "path": str(tmp_path / ".ocr" / "sessions")},
    ]


FAST_SCAN = (  # the scan walked again at every tick, a tick every 0.1 s
    "import ocr_tui.core.workspace as w, ocr_tui.core.watcher as t\n"
    "w.DISCOVER_EVERY_S = 0.0\nw.LOOK_SHARE = 0\nt.TICK_S = 0.1"
)


def watch_a_project_appear(top: Path, *, sigterm: bool = False) -> tuple[list[dict], bool]:
    """`watch --jsonl --scan TOP` with `api`; `web` made once `api` is streamed; until
    `web`'s session is."""
    make_project(top / "api", SID)
    made: list[bool] = []

    def until(lines: list[dict]) -> bool:
        if not made and snapshots(lines):
            made.append(True)
            make_project(top / "web", SID)
        return any(d["type"] == "changed" and d["session"]["id"] == f"web/{SID}" for d in lines)

    return watch_lines(["--scan", str(top)], until, prelude=FAST_SCAN, sigterm=sigterm)


def test_watch_scan_streams_a_projects_line_again_when_one_appears(tmp_path):
    lines, _ = watch_a_project_appear(tmp_path / "top")
    projects = [[p["name"] for p in d["projects"]] for d in lines if d["type"] == "projects"]
    assert projects == [["api"], ["api", "web"]]
    new = next(d for d in lines if d["type"] == "changed")
    assert new["session"]["project"] == "web"
    second = next(i for i, d in enumerate(lines) if d["type"] == "projects" and i > 0)
    assert second < lines.index(new)  # the project is named before its sessions


def test_watch_scan_ends_on_sigterm_right_after_a_project_appeared(tmp_path):
    _, ended = watch_a_project_appear(tmp_path / "top", sigterm=True)
    assert ended


def test_watch_session_by_an_id_one_project_only_has(two):
    lines, _ = watch_lines(
        [*map(str, two), "--session", OTHER],
        lambda ls: bool(snapshots(ls)),
    )
    assert [s["id"] for s in snapshots(lines)] == [f"web/{OTHER}"]


def test_a_scan_cut_short_says_so_on_stderr(tmp_path, capsys, monkeypatch):
    from ocr_tui.core import discover, workspace_projects

    top = tmp_path / "top"
    for i in range(4):
        (top / f"d{i}").mkdir(parents=True)
    real = discover.find_projects
    monkeypatch.setattr(
        workspace_projects, "find_projects", lambda *a, **kw: real(*a, **{**kw, "max_dirs": 2})
    )
    assert main(["status", "--scan", str(top)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("ocr-tui: --scan stopped after 20,000 directories under ")
    assert err.count("\n") == 1


def test_depth_without_scan_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as ended:
        main(["status", "--depth", "2", str(tmp_path)])
    assert ended.value.code == 2
    assert "--depth N goes with --scan DIR" in capsys.readouterr().err


def test_watch_of_an_empty_scan_says_it_found_no_project(tmp_path):
    (tmp_path / "empty").mkdir()
    lines, _ = watch_lines(["--scan", str(tmp_path / "empty")], lambda ls: len(ls) >= 3)
    assert lines[0] == {"type": "projects", "projects": []}
    assert {"type": "waiting", "path": str(tmp_path / "empty")} in lines


def test_dashboard_of_two_paths_in_one_project_is_that_project(two, built):
    """`ocr-tui mono/pkg-a mono/pkg-b`, both inside one project: that project, as one."""
    api, _ = two
    (api / "pkg-a").mkdir()
    (api / "pkg-b").mkdir()
    assert main([str(api / "pkg-a"), str(api / "pkg-b")]) == 0
    (app,) = built
    assert app["scope"] is None and app["project"].root == api
