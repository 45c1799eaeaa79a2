"""Which Sources exist: the built-in formats, then any registered by other packages under the
entry-point group `ocr_tui.sources`. A plugin that fails to load is reported, never fatal.

Start-up: `importlib.metadata` (~10 ms to import) is imported only when a distribution on the
path registers an entry point of the group that is not a built-in format (`entry_points`)."""

from __future__ import annotations

import functools
import importlib
import os
import sys
from importlib.machinery import PathFinder

from ocr_tui.core.source import Source

GROUP = "ocr_tui.sources"
# The built-in formats, loaded first and in this order (also from a source tree that was never
# installed); pyproject.toml registers the same names under the entry-point group, as a
# third-party format registers its own.
BUILTIN = (
    "ocr_tui.formats.ocr:SOURCE",
    "ocr_tui.formats.codeflow:SOURCE",
    "ocr_tui.formats.analysis:SOURCE",
    "ocr_tui.formats.idumb:SOURCE",
)

# Plugins that could not be loaded: (entry point name, reason). Shown by `status` and the app.
load_errors: list[tuple[str, str]] = []


def _load(spec: str) -> type[Source]:
    module, _, attr = spec.partition(":")
    cls = getattr(importlib.import_module(module), attr)
    if not (isinstance(cls, type) and issubclass(cls, Source)):
        raise TypeError(f"{spec} is not an ocr_tui.core.source.Source subclass")
    return cls


def entry_points(*, group: str) -> list:
    """`importlib.metadata.entry_points(group=group)`; without importing importlib.metadata when
    the path's distributions register nothing in `group` but the built-in formats (loaded
    first anyway: their entry points would add nothing), which is the usual case."""
    if _builtins_only(group):
        return []
    from importlib.metadata import entry_points as metadata_entry_points

    return list(metadata_entry_points(group=group))


def _builtins_only(group: str) -> bool:
    """Does every entry point of `group` in the distributions on `sys.path` name a built-in
    format? Read as importlib.metadata's path finder reads them: the `entry_points.txt` of
    each `*.dist-info` and `*.egg-info` directory of each directory on the path. False (ask
    importlib.metadata) wherever it could see more: a zip or an egg on the path, another
    finder of distributions."""
    if any(
        finder is not PathFinder and hasattr(finder, "find_distributions")
        for finder in sys.meta_path
    ):
        return False
    for entry in sys.path:
        if not isinstance(entry, str):
            return False
        directory = entry or "."
        if entry.lower().endswith(".egg") or os.path.isfile(directory):
            return False
        try:
            with os.scandir(directory) as it:
                names = [e.name for e in it if e.name.lower().endswith((".dist-info", ".egg-info"))]
        except OSError:
            continue  # not a directory (or not there): importlib.metadata finds nothing either
        for name in names:
            if not _group_is_builtin(os.path.join(directory, name, "entry_points.txt"), group):
                return False
    return True


def _group_is_builtin(path: str, group: str) -> bool:
    """Does the `entry_points.txt` at `path` name only built-in formats in `group` (or no
    entry point of it, or is there no such file)?"""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return True
    except (OSError, UnicodeDecodeError):
        return False
    section = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1].strip()
        elif section == group:
            _, sep, value = line.partition("=")
            if not sep or value.strip() not in BUILTIN:
                return False
    return True


@functools.cache
def source_classes() -> tuple[type[Source], ...]:
    """Every Source class, built-ins first; one per framework key (the first one wins)."""
    found: dict[str, type[Source]] = {}
    for spec in BUILTIN:
        cls = _load(spec)
        found.setdefault(cls.framework, cls)
    try:
        eps = list(entry_points(group=GROUP))
    except Exception as exc:  # pragma: no cover - broken metadata
        load_errors.append(("entry points", str(exc)))
        eps = []
    for ep in eps:
        try:
            cls = ep.load()
            if not (isinstance(cls, type) and issubclass(cls, Source)):
                raise TypeError(f"{ep.value} is not a Source subclass")
        except Exception as exc:
            load_errors.append((ep.name, f"{type(exc).__name__}: {exc}"))
            continue
        found.setdefault(cls.framework, cls)
    return tuple(found.values())


@functools.cache
def phase_labels(framework: str) -> tuple[str, ...]:
    """The labels a format's phases can have (its Source's `phase_labels`); empty when they
    are free text or the format is not known."""
    for cls in source_classes():
        if cls.framework == framework:
            return tuple(cls.phase_labels)
    return ()


def _of(framework: str) -> type[Source] | None:
    return next((cls for cls in source_classes() if cls.framework == framework), None)


@functools.cache
def host() -> str:
    """The host format's key (the Source that says `host`), "" when none is registered."""
    return next((cls.framework for cls in source_classes() if cls.host), "")


def is_host(framework: str) -> bool:
    """Is this the host format, whose sessions carry rounds, findings and map runs?"""
    return bool(framework) and framework == host()


@functools.cache
def label(framework: str) -> str | None:
    """A format's human name (its Source's `label`); None when the format is not known."""
    cls = _of(framework)
    return cls.label if cls is not None else None


@functools.cache
def default_workflow(framework: str) -> str:
    cls = _of(framework)
    return cls.default_workflow if cls is not None else ""


@functools.cache
def flow_words(framework: str) -> tuple[str, ...] | None:
    """The words a format's Flow cells can show; None when the format is not known (a
    plugin's sessions seen before its Source: any words)."""
    cls = _of(framework)
    return tuple(cls.flow_words) if cls is not None else None


def markers() -> list[str]:
    """Every format's marker paths (what project discovery looks for)."""
    return [m for cls in source_classes() for m in cls.markers]
