"""Each round's distinct findings, counted for the session view (`status --json`'s
`findings`, `blockers` and `evolution`): `ocr-tui findings`' own functions run on the same
inputs (`round_findings.round_findings`, then `findings.evolve` against the round numbered one
less, as `round_findings.session_findings` does), so both always agree. Blocking IO.

Reading a round's findings costs far more than the derivation (each reviewer file and final.md
parsed again, titles compared), so a round's counts are computed only when what they are read
from changed: they are cached, in memory and in the persistent parse cache, under a digest of
the session's path, the round's directory, the stat keys (size, mtime, ctime, inode) of its
reviewer files, final.md and round-meta.json, its ocr.db rows, and the same of the round before
(its findings decide the evolution). The findings of the last few rounds read are kept too,
so a live round's next change does not re-read the finished round before it; and the reviewer
files and final.md the listing has just read are not read again (`fs.keep_texts`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection, Mapping

from ocr_tui.core.view import Counts, Evolution
from ocr_tui.formats.ocr import fs
from ocr_tui.formats.ocr.files import RoundFiles, SessionFiles, Tally, synthesis
from ocr_tui.formats.ocr.finding import Finding, is_own
from ocr_tui.formats.ocr.findings import evolve, sort_key
from ocr_tui.formats.ocr.round_findings import (
    RoundFindings,
    forget_kept,
    has_input,
    kept_round_findings,
    round_part,
)

KIND = "tally"  # the parse cache's kind for a round's counts
SETTLED_TRIAGE = frozenset({"fixed", "wont_fix"})  # a blocker so triaged no longer blocks


def count(
    evolved: list[Finding],
    *,
    evolved_against_previous: bool,
    complete: bool = True,
    started: bool = True,
    counts: Counts | None = None,
) -> Tally:
    """A round's findings (evolved, the round before's resolved or pending ones included)
    counted as `ocr-tui findings --json` counts them: its own findings, the blockers among them
    (never fewer than the synthesis counts: `counts`), and, when there was a round before, new
    / open / resolved / pending. What the files do not say yet is None: the findings of a round
    nothing is in for yet (`started`), its blockers before its synthesis unless one is already
    known, what it resolved before it is `complete`."""
    own = [f for f in evolved if is_own(f)]
    gone = [f for f in evolved if f.evolution == "resolved"]
    pending = [f for f in evolved if f.evolution == "pending"]
    named = [f for f in own if f.blocker]
    unnamed = max(0, (counts.blockers if counts is not None else 0) - len(named))
    evolution = None
    if evolved_against_previous:
        new = [f for f in own if f.evolution == "new"]
        evolution = Evolution(
            new=len(new),
            open=sum(1 for f in own if f.evolution == "open"),
            resolved=len(gone) if complete else None,
            new_blockers=sum(1 for f in new if f.blocker),
            resolved_blockers=sum(1 for f in gone if f.blocker) if complete else None,
            pending=len(pending),
            pending_blockers=sum(1 for f in pending if f.blocker),
        )
    if complete:
        blockers: int | None = len(named) + unnamed
    else:
        blockers = len(named) or None
    unsettled = [f for f in named + pending if f.blocker and f.triage not in SETTLED_TRIAGE]
    return Tally(
        findings=len(own) if complete or started else None,
        blockers=blockers,
        evolution=evolution,
        open_blockers=len(unsettled) + unnamed,
    )


def tally_rounds(
    files: SessionFiles,
    db_rows: Mapping[int, list[Finding]] | None = None,
    done: Collection[int] = (),
) -> None:
    """Set `tally` on every round of `files` (`db_rows`: the session's ocr.db findings rows by
    round, as `session_findings` takes them; `done`: the rounds the store records as completed).
    A round directory that shares its number with an earlier one (`round-01` beside `round-1`)
    is counted on its own against the same round before; the round after is evolved against
    the first of them, as `session_findings` does."""
    rows = db_rows or {}
    first: dict[int, RoundFiles] = {}
    for rnd in files.rounds:
        first.setdefault(rnd.number, rnd)
    memo: dict[int, list[Finding]] = {}  # id(round) -> its findings, for this call

    def found(rnd: RoundFiles) -> list[Finding]:
        got = memo.get(id(rnd))
        if got is None:
            got = _found_of(files, rnd, rows.get(rnd.number))
            memo[id(rnd)] = got
        return got

    def compute(rnd: RoundFiles, prev: RoundFiles | None) -> Tally:
        previous = None
        if prev is not None:
            # The previous round's `RoundFindings.current`: its findings in `sort_key` order.
            # Which round it was evolved against changes only their labels (new / open),
            # which `evolve` does not look at: so this is exactly `session_findings`' list.
            before = RoundFindings(prev.number, sorted(evolve(found(prev), None), key=sort_key),
                                   "", [])  # fmt: skip
            previous = before.current
        complete = rnd.is_complete(done)
        return count(
            evolve(found(rnd), previous, complete=complete),
            evolved_against_previous=prev is not None,
            complete=complete,
            started=has_input(rnd, rows.get(rnd.number)),
            counts=synthesis(rnd)[1],
        )

    for rnd in files.rounds:
        prev = first.get(rnd.number - 1)
        parts = [_part(rnd, rows), rnd.is_complete(done)]
        if prev is not None:
            parts.append(_part(prev, rows))
        if any(p is None for p in parts):  # not listed by `fs.read_session`: not cached
            rnd.tally = compute(rnd, prev)
            continue
        key = repr((str(files.path), parts)).encode("utf-8", "surrogatepass")
        digest = hashlib.sha256(key).hexdigest()[:40]
        rnd.tally, _ = fs.cached_of_many(
            KIND, files.path, rnd.rel, digest, lambda r=rnd, p=prev: (compute(r, p), ())
        )


def _part(rnd: RoundFiles, rows: Mapping[int, list[Finding]]) -> tuple | None:
    return round_part(rnd, rows.get(rnd.number))


def _found_of(files: SessionFiles, rnd: RoundFiles, rows: list[Finding] | None) -> list[Finding]:
    """`round_findings` of one round (merged, enriched, not evolved), kept for the next read
    (the findings screens' too) while its inputs do not change."""
    return kept_round_findings(files.path, rnd, rows)[0]


def clear() -> None:
    """Forget the kept findings (tests; a new process)."""
    forget_kept()
