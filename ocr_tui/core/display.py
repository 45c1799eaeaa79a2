"""What the session list and `ocr-tui status` show of a session, in the same words: one pure
function per value (no IO, no Textual), used by the dashboard's list (`ui.list_cells`,
`ui.list_layout`) and the headless output (`status_text`, `cli`) alike.

- the formats' short names (`analysis`, not `sci` in one place and `analysis` in another);
- the columns' own texts (their table and plan: `core.columns`);
- the session's time (`session_seconds`: the whole session's, start to end or to now) beside
  OCR's round time (`round_seconds`), `Flow`, `Rnd`, `Needs`, `Started`, `Activity`;
- the id shortened to a column (`shorten_id`): first its redundant prefix goes (the date the
  Started column shows, `session-`), in every row of the table alike, then its middle; never
  its end, the part that tells sessions apart.

Texts from disk come out of here through `safe_line`.
"""

from __future__ import annotations

import functools
import re
from collections import Counter
from collections.abc import Collection, Iterable
from datetime import datetime

from ocr_tui.core import registry
from ocr_tui.core.cells import clip_end, elide_middle
from ocr_tui.core.registry import is_host
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import human_duration, human_relative, local_clock, parse_ts
from ocr_tui.core.view import MapRun, Round, SessionView, own_id

# --- the formats -------------------------------------------------------------------------------

FORMAT_ROOM = 8  # the widest short name; a format's key is cut to it


def format_short(framework: str) -> str:
    """The Fmt column's and `status`' FMT: the format's key (`ocr`, `code`, `analysis`,
    `idumb`, a plugin's own), made safe and cut to FORMAT_ROOM."""
    return safe_line(framework)[:FORMAT_ROOM]


def format_label(framework: str) -> str:
    """Titles and the detail: the format's human name (its Source's `label`), else its key."""
    return safe_line(registry.label(framework) or framework)


# --- times ---------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=1024)
def ts(value: str | None) -> datetime | None:
    """parse_ts, cached: the same few timestamps are re-read on every tick."""
    return parse_ts(value)


def round_seconds(view: SessionView, now: datetime) -> int | None:
    """OCR's own elapsed time, the "Round time": from the current round's (or map run's)
    start; ticking (to `now`) while it runs, else the derived duration."""
    el = view.elapsed
    if el.running and el.since:
        since = ts(el.since)
        if since is not None:
            return max(0, int((now - since).total_seconds()))
    return el.seconds


def session_seconds(view: SessionView, now: datetime) -> int | None:
    """The whole session's time, "Elapsed" in every format and command: start to now while
    it runs, else to its end. OCR's own elapsed counts from the round's (or map run's) start;
    its end is the same."""
    el = view.elapsed
    start, since = ts(view.started_at), ts(el.since)
    if start is None or since is None or start >= since:
        return round_seconds(view, now)
    if el.running:
        return max(0, int((now - start).total_seconds()))
    if el.seconds is None:
        return None
    return max(0, int((since - start).total_seconds()) + el.seconds)


def coarse_duration(seconds: int | None) -> str:
    """`human_duration`, whole minutes once past the first one (a running row changes once a
    minute): `45s`, `4m`, `12m`, `1h 05m`; "—" when not known."""
    if seconds is not None and 60 <= seconds < 600:
        return f"{seconds // 60}m"
    return human_duration(seconds)


def elapsed_text(view: SessionView, now: datetime) -> str:
    """The Elapsed cell: the session's time."""
    return coarse_duration(session_seconds(view, now))


def round_time_text(view: SessionView, now: datetime) -> str:
    """The Round time cell: OCR's round (or map run) time."""
    return coarse_duration(round_seconds(view, now))


def started_at(view: SessionView) -> str | None:
    """When the session started: its own start time, else the start its elapsed time counts
    from (never `—` where another screen shows a time)."""
    return view.started_at or view.elapsed.since


STARTED_ROOM = 12  # the Started column's widest cell


def started_text(view: SessionView, now: datetime) -> str:
    """The Started cell: the local clock time without the zone (the column header names
    it): `14:02` today, `Mar 10 14:02` this year, the date alone (`2025-11-17`) before; "—"
    when not known."""
    at = ts(started_at(view))
    if at is None:
        return "—"
    text = local_clock(at, now, zone=False)
    return text.split()[0] if len(text) > STARTED_ROOM else text


def activity_text(value: str | None, now: datetime) -> str:
    """The Activity cell: how long ago (`12m ago`), without a seconds count: the text changes
    at 10 s and then once a minute."""
    at = ts(value)
    if at is None:
        return "—"
    seconds = (now - at).total_seconds()
    if 10 <= seconds < 60:
        return "<1m ago"
    return human_relative(seconds)


# --- the other cells -----------------------------------------------------------------------------

TEXT_CAP = 60  # no cell text from disk is longer (the column clips it further)

FLOW_ROOM = 12


def flow_text(view: SessionView) -> str:
    """The workflow where it says more than the format: OCR's review / map, the code
    workflow's `fast`; "" for a format's only workflow (`code code` said nothing)."""
    w, f = view.workflow, view.framework
    for name in (f, format_short(f)):
        if w == name:
            return ""
        if w.startswith(name + ":"):
            return clip_end(safe_line(w[len(name) + 1 :]), FLOW_ROOM)
    said = registry.default_workflow(f)  # said by the format column already
    return "" if said and said == w else clip_end(safe_line(w), FLOW_ROOM)


def is_map(view: SessionView) -> bool:
    """An OCR session whose workflow is a map: its unit is its map run, never a review round
    (one it went through before included)."""
    return is_host(view.framework) and view.workflow == "map"


