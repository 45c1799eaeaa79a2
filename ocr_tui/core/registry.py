"""Which Sources exist: the built-in formats, then any registered by other packages under the
entry-point group `ocr_tui.sources`. A plugin that fails to load is reported, never fatal."""

from __future__ import annotations

import functools
import importlib
from importlib.metadata import entry_points

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


def markers() -> list[str]:
    """Every format's marker paths (what project discovery looks for)."""
    return [m for cls in source_classes() for m in cls.markers]
