"""First frame: start-up until the first row is on screen, against the time
Python takes to import Textual, in the same run.

Each trial, in turn: (a) `python -c "import textual.app"` in a fresh process, wall time (the
floor: no Textual app can draw before this); (b) ocr-tui launched in a tmux pane on a project of
10 closed sessions (simulator history, no parse cache) until the newest session's row is on
screen, timed from launching it (`term.Pane.started`: the tmux server's start is in it). Also,
for reading the figures (no target): (c) the harness alone, a tmux pane until a shell's `echo`
is on screen; (d) the floor (`floor_app.py`, the smallest Textual app showing the sessions, as
`latency_tmux` uses it) until its line of the newest session is on screen: what Textual itself
costs before a first row. One untimed round first (page cache, bytecode). BENCH_TRIALS trials
(default 15). ocr-tui's bytecode is compiled first, as an install does (Textual's is): with
PYTHONDONTWRITEBYTECODE set, an editable install would compile its sources at every start.

Optional baseline: OCR's own `ocr progress` (`OCR_PROGRESS_CMD`, a shell command run in the
project, e.g. `node /path/to/open-code-review/packages/cli/dist/index.js progress`) launched in
tmux the same way until the pane shows `OCR_PROGRESS_SHOWS` (default: a phase's label); skipped
when not set (OCR's CLI is not built here: it needs pnpm and the network).

Target (issue 27): (b)'s median <= 1.3x (a)'s.
"""

from __future__ import annotations

import compileall
import os
import shlex
import subprocess
import sys
import time

from benchmarks.common import figure, report, summary
from benchmarks.latency_tmux import floor_pane
from benchmarks.term import ENV, Pane, app_pane, row_of
from benchmarks.trees import history
from ocr_tui import __file__ as package_init

B = "2b. first frame"
TRIALS = int(os.environ.get("BENCH_TRIALS", "15"))
SESSIONS = 10
TARGET_RATIO = 1.3
OCR_PROGRESS_CMD = os.environ.get("OCR_PROGRESS_CMD", "")
OCR_PROGRESS_SHOWS = os.environ.get("OCR_PROGRESS_SHOWS", "")
TIMEOUT_S = 30.0


def import_textual() -> float:
    """Seconds for a fresh Python to import textual.app (and exit)."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import textual.app"], check=True, env=ENV)
    return time.perf_counter() - t0


def first_row(root, sid: str) -> float | None:
    """Seconds from launching ocr-tui in tmux until the row of `sid` is on screen."""
    with app_pane(root) as pane:
        seen = pane.wait(lambda s: bool(row_of(s, sid)), TIMEOUT_S, interval=0.0005)
        return None if seen is None else seen[0] - pane.started


def floor_row(root, sid: str) -> float | None:
    """Seconds from launching the floor app in tmux until its line of `sid` is on screen."""
    with floor_pane(root) as pane:
        seen = pane.wait(
            lambda s: any(line.strip().startswith(sid) for line in s.splitlines()),
            TIMEOUT_S,
            interval=0.0005,
        )
        return None if seen is None else seen[0] - pane.started


def ocr_progress(root) -> float | None:
    """Seconds from launching `OCR_PROGRESS_CMD` in the project until its first phase shows."""
    from benchmarks.trees import REVIEW_PHASES

    words = [OCR_PROGRESS_SHOWS] if OCR_PROGRESS_SHOWS else [label for _, label in REVIEW_PHASES]
    with Pane(["sh", "-c", f"cd {shlex.quote(str(root))} && {OCR_PROGRESS_CMD}; sleep 30"]) as pane:
        seen = pane.wait(lambda s: any(w in s for w in words), TIMEOUT_S, interval=0.0005)
        return None if seen is None else seen[0] - pane.started


def harness() -> float | None:
    """Seconds from launching a shell in tmux until its `echo` is on screen."""
    with Pane(["sh", "-c", "echo first-frame-ready; sleep 30"]) as pane:
        seen = pane.wait(lambda s: "first-frame-ready" in s, TIMEOUT_S, interval=0.0005)
        return None if seen is None else seen[0] - pane.started


def main() -> None:
    root, ids = history(SESSIONS)
    newest = ids[0]
    compileall.compile_dir(os.path.dirname(package_init), quiet=1)
    print(f"# first frame: {TRIALS} trials of import textual.app vs ocr-tui's first row")
    import_textual(), first_row(root, newest), harness(), floor_row(root, newest)  # warm-up
    textual_ms: list[float] = []
    app_ms: list[float] = []
    harness_ms: list[float] = []
    floor_ms: list[float] = []
    ocr_ms: list[float] = []
    runs = [(harness_ms, harness), (floor_ms, lambda: floor_row(root, newest))]
    if OCR_PROGRESS_CMD:
        ocr_progress(root)  # (warm-up)
        runs.append((ocr_ms, lambda: ocr_progress(root)))
    for _ in range(TRIALS):
        textual_ms.append(import_textual() * 1000)
        shown = first_row(root, newest)
        if shown is not None:
            app_ms.append(shown * 1000)
        for times, run in runs:
            seen = run()
            if seen is not None:
                times.append(seen * 1000)
    report("python -c 'import textual.app' (fresh process)", textual_ms, bench=B)
    report("tmux pane: a shell's echo shown (harness)", harness_ms, bench=B)
    report("floor app in tmux: newest session's line shown", floor_ms, bench=B)
    if OCR_PROGRESS_CMD:
        report("ocr progress in tmux: its first phase shown", ocr_ms, bench=B)
    else:
        figure(B, "ocr progress in tmux: its first phase shown", "skipped (no OCR_PROGRESS_CMD)")
    report(
        f"ocr-tui in tmux, {SESSIONS} sessions: newest row shown",
        app_ms,
        bench=B,
        expected=TRIALS,
    )
    if not app_ms or not textual_ms:
        figure(B, "first row / import textual.app", "no samples")
        return
    a, t = summary(app_ms), summary(textual_ms)
    median, p95 = a["median"] / t["median"], a["p95"] / t["p95"]
    figure(
        B,
        "first row / import textual.app",
        f"median {median:.2f}x  p95 {p95:.2f}x",
        baseline=f"import textual.app median {t['median']:.0f} ms, p95 {t['p95']:.0f} ms",
        target=f"median <= {TARGET_RATIO}x",
        ok=median <= TARGET_RATIO and len(app_ms) == TRIALS,
    )
    if ocr_ms:
        o = summary(ocr_ms)
        figure(
            B,
            "first row / ocr progress's first phase",
            f"median {a['median'] / o['median']:.2f}x",
            baseline=f"ocr progress median {o['median']:.0f} ms",
        )
    if floor_ms:
        f = summary(floor_ms)
        figure(
            B,
            "floor app's line / import textual.app",
            f"median {f['median'] / t['median']:.2f}x",
            baseline=f"ocr-tui {a['median'] / f['median']:.2f}x the floor's median",
        )


if __name__ == "__main__":
    main()
