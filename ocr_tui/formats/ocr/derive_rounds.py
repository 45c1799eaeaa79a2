"""A session's review rounds as the view shows them, and which round is current.

The round directories on disk are the truth: each becomes a `Round` (its synthesis, reviewers,
counted findings, the store's triage and when it ran), and the current round is the highest
directory; the store's round number only fills in before the first directory exists (or is
reported when it names a round that has none). Pure; no IO.
"""

from __future__ import annotations

from ocr_tui.core.timeutil import fmt_ts
from ocr_tui.core.view import Reviewer, Round
from ocr_tui.formats.ocr import phases as ph
from ocr_tui.formats.ocr.files import RoundFiles, SessionFiles, synthesis
from ocr_tui.formats.ocr.markdown import reviewer_label
from ocr_tui.formats.ocr.model import StoredState
from ocr_tui.formats.ocr.unit_times import Span, round_span


def completed_rounds(state: StoredState | None, kind: str = "round_completed") -> frozenset[int]:
    """The rounds the store records as completed (its round_completed events; map runs:
    `map_completed`)."""
    if state is None:
        return frozenset()
    return frozenset(e.round for e in state.events if e.type == kind and e.round and e.round > 0)


def round_views(files: SessionFiles, state: StoredState | None) -> list[Round]:
    """Every round directory's `Round`, in the files' order."""
    triage = dict(state.round_triage) if state else {}
    done = completed_rounds(state)
    highest_round = files.rounds[-1].number if files.rounds else None
    first_of = {}
    for rf in files.rounds:
        first_of.setdefault(rf.number, rf)
    return [
        _round_view(
            rf, triage.get(rf.number), done,
            round_span(rf, first_of.get(rf.number - 1), state, rf.is_complete(done),
                       rf.number == highest_round),
        )
        for rf in files.rounds
    ]  # fmt: skip


def current_round(
    files: SessionFiles, state: StoredState | None, workflow: str, problems: list[str]
) -> int | None:
    """The highest round directory's number; before any, the store's (else 1), or None for a
    map session that never reviewed. A stored round above the highest directory is a problem."""
    highest_round = files.rounds[-1].number if files.rounds else None
    state_round = positive(state.current_round) if state else None
    if highest_round is not None:
        if state_round is not None and state_round > highest_round:
            problems.append(
                f"state names round {state_round}, "
                f"but the highest round directory is round-{highest_round}"
            )
        return highest_round
    if workflow == ph.MAP and not files.has_rounds_dir:
        return None
    return state_round or 1


def _round_view(rf: RoundFiles, triage: str | None, done: frozenset[int], span: Span) -> Round:
    verdict, counts = synthesis(rf)
    begun, ended, guessed = span
    tally = rf.tally  # counted by `tally.tally_rounds` (IO) before the derivation
    return Round(
        number=rf.number,
        complete=rf.is_complete(done),
        discourse="discourse.md" in rf.files,
        verdict=verdict,
        counts=counts,
        reviewers=[
            Reviewer(
                name=r.name,
                label=reviewer_label(r.name),
                findings=r.severity.total(),
                severity=r.severity,
                path=r.rel,
            )
            for r in rf.reviewers
        ],
        findings=tally.findings if tally else None,
        blockers=tally.blockers if tally else None,
        open_blockers=tally.open_blockers if tally else 0,
        evolution=tally.evolution if tally else None,
        path=rf.rel,
        triage=triage,
        started_at=fmt_ts(begun),
        ended_at=fmt_ts(ended),
        approximate=guessed,
    )


def positive(n: int | None) -> int | None:
    """Round and run numbers start at 1: a stored 0 or negative number counts as absent."""
    return n if n is not None and n > 0 else None
