"""The user's preferences for the dashboard, from the config file and the command line
(`ocr_tui.config`, `ocr_tui.cli`): what the app starts with. None: the app's own default."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Prefs:
    theme: str | None = None
    sort: str | None = None  # activity | start | name
    filter: str | None = None  # all | active | closed
    editor: str | None = None  # a command line: opens a finding's file before $VISUAL/$EDITOR
    config: Path | None = None  # the file a theme picked in the app is remembered in
    problems: tuple[str, ...] = ()  # what was wrong with the file (shown once the app is up)
    read_only: bool = False  # no marks or notes written into ocr.db (--read-only, read_only)
