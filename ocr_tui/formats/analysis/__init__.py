"""The Scientific Analysis Architect: `.scientific-analysis-session/` (seed 003).

Shaped like a plugin: the entry point `ocr_tui.sources` names `ocr_tui.formats.analysis:SOURCE`.
model.py (msgspec structs), derive.py (the view rules), source.py (the Source) with
listing.py (finding and keying sessions) and documents.py (the documents' resolver), sim.py
(the simulator).
"""

from ocr_tui.core.source import lazy_source

__getattr__ = lazy_source("ocr_tui.formats.analysis.source", "AnalysisSource")
