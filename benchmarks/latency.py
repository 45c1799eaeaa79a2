"""Change-to-output latency, headless: `ocr-tui watch --jsonl` vs a once-a-second re-read loop.

For each kind of change (state.json replaced, a reviewer file added, ocr.db replaced) we write
the change, then time until the watcher prints a line that shows it. The baseline is what a
naive tool does: re-read everything once a second and notice the difference.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.common import json_lines, report

TRIALS = int(os.environ.get("BENCH_TRIALS", "50"))
SID = "2026-11-22-bench"
DB_SID = "2026-11-22-dbbench"


def _write_state(sdir: Path, n: int) -> float:
    tmp = sdir / "state.json.tmp"
    tmp.write_text(
        json.dumps(
            {
                "current_phase": "reviews",
                "status": "active",
                "updated_at": f"2026-11-22T10:{n // 60 % 60:02d}:{n % 60:02d}Z",
                "workflow_type": "review",
            }
        )
    )
    t0 = time.perf_counter()
    os.replace(tmp, sdir / "state.json")
    return t0


def _write_review(sdir: Path, n: int) -> float:
    rdir = sdir / "rounds" / "round-1" / "reviews"
    rdir.mkdir(parents=True, exist_ok=True)
    tmp = rdir / f".r{n}.tmp"
    tmp.write_text(f"## Findings\n### Finding 1: t{n}\n- **Severity**: High\n")
    t0 = time.perf_counter()
    os.replace(tmp, rdir / f"bench-{n}.md")
    return t0


def _write_db(db: Path, n: int) -> float:
    tmp = db.with_name(f"ocr.db.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    con = sqlite3.connect(tmp)
    con.execute(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, branch TEXT, status TEXT, "
        "workflow_type TEXT, current_phase TEXT, phase_number INT, current_round INT, "
        "current_map_run INT, started_at TEXT, updated_at TEXT, session_dir TEXT)"
    )
    con.execute(
        "INSERT INTO sessions VALUES (?, 'dbbench', 'active', 'review', 'reviews', 4, 1,"
        " 1, '2026-11-22 10:00:00', ?, '')",
        (DB_SID, f"2026-11-22 11:{n // 60 % 60:02d}:{n % 60:02d}"),
    )
    con.commit()
    con.close()
    t0 = time.perf_counter()
    os.replace(tmp, db)
    return t0


def _matches(kind: str, n: int, line: dict) -> bool:
    s = line.get("session") or {}
    if kind == "state":
        return s.get("id") == SID and (s.get("updated_at") or "").endswith(
            f"10:{n // 60 % 60:02d}:{n % 60:02d}Z"
        )
    if kind == "review":
        rounds = s.get("rounds") or []
        return s.get("id") == SID and any(
            r["name"] == f"bench-{n}" for rd in rounds for r in rd["reviewers"]
        )
    return s.get("id") == DB_SID and (s.get("updated_at") or "").endswith(
        f"11:{n // 60 % 60:02d}:{n % 60:02d}Z"
    )


def make_project() -> Path:
    root = Path(tempfile.mkdtemp(prefix="ocr-bench-lat-"))
    sdir = root / ".ocr" / "sessions" / SID
    sdir.mkdir(parents=True)
    (root / ".ocr" / "sessions" / DB_SID).mkdir()
    (root / ".ocr" / "data").mkdir()
    _write_state(sdir, 0)
    _write_db(root / ".ocr" / "data" / "ocr.db", 0)
    return root


WRITERS = {
    "state.json replaced": ("state", lambda root, n: _write_state(root / ".ocr/sessions" / SID, n)),
    "reviewer file added": (
        "review",
        lambda root, n: _write_review(root / ".ocr/sessions" / SID, n),
    ),
    "ocr.db replaced": ("db", lambda root, n: _write_db(root / ".ocr/data/ocr.db", n)),
}


def bench_watch(root: Path) -> dict[str, list[float]]:
    exe = Path(sys.executable).with_name("ocr-tui")
    proc = subprocess.Popen(
        [str(exe), "watch", str(root), "--jsonl"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        bufsize=0,
    )
    read_lines = json_lines(proc)

    try:
        # wait for the initial snapshot of both sessions
        seen = set()
        for line in read_lines(time.perf_counter() + 10):
            seen.add((line.get("session") or {}).get("id"))
            if {SID, DB_SID} <= seen:
                break
        results: dict[str, list[float]] = {}
        n = 1
        for name, (kind, write) in WRITERS.items():
            times = []
            for _ in range(TRIALS):
                n += 1
                time.sleep(0.03)  # let the previous batch settle: trials are independent
                t0 = write(root, n)  # the moment the new version appears (the rename)
                for line in read_lines(t0 + 5):
                    if _matches(kind, n, line):
                        times.append((time.perf_counter() - t0) * 1000)
                        break
            results[name] = times
        return results
    finally:
        proc.terminate()
        proc.wait(5)


def bench_baseline(root: Path, trials: int) -> list[float]:
    """A loop that re-reads everything once a second (no watcher)."""
    from ocr_tui.core.engine import Engine
    from ocr_tui.core.project import Project

    engine = Engine(Project(root))
    stop = threading.Event()
    seen: dict[int, float] = {}
    expected = {"n": -1}

    def loop():
        while not stop.is_set():
            views = {v.id: v for v in engine.scan()}
            v = views.get(SID)
            n = expected["n"]
            if (
                v is not None
                and n >= 0
                and (v.updated_at or "").endswith(f"10:{n // 60 % 60:02d}:{n % 60:02d}Z")
                and n not in seen
            ):
                seen[n] = time.perf_counter()
            stop.wait(1.0)

    th = threading.Thread(target=loop, daemon=True)
    th.start()
    times = []
    sdir = root / ".ocr/sessions" / SID
    for i in range(trials):
        n = 10_000 + i
        expected["n"] = n
        t0 = _write_state(sdir, n)
        while n not in seen and time.perf_counter() - t0 < 3:
            time.sleep(0.002)
        if n in seen:
            times.append((seen[n] - t0) * 1000)
        time.sleep(random.uniform(0.0, 1.0))  # writes land anywhere in the poll period
    stop.set()
    th.join()
    return times


_BASELINE: list[float] = []


def baseline() -> list[float]:
    """The once-a-second re-read loop's latency, measured once per run (shared with the tmux
    latency benchmark)."""
    if not _BASELINE:
        root = make_project()
        try:
            _BASELINE.extend(bench_baseline(root, max(10, TRIALS // 5)))
        finally:
            shutil.rmtree(root, ignore_errors=True)
        report("baseline: re-read everything once a second", _BASELINE, bench="latency")
    return _BASELINE


def main() -> None:
    root = make_project()
    print(f"# latency: write -> watch --jsonl line ({TRIALS} trials each)")
    try:
        results = bench_watch(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    base = baseline()
    for name, times in results.items():
        report(
            f"watch --jsonl, {name}",
            times,
            baseline_ms=base,
            median_max=15,
            p95_max=50,
            bench="1. latency, headless",
            expected=TRIALS,
        )


if __name__ == "__main__":
    main()
