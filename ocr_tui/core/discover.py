"""Finding projects under a directory (`--scan DIR`): every directory, a few levels down, that
holds a supported session store (`.ocr/`, `.claude/.docs/`, ...: the formats' markers), and the
short names they are shown by.

The walk is depth-limited and bounded: it never follows a symlink, never enters a hidden
directory (`.git`, `.venv`, `.cache`: a marker is seen from its parent's listing, not by
entering it), `node_modules`, a virtualenv (a directory holding `pyvenv.cfg`) or a build's
cache, and stops after MAX_DIRS directories. One `scandir` per directory visited; a marker
with a path (`.claude/.docs`) costs one `stat` more where its first part is there.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_DEPTH = 3  # DIR itself, its children, grandchildren and great-grandchildren
MAX_DIRS = 20_000  # directories looked into at most by one walk
SKIP = frozenset(
    {"node_modules", "__pycache__", "site-packages", "venv", "env", "bower_components"}
)


@dataclass
class Found:
    """A walk's result: the project roots, in path order, and whether it stopped at MAX_DIRS."""

    roots: list[Path] = field(default_factory=list)
    truncated: bool = False
    # A directory below the top could not be listed (no permission, out of file handles):
    # the walk says nothing of the projects in it.
    unreadable: bool = False


def find_projects(
    top: Path, markers: Iterable[str], *, depth: int = DEFAULT_DEPTH, max_dirs: int = MAX_DIRS
) -> Found:
    """Every directory at most `depth` levels under `top` (itself included) holding one of
    `markers` (relative paths of directories). Projects inside projects are found too (a
    monorepo's packages)."""
    heads: dict[str, list[str]] = {}
    for m in markers:
        parts = Path(m).parts
        heads.setdefault(parts[0], []).append(os.path.join(*parts[1:]) if len(parts) > 1 else "")
    found = Found()
    level = [str(top)]
    seen = 0
    for d in range(depth + 1):
        below: list[str] = []
        for directory in level:
            if seen >= max_dirs:
                found.truncated = True
                break
            seen += 1
            try:
                with os.scandir(directory) as it:
                    # (a marker may be a link to a directory, as `find_project` sees it)
                    entries = [e for e in it if _is_dir(e, follow=e.name in heads)]
            except (FileNotFoundError, NotADirectoryError):
                continue  # gone meanwhile
            except OSError:  # unreadable now (EACCES, EMFILE...): says nothing of what is there
                found.unreadable = found.unreadable or d > 0
                continue
            names = {e.name for e in entries}
            if _holds_marker(directory, names, heads):
                found.roots.append(Path(directory))
            if d == depth or os.path.isfile(os.path.join(directory, "pyvenv.cfg")):
                continue  # the last level, or a virtualenv
            below += sorted(e.path for e in entries if _worth_entering(e) and not _link(e))
        if found.truncated:
            break
        level = below
    found.roots.sort()
    return found


def _is_dir(entry: os.DirEntry, *, follow: bool = False) -> bool:
    try:
        return entry.is_dir(follow_symlinks=follow)
    except OSError:
        return False


def _holds_marker(directory: str, names: set[str], heads: Mapping[str, list[str]]) -> bool:
    for head, rests in heads.items():
        if head not in names:
            continue
        for rest in rests:
            if not rest or os.path.isdir(os.path.join(directory, head, rest)):
                return True
    return False


def _worth_entering(entry: os.DirEntry) -> bool:
    name = entry.name
    return not name.startswith(".") and name not in SKIP and not name.endswith(".egg-info")


def _link(entry: os.DirEntry) -> bool:
    """A symlink (never entered: a walk through links may cycle, or leave DIR)."""
    try:
        return entry.is_symlink()
    except OSError:
        return True


def short_names(roots: Iterable[Path], taken: Mapping[Path, str] | None = None) -> dict[Path, str]:
    """A name for each root: its directory's name, with as many parent names as it takes to
    tell it from the others (`api`, `web`; `team-a/web` and `team-b/web`). Roots in `taken`
    keep their names (a project found later never renames one shown already)."""
    taken = dict(taken or {})
    used = set(taken.values())
    out = dict(taken)
    new = [Path(r) for r in roots if Path(r) not in taken]
    for root in new:
        parts = root.parts or (str(root),)
        others = [o for o in new if o != root] + list(taken)
        for n in range(1, len(parts) + 1):
            name = "/".join(parts[-n:]).lstrip("/") or str(root)
            clash = name in used or any("/".join(o.parts[-n:]).lstrip("/") == name for o in others)
            if not clash:
                break
        else:
            name = str(root)
            k = 2
            while name in used:  # the same path twice cannot happen; a guard all the same
                name, k = f"{root}#{k}", k + 1
        out[root] = name
        used.add(name)
    return out
