"""Soak: the dashboard left open beside busy agents. The simulator loops at 20x into
ocr.db (a new live session every few seconds) for BENCH_SOAK_S seconds (600; 60 with --quick)
with the dashboard open in tmux at 160x40; nobody presses a key, ever.

Then, at rest:
- the screen shows the sessions a fresh `ocr-tui status --json` lists first, in its order, and
  the filter bar counts every session (`N of N sessions`);
- the dashboard's CPU is quiet (under 20 ms in a second, its clocks ticking) within 1 s of the
  simulator's last write;
- its RSS is at most 1.2x a fresh start's on the same project (the fresh start: the same app,
  opened on the project as the soak left it, once its list shows every session).
RSS is also sampled during the soak and reported as growth per 100 sessions created."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from benchmarks import common, term
from benchmarks.common import figure
from benchmarks.term import ENV, EXE, app_pane, cpu_seconds, memory_mb
from ocr_tui.formats.ocr.sim import Simulator

B = "10. soak"
WIDTH, HEIGHT = 160, 40
QUIET_CPU_S = 0.02  # a second with less CPU than this is quiet (the clocks tick once a second)
COUNT = re.compile(r"(\d+) of (\d+) sessions")
# A list row starts with its session's state glyph (core/states.py), outside the boxes.
LIST_ROW = re.compile(r"^ ?[●◐✓⚠◆!✗…] ")


def soak_seconds() -> float:
    return float(os.environ.get("BENCH_SOAK_S") or (60 if common.QUICK else 600))


def status_json(root: Path) -> dict:
    done = subprocess.run(
        [EXE, "status", str(root), "--json"],
        capture_output=True,
        check=True,
        env={**ENV, "OCR_TUI_CACHE_DIR": "off"},
    )
    return json.loads(done.stdout)


def list_rows(screen: str) -> list[str]:
    """The list's rows on screen, top to bottom."""
    return [ln for ln in screen.splitlines() if LIST_ROW.match(ln) and "│" not in ln]


def screen_problems(screen: str, snap: dict) -> list[str]:
    """How the screen differs from a fresh status: the rows on screen must be status' first
    sessions, in its order; the count must be all of them."""
    ids = [s["id"] for s in snap["sessions"]]
    n = len(ids)
    problems = []
    m = COUNT.search(screen)
    if not m or (int(m.group(1)), int(m.group(2))) != (n, n):
        problems.append(f"the filter bar says {m.group(0) if m else 'nothing'}, not {n} of {n}")
    rows = list_rows(screen)
    if not rows:
        return problems + ["no list row on screen"]
    for i, row in enumerate(rows):
        cells = re.split(r"\s{2,}", row.strip())
        if i >= n or not any(term._id_cell_matches(c, ids[i]) for c in cells):
            want = ids[i] if i < n else "(none)"
            problems.append(f"row {i + 1}: {row.strip()[:60]!r}, status lists {want}")
    return problems


def quiet_after(pid: int, t_stop: float, limit: float = 30.0) -> float | None:
    """Seconds from t_stop to the start of the first 1 s window with < QUIET_CPU_S of CPU."""
    samples: list[tuple[float, float]] = []
    end = t_stop + limit
    while time.perf_counter() < end:
        samples.append((time.perf_counter(), cpu_seconds(pid)))
        for t0, c0 in samples:
            t1, c1 = samples[-1]
            if t1 - t0 >= 1.0:
                if c1 - c0 < QUIET_CPU_S:
                    return max(0.0, t0 - t_stop)
                samples.remove((t0, c0))  # (this window was busy: slide on)
                break
        time.sleep(0.05)
    return None


def open_pane(root: Path):
    term.WIDTH, term.HEIGHT = WIDTH, HEIGHT
    try:
        return app_pane(root)
    finally:
        term.WIDTH, term.HEIGHT = 120, 40


def main() -> None:
    seconds = soak_seconds()
    root = Path(tempfile.mkdtemp(prefix="ocr-bench-soak-"))
    try:
        sim = Simulator(root, store="ocr.db", speed=20.0, history=3, live_branch="soak")
        sim.setup()
        with open_pane(root) as pane:
            if pane.wait(lambda s: COUNT.search(s) is not None, 60) is None:
                raise RuntimeError(f"the app never showed its list:\n{pane.capture()}")
            rss0 = memory_mb(pane.pid)["VmRSS"]
            stop = threading.Event()
            player = threading.Thread(target=sim.run, kwargs={"stop": stop, "loop": True})
            player.start()
            t_end = time.perf_counter() + seconds
            grow: list[tuple[int, float]] = []  # (sessions on disk, RSS MB)
            while time.perf_counter() < t_end:
                time.sleep(min(10.0, max(0.0, t_end - time.perf_counter())))
                made = sum(1 for p in (root / ".ocr" / "sessions").iterdir() if p.is_dir())
                grow.append((made, memory_mb(pane.pid)["VmRSS"]))
            stop.set()
            player.join()
            t_stop = time.perf_counter()
            quiet = quiet_after(pane.pid, t_stop)
            snap = status_json(root)
            screen = pane.capture()  # no key pressed: what someone glancing over would read
            problems = screen_problems(screen, snap)
            rss_soak = memory_mb(pane.pid)["VmRSS"]
        with open_pane(root) as fresh:
            n = len(snap["sessions"])
            if fresh.wait(lambda s: f"{n} of {n} sessions" in s, 120) is None:
                raise RuntimeError(f"the fresh app never listed {n} sessions")
            fresh.wait(lambda s: False, 3.0)  # (settle: its rows and panes painted)
            rss_fresh = memory_mb(fresh.pid)["VmRSS"]
        sessions = len(snap["sessions"])
        figure(
            B,
            f"after {seconds:.0f} s at 20x: the screen, no key pressed, vs status",
            "equal" if not problems else f"{len(problems)} difference(s)",
            baseline=f"{sessions} sessions, {len(list_rows(screen))} rows on screen",
            target="equal",
            ok=not problems,
        )
        for p in problems[:10]:
            print(f"#   {p}")
        figure(
            B,
            "CPU quiet after the last write",
            "never (30 s)" if quiet is None else f"{quiet:.2f} s",
            target="<= 1 s",
            ok=quiet is not None and quiet <= 1.0,
        )
        ratio = rss_soak / rss_fresh if rss_fresh else float("inf")
        figure(
            B,
            "RSS after the soak vs a fresh start",
            f"{rss_soak:.1f} MB ({ratio:.2f}x)",
            baseline=f"fresh start on the same project: {rss_fresh:.1f} MB; at the soak's "
            f"start {rss0:.1f} MB",
            target="<= 1.2x",
            ok=ratio <= 1.2,
        )
        if len(grow) >= 2 and grow[-1][0] > grow[0][0]:
            per100 = (grow[-1][1] - grow[0][1]) / (grow[-1][0] - grow[0][0]) * 100
            figure(B, "RSS growth per 100 sessions created", f"{per100:.1f} MB")
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
