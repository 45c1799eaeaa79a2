"""Every round's findings of one session, read from its files (and ocr.db rows when given),
merged and evolved: the one function the findings screen and `ocr-tui findings`
share. Blocking IO: call it from a worker thread in async code.

Source per round, best first: a valid `round-meta.json` with findings; else the round's
`ocr.db` rows; else the reviewer markdown files. `final.md` enriches whichever was chosen. A
`critical` finding is a blocker (`findings.critical_blockers`: OCR's dashboard's rule).

A round whose findings are not all in yet (`RoundFiles.is_complete`: no synthesis, and OCR has
not recorded it as done) resolves nothing: the round before's findings it has not raised again
are `pending`, not `resolved`.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Collection, Mapping
from pathlib import Path

import msgspec

from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import Counts
from ocr_tui.formats.ocr.files import RoundFiles, SessionFiles, synthesis
from ocr_tui.formats.ocr.final_items import parse_final_items
from ocr_tui.formats.ocr.finding import Finding, is_own
from ocr_tui.formats.ocr.findings import apply_final, critical_blockers, evolve, merge, sort_key
from ocr_tui.formats.ocr.findings_db import load_store
from ocr_tui.formats.ocr.findings_md import parse_reviewer_findings
from ocr_tui.formats.ocr.findings_meta import findings_from_meta
from ocr_tui.formats.ocr.fs import read_markdown, read_session


class RoundFindings:
    """One round's findings (sorted: severity, then file; the round before's resolved or
    pending ones last) and where they were read from; whether the round is complete (its
    findings all in: `RoundFiles.is_complete`), whether any of its findings' sources is in yet
    (a reviewer file, round-meta.json, ocr.db rows, final.md), and the synthesis' own counts."""

    def __init__(
        self,
        number: int,
        findings: list[Finding],
        source: str,
        problems: list[str],
        *,
        complete: bool = True,
        started: bool = True,
        counts: Counts | None = None,
    ):
        self.number = number
        self.findings = findings
        self.source = source  # "round-meta.json" | "ocr.db" | "markdown"
        self.problems = problems
        self.complete = complete
        self.started = started
        self.counts = counts

    @property
    def current(self) -> list[Finding]:
        """The round's own findings (not the round before's resolved or pending ones)."""
        return [f for f in self.findings if is_own(f)]


def with_triage(findings: list[Finding], rows: list[Finding]) -> list[Finding]:
    """`findings` (of round-meta.json) with the triage ocr.db's rows of the same finding (same
    id) carry: OCR's dashboard parses round-meta.json into those rows, and the user triages
    them there."""
    marks = {f.id: f.triage for f in rows if f.triage}
    return [
        msgspec.structs.replace(f, triage=marks[f.id]) if f.id in marks else f for f in findings
    ]


def round_findings(
    session: Path, rnd: RoundFiles, db_rows: list[Finding] | None = None
) -> tuple[list[Finding], str, list[str]]:
    """(findings, source, problems) of one round, merged and enriched, not yet evolved."""
    problems: list[str] = []
    meta_rel = f"{rnd.rel}/round-meta.json"
    chosen = findings_from_meta(rnd.meta, meta_rel) if rnd.meta is not None else None
    source = "round-meta.json"
    if chosen is None and db_rows:
        chosen, source = list(db_rows), "ocr.db"
    elif chosen is not None and db_rows:
        chosen = with_triage(chosen, db_rows)  # the user's triage lives in ocr.db only
    if chosen is None:
        source = "markdown"
        groups = []
        for reviewer in rnd.reviewers:
            text = read_markdown(session / reviewer.rel, reviewer.rel, problems)
            if text is not None:
                groups.append(parse_reviewer_findings(text, reviewer.rel, reviewer.name))
        chosen = merge(groups)
    if "final.md" in rnd.files:
        rel = f"{rnd.rel}/final.md"
        text = read_markdown(session / rel, rel, problems)
        if text is not None:
            chosen = apply_final(chosen, parse_final_items(text, rel), rel)
    return critical_blockers(chosen), source, problems