def round_text(view: SessionView) -> str:
    """`R2` (review round 2) or `M1` (map run 1): the unit an OCR session is in; "" when none
    (or another format)."""
    if not is_host(view.framework):
        return ""
    if is_map(view):
        return f"M{view.current_map_run}" if view.current_map_run else ""
    return f"R{view.current_round}" if view.current_round else ""


def unit_round(view: SessionView) -> Round | None:
    """The review round whose reviewers, findings and verdict a row shows: an OCR review
    session's current one; None for a map session (its unit is its map run: `map_run_text`)
    and the other formats."""
    return view.current if is_host(view.framework) and not is_map(view) else None


def unit_map_run(view: SessionView) -> MapRun | None:
    """A map session's current map run (of twins with its number, the last), else None."""
    if not is_map(view) or not view.current_map_run:
        return None
    runs = [r for r in view.map_runs if r.number == view.current_map_run]
    return runs[-1] if runs else None


def map_run_text(view: SessionView) -> str:
    """What a map session's map run mapped, in the Verdict column: `12 files` (its files, else
    its sections' files added up); "" when not known (or not a map session)."""
    run = unit_map_run(view)
    if run is None:
        return ""
    files = run.files
    if files is None and run.sections:
        files = sum(s.files for s in run.sections)
    if files is None:
        return ""
    return f"{files} file" if files == 1 else f"{files} files"


def agents_text(view: SessionView) -> str:
    """The Agents cell: the agents of the phase (the other formats' summary), or, for OCR,
    the agent commands running now (`2 running`, `1 running · 1 stale`); "" when none."""
    if view.summary:
        return safe_line(view.summary)
    if not view.agents:
        return ""
    stale = sum(1 for a in view.agents if a.stale)
    text = f"{len(view.agents) - stale} running" if len(view.agents) > stale else ""
    return " · ".join(t for t in (text, f"{stale} stale" if stale else "") if t)


def agents_stale(view: SessionView) -> bool:
    """An agent command of the session has gone quiet (no heartbeat, or its process gone)."""
    return any(a.stale for a in view.agents)


def needs_text(view: SessionView) -> str:
    """What needs attention: a gate waiting on you, else the first alert; "" when nothing."""
    if view.waiting:
        return "your approval"
    return safe_line(view.alerts[0]) if view.alerts else ""


# --- the session id ------------------------------------------------------------------------------

# What an id may start with that another column says, or that says nothing: the day
# (`2026-11-23-`, OCR; `261123-`, the code workflow), which the Started column shows, and
# the words every id of a format starts with: scientific analysis' `session-` (its date,
# which differs between sessions, stays) and iDumb's `ses_`.
_REDUNDANT = re.compile(r"^(?:\d{4}-\d{2}-\d{2}[-_]|\d{6}[-_]|session-|ses_)(?=.)")
ID_HEAD = 8  # cells at most kept of an id's start when its middle goes


def local_id(view: SessionView) -> str:
    """The session's own id, without its project's name (`api/2026-11-23-main` →
    `2026-11-23-main`): what the Session column shows beside the Project column."""
    return own_id(view.id, view.project)


def id_core(sid: str) -> str:
    """`sid` without its redundant prefix (never empty): `2026-11-23-feat-x` → `feat-x`,
    `261123-csv-export` → `csv-export`, `session-20261123-220146-10156` →
    `20261123-220146-10156`, `ses_u8jzPde0` → `u8jzPde0`."""
    return _REDUNDANT.sub("", sid, count=1)


_DIGITS = re.compile(r"(\d+)")


def name_order(sid: str) -> tuple[tuple[object, ...], str]:
    """A session's place in an A→Z list: by the name the tables show (`id_core`: a date
    prefix would order by day), case-insensitive, numbers by their value (`review-2` before
    `review-10`, as reviewers are), the whole id breaking ties."""
    parts = _DIGITS.split(id_core(sid).lower())
    return (tuple(_number(p) if i % 2 else p for i, p in enumerate(parts)), sid)


def _number(digits: str) -> tuple[int, str]:
    """A run of digits ordered by its value, without `int` (an id of 5,000 digits would
    pass Python's limit on them): fewer digits first, then the digits themselves."""
    digits = digits.lstrip("0") or "0"
    return (len(digits), digits)


def ambiguous(ids: Iterable[str], groups: Iterable[str] | None = None) -> frozenset[str]:
    """The ids whose core another id shares (`2026-11-22-main`, `2026-11-23-main`): these
    keep their prefix, so no two rows read the same. A unique one, however short (`main`),
    loses it: the Started column says its day. `groups`: each id's project (several
    projects): only ids of one project are compared, the Project column tells the others
    apart."""
    ids = list(ids)
    groups = list(groups) if groups is not None else [""] * len(ids)
    rows = set(zip(groups, ids, strict=True))
    counts = Counter((g, id_core(s)) for g, s in rows)
    return frozenset(s for g, s in rows if counts[(g, id_core(s))] > 1)


def shown_id(sid: str, drop: bool, keep: Collection[str] = ()) -> str:
    """The id as a table shows it before it is cut: without its redundant prefix when `drop`
    (unless it is one of `keep`, see `ambiguous`)."""
    return id_core(sid) if drop and sid not in keep else sid


def shorten_id(sid: str, width: int, *, drop: bool, keep: Collection[str] = ()) -> str:
    """The id in `width` cells, as every table shows it: `drop` (the table's column is
    narrower than its widest id: the same for every row) takes its redundant prefix off;
    what is still too long loses its middle, keeping the end (`feat-li…ld-cache`)."""
    return elide_middle(shown_id(sid, drop, keep), width, head_max=ID_HEAD)


def drops_prefix(widest: int, width: int) -> bool:
    """Whether a table whose widest id is `widest` cells drops the ids' prefixes in a column
    `width` cells wide: as soon as one id does not fit, for every row."""
    return widest > width
