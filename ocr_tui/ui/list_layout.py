"""Which columns the session list shows, and how wide: pure (no Textual), from the formats the
list shows, the widest cell of each column and the width there is.

The columns and their plan are `core.display`'s, the ones `ocr-tui status` uses too (its
table has the same columns, by the same names, in upper case). Every column means one thing
in every format: the OCR ones (round, reviewers, findings, verdict, round time) are shown when
OCR sessions can be in the list, the other formats' ones (agents, needs) when theirs can; the
format column when several formats can. When the width is short, columns give way by rank (the
sorted one never), and those ranked after the verdict before a phase's label or a verdict is
cut; no cell is cut while a column has room to spare: the phase's bar (planned apart, from the
table's `phase_label`) and the ids' prefixes only get the room no cell wants, the id column
what is left.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ocr_tui.core import display
from ocr_tui.core.display import BY_KEY, GROW_ORDER, ID_STEP, MAX_AIR, Shown, Spec, applies
from ocr_tui.core.timeutil import zone_name
from ocr_tui.ui.list_cells import TICKING

__all__ = ["BY_KEY", "GROW_ORDER", "ID_STEP", "MAX_AIR", "SPECS", "Shown", "Spec", "applies"]

SORT_MARKS = {False: "▼", True: "▲"}  # newest first / A→Z down the list, and reversed
SPECS: tuple[Spec, ...] = display.LIST_COLUMNS
# The column each sort orders by (it carries the mark and is always shown).
SORT_COLUMN = {"activity": "activity", "start": "started", "name": "id", "project": "project"}


def label(spec: Spec, sort: tuple[str, bool] | None) -> str:
    """The header, with ▼ / ▲ on the sorted column (`sort`: its key, and reversed). Started
    holds clock times: its header names their zone (`Started (UTC)`), as the time convention
    says (fmt.when)."""
    header = f"{spec.header} ({zone_name()})" if spec.key == "started" else spec.header
    if sort is not None and sort[0] == spec.key:
        return f"{header} {SORT_MARKS[sort[1]]}".strip()
    return header


def plan(
    formats: Collection[str],
    natural: Mapping[str, int],
    available: int,
    *,
    sort: tuple[str, bool] | None = None,
    padding: int = 2,
) -> list[Shown]:
    """The columns shown, in order, with their widths (without `padding`, the cells each
    column adds), fitting `available` cells when the unmovable ones do (`display.plan`)."""
    specs = [s for s in SPECS if applies(s, formats, natural)]
    return display.plan(
        specs,
        natural,
        available,
        labels={s.key: label(s, sort) for s in specs},
        sorted_key=sort[0] if sort else None,
        padding=padding,
        fixed=TICKING,
    )
