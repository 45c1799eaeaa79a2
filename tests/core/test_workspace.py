"""`core.workspace`: several projects behind the Engine's interface. Ids are `name/key` and
unique; views and headers name their project; one project's output is an Engine's, unchanged;
`--scan DIR` finds projects that appear later and forgets those that go (never one named on
the command line); and the live watch (`watch_project`) follows all of it."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from msgspec import UNSET
from test_watch import Collector  # (tests/ is on the path: a package's base directory)

import ocr_tui.core.watcher as watcher
import ocr_tui.core.workspace as workspace
import ocr_tui.core.workspace_projects as workspace_projects
from ocr_tui.cli import main
from ocr_tui.core.engine import Engine, encode_json
from ocr_tui.core.project import Project
from ocr_tui.core.view import ProjectRef
from ocr_tui.core.watch import Changed, ProjectMissing, Scanned
from ocr_tui.core.workspace import Scope, Workspace, make_engine

from .builders import FIXED, ProjectTree, ago, iso

SID = "2026-03-10-main"
TIMEOUT = 10.0


def make_project(root: Path, *sids: str, phase: str = "reviews", brain: bool = False):
    tree = ProjectTree(root)
    for sid in sids or (SID,):
        tree.session(sid).state(current_phase=phase, status="active", started_at=iso(ago(hours=1)))
    if brain:  # an iDumb store: a project-level header
        (root / ".idumb" / "brain").mkdir(parents=True)
        (root / ".idumb" / "brain" / "state.json").write_text("{}")
    return tree


def ws_of(*roots: Path, scan: Path | None = None, **kw) -> Workspace:
    scope = Scope(tuple(Project(r) for r in roots), scan, **kw)
    return Workspace(scope, clock=lambda: FIXED)


@pytest.fixture
def rescan_now(monkeypatch):
    """`--scan`: walk the directory again at every poll (however long the last walk took)."""
    monkeypatch.setattr(workspace_projects, "DISCOVER_EVERY_S", 0.0)
    monkeypatch.setattr(workspace_projects, "LOOK_SHARE", 0, raising=False)


# --- ids, names ------------------------------------------------------------------------------


def test_the_same_session_id_in_two_projects_gets_two_ids(tmp_path):
    make_project(tmp_path / "api")
    make_project(tmp_path / "web")
    ws = ws_of(tmp_path / "api", tmp_path / "web")
    views = ws.scan()
    assert sorted(v.id for v in views) == ["api/" + SID, "web/" + SID]
    assert {v.id: v.project for v in views} == {"api/" + SID: "api", "web/" + SID: "web"}
    assert set(ws.views) == {"api/" + SID, "web/" + SID}
    assert {v.path for v in views} == {
        str(tmp_path / p / ".ocr" / "sessions" / SID) for p in ("api", "web")
    }


def test_projects_with_the_same_directory_name_get_their_parents(tmp_path):
    make_project(tmp_path / "team-a" / "web")
    make_project(tmp_path / "team-b" / "web")
    ws = ws_of(tmp_path / "team-a" / "web", tmp_path / "team-b" / "web")
    views = ws.scan()
    assert sorted(v.id for v in views) == [f"team-a/web/{SID}", f"team-b/web/{SID}"]
    assert sorted(v.project for v in views) == ["team-a/web", "team-b/web"]
    assert [r.name for r in ws.refs()] == ["team-a/web", "team-b/web"]


def test_make_engine_one_project_is_an_engine_several_a_workspace(tmp_path):
    a, b = make_project(tmp_path / "a"), make_project(tmp_path / "b")
    one = make_engine(Scope((a.project,)))
    assert type(one) is Engine and one.name is None
    assert [v.id for v in one.scan()] == [SID]
    assert all(v.project is UNSET for v in one.sessions())
    assert isinstance(make_engine(Scope((a.project, b.project))), Workspace)
    scan = make_engine(Scope((), tmp_path))
    assert isinstance(scan, Workspace)
    assert sorted(v.id for v in scan.scan()) == [f"a/{SID}", f"b/{SID}"]


def test_scope_root_is_the_common_directory(tmp_path):
    a, b = Project(tmp_path / "x" / "a"), Project(tmp_path / "x" / "b" / "c")
    assert Scope((a, b)).root == tmp_path / "x"
    assert Scope((a, b), tmp_path / "elsewhere").root == tmp_path / "elsewhere"
    assert Scope((a, b)).several and Scope((), tmp_path).several and not Scope((a,)).several


# --- output ----------------------------------------------------------------------------------


@pytest.fixture
def fixed_clock(monkeypatch):
    import functools

    fixed = functools.partial(workspace.make_engine, clock=lambda: FIXED)
    monkeypatch.setattr(workspace, "make_engine", fixed)


def test_one_project_json_is_an_engines_unchanged(tmp_path, capsys, fixed_clock):
    tree = make_project(tmp_path / "solo", SID, "2026-03-09-old", brain=True)
    code = main(["status", str(tree.root), "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    engine = Engine(tree.project, clock=lambda: FIXED)
    engine.scan()
    expected = encode_json(engine.snapshot())
    assert out == expected + "\n"
    doc = json.loads(out)
    assert list(doc) == ["version", "project", "generated_at", "sessions", "headers"]
    assert {v["id"] for v in doc["sessions"]} == {SID, "2026-03-09-old"}
    assert all("project" not in v for v in doc["sessions"])
    assert doc["headers"] and all("project" not in h for h in doc["headers"])


def test_snapshot_of_several_names_every_project(tmp_path):
    make_project(tmp_path / "api", brain=True)
    make_project(tmp_path / "web")
    ws = ws_of(tmp_path / "api", tmp_path / "web")
    ws.scan()
    snap = ws.snapshot()
    assert snap.project == str(tmp_path)
    assert snap.projects == [
        ProjectRef(name="api", path=str(tmp_path / "api")),
        ProjectRef(name="web", path=str(tmp_path / "web")),
    ]
    doc = json.loads(encode_json(snap))
    assert doc["projects"] == [
        {"name": "api", "path": str(tmp_path / "api")},
        {"name": "web", "path": str(tmp_path / "web")},
    ]
    assert {(s["id"], s["project"]) for s in doc["sessions"]} == {
        (f"api/{SID}", "api"),
        (f"web/{SID}", "web"),
    }
    assert [h["project"] for h in doc["headers"]] == ["api"]
    assert doc["generated_at"] == "2026-03-10T12:00:00Z"


def test_headers_are_keyed_by_project(tmp_path):
    make_project(tmp_path / "api", brain=True)
    make_project(tmp_path / "web", brain=True)
    make_project(tmp_path / "docs")
    ws = ws_of(tmp_path / "api", tmp_path / "web", tmp_path / "docs")
    ws.scan()
    assert sorted(ws.headers) == ["api/idumb", "web/idumb"]
    assert {k: h.project for k, h in ws.headers.items()} == {
        "api/idumb": "api",
        "web/idumb": "web",
    }


# --- incremental -----------------------------------------------------------------------------


def test_apply_rederives_only_the_project_whose_file_changed(tmp_path):
    api = make_project(tmp_path / "api")
    make_project(tmp_path / "web")
    ws = ws_of(tmp_path / "api", tmp_path / "web")
    ws.scan()
    web_before = ws.views[f"web/{SID}"]
    path = api.session(SID).state(current_phase="discourse", status="active")
    changed, removed = ws.apply([str(path)])
    assert [v.id for v in changed] == [f"api/{SID}"]
    assert changed[0].phase == "discourse" and changed[0].project == "api"
    assert removed == []
    assert ws.touched == {f"api/{SID}"}
    assert ws.views[f"web/{SID}"] is web_before  # not re-derived
    assert ws.views[f"api/{SID}"].phase == "discourse"


def test_apply_of_a_removed_session_removes_its_prefixed_id(tmp_path):
    api = make_project(tmp_path / "api", SID, "2026-03-09-old")
    make_project(tmp_path / "web", "2026-03-09-old")
    ws = ws_of(tmp_path / "api", tmp_path / "web")
    ws.scan()
    shutil.rmtree(api.sessions_dir / "2026-03-09-old")
    _, removed = ws.apply([str(api.sessions_dir / "2026-03-09-old")])
    assert removed == ["api/2026-03-09-old"]
    assert "web/2026-03-09-old" in ws.views and "api/2026-03-09-old" not in ws.views


def test_relist_reads_the_ids_asked_for_in_each_project(tmp_path):
    api = make_project(tmp_path / "api")
    web = make_project(tmp_path / "web")
    ws = ws_of(tmp_path / "api", tmp_path / "web")
    ws.scan()
    web.session("2026-03-11-new").state(current_phase="context", status="active")
    api.session(SID).state(current_phase="final", status="active")
    changed, removed = ws.relist([f"api/{SID}"])
    ids = {v.id for v in changed}
    assert ids == {f"api/{SID}", "web/2026-03-11-new"}
    assert ws.views[f"api/{SID}"].phase == "final" and removed == []


# --- --scan: projects that come and go -------------------------------------------------------


def test_poll_finds_a_new_project_and_forgets_a_gone_one(tmp_path, rescan_now):
    top = tmp_path / "top"
    make_project(top / "api")
    ws = ws_of(scan=top)
    assert [v.id for v in ws.scan()] == [f"api/{SID}"]
    assert ws.poll() == ([], [], False)

    make_project(top / "web", SID, "2026-03-11-two")
    changed, removed, rearm = ws.poll()
    assert sorted(v.id for v in changed) == [f"web/{SID}", "web/2026-03-11-two"]
    assert all(v.project == "web" for v in changed)
    assert removed == [] and rearm
    assert [r.name for r in ws.refs()] == ["api", "web"]
    assert any(str(d).startswith(str(top / "web")) for d in ws.watch_roots())
    assert set(ws.views) == {f"api/{SID}", f"web/{SID}", "web/2026-03-11-two"}

    shutil.rmtree(top / "web")
    changed, removed, rearm = ws.poll()
    assert changed == [] and rearm
    assert removed == [f"web/{SID}", "web/2026-03-11-two"]
    assert [r.name for r in ws.refs()] == ["api"]
    assert set(ws.views) == {f"api/{SID}"}
    assert ws.poll() == ([], [], False)  # once only


def test_a_walk_cut_short_removes_no_project(tmp_path, rescan_now, monkeypatch):
    """A walk that stopped at MAX_DIRS did not see every project: none is taken as gone."""
    from ocr_tui.core import discover

    top = tmp_path / "top"
    make_project(top / "z-last")
    ws = ws_of(scan=top)
    assert [r.name for r in ws.refs()] == ["z-last"]
    for i in range(5):
        (top / f"a{i}").mkdir()  # walked before it: the cut falls short of it
    real = discover.find_projects
    monkeypatch.setattr(
        workspace_projects, "find_projects", lambda *a, **kw: real(*a, **{**kw, "max_dirs": 3})
    )
    assert ws.poll() == ([], [], False) and ws.truncated
    assert [r.name for r in ws.refs()] == ["z-last"]


def test_a_project_named_on_the_command_line_is_never_removed(tmp_path, rescan_now):
    top = tmp_path / "top"
    make_project(top / "found")
    inside = make_project(top / "given-inside")
    outside = make_project(tmp_path / "given-outside")
    ws = ws_of(inside.root, outside.root, scan=top)
    ws.scan()
    assert [r.name for r in ws.refs()] == ["found", "given-inside", "given-outside"]
    for tree in (inside, outside):
        shutil.rmtree(tree.ocr)
    shutil.rmtree(top / "found")
    _, removed, _ = ws.poll()
    assert f"found/{SID}" in removed
    assert [r.name for r in ws.refs()] == ["given-inside", "given-outside"]
    # and their stores, back, are read again
    make_project(inside.root, phase="final")
    changed, _ = ws.rescan()
    assert [(v.id, v.phase) for v in changed] == [(f"given-inside/{SID}", "final")]


def test_a_found_project_keeps_its_name_when_a_namesake_appears(tmp_path, rescan_now):
    top = tmp_path / "top"
    make_project(top / "team-a" / "web")
    ws = ws_of(scan=top)
    assert [v.id for v in ws.scan()] == [f"web/{SID}"]
    make_project(top / "team-b" / "web")
    changed, _, _ = ws.poll()
    assert [v.id for v in changed] == [f"team-b/web/{SID}"]
    assert set(ws.views) == {f"web/{SID}", f"team-b/web/{SID}"}


def test_discover_says_when_projects_appeared(tmp_path, rescan_now):
    top = tmp_path / "top"
    top.mkdir()
    ws = ws_of(scan=top)
    assert ws.watch_roots() == [] and ws.refs() == []
    assert ws.discover() is False
    make_project(top / "api")
    assert ws.discover() is True
    assert ws.discover() is False  # found already
    assert [r.name for r in ws.refs()] == ["api"]
    assert ws.watch_roots()
    assert [v.id for v in ws.scan()] == [f"api/{SID}"]
    # without a scan there is nothing to discover
    assert ws_of(top / "api").discover() is False


def test_the_scan_waits_for_discover_every_s(tmp_path, monkeypatch):
    monkeypatch.setattr(workspace_projects, "DISCOVER_EVERY_S", 3600.0)
    top = tmp_path / "top"
    make_project(top / "api")
    ws = ws_of(scan=top)
    ws.scan()
    make_project(top / "web")
    assert ws.poll() == ([], [], False)
    assert ws.discover() is False
    later = time.monotonic() + 7200  # two hours on, for the workspace only
    monkeypatch.setattr(workspace_projects, "time", SimpleNamespace(monotonic=lambda: later))
    assert ws.poll()[2] is True
    assert [r.name for r in ws.refs()] == ["api", "web"]


def test_the_scan_respects_depth(tmp_path, rescan_now):
    top = tmp_path / "top"
    make_project(top / "a")
    make_project(top / "x" / "y" / "deep")
    assert [r.name for r in ws_of(scan=top, depth=1).refs()] == ["a"]
    assert [r.name for r in ws_of(scan=top, depth=3).refs()] == ["a", "deep"]


# --- live ------------------------------------------------------------------------------------


def with_session(vid: str):
    return lambda ev: isinstance(ev, Scanned | Changed) and any(v.id == vid for v in ev.sessions)


@pytest.fixture
def quick_ticks(monkeypatch, rescan_now):
    """Ticks (when the scan is walked again) every 0.1 s, not every 2 s."""
    monkeypatch.setattr(watcher, "TICK_S", 0.1)
    monkeypatch.setattr(watcher, "MISSING_POLL_S", 0.05)


async def test_live_a_project_created_under_the_scan_dir_is_watched(tmp_path, quick_ticks):
    top = tmp_path / "top"
    make_project(top / "api")
    async with Collector(ws_of(scan=top)) as c:
        first = await c.wait_for(lambda ev: isinstance(ev, Scanned), what="the first scan")
        assert [v.id for v in first.sessions] == [f"api/{SID}"]

        web = make_project(top / "web", phase="context")
        ev = await c.wait_for(
            with_session(f"web/{SID}"), what="the new project web's session to be listed"
        )
        assert isinstance(ev, Changed)
        assert next(v for v in ev.sessions if v.id == f"web/{SID}").project == "web"

        # and it is watched: a change to it shows
        web.session(SID).state(current_phase="discourse", status="active")
        await c.wait_for(
            lambda ev: (
                isinstance(ev, Changed)
                and any(v.id == f"web/{SID}" and v.phase == "discourse" for v in ev.sessions)
            ),
            what="web's session to show the discourse phase",
        )

        shutil.rmtree(top / "web")
        await c.wait_for(
            lambda ev: isinstance(ev, Changed) and f"web/{SID}" in ev.removed,
            what="web's session to be gone",
        )
        assert set(c.engine.views) == {f"api/{SID}"}


async def test_live_an_empty_scan_dir_waits_then_shows_the_first_project(tmp_path, quick_ticks):
    top = tmp_path / "top"
    top.mkdir()
    async with Collector(ws_of(scan=top)) as c:
        await c.wait_for(
            lambda ev: isinstance(ev, ProjectMissing),
            what="the report that no project is there yet",
        )
        make_project(top / "nested" / "api")
        ev = await c.wait_for(
            with_session(f"api/{SID}"), what="the first project's session (api) to be listed"
        )
        assert next(v for v in ev.sessions if v.id == f"api/{SID}").project == "api"
        assert [r.name for r in c.engine.refs()] == ["api"]


async def test_live_two_projects_changes_in_each(tmp_path, quick_ticks):
    api, web = make_project(tmp_path / "api"), make_project(tmp_path / "web")
    async with Collector(ws_of(api.root, web.root)) as c:
        first = await c.wait_for(lambda ev: isinstance(ev, Scanned), what="the first scan")
        assert sorted(v.id for v in first.sessions) == [f"api/{SID}", f"web/{SID}"]
        for tree, phase in ((api, "discourse"), (web, "final")):
            tree.session(SID).state(current_phase=phase, status="active")
            name = tree.root.name
            await c.wait_for(
                lambda ev, name=name, phase=phase: (
                    isinstance(ev, Changed)
                    and any(v.id == f"{name}/{SID}" and v.phase == phase for v in ev.sessions)
                ),
                what="each project's session to show its new phase",
            )


def test_accept_asks_only_the_engines_whose_directories_hold_the_path(tmp_path, monkeypatch):
    """A changed path is weighed by the projects it lies in, or under (one or two, not all a
    scan found), and by a format's directories outside every project (a temp dir)."""
    make_project(tmp_path / "api")
    make_project(tmp_path / "web")
    ws = ws_of(tmp_path / "api", tmp_path / "web")
    elsewhere = tmp_path / "tmp-sessions"
    elsewhere.mkdir()
    web = ws.engines[tmp_path / "web"]
    src = web.sources[0]
    monkeypatch.setattr(src, "extra_watch_dirs", lambda: [elsewhere])
    asked: list[str] = []
    for root, engine in ws.engines.items():
        real = engine.accept
        monkeypatch.setattr(
            engine, "accept", lambda p, real=real, n=root.name: asked.append(n) or real(p)
        )
    ws.watch_roots()  # (where the directories are looked up: in the watcher's thread)
    state = tmp_path / "api" / ".ocr" / "sessions" / SID / "state.json"
    assert ws.accept(str(state)) and asked == ["api"]
    asked.clear()
    assert ws.accept(str(tmp_path / "api" / ".ocr")) and asked == ["api"]  # above its dirs
    asked.clear()
    assert not ws.accept(str(tmp_path / "other" / "state.json")) and asked == []
    assert ws.accept(str(elsewhere / "x" / "state.json")) is web.accept(
        str(elsewhere / "x" / "state.json")
    )
    assert asked[0] == "web"


