"""A note's text in the user's editor (`$VISUAL`, else `$EDITOR`, else `vi`): written to a
private temporary file outside the project, the terminal handed to the editor (as `e` does),
the file read back. None when there is no terminal to hand over or the editor failed."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile

from textual.app import App, SuspendNotSupported


def edit_text(app: App, text: str) -> str | None:
    command = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
    fd, path = tempfile.mkstemp(prefix="ocr-tui-note-", suffix=".md")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        try:
            with app.suspend():
                code = subprocess.call([*shlex.split(command), path])
        except SuspendNotSupported:
            app.notify("This terminal cannot be handed to an editor.", severity="warning",
                       markup=False)  # fmt: skip
            return None
        except (OSError, ValueError) as exc:
            app.notify(f"The editor could not be run: {exc}", severity="error", markup=False)
            return None
        if code != 0:
            app.notify(f"The editor exited with {code}: the note is as it was.", markup=False)
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read().rstrip("\n")
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
