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
from ocr_tui.core.textsafe import safe_line


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
    if getattr(app, "is_remote", lambda _sid: False)(session_id):
        open_remote(node, file, line, session_id)
        return
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


SHELL_CHARS = frozenset(";&|$`<>()*?!\"'\\{}[]~#")


def remote_path(root: str | None, file: str) -> str | None:
    """A finding's file on the far side: inside its project's `root` (the far side's hello
    says it), as the reviewer named it (relative, `./`, or absolute under the root); None when
    it leads elsewhere or holds a control character."""
    import posixpath

    file = file.strip()
    if root is None or not file or any(ord(c) < 32 or c in "\x7f\u202e\u2066" for c in file):
        return None
    path = posixpath.normpath(file if file.startswith("/") else posixpath.join(root, file))
    return path if path == root or path.startswith(root.rstrip("/") + "/") else None


def open_remote(node: Widget, file: str | None, line: int | None, session_id: str) -> None:
    """`e` on a remote session's finding: the file in the user's editor's remote mode
    (`editor_remote`, `{host}` `{path}` `{line}` filled in), else shown here read-only, read
    through the far side."""
    import posixpath
    import shlex

    from ocr_tui.ui.navigation import DocumentTarget, Open

    app = node.app
    view = app.sessions.get(session_id)
    feed = getattr(app, "feeds", {}).get(view.project) if view is not None else None
    if feed is None or not file:
        app.notify("This finding names no file.", severity="warning", markup=False)
        return
    path = remote_path(feed.root, file)
    if path is None:
        app.notify(f"Not a file of the project on {feed.spec.host}: not opened.",
                   severity="warning", timeout=4, markup=False)  # fmt: skip
        return
    template = feed.spec.editor
    if template and any(c in SHELL_CHARS for c in path):
        # a template may hand {path} to a shell on the far side (`ssh -t {host} vim {path}`)
        app.notify("A shell character in the file's name: not given to editor_remote.",
                   severity="warning", timeout=4, markup=False)  # fmt: skip
        return
    if template:
        try:
            words = shlex.split(template)
        except ValueError as exc:
            app.notify(f"editor_remote: {exc}", severity="error", markup=False)
            return
        fill = {"host": feed.spec.host, "path": path, "line": str(line or 1)}
        try:
            argv = tuple(w.format_map(fill) for w in words)
        except (KeyError, ValueError, IndexError) as exc:
            app.notify(f"editor_remote: {{host}}, {{path}} and {{line}} only ({exc})",
                       severity="error", markup=False)  # fmt: skip
            return
        if not argv:
            app.notify("editor_remote is empty.", severity="error", markup=False)
            return
        name = os.path.basename(argv[0])
        shown = safe_line(f"{feed.spec.host}:{path}:{line or 1} in {name}")
        launch(app, Plan(argv=argv, cwd=Path.home(), editor=safe_line(name), file=Path(path),
                         line=line, display=shown))  # fmt: skip
        return
    session_dir = (
        view.path if not view.path.endswith((".json", ".md")) else posixpath.dirname(view.path)
    )
    rel = posixpath.relpath(path, session_dir)
    node.post_message(Open(DocumentTarget(session_id, rel)))
    app.notify("Shown read-only: set editor_remote in the config to open it in your editor.",
               timeout=4, markup=False)  # fmt: skip


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
