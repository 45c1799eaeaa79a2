"""Where the sources' sessions live: which directories to watch, which paths belong to which
source. Questions about directories only (a few `stat`s at most); nothing is read or watched.
"""

from __future__ import annotations

from pathlib import Path

from ocr_tui.core.source import Source


def watch_roots(sources: list[Source]) -> list[Path]:
    """The existing directories to watch recursively (one list for every source)."""
    out: list[Path] = []
    for src in sources:
        for d in (*src.watch_dirs(), *src.extra_watch_dirs()):
            if d not in out and d.is_dir():
                out.append(d)
    return out


def anchors(sources: list[Source]) -> list[Path]:
    """Every directory whose appearance or disappearance means re-arming the watch."""
    return [d for src in sources for d in src.watch_dirs()]


def has_sessions_dir(sources: list[Source]) -> bool:
    """Does any format's sessions directory exist?"""
    return any(d.is_dir() for src in sources for d in src.homes())


def accepts(sources: list[Source], path: str) -> bool:
    """Is a changed path worth a batch? (Called per event on the event loop: one pass, on
    strings: with `pathlib` it took ~100 us an event, ~0.4 ms of each ocr.db rewrite's five.)"""
    p = _plain(path)
    return any(owns(src, p) and src.accept(path) for src in sources)


def owns(src: Source, path: Path | str) -> bool:
    """Is `path` inside (or above) one of the directories `src` keeps its sessions in?"""
    p = _plain(path)
    for d in (*src.watch_dirs(), *src.extra_watch_dirs()):
        ds = str(d)
        if p == ds or p.startswith(_slash(ds)) or ds.startswith(_slash(p)):
            return True
    return False


def _plain(path: Path | str) -> str:
    """`path` as `str(Path(path))` spells it (no doubled `/`, no `.` part, no `/` at the end),
    for comparing by prefix as `Path.is_relative_to` does; built only when it differs."""
    s = path if isinstance(path, str) else str(path)
    if "//" in s or "/./" in s or s.endswith(("/", "/.")) or s.startswith("./") or s == ".":
        return str(Path(s))
    return s


def _slash(d: str) -> str:
    return d if d.endswith("/") else d + "/"
