"""Cost of one change with 10 versus 10,000 sessions present (--quick: 10 versus 1,000).

A session of our own is added to a cached history (with a copy of a history session's two
rounds); then, 50 times, its state.json is replaced and we time (a) `Engine.apply([that path])`
in this process and (b) through `ocr-tui watch --jsonl`, from the rename until the line for the
change is printed. Target: the big tree's median is at most 1.2x the small tree's
(only the touched session is re-derived). The baseline (same run) is what a re-read-everything
tool pays per change: one `Engine.scan()`. Then, 50 times, a reviewer file of its round 2 is
replaced (one more finding each time) and `Engine.apply` is timed again: the round's findings
are counted anew (the findings model: the file parsed, merged, evolved against round 1)."""

from __future__ import annotations

import os
import selectors
import shutil
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path

from benchmarks import common
from benchmarks.common import figure, report, summary
from benchmarks.term import EXE
from benchmarks.trees import CACHE, history, iso, write_state

TRIALS = int(os.environ.get("BENCH_TRIALS", "50"))
SID = "2026-11-01-changebench"
B = "3. one change"


REVIEW = "rounds/round-2/reviews/principal-1.md"


def _add(root: Path, model: str) -> Path:
    sdir = root / ".ocr" / "sessions" / SID
    shutil.rmtree(sdir, ignore_errors=True)
    shutil.copytree(root / ".ocr" / "sessions" / model / "rounds", sdir / "rounds")
    write_state(
        sdir,
        status="active",
        current_phase="reviews",
        phase_number=4,
        workflow_type="review",
        updated_at=iso(datetime.now(UTC)),
    )
    return sdir


def _stamp(k: int) -> str:
    return f"2026-10-01T{k // 3600 % 24:02d}:{k // 60 % 60:02d}:{k % 60:02d}Z"


def engine_apply(root: Path, sdir: Path) -> tuple[list[float], float]:
    from ocr_tui.core.engine import Engine
    from ocr_tui.core.project import Project

    engine = Engine(Project(root))
    t0 = time.perf_counter()
    engine.scan()
    scan_ms = (time.perf_counter() - t0) * 1000
    times = []
    for k in range(TRIALS):
        write_state(sdir, updated_at=_stamp(k))
        t0 = time.perf_counter()
        changed, _ = engine.apply([sdir / "state.json"])
        times.append((time.perf_counter() - t0) * 1000)
        assert [v.id for v in changed] == [SID], changed
    review = sdir / REVIEW
    text = review.read_text()
    findings: list[float] = []
    for k in range(TRIALS):
        text += f"\n### Finding {100 + k}: Bench finding {k}\n- **Severity**: Low\n"
        tmp = review.with_name(f".bench-{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, review)
        t0 = time.perf_counter()
        changed, _ = engine.apply([review])
        findings.append((time.perf_counter() - t0) * 1000)
        assert [v.id for v in changed] == [SID], changed
    return times, findings, scan_ms


def watch_jsonl(root: Path, sdir: Path) -> list[float]:
    proc = subprocess.Popen(
        [EXE, "watch", str(root), "--jsonl"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        bufsize=0,
    )
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
    buf = b""

    def until(pred, deadline: float) -> float | None:
        nonlocal buf
        while True:
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if pred(line):
                    return time.perf_counter()
            left = deadline - time.perf_counter()
            if left <= 0 or not sel.select(left):
                return None
            chunk = os.read(proc.stdout.fileno(), 1 << 20)  # type: ignore[union-attr]
            if not chunk:
                return None
            buf += chunk

    try:
        marker = f'"id":"{SID}"'.encode()
        if until(lambda line: marker in line, time.perf_counter() + 900) is None:
            raise RuntimeError("watch --jsonl never printed the bench session")
        times = []
        for k in range(TRIALS):
            time.sleep(0.03)
            stamp = _stamp(1000 + k).encode()
            t0 = write_state(sdir, updated_at=_stamp(1000 + k))
            seen = until(lambda line, s=stamp: marker in line and s in line, t0 + 5)
            if seen is not None:
                times.append((seen - t0) * 1000)
        return times
    finally:
        proc.terminate()
        proc.wait(10)


def main() -> None:
    os.environ["OCR_TUI_CACHE_DIR"] = str(CACHE / "parse-cache")  # warm after the first run
    small, big = 10, (1000 if common.QUICK else 10_000)
    apply_ms: dict[int, list[float]] = {}
    review_ms: dict[int, list[float]] = {}
    watch_ms: dict[int, list[float]] = {}
    scans: dict[int, float] = {}
    for n in (small, big):
        root, ids = history(n)
        sdir = _add(root, ids[0])
        try:
            apply_ms[n], review_ms[n], scans[n] = engine_apply(root, sdir)
            watch_ms[n] = watch_jsonl(root, sdir)
        finally:
            shutil.rmtree(sdir, ignore_errors=True)
    for n in (small, big):
        report(
            f"{n:>6} sessions: Engine.apply, one state.json",
            apply_ms[n],
            bench=B,
            baseline_ms=[scans[n]],
        )
        report(
            f"{n:>6} sessions: write -> watch --jsonl line", watch_ms[n], bench=B, expected=TRIALS
        )
        report(f"{n:>6} sessions: Engine.apply, one reviewer file", review_ms[n], bench=B)
    for what, data in (
        ("Engine.apply", apply_ms),
        ("watch --jsonl", watch_ms),
        ("Engine.apply, reviewer file", review_ms),
    ):
        ratio = summary(data[big])["median"] / summary(data[small])["median"]
        figure(
            B,
            f"{what}: median at {big} / at {small}",
            f"{ratio:.2f}x",
            target="<= 1.2x",
            ok=ratio <= 1.2,
        )


if __name__ == "__main__":
    main()
