"""Suite-wide isolation: no test reads or writes the user's cache directory, state directory
(the marks' journal) or config file."""

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _no_user_cache(monkeypatch, tmp_path_factory):
    monkeypatch.setenv("OCR_TUI_CACHE_DIR", "off")
    monkeypatch.setenv("OCR_TUI_CONFIG", "off")
    monkeypatch.setenv("OCR_TUI_STATE_DIR", str(tmp_path_factory.mktemp("state")))
    monkeypatch.delenv("COLUMNS", raising=False)  # `status` fits its table to $COLUMNS


# -- a real OpenSSH (issue 29): tests/test_remote_sshd.py, tests/ui/test_remote_sshd_dashboard.py

SSHD = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None)
HAS_SSHD = SSHD is not None and shutil.which("ssh") is not None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def sshd(tmp_path_factory):
    """An OpenSSH server on a free port of 127.0.0.1 as the test user, with keys made for the
    test: `(ssh command words, port)`; `OCR_TUI_SSH` takes the words."""
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
    """A simulated project with ocr.db and two closed sessions of history, one per test module:
    the far side of the remote tests (issue 29)."""
    import math
    from datetime import UTC, datetime

    from ocr_tui.formats.ocr.sim import Simulator

    root = tmp_path_factory.mktemp("far")
    start = datetime(2026, 3, 10, 12, 0, 0, tzinfo=UTC)
    Simulator(root, store="ocr.db", seed=7, start=start, speed=math.inf, history=2).setup()
    return root
