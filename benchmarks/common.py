"""Shared helpers: percentiles and a uniform report line."""

from __future__ import annotations

import statistics


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


def report(
    name: str, values_ms: list[float], *, baseline_ms: list[float] | None = None, target: str = ""
) -> dict:
    s = summary(values_ms)
    line = (
        f"{name:<44} median {s['median']:8.2f} ms  p95 {s['p95']:8.2f} ms  max {s['max']:8.2f} ms"
    )
    if baseline_ms:
        b = summary(baseline_ms)
        ratio = b["median"] / s["median"] if s["median"] else float("inf")
        line += f"  | baseline median {b['median']:8.2f} ms ({ratio:.1f}x faster)"
    if target:
        line += f"  [target {target}]"
    print(line, flush=True)
    return s
