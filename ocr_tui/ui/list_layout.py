"""Which columns the session list shows, and how wide: pure (no Textual), from the formats the
list shows, the widest cell of each column and the width there is.

Every column means one thing in every format: the OCR ones (round, reviewers, findings,
verdict, round time) are shown when OCR sessions can be in the list, the other formats' ones
(agents, needs) when theirs can; the format column when several formats can. When the width
is short, columns give way by rank (the sorted one never); the id column takes what is left,
after the flexible ones got up to their widest cell.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

from ocr_tui.ui.fmt import zone_name
from ocr_tui.ui.list_cells import TICKING

SORT_MARKS = {False: "▼", True: "▲"}  # newest first / A→Z down the list, and reversed


@dataclass(frozen=True)
class Spec:
    key: str
    header: str
    rank: int  # the higher, the sooner it gives way when space is short (0: never)
    cap: int  # the widest it gets from its cells
    scope: str = "all"  # all | multi | ocr | other | ocr-only | content (some cell says so)
    grow: int = 0  # flexible: the narrowest it gets (0: as wide as its widest cell)
    tip: str = ""  # what it holds, for the help and tests' sake


SPECS: tuple[Spec, ...] = (
    Spec("state", "", 0, 1, tip="the session's state glyph"),
    Spec("id", "Session", 0, 80, grow=14, tip="the session's id"),
    Spec("format", "Fmt", 5, 5, "multi", tip="the session's format"),
    Spec("flow", "Flow", 12, 6, "content", tip="the workflow: review / map, fast"),
    Spec("phase", "Phase", 1, 40, grow=20, tip="the place among the phases and its name"),
    Spec("round", "Rnd", 7, 4, "ocr", tip="R2: review round 2; M1: map run 1"),
    Spec("reviewers", "Rev", 11, 3, "ocr", tip="the round's reviewers"),
    Spec("findings", "Find", 6, 4, "ocr", tip="the round's distinct findings"),
    Spec("verdict", "Verdict", 4, 16, "ocr", grow=8, tip="the round's verdict"),
    Spec("agents", "Agents", 10, 24, "other", grow=10, tip="the agents of the phase"),
    Spec("needs", "Needs", 3, 26, "other", grow=13, tip="what needs attention"),
    Spec("round_time", "Round time", 9, 10, "ocr-only", tip="the round's (or map run's) time"),
    Spec("elapsed", "Elapsed", 8, 8, tip="the session's time: to now while it runs"),
    Spec("started", "Started", 13, 16, tip="when the session started (local time)"),
    Spec("activity", "Activity", 2, 8, tip="the last activity"),
)
BY_KEY = {s.key: s for s in SPECS}
# The column each sort orders by (it carries the mark and is always shown).
SORT_COLUMN = {"activity": "activity", "start": "started", "name": "id"}
# Flexible columns get up to their widest cell (or a first step) in this order; the id gets
# the rest: a readable id first, then the phase and the verdict whole, then the whole id.
ID_STEP = 24
MAX_AIR = 2  # cells added to each column when every one has its widest cell
GROW_ORDER: tuple[tuple[str, int | None], ...] = (
    ("id", ID_STEP),
    ("phase", None),
    ("verdict", None),
    ("id", None),
    ("needs", None),
    ("agents", None),
)


@dataclass(frozen=True)
class Shown:
    key: str
    label: str
    width: int


def applies(spec: Spec, formats: Collection[str], natural: Mapping[str, int]) -> bool:
    """Whether a list of sessions of `formats` has this column (`natural`: each column's
    widest non-blank cell, 0 when every cell is blank)."""
    if spec.scope == "multi":
        return len(formats) > 1
    if spec.scope == "ocr":
        return "ocr" in formats
    if spec.scope == "other":
        return any(f != "ocr" for f in formats)
    if spec.scope == "ocr-only":
        return set(formats) == {"ocr"}
    if spec.scope == "content":
        return natural.get(spec.key, 0) > 0
    return True


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
    column adds), fitting `available` cells when the unmovable ones do."""
    specs = [s for s in SPECS if applies(s, formats, natural)]
    labels = {s.key: label(s, sort) for s in specs}
    widths: dict[str, int] = {}
    for s in specs:
        head = len(labels[s.key])
        if s.key in TICKING:
            widths[s.key] = max(head, s.cap)
        elif s.grow:
            widths[s.key] = max(head, min(s.grow, natural.get(s.key) or s.grow))
        else:
            widths[s.key] = max(head, min(s.cap, natural.get(s.key, 0)))
    sorted_key = sort[0] if sort else None

    def rank(s: Spec) -> int:
        return 0 if s.key == sorted_key else s.rank

    def total() -> int:
        return sum(widths[s.key] + padding for s in specs)

    # Columns give way to a readable id (ID_STEP cells, or its widest) before it narrows,
    # but the phase (rank 1) only to the narrowest id.
    readable = max(widths["id"], min(ID_STEP, natural.get("id", 0)))
    for keep, extra in ((1, readable - widths["id"]), (0, 0)):
        while total() + extra > available:
            droppable = [s for s in specs if rank(s) > keep]
            if not droppable:
                break
            specs.remove(max(droppable, key=lambda s: (rank(s), specs.index(s))))
    spare = max(0, available - total())
    kept = {s.key for s in specs}
    for key, step in GROW_ORDER:
        if key in kept and spare:
            want = min(BY_KEY[key].cap, natural.get(key, 0), step or 999) - widths[key]
            more = max(0, min(spare, want))
            widths[key] += more
            spare -= more
    # What is left: a little air between the columns, the rest after the id.
    air = min(MAX_AIR, spare // max(1, len(specs) - 1))
    for s in specs[1:]:
        widths[s.key] += air
        spare -= air
    if "id" in kept:
        widths["id"] += spare
    return [Shown(s.key, labels[s.key], widths[s.key]) for s in specs]
