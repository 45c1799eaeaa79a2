"""Command line: `ocr-tui [COMMAND] [PATH]`. Headless commands answer without a screen (their
text: `ocr_tui.status_text`, `ocr_tui.watch_stream`); the dashboard is built through the one
factory `make_app`, and only for a terminal. Every command runs under `ocr_tui.stdout`'s guard.

Start-up: a command imports what it runs when it runs (`status` never imports Textual; the
dashboard neither the findings table nor the JSON stream); the grammar is `ocr_tui.cli_parser`'s.

Exit codes: 0 done; 1 a write error (`ocr_tui.stdout`) or `findings --fail-on`; 2 a usage
error (argparse's, an unknown command word), a PATH that does not exist, no project, an unknown
session or round, the dashboard without a terminal."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ocr_tui.cli_parser import COMMANDS, TOP_LEVEL, build_parser
from ocr_tui.cli_words import looks_like_path, missing_path, no_such_directory, unknown_word
from ocr_tui.core.discover import DEFAULT_DEPTH
from ocr_tui.core.early_read import EarlyRead
from ocr_tui.core.prefs import Prefs
from ocr_tui.core.project import Project, ProjectNotFound, find_project
from ocr_tui.core.source import DEFAULT_STALL_AFTER
from ocr_tui.core.textsafe import safe_line
from ocr_tui.stdout import run_guarded

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from datetime import datetime

    from ocr_tui.core.early_read import Early
    from ocr_tui.core.scope import Scope
    from ocr_tui.core.view import SessionView
    from ocr_tui.ui.app import OcrTuiApp

EXIT_NO_PROJECT = 2
EXIT_NO_SESSION = 2  # `--session ID` names no session (as a missing project: not found)
EXIT_NO_TERMINAL = 2  # the dashboard with no terminal to draw on
FORCE_TTY = "OCR_TUI_FORCE_TTY"  # =1: open the dashboard even where no terminal is detected


from ocr_tui.cli_scope import (  # noqa: E402  (the paths' projects, here and remote)
    REMOTE_COMMANDS,
    _has_remote,
    _project,
    _remote,
    _remote_path,
    _scope,
)


def terminal_missing() -> str | None:
    """Which of stdout and the stream the dashboard draws on (Textual draws on the real
    stderr) is not a terminal, or None (both are, or OCR_TUI_FORCE_TTY=1 says to go on)."""
    if os.environ.get(FORCE_TTY, "") == "1":
        return None
    for name, stream in (("stdout", sys.stdout), ("stderr", sys.__stderr__)):
        try:
            tty = stream is not None and bool(stream.isatty())
        except (AttributeError, ValueError, OSError):
            tty = False
        if not tty:
            return name
    return None


def refuse_without_terminal() -> int | None:
    """Exit 2 with one plain line when the dashboard has no terminal (a script, CI, a pipe):
    it would write escape sequences forever to whatever reads them."""
    name = terminal_missing()
    if name is None:
        return None
    message = (
        f"ocr-tui: the dashboard needs a terminal, and {name} is not one. Without a screen:"
        " `ocr-tui status` (--json, --oneline) or `ocr-tui watch --jsonl`;"
        f" {FORCE_TTY}=1 opens the dashboard anyway."
    )
    if sys.stderr is not None and sys.stderr.isatty():  # read in a terminal: wrapped at words
        import shutil
        import textwrap

        message = textwrap.fill(message, max(40, shutil.get_terminal_size().columns - 1))
    print(message, file=sys.stderr)
    return EXIT_NO_TERMINAL


# --- status ----------------------------------------------------------------------------------


def cmd_status(args: argparse.Namespace) -> int:
    from ocr_tui.core.engine import encode_json
    from ocr_tui.core.workspace import make_engine
    from ocr_tui.status_text import ONELINE_WIDTH, oneline, output_width, table

    scope = _scope(args)
    if scope is None:
        return EXIT_NO_PROJECT
    engine = make_engine(scope, stall_after=args.stall_after)
    sessions = engine.scan()
    cut = getattr(engine, "truncation", lambda: None)()
    if cut:
        print(f"ocr-tui: {cut}", file=sys.stderr)
    far_refs, unreached = [], []
    if scope.remotes:  # remote projects too (`status . devbox:api`): each read by its far side
        from ocr_tui.remote_status import with_remotes

        taken = {r.name for r in getattr(engine, "refs", list)()}  # the local projects' names
        sessions, far_refs, unreached = with_remotes(scope, sessions, taken)
        for line in unreached:
            print(f"ocr-tui: {safe_line(line)}", file=sys.stderr)
    if args.session:
        wanted, error = session_ids(args.session, sessions, engine.project.root)
        if error:
            print(f"ocr-tui: {error}", file=sys.stderr)
            return EXIT_NO_SESSION
        sessions = [v for v in sessions if v.id in wanted]
    now = engine.clock()
    code = 1 if unreached else 0  # (what could be read is shown all the same)
    if args.json:
        snap = engine.snapshot()
        snap.sessions = sessions
        if far_refs:
            snap.projects = [*(snap.projects or []), *far_refs]
        print(encode_json(snap))
        return code
    width = output_width(sys.stdout) if args.max_width is None else (args.max_width or None)
    if args.oneline:
        default = ONELINE_WIDTH if width is None else min(ONELINE_WIDTH, width)
        print(oneline(sessions, default if args.max_width is None else width, now))
    elif not sessions and scope.several:
        print(no_sessions_in(scope, len(engine.refs())))
    elif not sessions:
        print(f"No sessions yet in {safe_line(scope.projects[0].sessions_dir)}")
    else:
        print(table(sessions, width, now))
    return code


def session_ids(
    given: list[str], sessions: list[SessionView], root: Path
) -> tuple[set[str], str | None]:
    """The ids `--session` names: each an id as `status --json` gives it, or (with several
    projects) a session's own id when one project only has it. Else what is wrong."""
    from ocr_tui.core.display import local_id

    ids = {v.id for v in sessions}
    out: set[str] = set()
    for sid in given:
        if sid in ids:
            out.add(sid)
            continue
        mine = [v for v in sessions if local_id(v) == sid]
        if len(mine) == 1:
            out.add(mine[0].id)
        elif mine:
            names = ", ".join(safe_line(v.project) for v in mine[:4] if v.project)
            return out, (f"{safe_line(sid)!r} is a session of several projects ({names}):"
                         f" name it as PROJECT/{safe_line(sid)}")  # fmt: skip
        else:
            return out, (f"no session {safe_line(sid)!r} in {safe_line(root)}"
                         " (`ocr-tui status` lists them)")  # fmt: skip
    return out, None


