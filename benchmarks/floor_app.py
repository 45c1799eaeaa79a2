"""The floor: the smallest Textual app that shows what `latency_tmux` changes, with
the same watcher as ocr-tui (`ocr_tui.core.watcher.Watch`, inotify on Linux), in one `Static`.
Whatever ocr-tui spends beyond this app on a change is ocr-tui's; this is the fastest Textual
can show a change on this machine.

It draws the same words `latency_tmux` looks for in ocr-tui's row: ` n/8 ` after each
session's id (state.json's `phase_number`; ocr.db's `sessions.phase_number`) and `R1 n` (the
round's reviewer files). Usage: python -m benchmarks.floor_app PROJECT
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import sys
from pathlib import Path

from textual.app import App, ComposeResult
from textual.widgets import Static

from ocr_tui.core.watcher import Paths, Watch


def read(root: Path) -> str:
    """One line per session: `{id}  n/8  R1 k` (k: reviewer files) from state.json, and the
    ocr.db sessions' `{id}  n/8`."""
    lines = []
    for sdir in sorted((root / ".ocr" / "sessions").iterdir()):
        state = sdir / "state.json"
        if not state.is_file():
            continue
        try:
            n = json.loads(state.read_text()).get("phase_number")
        except (OSError, ValueError):
            continue
        reviews = sdir / "rounds" / "round-1" / "reviews"
        k = len(list(reviews.glob("*.md"))) if reviews.is_dir() else 0
        lines.append(f"{sdir.name}  {n}/8  R1 {k}")
    db = root / ".ocr" / "data" / "ocr.db"
    if db.is_file():
        con = sqlite3.connect(":memory:")
        try:
            con.deserialize(db.read_bytes())  # as ocr-tui reads it: no lock, no journal
            for sid, n in con.execute("SELECT id, phase_number FROM sessions"):
                lines.append(f"{sid}  {n}/8  (ocr.db)")
        except sqlite3.Error:
            pass
        finally:
            con.close()
    return "\n".join(lines)


class FloorApp(App):
    def __init__(self, root: Path) -> None:
        super().__init__()
        self.root = root

    def compose(self) -> ComposeResult:
        yield Static(read(self.root), id="shown")

    def on_mount(self) -> None:
        self.run_worker(self._watch(), exclusive=True)

    async def _watch(self) -> None:
        stop = asyncio.Event()
        async with Watch([self.root / ".ocr"], lambda _path: True) as watch:
            while True:
                event = await watch.next(stop)
                if event is None:
                    return
                if isinstance(event, Paths):
                    self.query_one("#shown", Static).update(read(self.root))


if __name__ == "__main__":
    FloorApp(Path(sys.argv[1])).run()
