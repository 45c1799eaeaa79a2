"""Where the user can go: navigation targets, the `Open` message, and stepping between rounds.

A screen never imports another screen. To show a place it posts `Open(target)`; the message
bubbles to the app, whose `@on(Open)` handler asks the router (`ocr_tui.ui.router`) for the
screen that shows the target. A target is a small frozen dataclass naming a place by what
identifies it on disk, so two screens showing one place compare equal through their targets.
A new kind of place (a finding) is one more `Target` subclass here and one screen that
declares it with `@router.route`.

No Textual screens or widgets here, and no IO.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

from textual.message import Message

from ocr_tui.core.view import MapRun, Round


@dataclass(frozen=True)
class Target:
    """A place the user can be taken to."""


@dataclass(frozen=True)
class SessionListTarget(Target):
    """The session list: the bottom of the screen stack."""


@dataclass(frozen=True)
class SessionTarget(Target):
    session_id: str


@dataclass(frozen=True)
class RoundTarget(Target):
    """One round directory. The path (`rounds/round-01`) is part of it: `rounds/round-01` and
    `rounds/round-1` are both round 1."""

    session_id: str
    number: int
    path: str  # relative to the session directory


@dataclass(frozen=True)
class ReviewsTarget(Target):
    """Every review round of every session: the Reviews view (`r` on the list; `r` on a
    session: its cursor on that session's latest round)."""

    # where the cursor starts; not part of the place (the view is the same)
    session_id: str | None = field(default=None, compare=False)


@dataclass(frozen=True)
class EventsTarget(Target):
    """A session's event log: what OCR recorded as it ran (`l` on the session)."""

    session_id: str


@dataclass(frozen=True)
class MapRunTarget(Target):
    """One map-run directory (`map/runs/run-01` beside `map/runs/run-1`: both run 1): its
    review sections, their files and what the user marked reviewed."""

    session_id: str
    number: int
    path: str  # relative to the session directory


@dataclass(frozen=True)
class ReviewerTarget(Target):
    """A reviewer of a round, by its file (two reviewers' names can normalise to one)."""

    session_id: str
    path: str  # relative to the session directory


@dataclass(frozen=True)
class FindingsTarget(Target):
    """The findings of one round (the round's directory, as in `RoundTarget`)."""

    session_id: str
    number: int
    path: str  # relative to the session directory


@dataclass(frozen=True)
class FindingTarget(Target):
    """One finding of a round, by its stable id (`finding.finding_id`): the same finding in
    another round has the same id."""

    session_id: str
    number: int
    path: str  # the round's directory, relative to the session directory
    finding_id: str
    # The findings' order where it was opened (the findings table's sort and filter), for
    # `[` / `]`; not part of the place: the same finding is the same target in any order.
    order: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class DiscourseTarget(Target):
    """A round's `discourse.md`, as the reviewers' responses to each other."""

    session_id: str
    number: int
    path: str  # the round's directory, relative to the session directory


@dataclass(frozen=True)
class DocumentTarget(Target):
    """A file of a session, shown as Markdown."""

    session_id: str
    path: str  # relative to the session directory


# How a target is opened:
# - "push": on top of the current screen (Enter on a row);
# - "back": a breadcrumb, or Esc after `[`/`]` moved the screen sideways: back to the screen
#   showing the target if the stack holds one (the nearest), else to the screen right below if
#   it can show the target in place (a round screen, another round), else back to the nearest
#   of the breadcrumb's places before it (`via`) that the stack holds, with the places after
#   that one opened on it (Back then keeps following the breadcrumb), else the current screen
#   is replaced by one for it (the stack never grows);
# - "step": `[`/`]` from a document to a round without that file: the screen right below
#   shows the target in place if it can (a round screen of the same session) and is popped
#   back to, else the current screen is replaced.
How = Literal["push", "back", "step"]


class Open(Message):
    """Show `target`. Posted by a screen; the app (or, in an app that does not route, the
    drill-down screen itself) hands it to the router."""

    def __init__(self, target: Target, how: How = "push", via: tuple[Target, ...] = ()) -> None:
        super().__init__()
        self.target = target
        self.how: How = how
        self.via = via  # "back": the breadcrumb's places before the target, outermost first


@runtime_checkable
class Navigator(Protocol):
    """An app that routes `Open` messages itself (`OcrTuiApp`)."""

    def open_target(
        self, target: Target, how: How = "push", via: tuple[Target, ...] = ()
    ) -> bool: ...


# -- session-relative paths: which round or run a file belongs to ----------------------------

ROUND_DIR = re.compile(r"^rounds/round-([0-9]+)$")
ROUND_FILE = re.compile(r"^(rounds/round-([0-9]+))/(.+)$")
RUN_FILE = re.compile(r"^(map/runs/run-([0-9]+))/(.+)$")


def steps_between_rounds(rel: str) -> bool:
    """Does the file `rel` belong to a round or a map run (so `[`/`]` step to the same file
    in the one before or after)? A session's own documents, and other formats', do not."""
    return bool(ROUND_FILE.match(rel) or RUN_FILE.match(rel))


def round_target(session_id: str, path: str) -> RoundTarget | None:
    """The round in directory `path` (`rounds/round-01`), or None for any other path."""
    m = ROUND_DIR.match(path)
    return RoundTarget(session_id, int(m.group(1)), path) if m else None


# -- stepping: `[` / `]` ---------------------------------------------------------------------


def adjacent(numbers: list[int], current: int, delta: int) -> int | None:
    """The existing number before (delta < 0) or after `current`, or None."""
    if delta < 0:
        earlier = [n for n in numbers if n < current]
        return max(earlier) if earlier else None
    later = [n for n in numbers if n > current]
    return min(later) if later else None


def adjacent_item(
    items: list[Round] | list[MapRun], path: str, number: int, delta: int
) -> Round | MapRun | None:
    """The round (or map run) before (delta < 0) or after the one in directory `path`, in the
    list's order (`round-1`, `round-01`, `round-2`: the twins of one number are neighbours);
    when that directory is gone, the nearest existing number."""
    paths = [item.path for item in items]
    if path in paths:
        i = paths.index(path) + (1 if delta > 0 else -1)
        return items[i] if 0 <= i < len(items) else None
    target = adjacent([item.number for item in items], number, delta)
    return next((item for item in items if item.number == target), None)


def round_files(rnd: Round) -> set[str]:
    """The documents a round has: its reviewers' files, discourse.md, final.md."""
    files = {r.path for r in rnd.reviewers}
    files |= {f"{rnd.path}/discourse.md"} if rnd.discourse else set()
    files |= {f"{rnd.path}/final.md"} if rnd.complete else set()
    return files


@dataclass(frozen=True)
class Neighbour:
    """Where `[` / `]` on a document of a round (or map run) leads."""

    kind: Literal["round", "map run"]
    item: Round | MapRun | None  # the round or run before / after (None: there is none)
    rel: str | None  # the same file there (None: it has no such file)
    name: str  # the file's path inside its round or run (`reviews/principal-1.md`)


def neighbour_file(
    rounds: list[Round], runs: list[MapRun], rel: str, delta: int
) -> Neighbour | None:
    """The same file in the round (or map run) before (delta < 0) or after the one `rel`
    belongs to. None when `rel` belongs to no round or run."""
    kind: Literal["round", "map run"]
    if m := ROUND_FILE.match(rel):
        kind, item = "round", adjacent_item(rounds, m.group(1), int(m.group(2)), delta)
        files = round_files(item) if isinstance(item, Round) else set()
    elif m := RUN_FILE.match(rel):
        kind, item = "map run", adjacent_item(runs, m.group(1), int(m.group(2)), delta)
        files = set(item.documents) if isinstance(item, MapRun) else set()
    else:
        return None
    name = m.group(3)
    candidate = f"{item.path}/{name}" if item is not None else None
    return Neighbour(kind, item, candidate if candidate in files else None, name)
