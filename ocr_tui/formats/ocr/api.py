"""OCR's data beyond the session list, for the screens that show it: the one way in.

OCR is the host format: every format gets the session list, the detail pane, `status` and its
documents through its `Source`; OCR alone has rounds with findings, discourse, map runs and what
`ocr.db` records (events, agents, triage, notes). The screens that show those reach them here,
never through the format's other modules, so this is the seam a later reader of OCR data (a
remote host, a triage writer) plugs into. Each `read_*` is blocking IO: call it from a worker.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ocr_tui.core.textsafe import safe_block
from ocr_tui.formats.ocr.config import dashboard_ide
from ocr_tui.formats.ocr.derive_maps import run_map
from ocr_tui.formats.ocr.derive_records import gone as agent_gone
from ocr_tui.formats.ocr.discourse import KINDS, Discourse, Response
from ocr_tui.formats.ocr.discourse_links import responses_about
from ocr_tui.formats.ocr.fields import parse_field
from ocr_tui.formats.ocr.finding import (
    SEVERITIES,
    Finding,
    is_own,
    normalise_file,
    normalise_title,
)
from ocr_tui.formats.ocr.findings import differing_ratings, severity_rank, shown, sort_key
from ocr_tui.formats.ocr.map_sections import Dependency, MapFile, MapSection, RunMap

__all__ = [
    "agent_gone",
    "KINDS",
    "SEVERITIES",
    "Dependency",
    "Discourse",
    "DiscourseRead",
    "Finding",
    "Loaded",
    "MapFile",
    "MapSection",
    "Response",
    "RunMap",
    "RunRead",
    "dashboard_ide",
    "differing_ratings",
    "is_own",
    "normalise_file",
    "normalise_title",
    "parse_field",
    "read_discourse",
    "read_round",
    "read_rounds",
    "read_run",
    "responses_about",
    "severity_rank",
    "shown",
    "sort_key",
]


# -- a round's findings ------------------------------------------------------------------------


@dataclass(frozen=True)
class Loaded:
    """One read of the session's findings: this round's (None: the round has none on disk)."""

    findings: list[Finding] | None
    source: str | None
    problems: list[str]


def read_round(session_dir: str, number: int, db_path: Path | None, session_id: str) -> Loaded:
    """The findings of round `number` (with ocr.db's rows and triage, if any)."""
    from ocr_tui.formats.ocr.round_findings import read_with_store

    rounds, store_problem = read_with_store(Path(session_dir), db_path, session_id)
    rf = next((r for r in rounds if r.number == number), None)
    problems = ([store_problem] if store_problem else []) + (rf.problems if rf else [])
    if rf is None:
        return Loaded(None, None, problems)
    return Loaded(list(rf.findings), rf.source, problems)


# -- a round's discourse -----------------------------------------------------------------------


@dataclass(frozen=True)
class DiscourseRead:
    """One read of a round's discourse.md, linked to the round's findings."""

    discourse: Discourse | None  # None: the round has no readable discourse.md
    text: str | None  # the file as written (escape-safe), for when nothing parses
    findings: list[Finding]  # the round's (as `read_round`)
    problems: list[str]


def read_discourse(
    session_dir: str, round_path: str, number: int, db_path: Path | None, session_id: str
) -> DiscourseRead:
    """Round `number`'s discourse.md, its responses linked to its findings."""
    from ocr_tui.formats.ocr.discourse import parse_discourse
    from ocr_tui.formats.ocr.discourse_links import link
    from ocr_tui.formats.ocr.fs import read_markdown

    loaded = read_round(session_dir, number, db_path, session_id)
    findings = loaded.findings or []
    problems = list(loaded.problems)
    rel = f"{round_path}/discourse.md"
    path = Path(session_dir) / rel
    text = read_markdown(path, rel, problems) if path.is_file() else None
    if text is None:
        return DiscourseRead(None, None, findings, problems)
    current = [f for f in findings if is_own(f)]
    discourse = link(parse_discourse(text), current)
    return DiscourseRead(discourse, safe_block(text), findings, problems)


# -- a map run ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunRead:
    """What one read found: the run's map (None: no sections anywhere) and how it was made."""

    map: RunMap | None
    files_found: bool  # the run's directory was found on disk
    db_has_run: bool  # ocr.db has this run's sections (and so the reviewed marks)
    problems: tuple[str, ...] = field(default=())


def read_run(
    session_dir: str, run_path: str, number: int, db_path: Path | None, sid: str
) -> RunRead:
    """The session's files (map-meta.json, map.md) and ocr.db, merged. Where the map comes
    from, best first: the run's `map-meta.json`, else its `map.md` section tables, else
    ocr.db's `map_sections` / `map_files`; what the user marked reviewed comes from ocr.db
    (`user_file_progress`) when the database has the run."""
    from ocr_tui.formats.ocr.db_load import load_db
    from ocr_tui.formats.ocr.fs import read_session

    files = read_session(Path(session_dir), read_state_json=False)
    run = next((r for r in files.map_runs if r.rel == run_path), None)
    if run is None:
        run = next((r for r in files.map_runs if r.number == number), None)
    problems = [p for p in files.problems if run_path in p]
    stored: RunMap | None = None
    if db_path is not None:
        snapshot = load_db(db_path)
        if snapshot.error:
            problems.append(snapshot.error)
        row = snapshot.rows.get(sid)
        if row is not None:
            stored = dict(row.map_runs).get(number)
    merged = run_map(run.sections if run is not None else None, stored)
    return RunRead(merged, run is not None, stored is not None, tuple(problems))


# -- the user's marks and notes (the one way ocr-tui writes) -----------------------------------

from ocr_tui.formats.ocr.triage_marks import (  # noqa: E402  (the section's own names)
    FINDING_STATES,
    NOTE_TARGETS,
    ROUND_STATES,
    FileMark,
    FindingMark,
    Mark,
    NoteAdd,
    NoteEdit,
    Pending,
    Refused,
    RoundMark,
    now_sql,
)

__all__ += [
    "FINDING_STATES", "NOTE_TARGETS", "ROUND_STATES", "FileMark", "FindingMark", "Mark",
    "NoteAdd", "NoteEdit", "Pending", "Refused", "RoundMark", "allowed_states", "describe",
    "now_sql", "settle_marks", "write_mark",
]  # fmt: skip


def read_rounds(session_dir: str, db_path: Path | None, session_id: str) -> list:
    """Every round of the session with its findings (`RoundFindings`, as `findings` reads
    them)."""
    from ocr_tui.formats.ocr.round_findings import read_with_store

    return read_with_store(Path(session_dir), db_path, session_id)[0]


def write_mark(db_path: Path, mark: Mark) -> None:
    """Write the user's `mark` into the store and read it back; Refused (one line) when it
    cannot (then nothing was written); Pending when it is kept to be written once the store
    stops changing. Blocking IO: call it from a worker."""
    from ocr_tui.formats.ocr.triage_write import write

    write(db_path, mark)


def settle_marks(db_path: Path) -> int:
    """Write again each of the user's marks a concurrent OCR write dropped (the journal);
    how many. Never raises. Blocking IO."""
    from ocr_tui.formats.ocr.triage_write import settle

    return settle(db_path)


def allowed_states(db_path: Path | None, kind: str) -> tuple[str, ...]:
    """The states the store allows a finding (`kind` "finding") or a round: its schema's
    CHECK list, else OCR's migrations'. Blocking IO."""
    import sqlite3

    from ocr_tui.formats.ocr.db import open_snapshot
    from ocr_tui.formats.ocr.triage_marks import states

    table = "user_finding_progress" if kind == "finding" else "user_round_progress"
    fallback = FINDING_STATES if kind == "finding" else ROUND_STATES
    if db_path is None:
        return fallback
    try:
        con = open_snapshot(db_path)
    except (OSError, ValueError, MemoryError, sqlite3.Error):
        return fallback
    try:
        return states(con, table)
    except sqlite3.Error:
        return fallback
    finally:
        con.close()


def describe(mark: Mark) -> str:
    """One line saying what `mark` did, for the user (raw: pass it through `safe_line`)."""
    if isinstance(mark, FindingMark):
        what = mark.status or "cleared"
        return f"finding {mark.finding} (round {mark.round} of {mark.session}): {what}"
    if isinstance(mark, RoundMark):
        return f"round {mark.round} of {mark.session}: {mark.status or 'cleared'}"
    if isinstance(mark, FileMark):
        how = {True: "reviewed", False: "not reviewed", None: "cleared"}[mark.reviewed]
        return f"{mark.path} (map run {mark.run} of {mark.session}): {how}"
    if isinstance(mark, NoteAdd):
        on = {"finding": f"finding {mark.finding} (round {mark.round})",
              "round": f"round {mark.round}", "run": f"map run {mark.run}",
              "file": f"{mark.path}"}.get(mark.target, "the session")  # fmt: skip
        return f"note added on {on} of {mark.session}"
    return f"note {mark.note}: {'deleted' if mark.text is None else 'changed'}"