def no_sessions_in(scope: Scope, projects: int) -> str:
    where = safe_line(scope.root)
    if scope.scan is not None and not projects:
        return f"No projects under {where} ({scope.depth} levels down at most)"
    return f"No sessions yet in the {projects} projects under {where}"


def cmd_triage(args: argparse.Namespace) -> int:  # `triage` and `note`
    from ocr_tui import triage_cli

    project = _project(args.path)
    return EXIT_NO_PROJECT if project is None else triage_cli.run(args, project)


def cmd_agent(args: argparse.Namespace) -> int:
    from ocr_tui.agent import run_agent
    from ocr_tui.core.scope import Scope

    project = _project(args.path)
    return EXIT_NO_PROJECT if project is None else run_agent(Scope((project,)), args)


def cmd_findings(args: argparse.Namespace) -> int:
    project = _project(args.path)
    if project is None:
        return EXIT_NO_PROJECT
    from ocr_tui import findings_cli

    return findings_cli.cmd_findings(args, project)


# --- watch -----------------------------------------------------------------------------------


def cmd_watch(args: argparse.Namespace) -> int:
    scope = _scope(args)
    if scope is None:
        return EXIT_NO_PROJECT
    from ocr_tui.watch_stream import run_watch

    run_watch(scope, args)
    return 0


# --- dashboard / demo / simulate -------------------------------------------------------------


def cmd_dashboard(args: argparse.Namespace) -> int:
    refused = refuse_without_terminal()
    if refused is not None:
        return refused
    several = len(args.paths) > 1 or args.scan or _has_remote(args)
    start = Path(args.paths[0]) if args.paths and not several else Path.cwd()
    early_read = None if several else EarlyRead.start(start, args.stall_after)
    with collector_paused():
        scope: Scope | None = None
        if several:  # each PATH must be a project (one alone may be waited for)
            scope = _scope(args)
            if scope is None:
                return EXIT_NO_PROJECT
            if not scope.several:  # every PATH led to the same project: that one
                scope, several, start = None, False, scope.projects[0].root
        # Textual and the screens, imported while `early_read` reads on another core.
        import ocr_tui.ui.app  # noqa: F401

        early = early_read.result() if early_read is not None else None
        project: Project | None = None
        if early is not None:
            project = None if early.root is None else Project(early.project_root)
        elif not several:
            try:
                project = find_project(start)
            except ProjectNotFound:
                pass
        settings = args.settings
        app = make_app(
            project,
            scope=scope,
            start_path=start,
            poll=args.poll,
            notify=args.notify,
            stall_after=args.stall_after,
            early=early,
            prefs=Prefs(
                theme=args.theme,
                sort=args.sort,
                filter=args.filter,
                editor=settings.editor,
                config=settings.path,
                problems=tuple(settings.problems),
                read_only=bool(args.read_only or settings.read_only),
            ),
        )
    del early  # (its views are the app's now: not kept a second time while it runs)
    app.run()
    return app.return_code or 0


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while the dashboard is built: its imports (the
    formats, Textual, the session list) make some hundred thousand objects that live as long as
    the process, and the collector's passes over them as they are made find nothing to free
    (~10% of that time). On again after, as it was."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def make_app(
    project: Project | None,
    *,
    start_path: Path | None = None,
    poll: bool = False,
    bell: bool = False,
    notify: str = "off",
    stall_after: float = DEFAULT_STALL_AFTER,
    clock: Callable[[], datetime] | None = None,
    demo: bool = False,
    prefs: Prefs | None = None,
    scope: Scope | None = None,
    early: Early | None = None,
) -> OcrTuiApp:
    """The one way the CLI and the tests build the dashboard: the app, given what it cannot
    import itself (the demo, which plays every format's simulator), and the user's preferences
    (the config file's and the flags': `ocr_tui.prefs.Prefs`; none in tests)."""
    from ocr_tui.ui.app import OcrTuiApp

    return OcrTuiApp(
        project,
        start_path=start_path,
        poll=poll,
        bell=bell,
        notify=notify,
        stall_after=stall_after,
        clock=clock,
        demo=demo,
        demo_factory=_start_demo,
        prefs=prefs,
        scope=scope,
        early=early,
    )


