"""Remote projects (issue 29), through a private OpenSSH on this machine (an sshd on a free
port of 127.0.0.1 as the user running the benchmarks, keys made for the run; skipped without
sshd): the dashboard in tmux, its far sides started by `ssh localhost ocr-tui agent --stdio`.

1. Change → screen: a state.json replaced (the row's `n/8` moves), TRIALS times, on a local
   project and on the same project opened as `localhost:PATH`; the ssh round trip (a `ping`
   request answered over an open connection) beside it. Target: remote ≤ 1.5× local + RTT.
2. 10 hosts × 1,000 sessions (10 remote projects, each a link to one 1,000-session history):
   the list shown (the first row) and every session listed, against one local project of
   10,000 (the same start-up figures as `startup`). Target: the list as fast.
3. Idle: the dashboard's own CPU (its ssh children not counted) over the window with the 10
   remote projects quiet, against one local project of 1,000. Target: ≤ 2×.

--quick: 10 × 100 against 1,000, a 10 s window.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import common
from benchmarks.common import figure, report, summary
from benchmarks.latency_tmux import SID, _phase_shown, _state, make_project
from benchmarks.term import Pane, cpu_seconds
from benchmarks.trees import history

B = "remote"
TRIALS = int(os.environ.get("BENCH_TRIALS", "20"))
CHANGE_MAX = 1.5  # remote median ≤ 1.5x local median + the round trip
IDLE_MAX = 2.0


def start_sshd(d: Path) -> tuple[subprocess.Popen, str] | None:
    """A private sshd as this user on a free port; (its process, the ssh command's words)."""
    sshd = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd") else None)
    if sshd is None or shutil.which("ssh") is None:
        return None
    os.chmod(d, 0o700)
    for name in ("host", "user"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / name)],
                       check=True)  # fmt: skip
    (d / "authorized_keys").write_text((d / "user.pub").read_text())
    os.chmod(d / "authorized_keys", 0o600)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    (d / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {d / 'host'}\n"
        f"AuthorizedKeysFile {d / 'authorized_keys'}\nPidFile {d / 'sshd.pid'}\n"
        "StrictModes no\nUsePAM no\nPasswordAuthentication no\nPermitRootLogin yes\n"
        "PubkeyAuthentication yes\nLogLevel ERROR\nMaxStartups 100\nMaxSessions 100\n"
    )
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen([sshd, "-D", "-e", "-f", str(d / "sshd_config")],
                            stderr=subprocess.DEVNULL)  # fmt: skip
    (d / "ssh_config").write_text(
        f"Host localhost\n  Port {port}\n  IdentityFile {d / 'user'}\n"
        "  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n  LogLevel ERROR\n"
    )
    ssh = f"ssh -F {d / 'ssh_config'}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:  # waits for: sshd to take connections
        probe = subprocess.run([*ssh.split(), "-o", "BatchMode=yes", "localhost", "true"],
                               capture_output=True)  # fmt: skip
        if probe.returncode == 0:
            return proc, ssh
        time.sleep(0.2)
    proc.terminate()
    return None


def remote_env(ssh: str) -> dict[str, str]:
    return {"OCR_TUI_SSH": ssh, "OCR_TUI_AGENT": f"{sys.executable} -m ocr_tui"}


def _with_env(paths: tuple[str, ...], env: dict[str, str]) -> Pane:
    from benchmarks.term import EXE

    base = {"OCR_TUI_CACHE_DIR": "off", "TERM": "tmux-256color", "COLORTERM": "truecolor",
            "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC"}  # fmt: skip
    return Pane([EXE, *paths], base | env)


def changes(p: Pane, root: Path) -> list[float]:
    """TRIALS state.json replacements of SID, the time until the pane shows each."""
    from benchmarks.term import row_of

    def row(screen: str, sid: str) -> str:  # (its id cell, or the id after a project's name)
        return row_of(screen, sid) or next(
            (ln for ln in screen.splitlines() if "tmuxbench" in ln and "│" not in ln), ""
        )

    if p.wait(lambda s: " 1/8 " in row(s, SID), 60) is None:
        raise RuntimeError(f"the app never showed the session:\n{p.capture()}")
    time.sleep(1.0)
    out, phase = [], 1
    for _ in range(TRIALS):
        time.sleep(0.05)
        phase = phase % 7 + 1
        t0 = _state(root, phase)
        seen = p.wait(_phase_shown(SID, phase, row), 5.0, interval=0.0005)
        if seen is not None:
            out.append((seen[0] - t0) * 1000)
    return out


def round_trip(ssh: str, root: Path) -> list[float]:
    """A `ping` request over one open connection, 20 times (ms)."""
    os.environ.update(remote_env(ssh))
    import dataclasses

    from ocr_tui.core.remote import RemoteLink, parse_remote

    spec = dataclasses.replace(
        parse_remote(f"localhost:{root}"), agent=f"{sys.executable} -m ocr_tui"
    )
    link = RemoteLink(spec)
    link.open()
    try:
        out = []
        for _ in range(20):
            t0 = time.perf_counter()
            link.request("ping")
            out.append((time.perf_counter() - t0) * 1000)
        return out
    finally:
        link.close()


