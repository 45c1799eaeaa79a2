"""The simulated project's own files: the sources the simulator's findings point at
(`sim_reviews.FILE_POOL`, each `SOURCE_LINES` long, so every finding's line is there), so that
`e` (open the finding's file in the editor) and the map run's files open in the demo and
after `ocr-tui simulate`. Written once, at setup, outside `.ocr/`; a file already there is the
user's and is never written over (nor is anything reached through a symbolic link)."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path

from ocr_tui.formats.ocr.sim_reviews import FILE_POOL, SOURCE_LINES

_NOTE = "A file of the project ocr-tui simulates (`ocr-tui demo`, `ocr-tui simulate`)."


def source_text(path: str, lines: int = SOURCE_LINES) -> str:
    """`lines` lines of plausible content for `path` (Python, else Markdown)."""
    stem = Path(path).stem.lstrip("0123456789_") or "module"
    if path.endswith(".py"):
        out = [f'"""{path}: {_NOTE}"""', "", "from __future__ import annotations", "", ""]
        n = 0
        while len(out) < lines:
            n += 1
            out += [
                f"def {stem}_step_{n}(value: int) -> int:",
                f'    """Step {n} of {stem}."""',
                "    total = value",
                f"    for i in range({n % 5 + 2}):",
                f"        total += i * {n}",
                "    return total",
                "",
                "",
            ]
    else:
        out = [f"# {stem.replace('_', ' ').title()}", "", _NOTE, ""]
        n = 0
        while len(out) < lines:
            n += 1
            out += [f"## Part {n}", "", f"What part {n} of the design does, and why.", ""]
    return "\n".join(out[:lines]) + "\n"


def write_project_files(root: Path, t: datetime) -> list[str]:
    """Write every file of `FILE_POOL` missing under `root` (mtime `t`); the paths written."""
    top = os.path.realpath(root)
    written: list[str] = []
    made: list[str] = []  # the directories made here, dated `t` too (the user's are not)
    for rel in FILE_POOL:
        target = os.path.join(top, rel)
        parent = os.path.dirname(target)
        try:
            _makedirs(parent, made)
            if os.path.realpath(parent) != os.path.normpath(parent):  # a link on the way
                continue
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        except OSError:  # there already (the user's), or not writable: left as it is
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(source_text(rel))
            out.flush()
            os.utime(out.fileno(), (t.timestamp(), t.timestamp()))
        written.append(rel)
    for d in reversed(made):  # the deepest first: a directory's date is its last change
        os.utime(d, (t.timestamp(), t.timestamp()))
    return written


def _makedirs(d: str, made: list[str]) -> None:
    if os.path.isdir(d):
        return
    _makedirs(os.path.dirname(d), made)
    os.mkdir(d)
    made.append(d)
