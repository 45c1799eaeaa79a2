"""Cost of one ocr.db rewrite with 10 / 1,000 / 10,000 sessions in the database (--quick: 10 /
1,000).

The project is `db_tree.db_history(n)`: n closed sessions in ocr.db. A live session of our own
is added (its directory and its rows: session, `session_created` event, agent command); then,
TRIALS times, the change OCR's CLI makes at a phase transition is written as OCR writes it
(the whole database exported to `ocr.db.<pid>.tmp`, renamed over ocr.db): the session's row
moves to the next phase (`updated_at` with it), a `phase_transition` event is appended, its
command's heartbeat is renewed. Measured: the CPU the reader spends per change (its utime +
stime from /proc over the trials, less its CPU at rest over as long), `ocr-tui watch --jsonl`
(until the line with the new phase is printed) and the dashboard in tmux (until the row shows
`n/8`). Target: 10,000 sessions cost at most 1.2x what 10 do. The cached history is left as it
was (its ocr.db written back, our session's directory removed). BENCH_DB_SIZES (e.g. `10,1000`)
and BENCH_DB_READERS (`watch` or `dashboard`) pick what runs.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import common
from benchmarks.common import figure, report
from benchmarks.db_tree import db_history
from benchmarks.term import EXE, app_pane, cpu_seconds, row_of
from benchmarks.trees import REVIEW_PHASES

TRIALS = int(os.environ.get("BENCH_TRIALS", "30"))
SID = "2026-11-02-dbcost-live"
B = "3. one ocr.db change"
TIMEOUT_S = 10.0


def _ts() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")


class Writer:
    """ocr.db held in memory and written whole, as OCR's sql.js writer does."""

    def __init__(self, root: Path) -> None:
        self.path = root / ".ocr" / "data" / "ocr.db"
        self.original = self.path.read_bytes()
        self.con = sqlite3.connect(":memory:", isolation_level=None)
        self.con.deserialize(self.original)
        self.phase = 1
        now = _ts()
        self.con.execute(
            "INSERT INTO sessions (id, branch, status, workflow_type, current_phase, "
            "phase_number, current_round, current_map_run, started_at, updated_at, "
            "session_dir) VALUES (?, 'dbcost', 'active', 'review', 'context', 1, 1, 1, ?, ?, ?)",
            (SID, now, now, f".ocr/sessions/{SID}"),
        )
        self.event("session_created", now)
        self.con.execute(
            "INSERT INTO command_executions (command, args, started_at, pid, uid, workflow_id, "
            "persona, last_heartbeat_at) VALUES ('review', ?, ?, ?, ?, ?, 'orchestrator', ?)",
            (f"--session {SID}", now, os.getpid(), f"bench-{SID}", SID, now),
        )
        (root / ".ocr" / "sessions" / SID).mkdir(exist_ok=True)
        self.save()

    def event(self, kind: str, now: str) -> None:
        key, _ = REVIEW_PHASES[self.phase - 1]
        self.con.execute(
            "INSERT INTO orchestration_events (session_id, event_type, phase, phase_number, "
            "round, created_at) VALUES (?, ?, ?, ?, 1, ?)",
            (SID, kind, key, self.phase, now),
        )

    def step(self) -> tuple[float, int]:
        """The next phase (2..7, round and round); returns (perf_counter at the rename, it)."""
        self.phase = self.phase % 6 + 2
        key, _ = REVIEW_PHASES[self.phase - 1]
        now = _ts()
        self.con.execute(
            "UPDATE sessions SET current_phase = ?, phase_number = ?, updated_at = ? WHERE id = ?",
            (key, self.phase, now, SID),
        )
        self.event("phase_transition", now)
        self.con.execute(
            "UPDATE command_executions SET last_heartbeat_at = ? WHERE workflow_id = ?", (now, SID)
        )
        return self.save(), self.phase

    def save(self, data: bytes | None = None) -> float:
        tmp = self.path.with_name(f"ocr.db.{os.getpid()}.tmp")
        tmp.write_bytes(self.con.serialize() if data is None else data)
        t0 = time.perf_counter()
        os.replace(tmp, self.path)
        return t0

    def restore(self, root: Path) -> None:
        self.save(self.original)
        self.con.close()
        shutil.rmtree(root / ".ocr" / "sessions" / SID, ignore_errors=True)


def _rest(pid: int, seconds: float = 2.0) -> float:
    """CPU-seconds per second the process uses at rest."""
    c0, t0 = cpu_seconds(pid), time.perf_counter()
    time.sleep(seconds)
    return (cpu_seconds(pid) - c0) / (time.perf_counter() - t0)