def _start_demo():
    """Start the demo (`ocr_tui.demo`, imported when the demo starts, looked up each time)."""
    from ocr_tui import demo as demo_module

    return demo_module.start_demo()


def cmd_demo(args: argparse.Namespace) -> int:
    refused = refuse_without_terminal()
    if refused is not None:
        return refused
    with collector_paused():
        app = make_app(None, demo=True, notify=args.notify)
    app.run()
    return app.return_code or 0


def cmd_serve(args: argparse.Namespace) -> int:
    from ocr_tui.serve import run_serve

    return run_serve(args)


def cmd_completion(args: argparse.Namespace) -> int:
    from ocr_tui.completion import script

    sys.stdout.write(script(args.shell, build_parser(None), default_command="dashboard"))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from ocr_tui.formats.ocr import sim as simulate

    argv = [args.dir, "--speed", str(args.speed), "--store", args.store, "--seed", str(args.seed)]
    if args.loop:
        argv.append("--loop")
    return simulate.main(argv)


def main(argv: list[str] | None = None) -> int:
    """Run one command. Every way its output can fail is handled by `run_guarded`, once, as git
    and coreutils do: a reader that went away (`| head`) ends it quietly, a write error (`>
    /dev/full`) is one line on stderr and exit 1, Ctrl-C is a quiet 130 (SIGTERM a quiet 0
    for `watch`). Never a traceback for those."""
    return run_guarded(lambda: _dispatch(argv))


def _configure(args: argparse.Namespace, path: str | None) -> None:
    """The config file's settings where no flag was given (flags win); its problems, one
    line each on stderr (the dashboard also shows them)."""
    from ocr_tui.core import config

    settings = config.load(Path(path) if path else None)
    for problem in settings.problems:
        print(f"ocr-tui: {problem}", file=sys.stderr)
    if getattr(args, "stall_after", DEFAULT_STALL_AFTER) is None:
        args.stall_after = settings.stall_after or DEFAULT_STALL_AFTER
    if hasattr(args, "notify") and args.notify is None:
        args.notify = settings.notify or "off"
    for key in ("sort", "filter", "theme"):
        if hasattr(args, key) and getattr(args, key) is None:
            setattr(args, key, getattr(settings, key))
    args.settings = settings


def _dispatch(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `ocr-tui [PATH]` and `ocr-tui --poll` open the dashboard. A command's name is the
    # command (`./status` is the directory).
    implicit = not argv or (argv[0] not in COMMANDS and argv[0] not in TOP_LEVEL)
    if implicit:
        argv.insert(0, "dashboard")
    parser = build_parser(argv[0] if argv[0] in COMMANDS else None)
    args = parser.parse_args(argv)
    paths = getattr(args, "paths", None)
    if paths is not None:  # several PATHs, `--scan DIR`
        local = [p for p in paths if not _remote_path(p)]  # (the config file: where it applies)
        args.path = local[0] if local else None
    path = getattr(args, "path", None)
    if args.command in ("status", "watch") and _remote(args) is not None:
        from ocr_tui.remote_status import run_remote  # its far side says whether it exists

        _configure(args, None)
        return run_remote(_remote(args), args)  # (with the config's table for it)
    for given in paths or [path]:
        if args.command in REMOTE_COMMANDS and _remote_path(given):
            continue  # its far side says whether it exists
        if missing_path(given):
            if implicit and not looks_like_path(given):  # `ocr-tui stauts`: a mistyped command
                parser.error(unknown_word(given))
            return no_such_directory(given)
    scan = getattr(args, "scan", None)
    if getattr(args, "depth", None) is not None and scan is None:
        parser.command_parser(args.command).error(
            "--depth N goes with --scan DIR (how deep under DIR to look for projects)"
        )
    if hasattr(args, "depth") and args.depth is None:
        args.depth = DEFAULT_DEPTH
    if scan is not None and not os.path.isdir(scan):
        return no_such_directory(scan)
    path = path or scan
    if args.command == "completion":  # a script for the shell: no project, no config
        return cmd_completion(args)
    _configure(args, path)
    handler = {
        "status": cmd_status,
        "findings": cmd_findings,
        "triage": cmd_triage,
        "note": cmd_triage,
        "watch": cmd_watch,
        "dashboard": cmd_dashboard,
        "demo": cmd_demo,
        "simulate": cmd_simulate,
        "serve": cmd_serve,
        "agent": cmd_agent,
    }[args.command]
    return handler(args)
