"""The dashboard with a remote project beside a local one (issue 29), its far side reached with
`--via env` (ocr-tui's agent run directly, no sshd; `test_remote_sshd.py` goes through a real
OpenSSH): its sessions in the same list with its name in the Project column; drill-down to a
round's findings, one finding and a document read through the far side (the read seam) and
equal to the same reads made here; a change on the far side shown live; a killed connection
marked on its sessions, then recovered with a fresh snapshot; a missing far side and one that
sends garbage said on its line while the local sessions stay; no far process left after the
app ends."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import msgspec
import pytest
from textual.pilot import Pilot

from ocr_tui.cli import _scope, make_app
from ocr_tui.cli_parser import build_parser
from ocr_tui.core.project import Project
from ocr_tui.core.reads import LocalReader
from ocr_tui.core.remote_feed import LinkState
from ocr_tui.ui.navigation import DocumentTarget, FindingsTarget, FindingTarget

from .builders import SIZE, wait_until

SIM = "2026-11-22-main"  # the simulator's closed review of two rounds
NAME = "box:far"  # the remote project's name: its host and its directory's name


@pytest.fixture
def agent(monkeypatch):
    monkeypatch.setenv("OCR_TUI_AGENT", f"{sys.executable} -m ocr_tui")


@pytest.fixture
def here(sim_root: Path, tmp_path: Path) -> Path:
    root = tmp_path / "here"
    shutil.copytree(sim_root, root)
    return root


@pytest.fixture
def far(sim_root: Path, tmp_path: Path) -> Path:
    root = tmp_path / "far"
    shutil.copytree(sim_root, root)
    return root


def dashboard(*paths: str, via: str | None = "env", clock=None, settings=None):
    words = ["--via", via] if via else []
    args = build_parser("dashboard").parse_args(["dashboard", *paths, *words])
    args.settings = settings
    scope = _scope(args)
    assert scope is not None
    return make_app(None, scope=scope, clock=clock)


def remote_ids(app) -> set[str]:
    return {k for k, v in app.sessions.items() if v.host}


def far_pids(app) -> list[int]:
    out = []
    for feed in app.feeds.values():
        link = feed._link
        if link is not None and link._proc is not None:
            out.append(link._proc.pid)
    return out


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    # a zombie is reaped by its parent: ours (the link) waits for it
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] == "Z"
    except OSError:
        return True


async def connected(pilot: Pilot, n: int) -> None:
    app = pilot.app
    await wait_until(pilot, lambda: app.links.get(NAME) and app.links[NAME].state == "up",
                     what="the far side's connection to be up")  # fmt: skip
    await wait_until(pilot, lambda: len(remote_ids(app)) == n,
                     what=f"the far side's {n} sessions in the list")  # fmt: skip
    await wait_until(pilot, lambda: app.unread == 0 and f"here/{SIM}" in app.sessions,
                     what="the local sessions read (no stand-in left)")  # fmt: skip


async def test_remote_sessions_beside_local_ones(here: Path, far: Path, agent) -> None:
    n = len(list((far / ".ocr" / "sessions").iterdir()))
    app = dashboard(str(here), f"box:{far}")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, n)
        views = app.sessions
        assert {v.project for v in views.values() if v.host} == {NAME}
        assert {v.host for v in views.values() if v.host} == {"box"}
        assert f"{NAME}/{SIM}" in views and f"here/{SIM}" in views
        local, remote = views[f"here/{SIM}"], views[f"{NAME}/{SIM}"]
        assert (local.phase, local.status, len(local.rounds)) == (
            remote.phase, remote.status, len(remote.rounds))  # fmt: skip
        table = app.screen.table
        assert "project" in [c.key for c in table.shown]  # the Project column names the host
        bar = app.screen.query_one("#links")
        await wait_until(pilot, lambda: not bar.display, what="no connection line: all up")
        pids = far_pids(app)
        assert pids
    for pid in pids:  # the app ended: its far side with it
        assert gone(pid), f"far side {pid} still running"


async def test_drill_down_reads_through_the_far_side(here: Path, far: Path, agent) -> None:
    n = len(list((far / ".ocr" / "sessions").iterdir()))
    app = dashboard(str(here), f"box:{far}")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, n)
        sid = f"{NAME}/{SIM}"
        view = app.sessions[sid]
        rnd = view.rounds[0]
        # the same read made here, of the local copy (the two projects hold the same files)
        local = LocalReader(Project(here)).read("round", app.sessions[f"here/{SIM}"],
                                                number=rnd.number)  # fmt: skip
        assert local.findings
        app.open_target(FindingsTarget(sid, rnd.number, rnd.path))
        await wait_until(pilot, lambda: getattr(app.screen, "findings", None) is not None,
                         what="the remote round's findings")  # fmt: skip
        shown = app.screen.findings
        assert sorted(f.id for f in shown) == sorted(f.id for f in local.findings)
        assert [f.title for f in sorted(shown, key=lambda f: f.id)] == [
            f.title for f in sorted(local.findings, key=lambda f: f.id)]  # fmt: skip
        first = sorted(shown, key=lambda f: f.id)[0]
        app.open_target(FindingTarget(sid, rnd.number, rnd.path, first.id))
        await wait_until(pilot, lambda: getattr(app.screen, "finding", None) is not None
                         and app.screen.finding.id == first.id,
                         what="the remote finding's detail")  # fmt: skip
        assert app.screen.finding.title == first.title
        doc = next(d for d in view.documents if d.endswith(".md"))
        app.open_target(DocumentTarget(sid, doc))
        want = (far / ".ocr/sessions" / SIM / doc).read_text()
        first_line = next(line for line in want.splitlines() if line.strip())
        await wait_until(pilot, lambda: getattr(app.screen, "state", None) is not None
                         and app.screen.state.status == "ok",
                         what="the remote document read")  # fmt: skip
        assert first_line.lstrip("# ").strip() in (app.screen.state.text or "")


async def test_a_far_change_shows_live(here: Path, far: Path, agent) -> None:
    sessions = far / ".ocr" / "sessions"
    n = len(list(sessions.iterdir()))
    app = dashboard(str(here), f"box:{far}")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, n)
        shutil.copytree(sessions / SIM, sessions / "2026-11-29-copy")
        await wait_until(pilot, lambda: f"{NAME}/2026-11-29-copy" in app.sessions,
                         what="a session made on the far side to appear")  # fmt: skip
        shutil.rmtree(sessions / "2026-11-29-copy")
        await wait_until(pilot, lambda: f"{NAME}/2026-11-29-copy" not in app.sessions,
                         what="the far session deleted to leave the list")  # fmt: skip


async def test_a_killed_connection_is_marked_then_recovers(here: Path, far: Path, agent) -> None:
    n = len(list((far / ".ocr" / "sessions").iterdir()))
    app = dashboard(str(here), f"box:{far}")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, n)
        local = {k for k in app.sessions if k not in remote_ids(app)}
        (pid,) = far_pids(app)
        os.killpg(pid, signal.SIGKILL)
        await wait_until(pilot, lambda: app.links[NAME].state == "lost",
                         what="the connection to be seen lost")  # fmt: skip
        await wait_until(pilot, lambda: all(app.sessions[k].offline for k in remote_ids(app)),
                         what="the far sessions marked offline")  # fmt: skip
        assert len(remote_ids(app)) == n and local <= set(app.sessions)  # none blanked
        bar = app.screen.query_one("#links")
        await wait_until(pilot, lambda: bar.display, what="the connection's line")
        line = bar.lines[0].plain
        assert line.startswith(f"✗ {NAME}: connection lost") and "reconnecting" in line
        await wait_until(pilot, lambda: app.links[NAME].state == "up", timeout=30,
                         what="the connection back after its backoff")  # fmt: skip
        await wait_until(pilot, lambda: not any(app.sessions[k].offline
                                                for k in remote_ids(app)),
                         what="a fresh snapshot: no session offline")  # fmt: skip
        assert far_pids(app) and far_pids(app)[0] != pid


async def test_a_missing_far_side_is_said_and_local_sessions_stay(
    here: Path, far: Path, monkeypatch
) -> None:
    monkeypatch.setenv("OCR_TUI_AGENT", "/nonexistent/ocr-tui")
    app = dashboard(str(here), f"box:{far}")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.links[NAME].state == "lost",
                         what="the missing far side said")  # fmt: skip
        assert "ocr-tui is not installed on box" in app.links[NAME].message
        await wait_until(pilot, lambda: f"here/{SIM}" in app.sessions,
                         what="the local sessions, whatever the far side")  # fmt: skip
        assert not remote_ids(app)


HOSTILE = {
    "garbage": 'echo \'{"type":"hello","protocol":1,"min_protocol":1,"version":"9"}\'; '
    "echo 'not json at all'; sleep 30",
    "a lie": 'echo \'{"type":"hello","protocol":1,"min_protocol":1,"version":"9"}\'; '
    'echo \'{"type":"snapshot","session":{"id":5}}\'; sleep 30',
    "old": 'echo \'{"type":"hello","protocol":0,"min_protocol":0,"version":"0.0.1"}\'; sleep 30',
    "\x1b[31mescapes": "printf '\\033[2J\\033]0;pwned\\007\\n'; sleep 30",
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
async def test_a_hostile_far_side_is_cut_off(here: Path, tmp_path: Path, kind: str) -> None:
    script = tmp_path / "far.sh"
    script.write_text(HOSTILE[kind] + "\n")
    app = dashboard(str(here), "box:/srv/far", via=f"sh {script} --")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.links[NAME].state == "lost",
                         what="the far side cut off")  # fmt: skip
        message = app.links[NAME].message
        assert "\x1b" not in message and "\x07" not in message
        await wait_until(pilot, lambda: f"here/{SIM}" in app.sessions,
                         what="the local sessions kept")  # fmt: skip
        bar = app.screen.query_one("#links")
        await wait_until(pilot, lambda: bar.display, what="the line saying why")
        assert all("\x1b" not in line.plain for line in bar.lines)
        assert not remote_ids(app)


def test_snapshot_a_lost_host(
    snap_compare, here: Path, far: Path, agent, tmp_path: Path, monkeypatch
) -> None:
    """The list with a local project and a remote one whose connection is lost: its line over
    the list, its sessions marked ⊘ (the last state known)."""
    monkeypatch.setenv("HOME", str(tmp_path))  # the title says `~/here`, wherever that is
    now = datetime(2026, 11, 24, 12, 0, tzinfo=UTC)  # after the simulator's history

    async def run_before(pilot: Pilot) -> None:
        app = pilot.app
        await connected(pilot, len(list((far / ".ocr" / "sessions").iterdir())))
        app.stop_remotes()  # (what follows is set by hand: a fixed picture)
        app._remote_stop = threading.Event()
        app._remote_generation += 1  # (a feed's event still queued is dropped: not drawn)
        at = now.timestamp()
        marked = [msgspec.structs.replace(v, offline=True)
                  for v in app.sessions.values() if v.host]  # fmt: skip
        app.links[NAME] = LinkState(NAME, "box", "lost", "the far side ended (exit 255): "
                                    "Connection reset by peer", at - 12, at + 4)  # fmt: skip
        app.links_signal.publish(dict(app.links))
        app.apply_changes(marked, [], announce=False)
        app.clear_notifications()
        app.screen.select_session(f"{NAME}/{SIM}")  # (rows came in either order: this one)
        await pilot.pause()

    app = dashboard(str(here), f"box:{far}", clock=lambda: now)
    assert snap_compare(app, terminal_size=SIZE, run_before=run_before)


def remote_finding(app, sid: str):
    view = app.sessions[sid]
    return view, view.rounds[0]


async def open_remote_finding(pilot: Pilot, far: Path) -> tuple[str, object]:
    """The first finding of round 1 of the far SIM, on its own screen; its file made on the
    far side (the simulator names files it does not write)."""

    app = pilot.app
    await connected(pilot, len(list((far / ".ocr" / "sessions").iterdir())))
    sid = f"{NAME}/{SIM}"
    view, rnd = remote_finding(app, sid)
    read = app.reader_of(sid).read("round", view, number=rnd.number)
    first = sorted((f for f in read.findings if f.location.file), key=lambda f: f.id)[0]
    source = far / first.location.file
    source.parent.mkdir(parents=True, exist_ok=True)
    source.write_text("".join(f"line {i}\n" for i in range(1, 400)))
    app.open_target(FindingTarget(sid, rnd.number, rnd.path, first.id))
    await wait_until(pilot, lambda: getattr(app.screen, "finding", None) is not None,
                     what="the remote finding's screen")  # fmt: skip
    return sid, first


async def test_e_on_a_remote_finding_shows_its_file_read_only(here, far, agent) -> None:
    from ocr_tui.ui.screens.document.screen import DocumentScreen

    app = dashboard(str(here), f"box:{far}")
    async with app.run_test(size=SIZE) as pilot:
        _sid, finding = await open_remote_finding(pilot, far)
        await pilot.press("e")
        await wait_until(pilot, lambda: isinstance(app.screen, DocumentScreen)
                         and getattr(app.screen.state, "status", None) == "ok",
                         what="the far file shown, read through the far side")  # fmt: skip
        assert "line 399" in app.screen.state.text
        assert app.screen.rel_path.endswith(finding.location.file)


async def test_e_with_editor_remote_runs_the_users_editor(
    here, far, agent, tmp_path, monkeypatch
) -> None:
    from ocr_tui.core import config
    from ocr_tui.ui.screens.ocr import editor_launch

    conf = tmp_path / "config.toml"
    conf.write_text(
        'editor_remote = "top {host} {path}"\n'
        f'[projects."box:{far}"]\n'
        'editor_remote = "code --remote ssh-remote+{host} -g {path}:{line}"\n'
    )
    launched = []
    monkeypatch.setattr(editor_launch, "launch", lambda app, plan: launched.append(plan))
    app = dashboard(str(here), f"box:{far}", settings=config.load(path=conf))
    async with app.run_test(size=SIZE) as pilot:
        _sid, finding = await open_remote_finding(pilot, far)
        await pilot.press("e")
        await wait_until(pilot, lambda: launched, what="the editor's plan")
        path = str(far / finding.location.file)
        want = ("code", "--remote", "ssh-remote+box", "-g", f"{path}:{finding.location.line_start}")
        assert launched[0].argv == want


def test_a_remote_projects_config_table(tmp_path) -> None:
    from ocr_tui.core import config
    from ocr_tui.remote_status import remote_of

    conf = tmp_path / "config.toml"
    conf.write_text(
        'agent = "~/bin/ocr-tui"\n'
        '[projects."devbox:~/src/api"]\n'
        'via = "docker exec -i api"\n'
        'agent = "uvx ocr-tui"\n'
        'theme = "nord"\n'
    )
    settings = config.load(path=conf)
    (problem,) = settings.problems  # a key a remote project's table does not take: said
    assert "theme: unknown key (agent, via, editor_remote); ignored" in problem
    args = build_parser("dashboard").parse_args(["dashboard", "devbox:~/src/api"])
    args.settings = settings
    spec = remote_of("devbox:~/src/api", args)
    assert spec.via == ("docker", "exec", "-i", "api") and spec.agent == "uvx ocr-tui"
    other = remote_of("devbox:~/src/web", args)  # no table: the file's top level
    assert other.via == () and other.agent == "~/bin/ocr-tui"
    args.via = "kubectl exec -i pod --"  # the flag wins
    assert remote_of("devbox:~/src/api", args).via[0] == "kubectl"


async def test_with_several_local_projects_a_round_reads_its_own_projects_store(
    sim_root: Path, tmp_path: Path
) -> None:
    """The read seam's local side reads the session's own project's ocr.db, by the session's own
    id: with several projects the findings screen once read the store of the directory that
    holds them (none), so ocr.db's findings and triage were missing there and nowhere else."""
    from ocr_tui.cli import main
    from ocr_tui.formats.ocr import api

    for name in ("a", "b"):
        shutil.copytree(sim_root, tmp_path / name)
    b = tmp_path / "b"
    first = api.read_round(str(b / ".ocr/sessions" / SIM), 1, b / ".ocr/data/ocr.db", SIM)
    fid = sorted(f.id for f in first.findings)[0]
    assert main(["triage", str(b), "--session", SIM, "--round", "1", fid, "fixed"]) == 0
    app = dashboard(str(tmp_path / "a"), str(tmp_path / "b"), via=None)
    async with app.run_test(size=SIZE) as pilot:
        sid = f"b/{SIM}"
        await wait_until(pilot, lambda: sid in app.sessions and app.unread == 0,
                         what="both projects read")  # fmt: skip
        rnd = app.sessions[sid].rounds[0]
        app.open_target(FindingsTarget(sid, rnd.number, rnd.path))
        await wait_until(pilot, lambda: getattr(app.screen, "findings", None) is not None,
                         what="the round's findings")  # fmt: skip
        want = api.read_round(str(b / ".ocr/sessions" / SIM), rnd.number,
                              b / ".ocr/data/ocr.db", SIM)  # fmt: skip
        assert app.screen.source == want.source
        shown = {f.id: f.triage for f in app.screen.findings}
        assert shown == {f.id: f.triage for f in want.findings} and shown[fid] == "fixed"


