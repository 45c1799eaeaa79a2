"""What the command line makes of a word that is not an option: a PATH that names nothing, a
word that is neither a command nor a path (`ocr-tui stauts`), and their one-line answers."""

from __future__ import annotations

import difflib
import os
import sys
from pathlib import Path

from ocr_tui.cli_parser import COMMANDS
from ocr_tui.core.textsafe import safe_line

EXIT_NO_PROJECT = 2


def missing_path(path: str | None) -> bool:
    """PATH names nothing: not a directory, a file in one, nor a project's `.ocr/sessions`
    that is not made yet (its `.ocr` is there)."""
    if path is None or os.path.exists(path):
        return False
    p = Path(os.path.abspath(path))
    return not (p.name == "sessions" and p.parent.name == ".ocr" and p.parent.is_dir())


def no_such_directory(path: str) -> int:
    print(f"ocr-tui: no such directory: {safe_line(path)}", file=sys.stderr)
    return EXIT_NO_PROJECT


def unknown_word(word: str) -> str:
    """What argparse says (exit 2) for `ocr-tui WORD` when WORD is neither a command nor an
    existing path: the closest command, or the list of them."""
    names = {c: c for c in COMMANDS} | {"help": "--help", "version": "--version"}
    close = difflib.get_close_matches(word, list(names), n=1, cutoff=0.6)
    said = f"{safe_line(word)!r} is neither a command nor an existing directory"
    if close:
        return f"{said}; did you mean {names[close[0]]!r}?"
    return f"{said} (commands: {', '.join(COMMANDS)})"


def looks_like_path(word: str) -> bool:
    """`./x`, `~/x`, `a/b`, `..`: meant as a path whatever it names, never as a command."""
    seps = {os.sep} | ({os.altsep} if os.altsep else set())
    return word.startswith((".", "~")) or any(sep in word for sep in seps)
