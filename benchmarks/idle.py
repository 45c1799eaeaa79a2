"""Idle cost: the dashboard open in tmux on 100 sessions, 3 of them running (reopened in a
running phase, touched a minute ago), for 30 s (--quick: 10 s) with nothing changing on disk.
CPU = utime + stime from /proc/<pid>/stat over the window, as % of one core; memory = VmRSS and
VmHWM. Baselines, over the same window: a loop that re-reads everything once a second (what a
refresh-every-second dashboard does), in a separate process; then the floor
(`benchmarks.floor_app`: the smallest Textual app watching the same project with the same
watcher) idle in tmux over a window as long: what Textual and the watcher cost at rest here."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time

from benchmarks import common
from benchmarks.common import figure
from benchmarks.latency_tmux import floor_pane
from benchmarks.term import app_pane, cpu_seconds, memory_mb
from benchmarks.trees import fresh, make_running

B = "4. idle"
FLOOR_MAX = 1.25  # issue 27: at rest, within 1.25x the floor app's CPU at rest
LOOP = (
    "import sys, time\n"
    "from pathlib import Path\n"
    "from ocr_tui.core.engine import Engine\n"
    "from ocr_tui.core.project import Project\n"
    "e = Engine(Project(Path(sys.argv[1])))\n"
    "while True:\n"
    "    e.scan(); time.sleep(1)\n"
)


def main() -> None:
    window = 10.0 if common.QUICK else 30.0
    root, ids = fresh(100, "ocr-bench-idle-")
    try:
        for sid in ids[:3]:
            make_running(root, sid)
        with app_pane(root) as pane:
            loaded = pane.wait(lambda s: "100 of 100 sessions" in s and "reading…" not in s, 120)
            if loaded is None:
                raise RuntimeError(f"the app never showed 100 sessions:\n{pane.capture()}")
            screen = loaded[1]
            running = sum(1 for ln in screen.splitlines() if "4/8" in ln and "│" not in ln)
            time.sleep(2.0)  # start-up work (first frames, GC) is not idle
            env = {"OCR_TUI_CACHE_DIR": "off"}
            base = subprocess.Popen([sys.executable, "-c", LOOP, str(root)], env=env)
            time.sleep(1.0)
            c0, b0, t0 = cpu_seconds(pane.pid), cpu_seconds(base.pid), time.perf_counter()
            time.sleep(window)
            c1, b1, t1 = cpu_seconds(pane.pid), cpu_seconds(base.pid), time.perf_counter()
            mem = memory_mb(pane.pid)
            base.terminate()
            base.wait(5)
        cpu = (c1 - c0) / (t1 - t0) * 100
        bcpu = (b1 - b0) / (t1 - t0) * 100
        with floor_pane(root) as floor:
            if floor.wait(lambda s: "/8 " in s, 60) is None:
                raise RuntimeError(f"the floor app never showed the sessions:\n{floor.capture()}")
            time.sleep(3.0)
            f0, u0 = cpu_seconds(floor.pid), time.perf_counter()
            time.sleep(window)
            f1, u1 = cpu_seconds(floor.pid), time.perf_counter()
        fcpu = (f1 - f0) / (u1 - u0) * 100
        print(f"# {running} running rows on screen; window {t1 - t0:.1f} s")
        ratio = cpu / fcpu if fcpu else float("inf")
        figure(
            B,
            f"CPU, 100 sessions / 3 running, {window:.0f} s",
            f"{cpu:.2f} % of a core ({ratio:.2f}x the floor)",
            baseline=f"the floor app idle: {fcpu:.2f} %; re-read every 1 s: {bcpu:.2f} %",
            target=f"<= {FLOOR_MAX}x the floor app's",
            ok=ratio <= FLOOR_MAX,
        )
        figure(B, "RSS (VmRSS)", f"{mem['VmRSS']:.0f} MB", target="<= 60 MB", ok=mem["VmRSS"] <= 60)
        figure(
            B,
            "peak RSS (VmHWM)",
            f"{mem['VmHWM']:.0f} MB",
            target="<= 60 MB",
            ok=mem["VmHWM"] <= 60,
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
