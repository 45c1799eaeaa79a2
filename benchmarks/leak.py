"""Leak slope: memory after many changes. One session's state.json is replaced
(temp file + rename, as agents write it) 20,000 times, then `.ocr/data/ocr.db` (the whole
database exported to a temp file and renamed over it, as OCR's sql.js store saves; one
session's row changed), under `ocr-tui watch --jsonl` and under the dashboard in tmux. Each
change moves the session to the next phase and a new `updated_at`, and the next is written
once the output shows it (the `watch --jsonl` line, the list's row with its `n/8`): every
change is read, none is merged into another's batch.

The process's VmRSS (/proc/<pid>/status) is read after the first 1,000 changes and at the end;
the slope is the growth after the first 1,000, per 1,000 changes. Target: growth
after the first 1,000 <= 1 MB in total over 20,000 changes, i.e. <= 53.9 KB per 1,000.
`BENCH_LEAK_CHANGES=N` runs N changes instead (the target scales: the same slope).
A 10-session project (2 rounds x 4 reviewers each) of either store; the parse and result
caches off, as in the other on-screen figures."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks.common import figure, json_lines
from benchmarks.term import EXE, app_pane, row_of
from benchmarks.trees import REVIEW_PHASES, write_state

B = "8. leak slope"
CHANGES = int(os.environ.get("BENCH_LEAK_CHANGES", "20000"))
WARM = min(1000, CHANGES // 4)  # the first changes: start-up's own growth, not a slope
TARGET_KB = 1024 / 19  # 1 MB over the 19,000 changes after the first 1,000
TIMEOUT_S = 10.0  # per change; a change not seen in time is counted and the next written


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Project:
    """A 10-session project whose newest session is changed by `write(k)` (phase k % 8 + 1,
    `updated_at` k seconds after a start in the past)."""

    def __init__(self, store: str) -> None:
        from ocr_tui.formats.ocr.sim import build_history

        self.store = store
        self.root = Path(tempfile.mkdtemp(prefix="ocr-bench-leak-"))
        self.start = datetime.now(UTC) - timedelta(hours=7)
        ids = build_history(self.root, sessions=10, store=store, now=self.start)
        self.sid = ids[0]
        self.sdir = self.root / ".ocr" / "sessions" / self.sid
        self.db = self.root / ".ocr" / "data" / "ocr.db"
        self.con: sqlite3.Connection | None = None
        if store == "ocr.db":
            self.con = sqlite3.connect(":memory:", isolation_level=None)  # autocommit
            self.con.deserialize(self.db.read_bytes())
        self.write(0)

    def updated_at(self, k: int) -> str:
        return (self.start + timedelta(seconds=k)).strftime("%Y-%m-%dT%H:%M:%SZ")

    @staticmethod
    def phase(k: int) -> int:
        return k % len(REVIEW_PHASES) + 1

    def write(self, k: int) -> None:
        key, _ = REVIEW_PHASES[self.phase(k) - 1]
        at = self.updated_at(k)
        if self.con is None:
            write_state(self.sdir, status="active", current_phase=key,
                        phase_number=self.phase(k), updated_at=at)  # fmt: skip
            return
        self.con.execute(
            "UPDATE sessions SET status = 'active', current_phase = ?, phase_number = ?,"
            " updated_at = ? WHERE id = ?",
            (key, self.phase(k), at.replace("T", " ").rstrip("Z"), self.sid),
        )
        tmp = self.db.with_name(f"ocr.db.{os.getpid()}.tmp")
        tmp.write_bytes(self.con.serialize())
        os.replace(tmp, self.db)

    def close(self) -> None:
        if self.con is not None:
            self.con.close()
        shutil.rmtree(self.root, ignore_errors=True)


def run(project: Project, pid: int, seen: Callable[[int], bool]) -> dict:
    """Write CHANGES changes, each once `seen(k - 1)`; VmRSS after WARM and at the end."""
    samples: list[tuple[int, int]] = []
    missed = 0
    t0 = time.perf_counter()
    for k in range(1, CHANGES + 1):
        project.write(k)
        if not seen(k):
            missed += 1
        if k == WARM or k == CHANGES or k % max(1, CHANGES // 10) == 0:
            samples.append((k, rss_kb(pid)))
    took = time.perf_counter() - t0
    at_warm = next(kb for n, kb in samples if n == WARM)
    end = samples[-1][1]
    return {"warm": at_warm, "end": end, "samples": samples, "missed": missed, "took": took}


def under_watch(project: Project) -> dict:
    proc = subprocess.Popen(
        [EXE, "watch", str(project.root), "--jsonl"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "OCR_TUI_CACHE_DIR": "off"},
        bufsize=0,
    )
    read = json_lines(proc)

    def seen(k: int, timeout: float = TIMEOUT_S) -> bool:
        want = project.updated_at(k)
        for line in read(time.perf_counter() + timeout):
            s = line.get("session") or {}
            if s.get("id") == project.sid and s.get("updated_at") == want:
                return True
        return False

    try:
        if not seen(0, 120):
            raise RuntimeError("watch --jsonl never showed the session")
        return run(project, proc.pid, seen)
    finally:
        proc.terminate()
        proc.wait(5)


def under_dashboard(project: Project) -> dict:
    with app_pane(project.root) as pane:
        loaded = pane.wait(lambda s: "10 of 10 sessions" in s and "reading…" not in s, 120)
        if loaded is None:
            raise RuntimeError(f"the app never showed 10 sessions:\n{pane.capture()}")

        def seen(k: int, timeout: float = TIMEOUT_S) -> bool:
            want = f"{project.phase(k)}/8"
            got = pane.wait(lambda s: want in row_of(s, project.sid), timeout, 0.002)
            return got is not None

        if not seen(0, 60):
            raise RuntimeError(f"the app never showed the change:\n{pane.capture()}")
        return run(project, pane.pid, seen)


def main() -> None:
    print(f"# {CHANGES:,} changes each; VmRSS after the first {WARM:,} and at the end")
    for store, what in (("state.json", "state.json replaced"), ("ocr.db", "ocr.db replaced")):
        for name, under in (("watch --jsonl", under_watch), ("dashboard", under_dashboard)):
            project = Project(store)
            try:
                got = under(project)
            finally:
                project.close()
            grew = got["end"] - got["warm"]
            slope = grew / max(1, CHANGES - WARM) * 1000
            trace = " ".join(f"{n:,}: {kb / 1024:.1f}" for n, kb in got["samples"])
            print(
                f"#   {name}, {what}: {got['took']:.0f} s ({got['took'] / CHANGES * 1000:.1f} ms"
                f" a change), {got['missed']} not seen within {TIMEOUT_S:g} s; MB at {trace}"
            )
            figure(
                B,
                f"{name}: {what}, RSS per 1,000 changes",
                f"{slope:+.1f} KB ({grew / 1024:+.2f} MB after the first {WARM:,};"
                f" {got['end'] / 1024:.1f} MB at {CHANGES:,})",
                target=f"<= {TARGET_KB:.1f} KB (1 MB over 19,000)",
                ok=slope <= TARGET_KB and got["missed"] == 0,
            )


if __name__ == "__main__":
    main()
