"""Which workflow (review or map) a session is in, and the phase its files show.

OCR stores a session's workflow_type once, when `ocr state init` creates it, and never changes
it when a map starts in a review session or a review in a map session; so the latest phase
key and the directories on disk decide (`session_workflow`). When the store names no phase,
the files each phase writes tell how far the session got (`artifact_phase`). Pure; no IO.
"""

from __future__ import annotations

from ocr_tui.formats.ocr import phases as ph
from ocr_tui.formats.ocr.files import RoundFiles, RunFiles, SessionFiles


def artifact_phase(
    files: SessionFiles, workflow: str, rnd: RoundFiles | None, run: RunFiles | None
) -> str:
    """The phase the files show: the last phase whose file exists, of the latest round (or
    map run)."""
    root = files.root_files
    if workflow == ph.MAP:
        rf = run.files if run else {}
        if "map.md" in rf:
            return "complete"
        if "requirements-mapping.md" in rf:
            return "synthesis"
        if "flow-analysis.md" in rf:
            return "requirements-mapping"
        if "topology.md" in rf:
            return "flow-analysis"
        if "discovered-standards.md" in root:
            return "topology"
        return "map-context"
    if rnd is not None:
        if "final.md" in rnd.files:
            return "complete"
        if "discourse.md" in rnd.files:
            return "synthesis"
        if rnd.reviewers:
            return "reviews"
    if "context.md" in root:
        return "analysis"
    if "discovered-standards.md" in root:
        return "change-context"
    return "context"


def session_workflow(stored: str | None, raw_phase: str | None, files: SessionFiles) -> str:
    """Which workflow the session is in. The stored workflow_type is written once, by the
    `ocr state init` that creates the session: upstream never changes it when a map starts in a
    review session (bug B6) or a review in a map session (`init` on an existing session
    re-opens it at `context`). So it names the session's first workflow, and the files or a
    later phase key can prove otherwise."""
    if raw_phase is not None:
        keyed = ph.workflow_of_phase(raw_phase)
        if keyed is not None:  # a key only one workflow has: the latest write, always right
            return keyed
        key = ph.canonical_phase(raw_phase)
        if key == "context":
            # Both workflows start at `context`, but only a review re-opens an existing session
            # there (a map switches with `transition --phase map-context`): `rounds/` means a
            # review has started, even inside a map session.
            if files.has_rounds_dir:
                return ph.REVIEW
        elif key in ph.SHARED_KEYS:  # synthesis, complete: whose files are at that phase?
            at = _workflow_at(files, done=key == ph.COMPLETE)
            if at is not None:
                return at
    if stored is not None:
        return stored
    return ph.MAP if files.has_map_dir and not files.has_rounds_dir else ph.REVIEW


def _workflow_at(files: SessionFiles, *, done: bool) -> str | None:
    """The workflow whose files are at synthesis (`done` False: its latest round or run has no
    final.md / map.md yet) or complete (`done`: it has one), or None when the files do not
    tell. Only one workflow with a directory is that one; with both, the one whose state fits,
    else the one that finished last."""
    has = {ph.REVIEW: files.has_rounds_dir, ph.MAP: files.has_map_dir}
    present = [w for w in ph.WORKFLOWS if has[w]]
    if len(present) < 2:
        return present[0] if present else None
    last_round, last_run = latest(files.rounds), latest(files.map_runs)
    r_final = last_round.files.get("final.md") if last_round else None
    m_final = last_run.files.get("map.md") if last_run else None
    finished = {ph.REVIEW: r_final, ph.MAP: m_final}
    fits = [w for w in ph.WORKFLOWS if (finished[w] is not None) == done]
    if len(fits) == 1:
        return fits[0]
    if r_final is not None and m_final is not None and r_final.mtime != m_final.mtime:
        return ph.REVIEW if r_final.mtime > m_final.mtime else ph.MAP
    return None


def latest(items: list[RoundFiles] | list[RunFiles]):
    """The highest-numbered round (or run): of two directories with that number (`round-02`
    beside `round-2`) the one read first, the spelling OCR writes. `items` are in numeric
    order (`ocr_fs.read_session`)."""
    if not items:
        return None
    top = items[-1].number
    return next(item for item in items if item.number == top)
