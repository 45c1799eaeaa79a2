"""Start-up with 10, 1,000 and 10,000 closed sessions (simulator history, 2 rounds x 4
reviewers each; --quick skips 10,000).

For each size, with a fresh persistent parse cache (OCR_TUI_CACHE_DIR) per "first" start and the
same one again for the "second" start:
- headless: `Engine.scan()` in a fresh process (import + scan), and `ocr-tui status --json`
  (whole process); wall time and peak RSS (wait4's ru_maxrss);
- the real app in tmux: time from launching it until the pane shows the first session id ("list
  shown") and until the filter bar reads "N of N sessions" ("all rows"); its peak RSS
  (/proc VmHWM) once all rows are shown;
- keys while loading (a separate first start): `f` (cycle the filter) is pressed as soon as the
  app has drawn its filter bar, then again each time the bar shows the new filter, until the
  list is shown; each time until the filter bar shows the change.
Baseline (same run): reading every file of the tree once (os.walk + read), the IO floor of a
start without cache.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import common
from benchmarks.common import figure, report, summary
from benchmarks.term import EXE, app_pane, memory_mb, row_of
from benchmarks.trees import history

SIZES = [int(x) for x in os.environ.get("BENCH_SIZES", "10,1000,10000").split(",")]
SCAN = (
    "import json, sys, time; t0 = time.perf_counter()\n"
    "from ocr_tui.engine import Engine\n"
    "from pathlib import Path\n"
    "from ocr_tui.sources.project import Project\n"
    "views = Engine(Project(Path(sys.argv[1]))).scan()\n"
    "print(json.dumps({'n': len(views), 's': time.perf_counter() - t0}))\n"
)
B = "2. start-up"


def run(cmd: list[str], cache: str) -> tuple[float, float, bytes]:
    """(wall seconds, peak RSS MB, stdout) of a child process."""
    env = {**os.environ, "OCR_TUI_CACHE_DIR": cache, "TZ": "UTC"}
    t0 = time.perf_counter()
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, env=env)
    out = proc.stdout.read()  # type: ignore[union-attr]
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        err.seek(0)
        raise RuntimeError(f"{cmd} exited {proc.returncode}: {err.read().decode()[-2000:]}")
    return wall, usage.ru_maxrss / 1024, out


def read_everything(root: Path) -> float:
    t0 = time.perf_counter()
    for dirpath, _, files in os.walk(root / ".ocr"):
        for name in files:
            with open(os.path.join(dirpath, name), "rb") as f:
                f.read()
    return time.perf_counter() - t0


def app_start(root: Path, n: int, first_id: str, cache: str) -> dict[str, float]:
    """One start of the app in tmux: list shown, all rows, peak RSS."""
    total = f"{n} of {n} session"
    with app_pane(root, cache_dir=cache) as pane:
        t0 = pane.started
        shown = pane.wait(lambda s: first_id in row_of(s, first_id) or first_id in s, 600)
        done = pane.wait(lambda s: total in s, 600)
        mem = memory_mb(pane.pid)
        if shown is None or done is None:
            raise RuntimeError(f"the app never showed {n} sessions:\n{pane.capture()}")
        return {"list": shown[0] - t0, "all": done[0] - t0, "hwm": mem["VmHWM"]}


def keys_while_loading(root: Path, n: int, cache: str) -> tuple[list[float], float]:
    """Latencies (ms) of `f` (cycle the filter: the filter bar changes) while the list loads;
    and when the list was shown."""
    loaded_re = re.compile(rf"\b\d+ of {n} session")
    cycle = ["all", "active", "closed"]
    times: list[float] = []
    with app_pane(root, cache_dir=cache) as pane:
        if pane.wait(lambda s: "Filter: all" in s, 60) is None:
            raise RuntimeError(f"the app never drew its filter bar:\n{pane.capture()}")
        loaded = None
        k = 0
        while loaded is None:
            k += 1
            want = f"Filter: {cycle[k % 3]} "
            t0 = pane.keys("f")
            seen = pane.wait(lambda s, want=want: want in s, 60, interval=0.0005)
            if seen is None:
                break
            times.append((seen[0] - t0) * 1000)
            if loaded_re.search(seen[1]):
                loaded = seen[0] - pane.started
        return times, loaded or float("nan")


def bench_size(n: int) -> None:
    root, ids = history(n)
    read_s = read_everything(root)
    print(f"# {n} sessions: reading every file once takes {read_s * 1000:.0f} ms (baseline)")
    base = f"read all files: {read_s * 1000:.0f} ms"
    tmp = Path(tempfile.mkdtemp(prefix="ocr-bench-cache-"))
    try:
        # headless: Engine.scan in a fresh process, first and second start
        c1 = str(tmp / "scan")
        w1, rss1, out1 = run([sys.executable, "-c", SCAN, str(root)], c1)
        w2, rss2, out2 = run([sys.executable, "-c", SCAN, str(root)], c1)
        s1, s2 = json.loads(out1)["s"], json.loads(out2)["s"]
        figure(
            B, f"{n:>6}: Engine.scan, first start (process)", f"{w1 * 1000:.0f} ms", baseline=base
        )
        figure(
            B,
            f"{n:>6}: Engine.scan, second start (cache)",
            f"{w2 * 1000:.0f} ms",
            baseline=f"{w1 / w2:.1f}x faster than first",
            target=">= 3x faster" if n == 10_000 else "",
            ok=w1 / w2 >= 3,
        )
        print(
            f"#   in-process import+scan: first {s1 * 1000:.0f} ms, second {s2 * 1000:.0f} ms;"
            f" peak RSS {rss1:.0f} / {rss2:.0f} MB"
        )
        # status --json
        c2 = str(tmp / "status")
        w1, rss1, out = run([EXE, "status", str(root), "--json"], c2)
        w2, rss2, _ = run([EXE, "status", str(root), "--json"], c2)
        got = len(json.loads(out)["sessions"])
        assert got == n, f"status --json listed {got} of {n} sessions"
        figure(
            B,
            f"{n:>6}: status --json, first / second",
            f"{w1 * 1000:.0f} / {w2 * 1000:.0f} ms",
            baseline=f"{w1 / w2:.1f}x; peak RSS {rss1:.0f} / {rss2:.0f} MB",
        )
        # the app in tmux
        c3 = str(tmp / "app")
        first = app_start(root, n, ids[0], c3)
        second = app_start(root, n, ids[0], c3)
        big = n == 10_000
        figure(
            B,
            f"{n:>6}: app in tmux, list shown (first start)",
            f"{first['list'] * 1000:.0f} ms",
            target="<= 1500 ms" if big else "",
            ok=first["list"] <= 1.5,
        )
        figure(B, f"{n:>6}: app in tmux, all rows (first start)", f"{first['all'] * 1000:.0f} ms")
        figure(
            B,
            f"{n:>6}: app in tmux, peak RSS (first start)",
            f"{first['hwm']:.0f} MB",
            target="<= 250 MB" if big else "",
            ok=first["hwm"] <= 250,
        )
        figure(
            B,
            f"{n:>6}: app in tmux, all rows (second start, cache)",
            f"{second['all'] * 1000:.0f} ms",
            baseline=f"{first['all'] / second['all']:.1f}x faster than first",
            target=">= 3x faster" if big else "",
            ok=first["all"] / second["all"] >= 3,
        )
        figure(B, f"{n:>6}: app in tmux, peak RSS (second start)", f"{second['hwm']:.0f} MB")
        # keys while loading (a first start again: a new, empty cache)
        times, loaded = keys_while_loading(root, n, str(tmp / "keys"))
        if times:
            report(
                f"{n:>6}: key f answered while loading",
                times,
                p95_max=100 if big else None,
                target="p95 <= 100 ms" if big else "",
                bench=B,
            )
            s = summary(times)
            print(
                f"#   {len(times)} key presses before the list was shown at {loaded:.2f} s;"
                f" slowest {s['max']:.0f} ms"
            )
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    sizes = [s for s in SIZES if not (common.QUICK and s > 1000)]
    for n in sizes:
        bench_size(n)
    if common.QUICK:
        print("# --quick: 10,000 sessions skipped")


if __name__ == "__main__":
    main()