async def test_a_remote_project_alone_that_cannot_be_reached(far: Path, monkeypatch) -> None:
    """Only a remote project, and it cannot be reached: the empty list names it (not "0
    projects"), the line over the list says why, the title counts it."""
    monkeypatch.setenv("OCR_TUI_AGENT", "/nonexistent/ocr-tui")
    app = dashboard(f"box:{far}")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.links[NAME].state == "lost",
                         what="the far side said missing")  # fmt: skip
        empty = app.screen.query_one("#empty")
        await wait_until(pilot, lambda: empty.display, what="the empty list's message")
        text = str(empty.render())
        assert f"Watching {NAME}" in text and "0 projects" not in text
        assert app.sub_title == "1 remote project"
        bar = app.screen.query_one("#links")
        await wait_until(pilot, lambda: bar.display, what="the connection's line")
        assert "not installed on box" in bar.lines[0].plain


async def test_a_far_sides_reads_one_at_a_time_the_last_again(here, far, agent) -> None:
    """Changes of a busy far session each ask an open screen to read again: through a far side
    one request is in flight at a time, and what came meanwhile is one more read, not a queue
    of requests each answered after the next was wanted."""
    app = dashboard(str(here), f"box:{far}")
    async with app.run_test(size=SIZE) as pilot:
        await connected(pilot, len(list((far / ".ocr" / "sessions").iterdir())))
        sid = f"{NAME}/{SIM}"
        rnd = app.sessions[sid].rounds[0]
        app.open_target(FindingsTarget(sid, rnd.number, rnd.path))
        await wait_until(
            pilot,
            lambda: getattr(app.screen, "loads", 0) >= 1 and not app.screen._in_flight,
            what="the round's first read done",
        )
        screen = app.screen
        before = screen.loads
        feed = app.feeds[NAME]
        asked = []
        real = feed.request
        feed.request = lambda op, **kw: (asked.append(op), real(op, **kw))[1]
        for _ in range(5):  # five changes in a burst
            screen.load()
        await wait_until(pilot, lambda: screen.loads >= before + 2 and not screen._in_flight,
                         what="the read, then one more")  # fmt: skip
        assert asked == ["read", "read"]
