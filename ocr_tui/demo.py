"""A live simulated OCR project in a temporary directory, for `ocr-tui demo` and the `d` key."""

from __future__ import annotations

import shutil
import tempfile
import threading
from dataclasses import dataclass
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


def start_demo(*, speed: float = 1.0, store: str = "ocr.db", seed: int = 7) -> Demo:
    """Create a temporary project, write its history at once, then play a live review into
    it on a daemon thread (looping: a new live session starts after each one closes)."""
    from ocr_tui.simulate import Simulator

    root = Path(tempfile.mkdtemp(prefix="ocr-tui-demo-"))
    sim = Simulator(root, store=store, seed=seed, speed=speed)
    sim.setup()
    stop = threading.Event()

    def play() -> None:
        try:
            sim.run(stop=stop, loop=True)
        except Exception:  # pragma: no cover - the demo must never take the app down
            import traceback

            traceback.print_exc()

    thread = threading.Thread(target=play, name="ocr-tui-demo", daemon=True)
    thread.start()
    return Demo(root=root, stop_event=stop, thread=thread)
