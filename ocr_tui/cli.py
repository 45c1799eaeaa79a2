"""Command line: `ocr-tui [COMMAND] [PATH]`. Headless commands answer without a screen (their
text: `ocr_tui.status_text`, `ocr_tui.watch_stream`); the dashboard is built through the one
factory `make_app`. Every command runs under `ocr_tui.stdout`'s guard."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ocr_tui import findings_cli
from ocr_tui.core.project import Project, ProjectNotFound, find_project
from ocr_tui.core.source import DEFAULT_STALL_AFTER
from ocr_tui.core.textsafe import safe_line
from ocr_tui.status_text import oneline, table
from ocr_tui.stdout import run_guarded
from ocr_tui.watch_stream import run_watch

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from ocr_tui.ui.app import OcrTuiApp

COMMANDS = ("status", "findings", "watch", "simulate", "demo", "dashboard")
EXIT_NO_PROJECT = 2
EXIT_NO_SESSION = 2  # `--session ID` names no session (as a missing project: not found)


def parse_duration(text: str) -> float:
    """`30m`, `90s`, `2h`, or a number of minutes."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (try 30m, 90s, 2h)")
    value, unit = float(m.group(1)), m.group(2) or "m"
    return value * {"s": 1, "m": 60, "h": 3600, "d": 86400}[unit]


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "path",
        nargs="?",
        default=None,
        help="a project, its .ocr, or .ocr/sessions (default: here, walking up as git does)",
    )
    p.add_argument(
        "--stall-after",
        type=parse_duration,
        default=DEFAULT_STALL_AFTER,
        metavar="DURATION",
        help="a running session with no activity for this long is stalled (default 30m)",
    )


def _only(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--session",
        action="append",
        default=None,
        metavar="ID",
        help="only this session (its id as `status` prints it; may be given more than once)",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ocr-tui",
        description="A live terminal dashboard for Open Code Review sessions (and the code"
        " workflow, scientific analysis and iDumb formats).",
        epilog="With no command, opens the dashboard on PATH.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    d = sub.add_parser("dashboard", help="open the live dashboard (the default)")
    _common(d)
    d.add_argument("--poll", action="store_true", help="watch by polling (network file systems)")
    d.add_argument("--bell", action="store_true", help="ring the terminal bell on events")

    s = sub.add_parser("status", help="print the sessions once and exit")
    _common(s)
    _only(s)
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON object (schema in README)")
    fmt.add_argument("--oneline", action="store_true", help="one short line for a tmux status bar")

    findings_cli.add_parser(sub, _common)

    w = sub.add_parser("watch", help="stream session changes as JSON lines")
    _common(w)
    _only(w)
    w.add_argument("--jsonl", action="store_true", help="JSON lines (the only format; default)")
    w.add_argument("--poll", action="store_true", help="watch by polling")

    sim = sub.add_parser("simulate", help="play a simulated OCR run into DIR")
    sim.add_argument("dir", help="the directory to make an OCR project of")
    sim.add_argument("--speed", type=float, default=1.0, help="time multiplier (default 1)")
    sim.add_argument("--store", choices=("state.json", "ocr.db"), default="state.json")
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--loop", action="store_true", help="start a new live session after each")

    demo = sub.add_parser("demo", help="open the dashboard on a live simulated review")
    demo.add_argument("--speed", type=float, default=1.0, help="simulation speed (default 1)")
    demo.add_argument("--bell", action="store_true", help="ring the terminal bell on events")
    return parser


def _project(path: str | None) -> Project | None:
    try:
        return find_project(path)
    except ProjectNotFound as exc:
        print(f"ocr-tui: {exc}", file=sys.stderr)
        return None


# --- status ----------------------------------------------------------------------------------


def cmd_status(args: argparse.Namespace) -> int:
    from ocr_tui.core.engine import Engine, encode_json

    project = _project(args.path)
    if project is None:
        return EXIT_NO_PROJECT
    engine = Engine(project, stall_after=args.stall_after)
    sessions = engine.scan()
    if args.session:
        missing = [sid for sid in args.session if sid not in {v.id for v in sessions}]
        if missing:
            print(f"ocr-tui: no session {safe_line(missing[0])!r} in {safe_line(project.root)}"
                  " (`ocr-tui status` lists them)", file=sys.stderr)  # fmt: skip
            return EXIT_NO_SESSION
        sessions = [v for v in sessions if v.id in args.session]
    if args.json:
        snap = engine.snapshot()
        if args.session:
            snap.sessions = [v for v in snap.sessions if v.id in args.session]
        print(encode_json(snap))
    elif args.oneline:
        print(oneline(sessions))
    elif not sessions:
        print(f"No sessions yet in {safe_line(project.sessions_dir)}")
    else:
        print(table(sessions))
    return 0


def cmd_findings(args: argparse.Namespace) -> int:
    project = _project(args.path)
    if project is None:
        return EXIT_NO_PROJECT
    return findings_cli.cmd_findings(args, project)


# --- watch -----------------------------------------------------------------------------------


def cmd_watch(args: argparse.Namespace) -> int:
    project = _project(args.path)
    if project is None:
        return EXIT_NO_PROJECT
    run_watch(project, args)
    return 0


# --- dashboard / demo / simulate -------------------------------------------------------------


def cmd_dashboard(args: argparse.Namespace) -> int:
    start = Path(args.path) if args.path else Path.cwd()
    try:
        project: Project | None = find_project(start)
    except ProjectNotFound:
        project = None
    app = make_app(
        project, start_path=start, poll=args.poll, bell=args.bell, stall_after=args.stall_after
    )
    app.run()
    return app.return_code or 0


def make_app(
    project: Project | None,
    *,
    start_path: Path | None = None,
    poll: bool = False,
    bell: bool = False,
    stall_after: float = DEFAULT_STALL_AFTER,
    clock: Callable[[], datetime] | None = None,
    demo: bool = False,
) -> OcrTuiApp:
    """The one way the CLI and the tests build the dashboard: the app, given what it cannot
    import itself (the demo, which plays every format's simulator)."""
    from ocr_tui import demo as demo_module
    from ocr_tui.ui.app import OcrTuiApp

    return OcrTuiApp(
        project,
        start_path=start_path,
        poll=poll,
        bell=bell,
        stall_after=stall_after,
        clock=clock,
        demo=demo,
        demo_factory=lambda: demo_module.start_demo(),  # looked up at each start
    )


def cmd_demo(args: argparse.Namespace) -> int:
    app = make_app(None, demo=True, bell=args.bell)
    app.run()
    return app.return_code or 0


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


def _dispatch(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `ocr-tui [PATH]` and `ocr-tui --poll` open the dashboard.
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        argv.insert(0, "dashboard")
    args = build_parser().parse_args(argv)
    handler = {
        "status": cmd_status,
        "findings": cmd_findings,
        "watch": cmd_watch,
        "dashboard": cmd_dashboard,
        "demo": cmd_demo,
        "simulate": cmd_simulate,
    }[args.command]
    return handler(args)
