"""The code workflow: `.claude/.docs/{id}/state.json` (seed 002).

Shaped like a plugin: the entry point `ocr_tui.sources` names `ocr_tui.formats.codeflow:SOURCE`.
model.py (msgspec structs), derive.py (the view rules), source.py (the Source), sim.py (the
simulator).
"""

from __future__ import annotations

from typing import Any


def __getattr__(name: str) -> Any:
    """`SOURCE` is imported on first use, so importing one room does not load the others."""
    if name == "SOURCE":
        from ocr_tui.formats.codeflow.source import CodeWorkflowSource

        return CodeWorkflowSource
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
