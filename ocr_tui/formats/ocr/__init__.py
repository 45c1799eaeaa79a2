"""Open Code Review: `.ocr/sessions/{date}-{branch}/` (seeds 000, 001).

Shaped like a plugin: the entry point `ocr_tui.sources` names `ocr_tui.formats.ocr:SOURCE`.
model.py (state.json, round-meta.json and the stored state), phases.py, files.py (what a
session directory holds), derive.py (the view rules), markdown.py (findings, verdicts, file
lists), fs.py and db.py (the readers: files and `.ocr/data/ocr.db`), parse_cache.py,
source.py (the Source), sim.py and sim_templates.py (the simulator).
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """`SOURCE` is imported on first use, so importing one room does not load the others."""
    if name == "SOURCE":
        from ocr_tui.formats.ocr.source import OcrSource

        return OcrSource
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
