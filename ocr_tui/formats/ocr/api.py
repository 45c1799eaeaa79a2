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
