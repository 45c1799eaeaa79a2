"""The Source interface: one agent-workflow format (OCR, the code workflow, ...).

A Source knows where its sessions live under a project root (and elsewhere, such as /tmp),
how to list them cheaply, which session a changed path belongs to, and how to derive the
common `SessionView` from one session's files. The engine owns the views (the watcher only paths);
sources own formats. Sources never import Textual, never write to the user's tree, and never
raise on bad input: a session whose files cannot be read is still a view, with `problems`.

Third-party formats register a Source subclass under the entry-point group `ocr_tui.sources`:

    [project.entry-points."ocr_tui.sources"]
    myformat = "my_package.module:MySource"
"""

from __future__ import annotations

import importlib
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, ClassVar

from ocr_tui.core.timeutil import parse_ts
from ocr_tui.core.view import Header, SessionView

# A running session with no activity for this long is stalled (every format; `--stall-after`).
DEFAULT_STALL_AFTER = 30 * 60.0


@dataclass
class Touch:
    """What a batch of changed paths means to one source."""

    keys: set[str] = field(default_factory=set)  # sessions to re-derive
    relist: bool = False  # sessions may have appeared or gone: list them again
    header: bool = False  # the project-level header may have changed
    everything: bool = False  # re-derive every session of this source (e.g. a shared store)


def is_temp_name(name: str) -> bool:
    """Editor and atomic-writer scratch files, SQLite side files: never a change by themselves."""
    return name.endswith((".tmp", "~", ".swp", "-journal", "-wal", "-shm")) or ".tmp" in name


class Source(ABC):
    """One format. Instantiated once per project and engine; may keep caches."""

    framework: ClassVar[str]  # the short key shown in the list and in JSON: "ocr", "code"...
    label: ClassVar[str]  # a human name: "Open Code Review"
    markers: ClassVar[tuple[str, ...]]  # relative paths; the format is used when one exists
    # The labels its sessions' phases can have, in every workflow (the list plans its Phase
    # column for the widest from the first frame); empty: free text (the column grows).
    phase_labels: ClassVar[tuple[str, ...]] = ()
    # The workflow its sessions have unless they say otherwise: a Flow cell that says only
    # this is blank (the format column says it already).
    default_workflow: ClassVar[str] = ""
    # The words its Flow cells can show (the list plans the column for them); empty: a format
    # of one workflow, whose Flow cells are always blank.
    flow_words: ClassVar[tuple[str, ...]] = ()
    # The host format: its sessions carry rounds, findings and map runs (the view's
    # `rounds`, `current_round`, `map_runs`), and the UI's own screens read its data. One
    # Source at most says so (the first registered wins).
    host: ClassVar[bool] = False
    # The module that registers the format's reads of the read seam (`core.reads`), if any:
    # imported when a read is first made, not with the format.
    reads_module: ClassVar[str | None] = None

    def __init__(self, root: Path, *, stall_after: float = DEFAULT_STALL_AFTER) -> None:
        self.root = root
        self.stall_after = stall_after

    @classmethod
    def present_in(cls, root: Path) -> bool:
        """Does `root` hold this format (one of `markers` exists)?"""
        return any(os.path.lexists(root / m) for m in cls.markers)

    # -- where ------------------------------------------------------------------------------

    @abstractmethod
    def watch_dirs(self) -> list[Path]:
        """Directories whose whole trees hold this format's files (they may not exist yet).
        The watcher watches the existing ones recursively and notices the others appear."""

    def homes(self) -> list[Path]:
        """Where sessions are listed from (for "no sessions directory" messages). Default:
        `watch_dirs`."""
        return self.watch_dirs()

    def accept(self, path: str) -> bool:
        """Is a change at `path` (inside a watch dir) worth a look? Default: not temp files."""
        return not is_temp_name(os.path.basename(path))

    @abstractmethod
    def list_sessions(self) -> dict[str, Path]:
        """Every session now: key (unique within the source, used as the view's id) -> its
        directory or file. Cheap: directory listings, not parsing."""

    @abstractmethod
    def touched(self, paths: Iterable[Path]) -> Touch:
        """Which sessions a batch of changed paths (inside `watch_dirs`) may have changed."""

    def poll(self) -> bool:
        """Called about once a second with no file events. Sources with sessions in places that
        are not watched (e.g. /tmp) check them here; True means: list sessions again."""
        return False

    def extra_watch_dirs(self) -> list[Path]:
        """Existing directories outside `watch_dirs` that hold sessions now (watched too)."""
        return []

    # -- what -------------------------------------------------------------------------------

    @abstractmethod
    def derive(self, key: str, path: Path, now: datetime) -> SessionView:
        """The view of one session. Never raises for bad input: report `problems` instead."""

    def header(self, now: datetime) -> Header | None:
        """Project-level state of the format, if it has one."""
        return None

    def expires(self, view: SessionView) -> datetime | None:
        """When passing time alone will change this view (a running session becomes stalled,
        an idle one stale...): the engine re-derives it then. Default: the stall threshold."""
        if not view.running or view.stalled:
            return None
        last = parse_ts(view.last_activity)
        return None if last is None else last + timedelta(seconds=self.stall_after)

    # -- caches -----------------------------------------------------------------------------

    def begin_scan(self) -> None:
        """Before a full scan (e.g. load a persistent cache, refresh a shared store)."""
        return None

    def end_scan(self) -> None:
        """After a full scan (e.g. save the persistent cache)."""
        return None

    def forget(self, key: str, path: Path) -> None:
        """Session `key` at `path` is gone (or now lives elsewhere): drop what is kept for it.
        What a source keeps must depend on the sessions and files that exist, never on how
        many changes were read."""
        return None

    def close(self) -> None:
        """The engine is dropped: drop what is kept for this project."""
        return None


def lazy_source(module: str, name: str) -> Callable[[str], Any]:
    """A format package's `__getattr__`: its `SOURCE` (what the entry point names) is the class
    `name` of `module`, imported on first use, so importing one room of a format does not load
    the others."""

    def __getattr__(attr: str) -> Any:
        if attr == "SOURCE":
            return getattr(importlib.import_module(module), name)
        raise AttributeError(f"module {module.rpartition('.')[0]!r} has no attribute {attr!r}")

    return __getattr__