def test_apply_routes_each_path_to_its_project_and_touched_is_this_batchs(tmp_path):
    make_project(tmp_path / "api")
    make_project(tmp_path / "web")
    ws = ws_of(tmp_path / "api", tmp_path / "web")
    ws.scan()
    ws.watch_roots()
    api_state = tmp_path / "api" / ".ocr" / "sessions" / SID / "state.json"
    web_state = tmp_path / "web" / ".ocr" / "sessions" / SID / "state.json"
    ws.apply([str(api_state)])
    assert ws.touched == {f"api/{SID}"}
    ws.apply([str(web_state)])
    assert ws.touched == {f"web/{SID}"}  # not api's from the batch before


def test_a_walk_that_could_not_list_a_directory_removes_no_project(
    tmp_path, rescan_now, monkeypatch
):
    """EACCES or EMFILE on a directory says nothing of the projects in it: none is taken as
    gone (one failed listing would drop them, and the next walk read them all anew)."""
    import errno

    from ocr_tui.core import discover

    top = tmp_path / "top"
    make_project(top / "team" / "api")
    ws = ws_of(scan=top)
    assert [r.name for r in ws.refs()] == ["api"]
    real = discover.os.scandir

    def failing(path):
        if str(path).endswith("team"):
            raise OSError(errno.EMFILE, "Too many open files")
        return real(path)

    monkeypatch.setattr(discover.os, "scandir", failing)
    assert ws.poll() == ([], [], False)
    assert [r.name for r in ws.refs()] == ["api"] and not ws.truncated


def test_a_project_that_goes_ends_its_engine(tmp_path, rescan_now, monkeypatch):
    top = tmp_path / "top"
    make_project(top / "api")
    make_project(top / "web")
    ws = ws_of(scan=top)
    ws.scan()
    closed: list[str] = []
    web = ws.engines[top / "web"]
    monkeypatch.setattr(web, "close", lambda: closed.append("web"))
    shutil.rmtree(top / "web")
    ws.poll()
    assert closed == ["web"] and top / "web" not in ws.engines