def bench_change(ssh: str) -> None:
    root = make_project()
    try:
        with _with_env((str(root),), {}) as p:
            local = changes(p, root)
        _state(root, 1)  # (as the local trials began)
        with _with_env((f"localhost:{root}",), remote_env(ssh)) as p:
            far = changes(p, root)
        rtt = round_trip(ssh, root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    lo, fa, rt = summary(local)["median"], summary(far)["median"], summary(rtt)["median"]
    report("change -> screen, local project (ms)", local, bench=B)
    report("change -> screen, localhost:PATH over ssh (ms)", far, bench=B)
    report("ssh round trip: a ping answered (ms)", rtt, bench=B)
    limit = CHANGE_MAX * lo + rt
    figure(
        B,
        "remote change -> screen vs local",
        f"{fa:.1f} ms median ({fa / lo:.2f}x local)",
        baseline=f"local {lo:.1f} ms, round trip {rt:.2f} ms",
        target=f"<= {CHANGE_MAX}x local + RTT ({limit:.1f} ms)",
        ok=fa <= limit,
    )


def list_times(p: Pane, total: int, first: str) -> tuple[float, float]:
    """(the first row shown, every session read: all listed and the app's CPU quiet since)
    after the pane's start, in seconds."""
    count = f"{total:,} of {total:,} session"
    plain = f"{total} of {total} session"
    shown = p.wait(lambda s: first in s, 900)
    listed = p.wait(lambda s: (count in s or plain in s) and "reading…" not in s, 900)
    if shown is None or listed is None:
        raise RuntimeError(f"never listed {total}:\n{p.capture()}")
    done = settled(p.pid)
    return shown[0] - p.started, max(done, listed[0]) - p.started


def settled(pid: int, window: float = 3.0, busy: float = 0.05, timeout: float = 900) -> float:
    """When the app went quiet: the start of the first `window` seconds in which it used less
    than `busy` of a core (its own CPU: the far sides and their ssh are other processes; it is
    busy as long as they send it sessions they read)."""
    samples = [(time.perf_counter(), cpu_seconds(pid))]
    deadline = samples[0][0] + timeout
    while samples[-1][0] < deadline:
        time.sleep(0.25)
        samples.append((time.perf_counter(), cpu_seconds(pid)))
        t_now, c_now = samples[-1]
        old = [x for x in samples if t_now - x[0] >= window]
        if old and (c_now - old[-1][1]) / (t_now - old[-1][0]) < busy:
            return old[-1][0]
    return float("nan")


def idle_cpu(p: Pane, window: float) -> float:
    time.sleep(2.0)
    c0, t0 = cpu_seconds(p.pid), time.perf_counter()
    time.sleep(window)
    return (cpu_seconds(p.pid) - c0) / (time.perf_counter() - t0) * 100


def bench_hosts(ssh: str) -> None:
    per, hosts = (100, 10) if common.QUICK else (1000, 10)
    window = 10.0 if common.QUICK else 30.0
    one, ids = history(per)
    big, big_ids = history(per * hosts)
    links = Path(tempfile.mkdtemp(prefix="ocr-bench-hosts-"))
    try:
        for i in range(hosts):
            (links / f"h{i}").symlink_to(one)
        paths = [f"localhost:{links / f'h{i}'}" for i in range(hosts)]
        newest = ids[0].split("-", 3)[-1]
        with _with_env(tuple(paths), remote_env(ssh)) as p:
            far_first, far_all = list_times(p, per * hosts, newest)
            far_idle = idle_cpu(p, window)
        with _with_env((str(big),), {}) as p:
            big_first, big_all = list_times(p, per * hosts, big_ids[0].split("-", 3)[-1])
        with _with_env((str(one),), {}) as p:
            list_times(p, per, newest)
            one_idle = idle_cpu(p, window)
    finally:
        shutil.rmtree(links, ignore_errors=True)
    n = per * hosts
    figure(B, f"{hosts} hosts x {per:,}: list shown", f"{far_first:.2f} s",
           baseline=f"one local project of {n:,}: {big_first:.2f} s",
           target="as fast (<= 1.0x)", ok=far_first <= big_first)  # fmt: skip
    figure(B, f"{hosts} hosts x {per:,}: every session read", f"{far_all:.2f} s",
           baseline=f"one local project of {n:,}: {big_all:.2f} s")  # fmt: skip
    ratio = far_idle / one_idle if one_idle else float("inf")
    figure(B, f"idle CPU, {hosts} quiet hosts, {window:.0f} s",
           f"{far_idle:.2f} % of a core ({ratio:.2f}x)",
           baseline=f"one local project of {per:,}: {one_idle:.2f} %",
           target=f"<= {IDLE_MAX}x", ok=ratio <= IDLE_MAX)  # fmt: skip


def main() -> None:
    d = Path(tempfile.mkdtemp(prefix="ocr-bench-sshd-"))
    started = start_sshd(d)
    if started is None:
        print("# remote: no OpenSSH server here (apt install openssh-server): skipped")
        return
    proc, ssh = started
    try:
        print(f"# remote projects through a private sshd ({TRIALS} trials a change)")
        bench_change(ssh)
        bench_hosts(ssh)
    finally:
        proc.terminate()
        proc.wait(10)
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
