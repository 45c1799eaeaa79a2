"""The columns of the session list and of `ocr-tui status`: one table (`COLUMNS`) of their names,
ranks and widths, and one plan (`plan`) of which are shown and how wide. Pure: no IO, no
Textual; `ui.list_layout` and `status_text` call it alike.

A layout that holds still while a run goes on:

- which columns show depends on the width, the formats and projects listed and the sessions'
  names, never on what a session is doing: `applies` reads the formats and the number of
  projects, `plan` decides the columns from widths known before any cell (`planned`);
- a column whose values come from a known set is planned at its widest from the first frame
  (the phase's labels, the verdicts, OCR's agent count) or, short of room, at its short form
  (`APPROVE` / `CHANGES` / `DISCUSS`: `short_verdict`); any other column grows into the room
  left when a value needs it, and never narrower than it was (`floors`, kept by the list until
  the screen is resized or its columns change);
- the phase's bar takes only room no cell wants (the fraction says the same): in a list whose
  cells grow, it can go once, never to come back until a resize.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from ocr_tui.core import registry
from ocr_tui.core.display import FORMAT_ROOM, STARTED_ROOM, TEXT_CAP, format_short
from ocr_tui.core.registry import is_host


@dataclass(frozen=True)
class Spec:
    key: str
    header: str  # the list's; `status` says it in upper case
    rank: int  # the higher, the sooner it gives way when space is short (0: never)
    cap: int  # the widest it gets from its cells
    scope: str = "all"  # all | multi | host | other | host-only | projects | flows
    grow: int = 0  # flexible: the narrowest it gets (0: as planned)
    tip: str = ""  # what it holds, for the help and tests' sake
    # Its cells are read whole: the columns ranked after every such one give way (see
    # `GIVE_WAY`) before it is planned at its short form (`short`) or its cells are cut.
    whole: bool = False
    short: int = 0  # a whole column's short form, planned before any column gives way
    # (0: none; then its `grow`, planned only once the columns after GIVE_WAY gave way)


COLUMNS: tuple[Spec, ...] = (
    Spec("state", "", 0, 1, tip="the session's state glyph"),
    # with several projects only
    Spec("project", "Project", 0, 20, "projects", tip="the session's project"),
    Spec("id", "Session", 0, 80, grow=14, tip="the session's id"),
    Spec("status", "Status", 0, 24, grow=8, tip="the state's glyph and words (status)"),
    Spec("format", "Fmt", 6, FORMAT_ROOM, "multi", tip="the session's format"),
    Spec("flow", "Flow", 12, 6, "flows", tip="the workflow: review / map, fast"),
    # short: `8/8 ` and 20 cells of label, every OCR phase's (two of the scientific analysis'
    # are longer: planned for when there is room, else cut)
    Spec("phase", "Phase", 1, 40, grow=20, whole=True, short=24, tip="the phase: place, name"),
    Spec("round", "Rnd", 8, 4, "host", tip="R2: review round 2; M1: map run 1"),
    Spec("reviewers", "Rev", 11, 3, "host", tip="the review round's reviewers"),
    Spec("findings", "Find", 7, 4, "host", tip="the review round's distinct findings"),
    Spec(
        "verdict",
        "Verdict",
        4,
        16,
        "host",
        whole=True,
        short=7,
        tip="the review round's verdict",
    ),  # fmt: skip
    Spec(
        "agents",
        "Agents",
        10,
        40,
        grow=10,
        tip="the agents of the phase; for OCR, the agent commands running now",
    ),  # fmt: skip
    Spec("needs", "Needs", 3, TEXT_CAP, "other", grow=13, tip="what needs attention"),
    Spec("round_time", "Round time", 9, 10, "host-only", tip="the round's (or map run's) time"),
    # whole: a cut time says nothing; the session's time outlasts the columns after it
    Spec("elapsed", "Elapsed", 5, 8, whole=True, tip="the session's time: to now while it runs"),
    Spec("started", "Started", 13, 16, tip="when the session started (local time)"),
    Spec("activity", "Activity", 2, 8, tip="the last activity"),
)
BY_KEY = {s.key: s for s in COLUMNS}
LIST_COLUMNS = tuple(s for s in COLUMNS if s.key != "status")  # the glyph says the state
STATUS_COLUMNS = tuple(s for s in COLUMNS if s.key != "state")  # STATUS leads with the glyph

# The columns ranked after this give way before a `whole` column is planned short (Needs and
# Activity, ranked before the verdict, do not: they go only when the narrowest plan of the
# columns kept does not fit).
GIVE_WAY = max(s.rank for s in COLUMNS if s.whole)
# A readable id: columns give way to it (all but the phase) before it narrows to its `grow`.
ID_STEP = 24
MAX_AIR = 2  # cells added to each column when the room allows
# The room left (once the plan's columns have theirs) goes to the cells that want more, in
# this order: a readable id, the phase's label (a free-text phase's), the status, a first
# step of what needs you and of the agents, then the whole id (once its prefix went), then
# what needs you and the agents whole; what is left, to the phase's bar, the ids' prefixes,
# air and the id. (A verdict never grows: its widest is planned, or its short form.)
GROW_ORDER: tuple[tuple[str, int | None], ...] = (
    ("id", ID_STEP),
    ("phase", None),
    ("status", None),
    ("needs", 30),
    ("agents", 24),
    ("id", None),
    ("needs", None),
    ("agents", None),
)

# --- what the columns can hold, known before any cell ------------------------------------------

# OCR's verdicts (final.md's), each with its short form.
VERDICTS = {"APPROVE": "APPROVE", "REQUEST CHANGES": "CHANGES", "NEEDS DISCUSSION": "DISCUSS"}
SHORT_VERDICTS = {
    "APPROVE": "APPROVE", "APPROVED": "APPROVE", "LGTM": "APPROVE",
    "REQUEST CHANGES": "CHANGES", "CHANGES REQUESTED": "CHANGES",
    "NEEDS DISCUSSION": "DISCUSS", "NEEDS WORK": "DISCUSS",
}  # fmt: skip
OCR_AGENTS = "9 running · 9 stale"  # OCR's widest Agents cell (`display.agents_text`)


def flow_words() -> tuple[str, ...]:
    """The words the Flow cells of every registered format can show."""
    return tuple(w for cls in registry.source_classes() for w in cls.flow_words)


def short_verdict(verdict: str) -> str:
    """A verdict's short form, for a Verdict column planned short: `REQUEST CHANGES` →
    `CHANGES`; one not known stays as it is (the column cuts it)."""
    key = " ".join(verdict.upper().split())
    return SHORT_VERDICTS.get(key, verdict)


# What STATUS says after the glyph (`status_text.status_cell`): the state's word.
STATUS_WORDS = ("active", "closed", "stalled", "stale agent", "waiting on you")


def phase_room(labels: Collection[str]) -> int:
    """The Phase cell's width (without its bar) for a format whose phases are `labels`: the
    place among them (`8/8 `: the built-in formats have fewer than 10 phases) and the widest
    label; 0 when not known (free text)."""
    return 4 + max(len(x) for x in labels) if labels else 0


def planned(
    formats: Collection[str],
    projects: Collection[str] = (),
    *,
    phase_labels: Callable[[str], Collection[str]] = lambda _f: (),
    bar: int = 0,
) -> dict[str, int]:
    """The widths the plan is made for, known before any cell: of the columns whose values come
    from a known set (the phase's labels of each format, `phase_labels`; OCR's verdicts and
    agent count; the flows), and of those the listing names (the formats' short names, the
    projects'). `bar`: the phase bar's cells (the list's; `status` has none)."""
    out = {
        "format": max((len(format_short(f)) for f in formats), default=0),
        "project": max((len(p) for p in projects), default=0),
        "flow": max((len(w) for w in flow_words()), default=0),
        "started": STARTED_ROOM,
        # the glyph and the word that says why (`status_text.status_cell`)
        "status": 2 + max(len(w) for w in STATUS_WORDS),
        "phase": max((phase_room(phase_labels(f)) for f in formats), default=0),
        "bar": bar,
    }
    if any(is_host(f) for f in formats):
        out["verdict"] = max(len(v) for v in VERDICTS)
        out["agents"] = len(OCR_AGENTS)
    return out


# --- which columns, how wide ---------------------------------------------------------------------


@dataclass(frozen=True)
class Shown:
    key: str
    label: str
    width: int
    bar: bool = False  # the phase: its bar is drawn (in `width`)
    air: int = 0  # of `width`, the cells of air after the cells' room


def applies(spec: Spec, formats: Collection[str], projects: int = 1) -> bool:
    """Whether a table of sessions of `formats` (and of `projects` projects) has this column:
    never a matter of what its cells say now."""
    if spec.scope == "multi":
        return len(formats) > 1
    if spec.scope == "host":
        return any(is_host(f) for f in formats)
    if spec.scope == "other":
        return any(not is_host(f) for f in formats)
    if spec.scope == "host-only":
        return bool(formats) and all(is_host(f) for f in formats)
    if spec.scope == "projects":
        return projects > 1
    if spec.scope == "flows":  # a format with several workflows (a plugin's may have)
        return any(registry.flow_words(f) != () for f in formats)
    return True


def plan(
    specs: Iterable[Spec],
    natural: Mapping[str, int],
    available: int,
    *,
    labels: Mapping[str, str],
    planned: Mapping[str, int] | None = None,
    sorted_key: str | None = None,
    padding: int = 2,
    fixed: Collection[str] = (),
    fill: bool = True,
    floors: Mapping[str, int] | None = None,
) -> list[Shown]:
    """The columns shown, in order, with their widths (without `padding`, the cells each
    column adds), fitting `available` cells when the unmovable ones do. `specs`: the columns
    that apply (`applies`); `planned`: the widths known before any cell (`planned()`);
    `natural`: each column's widest non-blank cell (`phase` without its bar; `id_core`: the
    widest id without its prefix, see `display.shown_id`); `fixed`: columns as wide as their
    cap whatever their cells (a ticking time); `fill`: the room left goes to air between the
    columns and to the id (a screen's table, which holds still: its columns keep the room
    planned) or nowhere (a printed one: its columns are as wide as their cells, within the
    plan, and the id gets the room they leave); `floors`: the widths
    (without air or bar) a column had before, never taken back.

    Which columns show come from `planned`, the headers and the ids alone (`_choose`); the
    cells' widths only share the room left (`_grow`); then the phase's bar, the ids'
    prefixes, air between the columns and the id get what no cell wants."""
    planned = planned or {}
    specs = list(specs)
    base, short, want = _choose(
        specs, natural, available, labels, planned, sorted_key, padding, fixed
    )
    # A whole column's cells grow it only past its widest planned (a free-text phase's).
    grows = {
        k: v for k, v in natural.items() if not (k in want and BY_KEY[k].whole and v <= want[k])
    }
    kept = [s for s in specs if s.key in base]
    if not fill:  # a printed table holds no still: each column as its cells, the id the rest
        for s in kept:
            if s.key != "id" and s.key not in fixed:
                base[s.key] = min(base[s.key], max(len(labels[s.key]), natural.get(s.key, 0)))
    spare = available - sum(base[s.key] + padding for s in kept)
    widths = dict(base)
    for key, floor in (floors or {}).items():
        if key in widths and key != "id" and floor > widths[key]:
            more = min(spare, floor - widths[key])
            widths[key] += more
            spare -= more
    spare = _grow(widths, grows, {s.key: s for s in kept}, spare)
    # The phase's bar (the fraction says the same), the ids' prefixes (the day, which Started
    # says) and air between the columns come from what no cell wants.
    bar = planned.get("bar", 0)
    with_bar = bar > 0 and "phase" in base and "phase" not in short and spare >= bar
    if with_bar:
        spare -= bar
    if "id" in widths and spare:
        more = max(0, min(spare, min(BY_KEY["id"].cap, natural.get("id", 0)) - widths["id"]))
        widths["id"] += more
        spare -= more
    air = min(MAX_AIR, spare // max(1, len(kept) - 1)) if fill and len(kept) > 1 else 0
    spare -= air * (len(kept) - 1)
    if fill and "id" in widths:
        widths["id"] += spare
    out = []
    for i, s in enumerate(kept):
        own_air = air if i else 0
        phase_bar = with_bar and s.key == "phase"
        width = widths[s.key] + own_air + (bar if phase_bar else 0)
        out.append(Shown(s.key, labels[s.key], width, bar=phase_bar, air=own_air))
    return out


def _choose(
    specs: list[Spec],
    natural: Mapping[str, int],
    available: int,
    labels: Mapping[str, str],
    planned: Mapping[str, int],
    sorted_key: str | None,
    padding: int,
    fixed: Collection[str],
) -> tuple[dict[str, int], set[str], dict[str, int]]:
    """The columns kept and each one's planned width (and those planned at their short form,
    and each column's widest planned),
    from what is known before any cell: the headers, `planned`, the ids' widest (a readable
    id). The whole columns are planned at their short forms, which lose nothing (the
    verdicts'; the phase's labels up to 20 cells: every OCR phase's); columns give way by
    rank (the sorted one never): those ranked after GIVE_WAY; then the phase's label is cut
    to its `grow`; then all but the phase give way to a readable id, which then narrows to its
    `grow`; then any but the unmovable ones. What is left goes back to the id, then to the
    whole columns' widest forms (the most telling first) but for the room the free-text
    columns' first steps may want, then to the columns that gave way."""
    want: dict[str, int] = {}  # the widest each is planned at
    short: dict[str, int] = {}  # its short form (a whole column's): nothing is lost
    least: dict[str, int] = {}  # the narrowest it is planned at
    for s in specs:
        head = len(labels[s.key])
        if s.key in fixed:
            width = s.cap
        elif s.key == "id":
            width = min(ID_STEP, natural.get("id_core", natural.get("id", 0)))
        elif s.grow:  # flexible: its first step, or the widest of its known values
            width = max(s.grow, min(s.cap, planned.get(s.key, 0)))
        else:  # a small column: as wide as its cells can be, or as the listing's are
            width = min(s.cap, planned.get(s.key, s.cap))
        want[s.key] = max(head, width)
        short[s.key] = max(head, min(want[s.key], s.short or want[s.key]))
        if s.key == "id":  # a readable id first; the narrowest one at the end
            least[s.key] = max(head, min(s.grow, want[s.key]))
        elif s.whole and s.key not in fixed:
            least[s.key] = max(head, min(short[s.key], s.grow or short[s.key]))
        else:
            least[s.key] = want[s.key]
    kept = list(specs)
    widths = dict(want) | short  # the whole columns at their short forms, to begin with

    def rank(s: Spec) -> int:
        return 0 if s.key == sorted_key else s.rank

    def over() -> int:
        return sum(widths[s.key] + padding for s in kept) - available

    def give_way(worse_than: int) -> list[Spec]:
        gone = []
        while over() > 0:
            droppable = [s for s in kept if rank(s) > worse_than]
            if not droppable:
                break
            s = max(droppable, key=lambda s: (rank(s), kept.index(s)))
            kept.remove(s)
            gone.append(s)
        return gone

    def narrow(keys: Iterable[str], to: Mapping[str, int]) -> None:
        for key in keys:
            if over() > 0 and key in widths:
                widths[key] = max(to[key], widths[key] - over())

    whole = [s.key for s in sorted(kept, key=lambda s: -rank(s)) if s.whole]
    gone = give_way(GIVE_WAY)
    narrow(whole, least)
    gone += give_way(1)
    narrow(["id"], least)
    gone += give_way(0)
    # What is left goes back to the id, then to the columns planned short (the most telling
    # first) but for the room the free-text columns' first steps may want (a whole column's
    # widest form is worth less than a cell of what needs you); then what gave way and fits
    # in the room left comes back.
    widths["id"] = min(want["id"], widths["id"] + max(0, -over())) if "id" in widths else 0
    for s in sorted(kept, key=rank):  # a phase cut to its `grow`: back to its short form
        widths[s.key] = max(widths[s.key], min(short[s.key], widths[s.key] + max(0, -over())))
    held = sum(
        max(0, min(step, BY_KEY[key].cap) - widths[key])
        for key, step in GROW_ORDER
        if step and key != "id" and key in widths and s_kept(kept, key)
    )
    for s in sorted(kept, key=rank):  # a verdict whole or short; a phase's label as it fits
        room = max(0, -over() - held)
        if s.grow or widths[s.key] + room >= want[s.key]:
            widths[s.key] = min(want[s.key], widths[s.key] + room)
    order = {s.key: i for i, s in enumerate(specs)}
    for s in sorted(gone, key=rank):
        if want[s.key] + padding <= -over():
            kept.append(s)
            kept.sort(key=lambda s: order[s.key])
    base = {s.key: widths[s.key] for s in kept}
    return base, {k for k, w in base.items() if w < want[k] and k != "id"}, want


def s_kept(kept: list[Spec], key: str) -> bool:
    return any(s.key == key for s in kept)


def _grow(
    widths: dict[str, int], natural: Mapping[str, int], specs: Mapping[str, Spec], spare: int
) -> int:
    """The flexible columns grown (GROW_ORDER) into `spare` cells, each at most its widest
    cell (and its cap). Returns the room left."""
    for key, step in GROW_ORDER:
        if key not in widths or not spare:
            continue
        cells = natural.get("id_core", natural.get("id", 0)) if key == "id" else natural.get(key, 0)
        cells = min(specs[key].cap, cells)
        more = max(0, min(spare, min(cells, step or cells) - widths[key]))
        widths[key] += more
        spare -= more
    for key, s in specs.items():  # the small columns (a round `R12`, a count): their cells
        if key not in dict(GROW_ORDER) and not s.whole and spare:
            more = max(0, min(spare, min(s.cap, natural.get(key, 0)) - widths[key]))
            widths[key] += more
            spare -= more
    return spare
