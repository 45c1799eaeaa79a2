"""Which columns the session list shows, and how wide: pure (no Textual), from the formats and
projects the list shows, the width there is and (for the room left) the widest cell of each
column.

The columns and their plan are `core.columns`', the ones `ocr-tui status` uses too (its table
has the same columns, by the same names, in upper case). Every column means one thing in every
format: the OCR ones (round, reviewers, findings, verdict, round time) are shown when OCR
sessions can be in the list, the other formats' ones (needs) when theirs can; the format column
when several formats can, the project column when several projects are listed. Which columns
show never depends on what the sessions are doing: the plan is made from what their cells can
hold (`columns.planned`), and their cells only share the room left, growing, never shrinking
back (`floors`) until the list is resized or its columns change.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ocr_tui.core import columns, registry
from ocr_tui.core.columns import BY_KEY, GROW_ORDER, ID_STEP, MAX_AIR, Shown, Spec, applies
from ocr_tui.core.timeutil import zone_name
from ocr_tui.ui.screens.sessions.cells import BAR_CELLS, TICKING

__all__ = ["BY_KEY", "GROW_ORDER", "ID_STEP", "MAX_AIR", "SPECS", "Shown", "Spec", "applies"]

# The arrow says which way the values run down the list, in every column alike: ▲ ascending
# (A→Z, oldest first), ▼ descending (newest first, Z→A).
ASCENDING, DESCENDING = "▲", "▼"
SPECS: tuple[Spec, ...] = columns.LIST_COLUMNS
# The column each sort orders by (it carries the mark and is always shown).
SORT_COLUMN = {"activity": "activity", "start": "started", "name": "id", "project": "project"}
A_TO_Z = frozenset({"id", "project"})  # the columns whose sort (not reversed) runs A→Z


def sort_mark(key: str, reverse: bool) -> str:
    """The sorted column's arrow: ▲ when its values ascend down the list, ▼ when they descend
    (by name A→Z: ▲; by time, newest first: ▼; `reverse` turns either round)."""
    return ASCENDING if (key in A_TO_Z) != reverse else DESCENDING


def label(spec: Spec, sort: tuple[str, bool] | None) -> str:
    """The header, with ▲ / ▼ on the sorted column (`sort`: its key, and reversed). Started
    holds clock times: its header names their zone (`Started (UTC)`), as the time convention
    says (fmt.when)."""
    header = f"{spec.header} ({zone_name()})" if spec.key == "started" else spec.header
    if sort is not None and sort[0] == spec.key:
        return f"{header} {sort_mark(*sort)}".strip()
    return header


def plan(
    formats: Collection[str],
    natural: Mapping[str, int],
    available: int,
    *,
    sort: tuple[str, bool] | None = None,
    projects: Collection[str] = (),
    padding: int = 2,
    floors: Mapping[str, int] | None = None,
) -> list[Shown]:
    """The columns shown, in order, with their widths (without `padding`, the cells each
    column adds), fitting `available` cells when the unmovable ones do (`columns.plan`).
    `projects`: the projects listed (none, or one: no Project column)."""
    specs = [s for s in SPECS if applies(s, formats, len(projects))]
    return columns.plan(
        specs,
        natural,
        available,
        labels={s.key: label(s, sort) for s in specs},
        planned=columns.planned(
            formats, projects, phase_labels=registry.phase_labels, bar=BAR_CELLS
        ),
        sorted_key=sort[0] if sort else None,
        padding=padding,
        fixed=TICKING,
        floors=floors,
    )
