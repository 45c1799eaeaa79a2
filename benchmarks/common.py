"""Shared helpers: percentiles, a uniform report line with its target and PASS/MISS, and the
collected rows for the final Markdown table."""

from __future__ import annotations

import json
import os
import selectors
import statistics
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

QUICK = os.environ.get("BENCH_QUICK") == "1"  # set by `python -m benchmarks --quick`


@dataclass
class Row:
    bench: str
    figure: str
    value: str
    baseline: str = ""
    target: str = ""
    verdict: str = ""  # PASS | MISS | "" (no target)


ROWS: list[Row] = []  # every figure reported in this run, for the Markdown table


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(q / 100 * (len(s) - 1))))
    return s[k]


def summary(values: list[float]) -> dict[str, float]:
    return {
        "median": statistics.median(values) if values else float("nan"),
        "p95": pct(values, 95),
        "max": max(values) if values else float("nan"),
    }


def _verdict(ok: bool | None) -> str:
    return "" if ok is None else ("PASS" if ok else "MISS")


def report(
    name: str,
    values_ms: list[float],
    *,
    baseline_ms: list[float] | None = None,
    median_max: float | None = None,
    p95_max: float | None = None,
    target: str = "",
    bench: str = "",
    expected: int | None = None,
) -> dict:
    """One line: median / p95 / max (ms), the baseline's median and the ratio, the target and
    PASS/MISS. `expected`: how many samples there should have been (missing ones = timeouts,
    a MISS)."""
    s = summary(values_ms)
    n = len(values_ms)
    line = (
        f"{name:<46} n={n:<3} median {s['median']:8.2f} ms  p95 {s['p95']:8.2f} ms"
        f"  max {s['max']:8.2f} ms"
    )
    base = ""
    if baseline_ms:
        b = summary(baseline_ms)
        ratio = b["median"] / s["median"] if s["median"] else float("inf")
        line += f"  | baseline median {b['median']:8.2f} ms ({ratio:.1f}x faster)"
        base = f"{b['median']:.1f} ms ({ratio:.0f}x)"
    ok: bool | None = None
    if median_max is not None or p95_max is not None:
        ok = n > 0 and (expected is None or n >= expected)
        parts = []
        if median_max is not None:
            ok = ok and s["median"] <= median_max
            parts.append(f"median <= {median_max:g} ms")
        if p95_max is not None:
            ok = ok and s["p95"] <= p95_max
            parts.append(f"p95 <= {p95_max:g} ms")
        target = target or ", ".join(parts)
    if expected is not None and n < expected:
        line += f"  ({expected - n} timed out)"
    if target:
        line += f"  [target {target}] {_verdict(ok)}"
    print(line, flush=True)
    ROWS.append(
        Row(
            bench or name,
            name,
            f"{s['median']:.1f} / {s['p95']:.1f} / {s['max']:.1f} ms",
            base,
            target,
            _verdict(ok),
        )
    )
    return s


def figure(
    bench: str,
    name: str,
    value: str,
    *,
    baseline: str = "",
    target: str = "",
    ok: bool | None = None,
) -> None:
    """A single figure (a time, a size, a ratio) with its target."""
    if not target:
        ok = None
    line = f"{name:<52} {value}"
    if baseline:
        line += f"  | {baseline}"
    if target:
        line += f"  [target {target}] {_verdict(ok)}"
    print(line, flush=True)
    ROWS.append(Row(bench, name, value, baseline, target, _verdict(ok)))


def markdown_table(machine: str) -> str:
    out = [
        f"Machine: {machine}",
        "",
        "| benchmark | figure | measured (median / p95 / max) | baseline (ratio) | target | |",
        "|---|---|---|---|---|---|",
    ]
    for r in ROWS:
        cells = [r.bench, r.figure, r.value, r.baseline, r.target, r.verdict]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(out)


def json_lines(proc: subprocess.Popen) -> Callable[[float], Iterator[dict]]:
    """A reader of `proc`'s stdout as JSON lines: `read(deadline)` yields each line that arrives
    before `deadline` (a `time.perf_counter()` time), then stops; the next call goes on where it
    left off."""
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
    buf = b""

    def read(deadline: float) -> Iterator[dict]:
        nonlocal buf
        while True:
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                yield json.loads(line)
            left = deadline - time.perf_counter()
            if left <= 0 or not sel.select(left):
                return
            chunk = os.read(proc.stdout.fileno(), 1 << 20)  # type: ignore[union-attr]
            if not chunk:
                return
            buf += chunk

    return read
