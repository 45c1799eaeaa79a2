"""Where ocr-tui keeps what it caches between starts: the user's cache directory
(`$OCR_TUI_CACHE_DIR`, else `$XDG_CACHE_HOME/ocr-tui`, else `~/.cache/ocr-tui`), one file per
project and kind, never inside the watched tree. `OCR_TUI_CACHE_DIR=off` turns caching off."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def cache_dir() -> Path | None:
    env = os.environ.get("OCR_TUI_CACHE_DIR")
    if env is not None:
        return None if env.lower() in ("", "off", "0", "none") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ocr-tui"


def project_file(project_root: Path, name: str) -> Path | None:
    """`{name}-{digest of the project's path}.msgpack` in the cache directory; None when
    caching is off or the directory is inside the project (never write there)."""
    d = cache_dir()
    if d is None:
        return None
    root = project_root.resolve()
    try:
        d.resolve().relative_to(root)
        return None
    except ValueError:
        pass
    digest = hashlib.sha256(os.fsencode(root)).hexdigest()[:20]
    return d / f"{name}-{digest}.msgpack"
