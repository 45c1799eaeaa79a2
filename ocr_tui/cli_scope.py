"""What a command's PATHs name: each one's project here, or a remote project (`HOST:PATH`,
`ssh://…`, issue 29), and with `--scan DIR` every project under DIR (`core.scope.Scope`)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ocr_tui.core.project import Project, ProjectNotFound, find_project
from ocr_tui.core.textsafe import safe_line

if TYPE_CHECKING:
    from ocr_tui.core.scope import Scope


def _scope(args: argparse.Namespace) -> Scope | None:
    """What a command shows: each PATH's project (here's when none is given and no --scan),
    and with `--scan DIR` every project under DIR. None (said on stderr) when a PATH has no
    project."""
    from ocr_tui.core.scope import Scope
    from ocr_tui.remote_status import remote_of

    projects: list[Project] = []
    remotes: list = []
    paths = list(args.paths or [])
    for path in paths:
        spec = remote_of(path, args) if not os.path.exists(path) else None
        if spec is not None:
            if spec not in remotes:
                remotes.append(spec)
            continue
        project = _project(path)
        if project is None:
            return None
        if project not in projects:
            projects.append(project)
    if not paths and not args.scan:
        project = _project(None)
        if project is None:
            return None
        projects.append(project)
    scan = Path(os.path.abspath(args.scan)) if args.scan else None
    return Scope(tuple(projects), scan, args.depth, tuple(remotes))


def _has_remote(args: argparse.Namespace) -> bool:
    return any(_remote_path(p) for p in (args.paths or []))


def _remote(args: argparse.Namespace):
    """The remote project of `status HOST:PATH` (one PATH, not a local directory), else None."""
    paths = getattr(args, "paths", None) or []
    if len(paths) != 1 or args.scan or not _remote_path(paths[0]):
        return None
    from ocr_tui.remote_status import remote_of

    return remote_of(paths[0], args)


REMOTE_COMMANDS = ("dashboard", "status", "watch", "serve")  # take HOST:PATH


def _remote_path(path: str | None) -> bool:
    """`HOST:PATH` or `ssh://…`, and no local path of that name."""
    from ocr_tui.core.remote import parse_remote

    return bool(path) and not os.path.exists(path) and parse_remote(path) is not None


def _project(path: str | None) -> Project | None:
    try:
        return find_project(path)
    except ProjectNotFound as exc:
        print(f"ocr-tui: {safe_line(exc)}", file=sys.stderr)
        return None
