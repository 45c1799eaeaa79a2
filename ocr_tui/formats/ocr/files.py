"""What a session directory holds, as read by `ocr_tui.formats.ocr.fs` (no IO here)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from ocr_tui.core.view import Counts, Evolution, Severity
from ocr_tui.formats.ocr.map_sections import RunMap
from ocr_tui.formats.ocr.model import RoundMeta, StateJson


@dataclass(frozen=True)
class FileInfo:
    size: int
    mtime: float


@dataclass
class ReviewerFile:
    name: str
    rel: str
    info: FileInfo
    severity: Severity


@dataclass(frozen=True, slots=True)
class Tally:
    """A round's distinct findings counted (`tally.tally_rounds`): `ocr-tui findings`' model.
    None: not known yet (see `Round`)."""

    findings: int | None
    blockers: int | None
    evolution: Evolution | None
    # The blockers not known to be resolved: of the round's own, those the user has not triaged
    # as fixed or won't fix (no triage: all of them); while the round is not complete, the
    # round before's it has not judged again yet (`pending`) too.
    open_blockers: int = 0


@dataclass
class RoundFiles:
    number: int
    rel: str
    files: dict[str, FileInfo] = field(default_factory=dict)
    reviewers: list[ReviewerFile] = field(default_factory=list)
    meta: RoundMeta | None = None
    final_verdict: str | None = None
    final_counts: Counts | None = None
    # What the round's findings are read from, as it was listed: (name, size, mtime_ns,
    # ctime_ns, inode) of each reviewer file, final.md and round-meta.json. None: unknown.
    stamp: tuple | None = None
    tally: Tally | None = None  # set by `tally.tally_rounds`

    def is_complete(self, done: Collection[int] = ()) -> bool:
        """Are the round's findings all in? Its synthesis is written (final.md, or a valid
        round-meta.json, which `ocr state round-complete` writes), or OCR records the round
        as done (`done`: the rounds of the store's round_completed events)."""
        return "final.md" in self.files or self.meta is not None or self.number in done


@dataclass
class RunFiles:
    number: int
    rel: str
    files: dict[str, FileInfo] = field(default_factory=dict)
    topology_files: int | None = None
    # Its review sections: map-meta.json's, else map.md's (ocr.db's are the store's).
    sections: RunMap | None = None


@dataclass
class SessionFiles:
    id: str
    path: Path
    root_files: dict[str, FileInfo] = field(default_factory=dict)
    root_dirs: set[str] = field(default_factory=set)
    rounds: list[RoundFiles] = field(default_factory=list)
    map_runs: list[RunFiles] = field(default_factory=list)
    state: StateJson | None = None
    newest_mtime: float | None = None
    oldest_mtime: float | None = None
    problems: list[str] = field(default_factory=list)

    @property
    def has_rounds_dir(self) -> bool:
        return "rounds" in self.root_dirs

    @property
    def has_map_dir(self) -> bool:
        return "map" in self.root_dirs


def synthesis(rnd: RoundFiles) -> tuple[str | None, Counts | None]:
    """The round's verdict and the synthesis' own counts: round-meta.json's (its
    synthesis_counts, else its findings' categories counted, as OCR's dashboard does), else
    final.md's."""
    meta = rnd.meta
    if meta is None:
        return rnd.final_verdict, rnd.final_counts
    if meta.synthesis_counts is not None:
        sc = meta.synthesis_counts
        counts = Counts(blockers=sc.blockers, should_fix=sc.should_fix, suggestions=sc.suggestions)
    else:
        tally = {"blocker": 0, "should_fix": 0, "suggestion": 0}
        for rev in meta.reviewers:
            for f in rev.findings:
                cat = (f.category or "").strip().lower().replace("-", "_").replace(" ", "_")
                if cat in tally:
                    tally[cat] += 1
        counts = Counts(
            blockers=tally["blocker"],
            should_fix=tally["should_fix"],
            suggestions=tally["suggestion"],
        )
    verdict = meta.verdict.strip().upper() if meta.verdict and meta.verdict.strip() else None
    return verdict or rnd.final_verdict, counts
