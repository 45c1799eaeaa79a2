"""Find a project (the directory holding `.ocr/` or another format's directory) and its OCR
session directories."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path


class ProjectNotFound(Exception):
    """No agent-workflow directory (`.ocr/`, ...) at PATH or above it."""

    def __init__(self, start: Path, markers: list[str] | None = None) -> None:
        self.start = start
        names = ", ".join(f"{m}/" for m in (markers or [".ocr"]))
        super().__init__(
            f"no OCR project found: looked for {names} in {start} and every directory above it"
        )


@dataclass(frozen=True)
class Project:
    root: Path  # the directory that holds .ocr/

    @property
    def ocr_dir(self) -> Path:
        return self.root / ".ocr"

    @property
    def sessions_dir(self) -> Path:
        return self.ocr_dir / "sessions"

    @property
    def data_dir(self) -> Path:
        return self.ocr_dir / "data"

    @property
    def db_path(self) -> Path:
        return self.data_dir / "ocr.db"


def find_project(path: str | os.PathLike[str] | None = None) -> Project:
    """PATH may be a project, its `.ocr`, or `.ocr/sessions`; otherwise walk up as git does."""
    # abspath, not Path.absolute(): `..` is folded away (symlinks are kept as the user named them).
    start = Path(os.path.abspath(path if path is not None else os.getcwd()))
    p = start
    if p.name == "sessions" and p.parent.name == ".ocr":
        return Project(p.parent.parent)
    if p.name == ".ocr" and p.is_dir():
        return Project(p.parent)
    from ocr_tui.core.registry import markers  # deferred: sources import this module

    names = markers()
    for candidate in (p, *p.parents):
        if any((candidate / m).is_dir() for m in names):
            return Project(candidate)
    raise ProjectNotFound(start, names)


def session_dirs(project: Project) -> list[Path]:
    """Every directory directly under `.ocr/sessions/` (not dot-directories, not symlinks)."""
    try:
        with os.scandir(project.sessions_dir) as it:
            entries = list(it)
    except (FileNotFoundError, NotADirectoryError, PermissionError):
        return []
    out = []
    for e in sorted(entries, key=lambda e: e.name):  # str order: 5x cheaper than Path order
        if e.name.startswith("."):
            continue
        try:
            if e.is_dir(follow_symlinks=False):
                out.append(Path(e.path))
        except OSError:
            continue
    return out
