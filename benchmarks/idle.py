"""Idle cost: the dashboard open in tmux on 100 sessions, 3 of them running (reopened in a
running phase, touched a minute ago), for 30 s (--quick: 10 s) with nothing changing on disk.
CPU = utime + stime from /proc/<pid>/stat over the window, as % of one core; memory = VmRSS and
VmHWM. Baseline, over the same window in a separate process: a loop that re-reads everything
once a second (what a refresh-every-second dashboard does)."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time

from benchmarks import common
from benchmarks.common import figure
from benchmarks.term import app_pane, cpu_seconds, memory_mb
from benchmarks.trees import fresh, make_running

B = "4. idle"
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
        print(f"# {running} running rows on screen; window {t1 - t0:.1f} s")
        figure(
            B,
            f"CPU, 100 sessions / 3 running, {window:.0f} s",
            f"{cpu:.2f} % of a core",
            baseline=f"re-read every 1 s: {bcpu:.2f} %",
            target="<= 0.4 %",
            ok=cpu <= 0.4,
        )
        figure(B, "RSS (VmRSS)", f"{mem['VmRSS']:.0f} MB", target="<= 80 MB", ok=mem["VmRSS"] <= 80)
        figure(
            B,
            "peak RSS (VmHWM)",
            f"{mem['VmHWM']:.0f} MB",
            target="<= 80 MB",
            ok=mem["VmHWM"] <= 80,
        )
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
