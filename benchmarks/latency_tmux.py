"""Change-to-screen latency in a real terminal: the dashboard runs in tmux; we make a change
and poll `tmux capture-pane` (through a control-mode client, ~0.1 ms a capture) until the pane
shows the new value. 50 trials each of: state.json replaced (the phase moves: the row's `n/8`
changes), a reviewer file added (the row's reviewer count goes up), ocr.db replaced (the db
session's phase moves). Baseline: latency.py's loop that re-reads everything once a second."""

from __future__ import annotations

import os
import re
import shutil
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import latency
from benchmarks.common import figure, report, summary
from benchmarks.term import Pane, app_pane, cpu_seconds
from benchmarks.term import row_of as term_row_of
from benchmarks.trees import REVIEW_PHASES, iso, write_state

TRIALS = latency.TRIALS
SID = "2026-11-20-tmuxbench"
DB_SID = "2026-11-20-tmuxdb"
TIMEOUT_S = 5.0


def _db(root: Path, phase: int) -> float:
    db = root / ".ocr" / "data" / "ocr.db"
    tmp = db.with_name(f"ocr.db.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    con = sqlite3.connect(tmp)
    con.execute(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, branch TEXT, status TEXT, "
        "workflow_type TEXT, current_phase TEXT, phase_number INT, current_round INT, "
        "current_map_run INT, started_at TEXT, updated_at TEXT, session_dir TEXT)"
    )
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
    key, _ = REVIEW_PHASES[phase - 1]
    con.execute(
        "INSERT INTO sessions VALUES (?, 'tmuxdb', 'active', 'review', ?, ?, 1, 1, ?, ?, '')",
        (DB_SID, key, phase, now, now),
    )
    con.commit()
    con.close()
    t0 = time.perf_counter()
    os.replace(tmp, db)
    return t0


def _state(root: Path, phase: int) -> float:
    key, _ = REVIEW_PHASES[phase - 1]
    now = iso(datetime.now(UTC))
    return write_state(
        root / ".ocr" / "sessions" / SID,
        current_phase=key,
        phase_number=phase,
        status="active",
        workflow_type="review",
        updated_at=now,
    )


def _review(root: Path, n: int) -> float:
    rdir = root / ".ocr" / "sessions" / SID / "rounds" / "round-1" / "reviews"
    rdir.mkdir(parents=True, exist_ok=True)
    tmp = rdir / f".r{n}.tmp"
    tmp.write_text(f"## Findings\n### Finding 1: t{n}\n- **Severity**: High\n")
    t0 = time.perf_counter()
    os.replace(tmp, rdir / f"bench-{n}.md")
    return t0


Row = Callable[[str, str], str]  # (screen, session id) -> that session's line


def _phase_shown(sid: str, phase: int, row_of: Row):
    return lambda screen: f" {phase}/8 " in row_of(screen, sid)


def _reviewers_shown(count: int, row_of: Row):
    pattern = re.compile(r"\bR1\s+(\d+)\b")

    def cond(screen: str) -> bool:
        m = pattern.search(row_of(screen, SID))
        return m is not None and int(m.group(1)) == count

    return cond


def make_project() -> Path:
    root = Path(tempfile.mkdtemp(prefix="ocr-bench-tmux-"))
    (root / ".ocr" / "sessions" / DB_SID).mkdir(parents=True)
    (root / ".ocr" / "data").mkdir()
    (root / ".ocr" / "sessions" / SID / "rounds" / "round-1" / "reviews").mkdir(parents=True)
    _state(root, 1)
    _db(root, 1)
    return root


def floor_pane(root: Path) -> Pane:
    """The floor (`benchmarks.floor_app`): the smallest Textual app showing the same values."""
    env = {"TERM": "tmux-256color", "COLORTERM": "truecolor"}
    env |= {"LANG": "C.UTF-8", "LC_ALL": "C.UTF-8"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    return Pane([sys.executable, "-m", "benchmarks.floor_app", str(root)], env)


def _floor_row(screen: str, sid: str) -> str:
    return next((line for line in screen.splitlines() if line.strip().startswith(sid)), "")


# CPU seconds the app used per change, by kind (filled by `bench_tmux`: (ocr-tui, floor)).
CPU_PER_CHANGE: dict[bool, dict[str, float]] = {}
# `ocr progress` (OCR's own CLI, 1.4) took ~10 ms of CPU per change, measured side by side when
# the target was set; it is not built here (npm): the figure is the target's yardstick.
UPSTREAM_CPU_MS = 10.0


def bench_tmux(root: Path, floor: bool = False) -> dict[str, list[float]]:
    """`TRIALS` of each change, the time until the pane shows it: ocr-tui's list, or (`floor`)
    the floor app's line of the same session. Also the app's CPU per change of each kind
    (`CPU_PER_CHANGE`: its CPU over the trials, less what it uses at rest over as long)."""
    results: dict[str, list[float]] = {k: [] for k in ("state", "review", "db")}
    cpu = CPU_PER_CHANGE.setdefault(floor, {})
    row_of: Row = _floor_row if floor else term_row_of
    with floor_pane(root) if floor else app_pane(root) as pane:
        if pane.wait(lambda s: " 1/8 " in row_of(s, SID) and " 1/8 " in row_of(s, DB_SID)) is None:
            raise RuntimeError(f"the app never showed both sessions:\n{pane.capture()}")
        phase = {"state": 1, "db": 1}
        time.sleep(1.0)
        c0, t0 = cpu_seconds(pane.pid), time.perf_counter()
        time.sleep(2.0)
        rest = (cpu_seconds(pane.pid) - c0) / (time.perf_counter() - t0)  # CPU-s per second
        for kind in ("state", "review", "db"):
            c0, w0 = cpu_seconds(pane.pid), time.perf_counter()
            for n in range(1, TRIALS + 1):
                time.sleep(0.03)  # let the previous change settle: trials are independent
                if kind == "review":
                    t0, cond = _review(root, n), _reviewers_shown(n, row_of)
                else:
                    phase[kind] = phase[kind] % 7 + 1
                    if kind == "state":
                        t0, cond = _state(root, phase[kind]), _phase_shown(SID, phase[kind], row_of)
                    else:
                        t0, cond = _db(root, phase[kind]), _phase_shown(DB_SID, phase[kind], row_of)
                seen = pane.wait(cond, TIMEOUT_S, interval=0.0005)
                if seen is not None:
                    results[kind].append((seen[0] - t0) * 1000)
            time.sleep(0.1)  # the last change's frame is written
            used = cpu_seconds(pane.pid) - c0 - rest * (time.perf_counter() - w0)
            cpu[kind] = max(0.0, used) / TRIALS * 1000
    return results


NAMES = {"state": "state.json replaced", "review": "reviewer file added", "db": "ocr.db replaced"}


# ocr-tui against the floor: median <= 1.25x, p95 <= 1.5x, and <= 25 / 60 ms.
FLOOR_MEDIAN, FLOOR_P95 = 1.25, 1.5
CPU_FLOOR_MAX = 2.0  # CPU per change: within 2x the floor app's (issue 27)
MEDIAN_MAX_MS, P95_MAX_MS = 25, 60


def main() -> None:
    print(f"# latency in tmux: write -> pane shows it ({TRIALS} trials each)")
    runs = {}
    for floor in (True, False):  # the floor first, then ocr-tui: the same changes, each on
        root = make_project()  # a project of its own as it was
        try:
            runs[floor] = bench_tmux(root, floor=floor)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    floor, results = runs[True], runs[False]
    base = latency.baseline()
    for kind, times in results.items():
        report(
            f"tmux pane, {NAMES[kind]}",
            times,
            baseline_ms=base,
            median_max=MEDIAN_MAX_MS,
            p95_max=P95_MAX_MS,
            bench="1. latency, on screen (tmux)",
            expected=TRIALS,
        )
        report_floor(kind, times, floor[kind])
        mine, least = CPU_PER_CHANGE[False][kind], CPU_PER_CHANGE[True][kind]
        figure(
            "1. latency, CPU per change",
            f"CPU per change, {NAMES[kind]}",
            f"{mine:.1f} ms",
            baseline=f"the floor app: {least:.1f} ms ({mine / least if least else 0:.1f}x);"
            f" ocr progress ~{UPSTREAM_CPU_MS:g} ms (issue 14)",
            target=f"<= {CPU_FLOOR_MAX:g}x the floor's",
            ok=least > 0 and mine <= CPU_FLOOR_MAX * least,
        )


def report_floor(kind: str, times: list[float], floor: list[float]) -> None:
    """ocr-tui's median and p95 against the floor app's for the same change."""
    if not times or not floor:
        figure("1. latency vs the floor", f"floor ratio, {NAMES[kind]}", "no samples")
        return
    s, f = summary(times), summary(floor)
    med, p95 = s["median"] / f["median"], s["p95"] / f["p95"]
    figure(
        "1. latency vs the floor",
        f"floor ratio, {NAMES[kind]}",
        f"median {med:.2f}x  p95 {p95:.2f}x",
        baseline=f"floor median {f['median']:.1f} ms, p95 {f['p95']:.1f} ms",
        target=f"median <= {FLOOR_MEDIAN}x, p95 <= {FLOOR_P95}x",
        ok=med <= FLOOR_MEDIAN and p95 <= FLOOR_P95,
    )


if __name__ == "__main__":
    main()
