"""iDumb (an OpenCode plugin): `.idumb/` (seed 004).

Shaped like a plugin: the entry point `ocr_tui.sources` names `ocr_tui.formats.idumb:SOURCE`.
model.py (msgspec structs), derive.py (the view rules) with derive_shared.py (checkpoints, halts,
delegations, metrics) and derive_brain.py (the header's brain facts), source.py (the Source),
sim.py and sim_records.py (the simulator).
"""

from ocr_tui.core.source import lazy_source

__getattr__ = lazy_source("ocr_tui.formats.idumb.source", "IdumbSource")
