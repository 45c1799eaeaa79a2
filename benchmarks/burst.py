"""Burst: the simulator plays at 100x speed (looping: a new live session after each close) for
10 s against the dashboard open in tmux (a real terminal, not Pilot: it measures what a person
sees, through the same capture-pane polling as the latency benchmark).

Meanwhile keys are pressed one at a time, each as soon as the previous one showed: `s` (cycle
the sort: the filter bar changes) alternating with `j`/`k` (move the cursor: the highlighted
row changes, read from the pane's colours); each is timed until the pane reflects it.
Target: p95 <= 100 ms.
Afterwards, once the app is quiet, every session of a fresh `ocr-tui status --json` must be on
screen with the same phase n/N, round, reviewer count and findings, and the filter bar must
count the same number of sessions. Baseline: the same keys with the simulator stopped."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.common import figure, report
from benchmarks.term import ENV, EXE, Pane, app_pane, highlighted_row, row_of
from ocr_tui.formats.ocr.sim import Simulator

B = "5. burst"
SECONDS = 10.0
SORTS = ["last activity", "start time", "name"]
SORT = re.compile(r"sort: ([a-z ]+?) ·")
ROW = re.compile(r" (\d+)/(\d+) .*?(?:([RM]\d+)|—)\s+(\d+|—)\s+(\d+|—)")


def press_keys(pane: Pane, until: float) -> tuple[list[float], list[float], int]:
    """(sort-key latencies, cursor-key latencies, timeouts) until perf_counter() >= until."""
    sort_ms: list[float] = []
    cursor_ms: list[float] = []
    timeouts = 0
    k = 0
    down = True
    while time.perf_counter() < until:
        k += 1
        if k % 2:
            m = SORT.search(pane.capture())
            now = SORTS.index(m.group(1)) if m and m.group(1) in SORTS else 0
            want = f"sort: {SORTS[(now + 1) % 3]} "
            t0 = pane.keys("s")
            seen = pane.wait(lambda s, w=want: w in s, 2.0, interval=0.0005)
            out = sort_ms
        else:
            before = highlighted_row(pane)
            t0 = pane.keys("j" if down else "k")
            down = not down
            seen = None
            deadline = t0 + 2.0
            while time.perf_counter() < deadline:
                if highlighted_row(pane) not in ("", before):
                    seen = (time.perf_counter(), "")
                    break
                time.sleep(0.0005)
            out = cursor_ms
        if seen is None:
            timeouts += 1
        else:
            out.append((seen[0] - t0) * 1000)
    return sort_ms, cursor_ms, timeouts


def compare(screen: str, snapshot: dict) -> list[str]:
    """What differs between the pane and a fresh status --json."""
    problems = []
    sessions = snapshot["sessions"]
    n = len(sessions)
    if f"{n} of {n} session" not in screen:
        problems.append(f"the filter bar does not count {n} sessions")
    for s in sessions:
        row = row_of(screen, s["id"])
        m = ROW.search(row)
        if not m:
            problems.append(f"{s['id']}: no row ({row!r})")
            continue
        if s.get("workflow") == "map":  # its unit is its map run (M1), never a review round
            run = s.get("current_map_run")
            want = (str(s["phase_number"]), str(s["phase_total"]), run and f"M{run}", "—", "—")
        else:
            current = next((r for r in s["rounds"] if r["number"] == s["current_round"]), None)
            want = (
                str(s["phase_number"]),
                str(s["phase_total"]),
                f"R{s['current_round']}" if s["current_round"] else None,
                str(len(current["reviewers"])) if current else "—",
                str(current["findings"]) if current else "—",
            )
        if m.groups() != want:
            problems.append(f"{s['id']}: screen {m.groups()} != status {want}")
    return problems


def main() -> None:
    root = Path(tempfile.mkdtemp(prefix="ocr-bench-burst-"))
    try:
        sim = Simulator(root, speed=100.0, history=3, live_branch="lv")
        sim.setup()
        with app_pane(root) as pane:
            if pane.wait(lambda s: "3 of 3 sessions" in s, 60) is None:
                raise RuntimeError(f"the app never showed the history:\n{pane.capture()}")
            quiet_sort, quiet_cursor, _ = press_keys(pane, time.perf_counter() + 3.0)
            stop = threading.Event()
            player = threading.Thread(target=sim.run, kwargs={"stop": stop, "loop": True})
            player.start()
            t_end = time.perf_counter() + SECONDS
            sort_ms, cursor_ms, timeouts = press_keys(pane, t_end)
            stop.set()
            player.join()
            # The list as the comparison reads it: the default sort (sorted by start time, a
            # Started column takes the room of the reviewers' count, which `ROW` then misses).
            for _ in range(len(SORTS)):
                m = SORT.search(pane.capture())
                if m is None or m.group(1) == SORTS[0]:
                    break
                was = m.group(0)
                pane.keys("s")  # (the next sort: its name replaces this one)
                pane.wait(lambda s, was=was: was not in s, 2.0, interval=0.005)
            # quiet: the screen stops changing (the clocks tick once a second: ignore them)
            snap = json.loads(
                subprocess.run(
                    [EXE, "status", str(root), "--json"],
                    capture_output=True,
                    check=True,
                    env={**ENV, "OCR_TUI_CACHE_DIR": "off"},
                ).stdout
            )
            seen = pane.wait(lambda s: not compare(s, snap), 10.0, interval=0.05)
            problems = [] if seen is not None else compare(pane.capture(), snap)
            sessions = len(snap["sessions"])
        report(
            "keys during the burst: s (sort)", sort_ms, p95_max=100, bench=B, baseline_ms=quiet_sort
        )
        report(
            "keys during the burst: j/k (cursor)",
            cursor_ms,
            p95_max=100,
            bench=B,
            baseline_ms=quiet_cursor,
        )
        if timeouts:
            print(f"# {timeouts} key(s) not reflected within 2 s")
        figure(
            B,
            "after the burst: screen equals a fresh status scan",
            "equal" if not problems else f"{len(problems)} difference(s)",
            baseline=f"{sessions} sessions",
            target="equal",
            ok=not problems,
        )
        for p in problems[:10]:
            print(f"#   {p}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
