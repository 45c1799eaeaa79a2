"""A live simulated project in a temporary directory, for `ocr-tui demo` and the `d` key: an
OCR review (looping), and one live run of each other format (code workflow, scientific
analysis, iDumb), each with closed history sessions to browse."""

from __future__ import annotations

import shutil
import tempfile
import threading
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path


@dataclass
class Demo:
    root: Path
    stop_event: threading.Event
    thread: threading.Thread

    def stop(self, *, remove: bool = True) -> None:
        self.stop_event.set()
        self.thread.join(timeout=5)
        if remove:
            shutil.rmtree(self.root, ignore_errors=True)


def start_demo(
    *, speed: float = 1.0, store: str = "ocr.db", seed: int = 7, formats: bool = True
) -> Demo:
    """Create a temporary project, write its history at once, then play a live review into
    it on a daemon thread (looping: a new live session starts after each one closes), and,
    with `formats`, one live run of each other format beside it."""
    from ocr_tui.formats.analysis import sim as analysis
    from ocr_tui.formats.codeflow import sim as codeflow
    from ocr_tui.formats.idumb import sim as idumb
    from ocr_tui.formats.ocr.sim import Simulator

    root = Path(tempfile.mkdtemp(prefix="ocr-tui-demo-"))
    sim = Simulator(root, store=store, seed=seed, speed=speed)
    sim.setup()
    others = []
    if formats:
        others = [m.Sim(root, seed=seed, speed=speed) for m in (codeflow, analysis, idumb)]
        for other in others:
            other.setup()
    stop = threading.Event()

    def play_others() -> None:
        # One thread plays every other format: at each moment, the next due write happens.
        due = [(0.0, i, o.steps()) for i, o in enumerate(others)]
        clock = 0.0
        while due and not stop.is_set():
            due.sort(key=lambda d: d[0])
            at, i, steps = due.pop(0)
            if at > clock and stop.wait(at - clock):
                return
            clock = max(clock, at)
            wait = next(steps, None)
            if wait is not None:
                due.append((clock + wait, i, steps))

    def play() -> None:
        try:
            if others:
                threading.Thread(target=guarded(play_others), daemon=True).start()
            sim.run(stop=stop, loop=True)
        except Exception:  # pragma: no cover - the demo must never take the app down
            import traceback

            traceback.print_exc()

    thread = threading.Thread(target=play, name="ocr-tui-demo", daemon=True)
    thread.start()
    return Demo(root=root, stop_event=stop, thread=thread)


def guarded(fn):
    def run() -> None:
        try:
            fn()
        except Exception:  # pragma: no cover - the demo must never take the app down
            import traceback

            traceback.print_exc()

    return run


def every_format_part_way(root: Path, *, store: str = "state.json", seed: int = 7) -> datetime:
    """Write a project holding all four formats, each live run stopped part-way (an OCR review
    in round 1 with reviewers writing, a code workflow implementing, an analysis at a gate,
    an iDumb session building), with real times ending now, as the demo plays them. For
    screenshots and tests; returns that `now`."""
    import math
    from datetime import UTC, timedelta

    from ocr_tui.formats.analysis import sim as analysis
    from ocr_tui.formats.codeflow import sim as codeflow
    from ocr_tui.formats.idumb import sim as idumb
    from ocr_tui.formats.ocr.sim import Simulator

    now = datetime.now(UTC).replace(microsecond=0)
    sim = Simulator(root, store=store, seed=seed, start=now - timedelta(minutes=3), speed=math.inf)
    steps = sim.steps()
    for _ in range(20):
        next(steps)
    for module, n in ((codeflow, 6), (analysis, 8), (idumb, 6)):
        other = module.Sim(root, seed=seed, speed=math.inf)
        other.setup()
        live = other.steps()
        for _ in range(n):
            next(live, None)
    return now
