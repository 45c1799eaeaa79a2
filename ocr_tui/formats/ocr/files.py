"""What a session directory holds, as read by `ocr_tui.formats.ocr.fs` (no IO here)."""

from __future__ import annotations

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
    """A round's distinct findings counted (`tally.tally_rounds`): `ocr-tui findings`' model."""

    findings: int
    blockers: int
    evolution: Evolution | None
    # Blockers the user has not triaged as fixed or won't fix (no triage: all of them).
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