# The findings of the last rounds read (merged, enriched, not evolved), by what they were read
# from: the derive (`tally.py`) and the findings screens read the same rounds, often one right
# after the other, and a live session's finished rounds do not change. Threads share it.
_KEPT_MAX = 16
_kept: OrderedDict[tuple, tuple[list[Finding], str, list[str]]] = OrderedDict()
_kept_lock = threading.Lock()


def rows_digest(rows: list[Finding] | None) -> str:
    """A short digest of a round's ocr.db rows (part of what its findings are read from)."""
    if not rows:
        return ""
    return hashlib.sha256(msgspec.msgpack.encode(rows)).hexdigest()[:32]


def round_part(rnd: RoundFiles, rows: list[Finding] | None) -> tuple | None:
    """What a round's findings are read from: its directory, its files' stat keys, its ocr.db
    rows. None when the listing did not stamp it (it is then always read)."""
    if rnd.stamp is None:
        return None
    return (rnd.rel, rnd.stamp, rows_digest(rows))


def kept_round_findings(
    session: Path, rnd: RoundFiles, db_rows: list[Finding] | None = None
) -> tuple[list[Finding], str, list[str]]:
    """`round_findings`, from the kept last rounds when nothing they were read from changed."""
    part = round_part(rnd, db_rows)
    key = (str(session), part) if part is not None else None
    if key is not None:
        with _kept_lock:
            got = _kept.get(key)
            if got is not None:
                _kept.move_to_end(key)
                return got
    got = round_findings(session, rnd, db_rows)
    if key is not None:
        with _kept_lock:
            _kept[key] = got
            while len(_kept) > _KEPT_MAX:
                _kept.popitem(last=False)
    return got


def forget_kept() -> None:
    """Forget the kept findings (tests)."""
    with _kept_lock:
        _kept.clear()


def session_findings(
    files: SessionFiles,
    db_rows: Mapping[int, list[Finding]] | None = None,
    done: Collection[int] = (),
) -> list[RoundFindings]:
    """Every round of a session, in order, each evolved against the round numbered one less
    (none for round 1, or when that round is missing). Two directories with one number
    (`round-01` beside `round-1`): the first, the one the session's counts mean. `done`: the
    rounds OCR's store records as completed (round_completed events)."""
    out: list[RoundFindings] = []
    by_number: dict[int, RoundFindings] = {}
    for rnd in files.rounds:
        if rnd.number in by_number:
            continue
        rows = (db_rows or {}).get(rnd.number)
        found, source, problems = kept_round_findings(files.path, rnd, rows)
        previous = by_number.get(rnd.number - 1)
        complete = rnd.is_complete(done)
        evolved = evolve(found, previous.current if previous else None, complete=complete)
        rf = RoundFindings(
            rnd.number, sorted(evolved, key=sort_key), source, problems,
            complete=complete, started=has_input(rnd, rows), counts=synthesis(rnd)[1],
        )  # fmt: skip
        by_number[rnd.number] = rf
        out.append(rf)
    return out


def has_input(rnd: RoundFiles, rows: list[Finding] | None) -> bool:
    """Is anything a round's findings are read from in yet: a reviewer file, round-meta.json,
    final.md, ocr.db rows? (Before that, its findings are not known, not none.)"""
    return bool(rnd.reviewers or rows or rnd.meta is not None or "final.md" in rnd.files)


def read_findings(
    session: Path, db_rows: Mapping[int, list[Finding]] | None = None
) -> tuple[list[RoundFindings], list[str]]:
    """List a session directory and read every round's findings; (rounds, problems)."""
    files = read_session(session, read_state_json=False)
    rounds = session_findings(files, db_rows)
    problems = [safe_line(p) for p in files.problems]
    for rf in rounds:
        problems += rf.problems
    return rounds, problems


def read_with_store(
    session: Path, db_path: Path | None, session_id: str
) -> tuple[list[RoundFindings], str | None]:
    """The session's rounds (`session_findings`), with its rows (and triage) and the rounds
    it records as completed from the ocr.db at `db_path`, if any; and what was wrong with that
    store, if anything. Each round carries its own problems."""
    if db_path is None:
        rows, done, problem = {}, frozenset(), None
    else:
        rows, done, problem = load_store(db_path, session_id)
    files = read_session(session, read_state_json=False)
    return session_findings(files, rows or None, done), problem
