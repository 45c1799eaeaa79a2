"""A session's map runs as the view shows them, and which run is current.

Each `map/runs/run-N` directory becomes a `MapRun`: done when it has map.md or the store
records `map_completed` for it, its sections from map-meta.json or map.md (else ocr.db's) with
the files the user marked reviewed (those live in ocr.db alone), and when it ran. Pure; no IO.
"""

from __future__ import annotations

from datetime import datetime

from ocr_tui.core.timeutil import fmt_ts
from ocr_tui.core.view import MapRun, MapSection
from ocr_tui.formats.ocr import phases as ph
from ocr_tui.formats.ocr.derive_rounds import completed_rounds, positive
from ocr_tui.formats.ocr.files import SessionFiles
from ocr_tui.formats.ocr.map_sections import RunMap, with_progress
from ocr_tui.formats.ocr.model import StoredState
from ocr_tui.formats.ocr.unit_times import run_span


def map_runs(files: SessionFiles, state: StoredState | None) -> list[MapRun]:
    """Every run directory's `MapRun`, in the files' order (a run starts when the one before
    ended, when nothing better says)."""
    stored_maps = dict(state.map_runs) if state else {}
    mapped = completed_rounds(state, "map_completed")  # the `round` column holds the run
    runs: list[MapRun] = []
    before_end: datetime | None = None
    top_run = files.map_runs[-1].number if files.map_runs else None
    for r in files.map_runs:
        # map.md, or OCR records it as done (`ocr state map-complete`'s map_completed event)
        run_done = "map.md" in r.files or r.number in mapped
        begun, ended, guessed = run_span(
            r, before_end, state, state.workflow_type if state else None, run_done,
            r.number == top_run,
        )  # fmt: skip
        before_end = ended or before_end
        runs.append(
            MapRun(
                number=r.number,
                complete=run_done,
                files=r.topology_files,
                path=r.rel,
                documents=[f"{r.rel}/{n}" for n in sorted(r.files) if n.endswith(".md")],
                sections=_sections(
                    run_map(r.sections, stored_maps.get(r.number)), r.number in stored_maps
                ),
                started_at=fmt_ts(begun),
                ended_at=fmt_ts(ended),
                approximate=guessed,
            )
        )
    return runs


def current_map_run(files: SessionFiles, state: StoredState | None, workflow: str) -> int | None:
    """The highest run directory's number; before any, in a map, the store's (else 1)."""
    if files.map_runs:
        return files.map_runs[-1].number
    if workflow == ph.MAP:
        return (positive(state.current_map_run) if state else None) or 1
    return None


def run_map(from_files: RunMap | None, stored: RunMap | None) -> RunMap | None:
    """A map run's sections: map-meta.json's or map.md's (`from_files`), else ocr.db's
    (`stored`); what the user marked reviewed comes from ocr.db when it has the run."""
    if from_files is None:
        return stored
    if stored is None:
        return from_files
    done = {(s.number, f.path) for s in stored.sections for f in s.files if f.reviewed}
    return with_progress(from_files, done)


def _sections(run: RunMap | None, marked: bool) -> list[MapSection]:
    """The run's sections; `reviewed` None when ocr.db has no record of the run (`marked`):
    the marks live there alone, so without it they are not known, not 0."""
    if run is None:
        return []
    return [
        MapSection(
            number=s.number,
            title=s.title,
            files=len(s.files),
            reviewed=s.reviewed if marked else None,
        )  # fmt: skip
        for s in run.sections
    ]
