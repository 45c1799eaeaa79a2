"""Reviews across sessions: one row per review round of every session, and
the project's one-line summary (sessions, active, rounds with a verdict, unresolved blockers).
Pure: from the session views, for the Reviews screen and any headless output alike.

Unresolved blockers: for each session, its latest round's blockers the user has not triaged
as fixed or won't fix (`Round.open_blockers`; without triage data, all of them). The latest
round only: a blocker still open in round 2 was in round 1 too, and counts once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ocr_tui.core.view import Round, SessionView, own_id

ACTIONABLE_TRIAGE = frozenset({"needs_review", "in_progress"})
TRIAGE_WORDS = {
    "needs_review": "needs review",
    "in_progress": "in progress",
    "changes_made": "changes made",
    "acknowledged": "acknowledged",
    "dismissed": "dismissed",
}


@dataclass(frozen=True)
class ReviewRow:
    session_id: str
    branch: str
    number: int
    path: str  # the round's directory, relative to the session
    verdict: str | None
    blockers: int | None  # None: not known yet (no synthesis, none found so far)
    should_fix: int | None  # None: the round's synthesis gave no counts
    suggestions: int | None
    open_blockers: int
    triage: str | None  # raw `user_round_progress.status`
    at: str | None  # when the round ended (`Round.ended_at`), else its last activity or start
    running: bool  # the session runs and this is its current round
    project: str = ""  # with several projects: the session's (`session_id` starts with it)
    approximate: bool = False  # `at` is a file's time, not one a store recorded

    @property
    def own_id(self) -> str:
        """The session's own id, without its project's name."""
        return own_id(self.session_id, self.project)

    @property
    def key(self) -> str:
        return f"{self.session_id}\0{self.path}"

    @property
    def actionable(self) -> bool:
        """No verdict yet, or triaged as needing review or in progress; a round nobody has
        triaged needs review (as OCR's dashboard's Actionable filter has it)."""
        return self.verdict is None or (self.triage or "needs_review") in ACTIONABLE_TRIAGE


@dataclass(frozen=True)
class Summary:
    sessions: int
    active: int
    verdicts: int  # rounds with a verdict
    open_blockers: int
    # Latest rounds whose blockers are not known yet (no synthesis, none found so far): the
    # count is then a floor (`so far`), not a fact.
    unknown: int = 0

    def parts(self) -> list[str]:
        """Sessions, active, reviews with a verdict, unresolved blockers: the line's parts."""
        return [
            f"{self.sessions} session{'s' * (self.sessions != 1)}",
            f"{self.active} active",
            f"{self.verdicts} review{'s' * (self.verdicts != 1)} with a verdict",
            f"{self.open_blockers} unresolved blocker{'s' * (self.open_blockers != 1)}"
            + (" so far" if self.unknown else ""),
        ]

    def text(self) -> str:
        return " · ".join(self.parts())

    @classmethod
    def of(cls, view: SessionView) -> Summary:
        """One session's share of a summary (summaries add up: `summary` is their sum)."""
        latest = view.rounds[-1] if view.rounds else None
        return cls(
            sessions=1,
            active=int(view.running),
            verdicts=sum(1 for r in view.rounds if r.verdict),
            open_blockers=latest.open_blockers if latest is not None else 0,
            unknown=int(latest is not None and latest.blockers is None),
        )

    def __add__(self, other: Summary) -> Summary:
        return Summary(
            self.sessions + other.sessions,
            self.active + other.active,
            self.verdicts + other.verdicts,
            self.open_blockers + other.open_blockers,
            self.unknown + other.unknown,
        )

    def __neg__(self) -> Summary:
        return Summary(
            -self.sessions, -self.active, -self.verdicts, -self.open_blockers, -self.unknown
        )

    def __sub__(self, other: Summary) -> Summary:
        return self + -other


def _completed_at(view: SessionView, rnd: Round) -> str | None:
    """When the round ended (`Round.ended_at`: its round_completed event, else its synthesis'
    file time); a round not ended: the session's last activity while it runs, else its start."""
    if rnd.ended_at:
        return rnd.ended_at
    live = view.running and rnd.number == view.current_round
    return view.last_activity if live else rnd.started_at or view.last_activity


def review_rows(views: Iterable[SessionView]) -> list[ReviewRow]:
    """Every review round of every session, newest first (by when it completed)."""
    rows = []
    for v in views:
        for rnd in v.rounds:
            counts = rnd.counts
            rows.append(
                ReviewRow(
                    session_id=v.id,
                    branch=v.branch or v.id,
                    number=rnd.number,
                    path=rnd.path,
                    verdict=rnd.verdict,
                    blockers=rnd.blockers,  # never fewer than the synthesis counts
                    should_fix=counts.should_fix if counts else None,
                    suggestions=counts.suggestions if counts else None,
                    open_blockers=rnd.open_blockers,
                    triage=rnd.triage,
                    at=_completed_at(v, rnd),
                    approximate=rnd.approximate and rnd.ended_at is not None,
                    running=v.running and rnd.number == v.current_round and not rnd.complete,
                    project=v.project or "",
                )
            )
    rows.sort(key=lambda r: (r.at or "", r.session_id, r.number), reverse=True)
    return rows


def summary(views: Iterable[SessionView]) -> Summary:
    total = NO_SUMMARY
    for view in views:
        total += Summary.of(view)
    return total


NO_SUMMARY = Summary(sessions=0, active=0, verdicts=0, open_blockers=0)
