"""Run the benchmarks: python -m benchmarks [NAME ...] (default: all)."""

from __future__ import annotations

import importlib
import platform
import sys

ALL = ["latency"]


def main(argv: list[str]) -> int:
    names = argv or ALL
    print(
        f"# machine: {platform.machine()}, {platform.system()} {platform.release()}, "
        f"python {platform.python_version()}"
    )
    for name in names:
        importlib.import_module(f"benchmarks.{name}").main()
    return 0


raise SystemExit(main(sys.argv[1:]))
