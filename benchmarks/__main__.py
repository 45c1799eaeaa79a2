"""Run the benchmarks: python -m benchmarks [--quick] [NAME ...] (default: all).

Names: latency, latency_tmux, startup, first_frame, change_cost, db_cost, idle, burst,
decode, projects, leak, soak, remote.
--quick skips the 10,000-session start-up and change figures (and shortens idle to 10 s,
soak to 60 s).
Ends with every figure as a Markdown table, with the machine it ran on.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
import time

ALL = [
    "latency",
    "latency_tmux",
    "startup",
    "first_frame",
    "change_cost",
    "db_cost",
    "idle",
    "burst",
    "decode",
    "projects",
    "leak",
    "soak",
    "remote",
]


def machine() -> str:
    model = "unknown CPU"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    u = platform.uname()
    return (
        f"{model}, {os.cpu_count()} cores, {u.system} {u.release} ({u.machine}), "
        f"Python {platform.python_version()}"
    )


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*", choices=[[], *ALL], metavar="NAME", help=", ".join(ALL))
    p.add_argument("--quick", action="store_true", help="skip the 10,000-session figures")
    args = p.parse_args(argv)
    if args.quick:
        os.environ["BENCH_QUICK"] = "1"
    from benchmarks import common

    common.QUICK = args.quick
    desc = machine()
    print(f"# machine: {desc}", flush=True)
    t0 = time.perf_counter()
    for name in args.names or ALL:
        print(f"\n## {name}", flush=True)
        importlib.import_module(f"benchmarks.{name}").main()
    print(f"\n# all done in {time.perf_counter() - t0:.0f} s\n")
    print(common.markdown_table(desc))
    return 0


raise SystemExit(main(sys.argv[1:]))
