"""Through a real OpenSSH: an sshd started on a free high port as the test user, with keys made
for the test (CI installs openssh-server, `.ci/run`), and `ocr-tui status localhost:PATH` and
`watch` reaching the far side through `ssh` itself; a connection refused is one line. Skipped
where there is no sshd."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from conftest import HAS_SSHD

from ocr_tui.cli import main

pytestmark = pytest.mark.skipif(not HAS_SSHD, reason="no OpenSSH server here (.ci/run installs it)")


@pytest.fixture
def through_ssh(sshd, monkeypatch):
    ssh, _ = sshd
    monkeypatch.setenv("OCR_TUI_SSH", ssh)
    monkeypatch.setenv("OCR_TUI_AGENT", f"{sys.executable} -m ocr_tui")
    return ssh


def test_status_through_ssh(far, through_ssh, capsys):
    assert main(["status", str(far), "--json"]) == 0
    here = json.loads(capsys.readouterr().out)
    assert main(["status", f"localhost:{far}", "--json"]) == 0
    there = json.loads(capsys.readouterr().out)
    assert sorted(s["id"] for s in there["sessions"]) == sorted(s["id"] for s in here["sessions"])
    assert {s["host"] for s in there["sessions"]} == {"localhost"}


def test_watch_through_ssh_follows_a_change(far, through_ssh, tmp_path):
    root = tmp_path / "p"
    shutil.copytree(far, root, symlinks=True)
    p = subprocess.Popen([sys.executable, "-m", "ocr_tui", "watch", f"localhost:{root}"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        assert json.loads(p.stdout.readline())["type"] == "headers"  # waits for: the stream
        snap = json.loads(p.stdout.readline())  # waits for: a snapshot
        sid = snap["session"]["id"]
        (root / ".ocr" / "sessions" / sid / "notes.md").write_text("a new file\n")
        while True:  # waits for: the change, through ssh
            line = json.loads(p.stdout.readline())
            if line["type"] == "changed" and line["session"]["id"] == sid:
                break
    finally:
        p.terminate()
        assert p.wait(timeout=20) == 0


def test_a_refused_connection_is_one_line(far, sshd, monkeypatch, capsys):
    ssh, port = sshd
    monkeypatch.setenv("OCR_TUI_SSH", ssh.replace("ssh ", "ssh -p 1 ", 1))
    assert main(["status", f"localhost:{far}"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "localhost" in err
