"""Open Code Review: `.ocr/sessions/{date}-{branch}/` (seeds 000, 001).

Shaped like a plugin: the entry point `ocr_tui.sources` names `ocr_tui.formats.ocr:SOURCE`.
model.py (state.json, round-meta.json and the stored state), phases.py, files.py (what a
session directory holds), derive.py (the view rules; the parts in derive_workflow.py,
derive_rounds.py, derive_maps.py, derive_timeline.py, derive_records.py), markdown.py
(findings, verdicts, file lists), final_items.py and discourse.py (final.md's items,
discourse.md's responses), fs.py and db.py (the readers: files and `.ocr/data/ocr.db`),
parse_cache.py, source.py (the Source); the simulator: sim.py (runs it), sim_store.py (files,
state.json and ocr.db), sim_scenario.py (the actions), sim_dashboard.py (the web dashboard's
rows) and the bodies it writes: sim_reviews.py, sim_final.py, sim_context.py, sim_maps.py.
"""

from ocr_tui.core.source import lazy_source

__getattr__ = lazy_source("ocr_tui.formats.ocr.source", "OcrSource")
