"""What the dashboard and the commands show: one project, several, or every project under a
directory. Its own module: the dashboard needs it before its first frame, and the workspace
(`core.workspace`, which brings the engine) only after."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ocr_tui.core.discover import DEFAULT_DEPTH
from ocr_tui.core.project import Project
from ocr_tui.core.remote import RemoteSpec


@dataclass(frozen=True)
class Scope:
    """What to show: `projects` (found from the paths given), and with `scan` every project
    found under that directory, `depth` levels down at most."""

    projects: tuple[Project, ...] = ()
    scan: Path | None = None
    depth: int = DEFAULT_DEPTH
    remotes: tuple[RemoteSpec, ...] = ()  # projects on other hosts (`HOST:PATH`)

    @property
    def several(self) -> bool:
        """More than one project, or as many as a scan finds, or a remote one: the workspace's
        ways (names, a project column); else one project's, unchanged."""
        return self.scan is not None or len(self.projects) > 1 or bool(self.remotes)

    @property
    def local(self) -> bool:
        """Anything to watch here (else only remote projects)."""
        return self.scan is not None or bool(self.projects)

    @property
    def root(self) -> Path:
        """The directory that holds them all (the scanned one)."""
        if self.scan is not None:
            return self.scan
        roots = [str(p.root) for p in self.projects]
        if not roots:
            return Path.cwd()
        try:
            return Path(os.path.commonpath(roots))
        except ValueError:  # different drives
            return self.projects[0].root
