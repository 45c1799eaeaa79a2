"""Through a real OpenSSH: an sshd started on a free high port as the test user, with keys made
for the test (CI installs openssh-server, `.ci/run`), and `ocr-tui status localhost:PATH` and
`watch` reaching the far side through `ssh` itself; a connection refused is one line. Skipped
where there is no sshd."""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ocr_tui.cli import main
from ocr_tui.formats.ocr.sim import Simulator

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None)
pytestmark = pytest.mark.skipif(SSHD is None or shutil.which("ssh") is None,
                                reason="no OpenSSH server here (.ci/run installs it)")  # fmt: skip


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def sshd(tmp_path_factory):
    d = tmp_path_factory.mktemp("sshd")
    os.chmod(d, 0o700)
    for name in ("host", "user"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / name)],
                       check=True)  # fmt: skip
    (d / "authorized_keys").write_text((d / "user.pub").read_text())
    os.chmod(d / "authorized_keys", 0o600)
    port = free_port()
    (d / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {d / 'host'}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'}\nPidFile {d / 'sshd.pid'}\n"
        "StrictModes no\nUsePAM no\nPasswordAuthentication no\nPermitRootLogin yes\n"
        "PubkeyAuthentication yes\nLogLevel ERROR\n"
    )
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)  # its privilege separation directory
    proc = subprocess.Popen([SSHD, "-D", "-e", "-f", str(d / "sshd_config")],
                            stderr=subprocess.PIPE)  # fmt: skip
    (d / "ssh_config").write_text(
        f"Host localhost\n  Port {port}\n  IdentityFile {d / 'user'}\n"
        "  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n"
    )
    ssh = f"ssh -F {d / 'ssh_config'}"
    deadline = time.monotonic() + 20
    while True:  # waits for: sshd to take connections
        probe = subprocess.run([*ssh.split(), "-o", "BatchMode=yes", "localhost", "true"],
                               capture_output=True, text=True)  # fmt: skip
        if probe.returncode == 0:
            break
        assert proc.poll() is None, proc.stderr.read().decode()
        assert time.monotonic() < deadline, f"sshd did not answer: {probe.stderr}"
        time.sleep(0.2)
    yield ssh, port
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def far(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("far")
    start = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)
    Simulator(root, store="ocr.db", seed=7, start=start, speed=math.inf, history=2).setup()
    return root


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