def _quiet(pid: int, timeout: float = 900.0) -> None:
    """Until the process's CPU is at rest (its start-up done)."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline and _rest(pid, 1.0) > 0.05:
        pass


class Lines:
    """A process's stdout read to the end as it comes (a thread): what it prints is never left
    in the pipe. (Read only until the line wanted, the rest of the start-up's 10,000 snapshot
    lines stayed in the pipe, the watch blocked on it, looked at rest, and printed them during
    the trials: their CPU was counted as the changes', 41.5 ms a change at 10,000.)"""

    def __init__(self, stream) -> None:
        self.lines: list[tuple[float, bytes]] = []  # (perf_counter when read, line)
        self._cond = threading.Condition()
        self._stream = stream
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        buf = b""
        while chunk := os.read(self._stream.fileno(), 1 << 20):
            now = time.perf_counter()
            *done, buf = (buf + chunk).split(b"\n")
            with self._cond:
                self.lines += [(now, line) for line in done]
                self._cond.notify_all()

    def until(self, pred, start: int, deadline: float) -> tuple[float | None, int]:
        """(when the first line from `start` on that `pred` holds was read, the index after
        it); (None, where it stopped) at `deadline`."""
        i = start
        with self._cond:
            while True:
                while i < len(self.lines):
                    i += 1
                    if pred(self.lines[i - 1][1]):
                        return self.lines[i - 1][0], i
                left = deadline - time.perf_counter()
                if left <= 0:
                    return None, i
                self._cond.wait(left)


def watch_jsonl(root: Path, writer: Writer) -> tuple[list[float], float]:
    """(write -> line latencies, CPU ms per change) of `watch --jsonl`."""
    proc = subprocess.Popen(
        [EXE, "watch", str(root), "--jsonl"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        bufsize=0,
        env={**os.environ, "OCR_TUI_CACHE_DIR": "off"},
    )
    out = Lines(proc.stdout)
    try:
        marker = f'"id":"{SID}"'.encode()
        if out.until(lambda line: marker in line, 0, time.perf_counter() + 900)[0] is None:
            raise RuntimeError("watch --jsonl never printed the bench session")
        _quiet(proc.pid)  # every snapshot line printed and read
        rest = _rest(proc.pid)
        times = []
        at = len(out.lines)
        c0, w0 = cpu_seconds(proc.pid), time.perf_counter()
        for _ in range(TRIALS):
            time.sleep(0.05)
            t0, phase = writer.step()
            want = f'"phase_number":{phase},'.encode()
            wanted = lambda line, w=want: marker in line and w in line  # noqa: E731
            seen, at = out.until(wanted, at, t0 + TIMEOUT_S)
            if seen is not None:
                times.append((seen - t0) * 1000)
        time.sleep(0.1)
        used = cpu_seconds(proc.pid) - c0 - rest * (time.perf_counter() - w0)
        return times, max(0.0, used) / TRIALS * 1000
    finally:
        proc.terminate()
        proc.wait(10)


def dashboard(root: Path, writer: Writer) -> tuple[list[float], float]:
    """(write -> pane latencies, CPU ms per change) of the dashboard in tmux."""
    with app_pane(root) as pane:
        shown = pane.wait(lambda s: f" {writer.phase}/8 " in row_of(s, SID), 900)
        if shown is None:
            raise RuntimeError(f"the dashboard never showed the bench session:\n{pane.capture()}")
        _quiet(pane.pid)
        rest = _rest(pane.pid)
        times = []
        c0, w0 = cpu_seconds(pane.pid), time.perf_counter()
        for _ in range(TRIALS):
            time.sleep(0.05)
            t0, phase = writer.step()
            seen = pane.wait(lambda s, p=phase: f" {p}/8 " in row_of(s, SID), TIMEOUT_S, 0.0005)
            if seen is not None:
                times.append((seen[0] - t0) * 1000)
        time.sleep(0.1)
        used = cpu_seconds(pane.pid) - c0 - rest * (time.perf_counter() - w0)
        return times, max(0.0, used) / TRIALS * 1000


def main() -> None:
    sizes = [10, 1000] if common.QUICK else [10, 1000, 10_000]
    sizes = [int(s) for s in os.environ.get("BENCH_DB_SIZES", "").split(",") if s] or sizes
    readers = {"watch --jsonl": watch_jsonl, "dashboard": dashboard}
    picked = os.environ.get("BENCH_DB_READERS", "")  # e.g. "dashboard": that one alone
    readers = {k: v for k, v in readers.items() if not picked or k.split()[0] in picked}
    cpu: dict[str, dict[int, float]] = {what: {} for what in readers}
    for n in sizes:
        root, _ = db_history(n)
        for what, run in readers.items():
            writer = Writer(root)
            try:
                times, per_change = run(root, writer)
            finally:
                writer.restore(root)
            report(f"{n:>6} sessions in ocr.db: write -> {what}", times, bench=B, expected=TRIALS)
            figure(B, f"{n:>6} sessions in ocr.db: {what} CPU per change", f"{per_change:.1f} ms")
            cpu[what][n] = per_change
    small, big = sizes[0], sizes[-1]
    for what, by_size in cpu.items():
        ratio = by_size[big] / by_size[small] if by_size[small] else float("inf")
        figure(
            B,
            f"{what}: CPU per ocr.db change at {big} / at {small}",
            f"{ratio:.2f}x ({by_size[big]:.1f} vs {by_size[small]:.1f} ms)",
            target="<= 1.2x",
            ok=ratio <= 1.2,
        )


if __name__ == "__main__":
    main()
