"""The dashboard against `localhost:PROJECT` through a real OpenSSH (the suite's sshd, tests/
conftest.py; `.ci/run` installs openssh-server): its sessions listed beside the local ones and
a change on the far side shown live; drill-down to a round's findings, one finding and a
document; the connection killed (its ssh) and recovered; a far side that is missing, too old,
or hostile said on its line. `ssh` itself is run: the user's ssh command (`$OCR_TUI_SSH`)."""

from __future__ import annotations

import os
import shutil
import signal
import sys
from pathlib import Path

import pytest

from ocr_tui.cli import make_app
from ocr_tui.cli_parser import build_parser
from ocr_tui.cli_scope import _scope
from ocr_tui.ui.navigation import DocumentTarget, FindingsTarget, FindingTarget

from .builders import SIZE, wait_until

HAS_SSHD = (shutil.which("sshd") or os.path.exists("/usr/sbin/sshd")) and shutil.which("ssh")
pytestmark = pytest.mark.skipif(not HAS_SSHD, reason="no OpenSSH server here (.ci/run installs it)")

SIM = "2026-11-22-main"
NAME = "localhost:far"


@pytest.fixture
def through_ssh(sshd, monkeypatch):
    ssh, _ = sshd
    monkeypatch.setenv("OCR_TUI_SSH", ssh)
    monkeypatch.setenv("OCR_TUI_AGENT", f"{sys.executable} -m ocr_tui")
    return ssh


@pytest.fixture
def here(sim_root: Path, tmp_path: Path) -> Path:
    shutil.copytree(sim_root, tmp_path / "here")
    return tmp_path / "here"


@pytest.fixture
def far(sim_root: Path, tmp_path: Path) -> Path:
    shutil.copytree(sim_root, tmp_path / "far")
    return tmp_path / "far"


def dashboard(*paths: str):
    scope = _scope(build_parser("dashboard").parse_args(["dashboard", *paths]))
    assert scope is not None
    return make_app(None, scope=scope)


def remote_ids(app) -> set[str]:
    return {k for k, v in app.sessions.items() if v.host}


async def test_live_drill_down_and_a_killed_connection(here, far, through_ssh) -> None:
    sessions = far / ".ocr" / "sessions"
    n = len(list(sessions.iterdir()))
    app = dashboard(str(here), f"localhost:{far}")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(
            pilot,
            lambda: len(remote_ids(app)) == n and app.unread == 0,
            timeout=30,
            what="the far sessions listed and read, through ssh",
        )
        assert app.links[NAME].state == "up"
        assert app.sessions[f"{NAME}/{SIM}"].host == "localhost"
        # a change on the far side, live
        shutil.copytree(sessions / SIM, sessions / "2026-11-29-copy")
        await wait_until(pilot, lambda: f"{NAME}/2026-11-29-copy" in app.sessions,
                         what="the far side's new session, through ssh")  # fmt: skip
        # drill-down: the round's findings, one finding, a document
        sid = f"{NAME}/{SIM}"
        rnd = app.sessions[sid].rounds[-1]
        app.open_target(FindingsTarget(sid, rnd.number, rnd.path))
        await wait_until(pilot, lambda: getattr(app.screen, "findings", None),
                         what="the far round's findings")  # fmt: skip
        first = sorted(app.screen.findings, key=lambda f: f.id)[0]
        app.open_target(FindingTarget(sid, rnd.number, rnd.path, first.id))
        await wait_until(pilot, lambda: getattr(app.screen, "finding", None) is not None,
                         what="the far finding")  # fmt: skip
        assert app.screen.finding.id == first.id
        doc = app.sessions[sid].documents[0]
        app.open_target(DocumentTarget(sid, doc))
        await wait_until(pilot, lambda: getattr(getattr(app.screen, "state", None), "status",
                                                None) == "ok",
                         what="the far document")  # fmt: skip
        # the connection killed: marked, then back with a fresh snapshot
        feed = app.feeds[NAME]
        pid = feed._link._proc.pid
        os.killpg(pid, signal.SIGKILL)
        await wait_until(pilot, lambda: app.links[NAME].state == "lost",
                         what="the killed connection seen")  # fmt: skip
        await wait_until(pilot, lambda: app.links[NAME].state == "up", timeout=30,
                         what="the connection back")  # fmt: skip
        await wait_until(pilot, lambda: not any(app.sessions[k].offline
                                                for k in remote_ids(app)),
                         what="the far sessions current again")  # fmt: skip
        ssh_pid = feed._link._proc.pid
    # the app's end (`q`, Ctrl-C): no ssh process of ours left (reaped: not even a zombie)
    with pytest.raises(ProcessLookupError):
        os.kill(ssh_pid, 0)


OLD = 'echo \'{"type":"hello","protocol":0,"min_protocol":0,"version":"0.0.1"}\'; sleep 30'
HOSTILE = (
    'echo \'{"type":"hello","protocol":1,"min_protocol":1,"version":"9"}\'; '
    "printf '\\377\\033[2J\\033]0;x\\007 garbage\\n'; sleep 30"
)


@pytest.mark.parametrize("kind", ["missing", "old", "hostile"])
async def test_a_far_side_missing_old_or_hostile(here, far, sshd, monkeypatch, tmp_path,
                                                 kind) -> None:  # fmt: skip
    ssh, _ = sshd
    monkeypatch.setenv("OCR_TUI_SSH", ssh)
    if kind == "missing":
        monkeypatch.setenv("OCR_TUI_AGENT", "/nonexistent/ocr-tui")
    else:
        script = tmp_path / "far.sh"
        script.write_text((OLD if kind == "old" else HOSTILE) + "\n")
        monkeypatch.setenv("OCR_TUI_AGENT", f"sh {script}")
    app = dashboard(str(here), f"localhost:{far}")
    async with app.run_test(size=SIZE) as pilot:
        await wait_until(pilot, lambda: app.links[NAME].state == "lost", timeout=30,
                         what="the far side said wrong")  # fmt: skip
        message = app.links[NAME].message
        want = {"missing": "not installed on localhost", "old": "older than this one",
                "hostile": "cut off"}[kind]  # fmt: skip
        assert want in message
        assert all(ord(c) >= 32 for c in message)
        await wait_until(pilot, lambda: f"here/{SIM}" in app.sessions,
                         what="the local sessions shown all the same")  # fmt: skip
