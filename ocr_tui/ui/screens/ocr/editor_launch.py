"""`e`: open a finding's file at its line in the user's editor, and come back to the same place.

Which editor and how it is called is `ocr_tui.core.editor` ($VISUAL, else $EDITOR, else OCR's
`.ocr/config.yaml` `dashboard.ide`). The plan (which stats the file and reads config.yaml) is
made in a thread worker; the editor then runs on the UI thread with the app suspended, as
Textual's `App.suspend` wants, and the screen is drawn again as it was when the editor exits.
A refusal (no file, outside the project, missing, no editor) is a toast, never a launch.
"""

from __future__ import annotations

import os
from pathlib import Path

from textual.app import App, SuspendNotSupported
from textual.widget import Widget

from ocr_tui.core.editor import Plan, Refusal, plan, run


def make_plan(
    root: Path, ocr_dir: Path, file: str, line: int | None, editor: str | None = None
) -> Plan | Refusal:
    """Blocking IO (a stat of the file, `.ocr/config.yaml`): call it from a thread. `editor`:
    the config file's editor command, chosen before $VISUAL and $EDITOR."""
    from ocr_tui.formats.ocr.api import dashboard_ide

    env = dict(os.environ, VISUAL=editor) if editor else os.environ
    return plan(root, file, line, env, dashboard_ide(ocr_dir))


def open_in_editor(
    node: Widget, file: str | None, line: int | None, session_id: str | None = None
) -> None:
    """Open `file` (as the reviewer wrote it, relative to the project of session
    `session_id`) at `line`."""
    app = node.app
    project_of = getattr(app, "project_of", None)
    project = project_of(session_id) if project_of else getattr(app, "project", None)
    if project is None:
        app.notify("No project: there is no file to open.", severity="warning", markup=False)
        return
    if not file:
        app.notify("This finding names no file.", severity="warning", markup=False)
        return
    root, ocr_dir = project.root, project.ocr_dir
    prefs = getattr(app, "prefs", None)
    editor = getattr(prefs, "editor", None)

    def work() -> None:
        result = make_plan(root, ocr_dir, file, line, editor)
        app.call_from_thread(launch, app, result)

    node.run_worker(work, thread=True, group="editor", exclusive=True, exit_on_error=False)


def launch(app: App, result: Plan | Refusal) -> None:
    """On the UI thread: hand the terminal to the editor and wait for it."""
    if isinstance(result, Refusal):
        app.notify(result.reason, severity="warning", timeout=4, markup=False)
        return
    try:
        with app.suspend():
            error = run(result)
    except SuspendNotSupported:
        app.notify(
            f"This terminal cannot be handed to an editor: open {result.display} yourself.",
            severity="warning",
            timeout=6,
            markup=False,
        )
        return
    if error is not None:
        app.notify(error, severity="error", timeout=6, markup=False)
    else:
        app.notify(f"Back from {result.display}.", timeout=2, markup=False)
