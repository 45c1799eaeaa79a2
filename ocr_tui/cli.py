"""Command line: `ocr-tui [COMMAND] [PATH]`. Headless commands answer without a screen; the
dashboard is built through the one factory `ocr_tui.ui.app.make_app`."""

from __future__ import annotations

import argparse
import asyncio
import re
import signal
import sys
from pathlib import Path

from ocr_tui.derive.session import DEFAULT_STALL_AFTER
from ocr_tui.derive.timeutil import human_duration
from ocr_tui.model.view import SessionView
from ocr_tui.sources.project import Project, ProjectNotFound, find_project
from ocr_tui.textsafe import safe_line

COMMANDS = ("status", "watch", "simulate", "demo", "dashboard")
EXIT_NO_PROJECT = 2


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
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON object (schema in README)")
    fmt.add_argument("--oneline", action="store_true", help="one short line for a tmux status bar")

    w = sub.add_parser("watch", help="stream session changes as JSON lines")
    _common(w)
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


def _round_bits(v: SessionView) -> tuple[str, int, int]:
    cur = v.current
    reviewers = len(cur.reviewers) if cur else 0
    findings = cur.findings if cur else 0
    return (f"R{v.current_round}" if v.current_round else "—"), reviewers, findings


def _elapsed(v: SessionView) -> str:
    return human_duration(v.elapsed.seconds) if v.elapsed.seconds is not None else "—"


def oneline(sessions: list[SessionView]) -> str:
    """The most relevant session (newest running, else newest) in one short line."""
    if not sessions:
        return "ocr: no sessions"
    running = [v for v in sessions if v.running]
    pick = max(running or sessions, key=lambda v: v.last_activity or "")
    rnd, reviewers, findings = _round_bits(pick)
    kind = pick.workflow if pick.framework == "ocr" else f"{pick.framework}:{pick.workflow}"
    parts = [
        f"{safe_line(pick.id)} {safe_line(kind)} {pick.phase_number or '?'}/{pick.phase_total} "
        f"{safe_line(pick.phase_label)}"
    ]
    if pick.framework != "ocr":
        parts += [safe_line(x) for x in (pick.summary, *pick.alerts[:1]) if x]
        if pick.waiting:
            parts.append("waiting on you")
    elif pick.workflow == "review" or pick.rounds:
        parts.append(rnd)
        parts.append(f"{reviewers} reviewer{'s' if reviewers != 1 else ''}")
        parts.append(f"{findings} finding{'s' if findings != 1 else ''}")
        cur = pick.current
        if cur and cur.verdict:
            parts.append(safe_line(cur.verdict))
    elif pick.current_map_run:
        parts.append(f"run {pick.current_map_run}")
    parts.append(_elapsed(pick) + (" stalled" if pick.stalled else ""))
    if pick.problems:
        parts.append(f"{len(pick.problems)} problem{'s' if len(pick.problems) != 1 else ''}")
    return " · ".join(parts)


def table(sessions: list[SessionView]) -> str:
    """A plain table; a FORMAT column when the project holds more than OCR sessions."""
    mixed = any(v.framework != "ocr" for v in sessions)
    head = ("SESSION", "STATUS", "WORKFLOW", "PHASE", "ROUND", "REV", "FIND", "VERDICT", "ELAPSED")
    if mixed:
        head = ("FORMAT", *head)
    rows = [head]
    for v in sessions:
        rnd, reviewers, findings = _round_bits(v)
        cur = v.current
        status = v.status + (" stalled" if v.stalled else "") + (" waiting" if v.waiting else "")
        status += " !" if v.problems else ""
        row = [
            safe_line(v.id),
            status,
            safe_line(v.workflow),
            f"{v.phase_number or '?'}/{v.phase_total} {safe_line(v.phase_label)}",
            rnd,
            str(reviewers),
            str(findings),
            safe_line(cur.verdict) if cur and cur.verdict else "—",
            _elapsed(v),
        ]
        if v.framework != "ocr":  # no rounds: the agents and the first alert instead
            row[4:8] = [
                "—",
                safe_line(v.summary or "—"),
                "—",
                safe_line(v.alerts[0] if v.alerts else "—"),
            ]
        rows.append(tuple([safe_line(v.framework), *row] if mixed else row))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    for v in sessions:
        for p in v.problems:
            lines.append(f"! {safe_line(v.id)}: {safe_line(p)}")
    return "\n".join(lines)


def cmd_status(args: argparse.Namespace) -> int:
    from ocr_tui.engine import Engine, encode_json

    project = _project(args.path)
    if project is None:
        return EXIT_NO_PROJECT
    engine = Engine(project, stall_after=args.stall_after)
    sessions = engine.scan()
    if args.json:
        print(encode_json(engine.snapshot()))
    elif args.oneline:
        print(oneline(sessions))
    elif not sessions:
        print(f"No sessions yet in {safe_line(project.sessions_dir)}")
    else:
        print(table(sessions))
    return 0


# --- watch -----------------------------------------------------------------------------------


async def _watch(project: Project, args: argparse.Namespace) -> None:
    from ocr_tui.engine import Engine, encode_json
    from ocr_tui.watch import Changed, PollingFallback, ProjectMissing, Scanned, watch_project

    engine = Engine(project, stall_after=args.stall_after)
    out = sys.stdout

    def emit(obj: dict) -> None:
        out.write(encode_json(obj) + "\n")
        out.flush()

    headers_seen = 0
    async for ev in watch_project(engine, poll=args.poll):
        if engine.headers_version != headers_seen:  # a format's project-level state changed
            headers_seen = engine.headers_version
            emit(
                {"type": "headers", "headers": [engine.headers[k] for k in sorted(engine.headers)]}
            )
        if isinstance(ev, Scanned):
            for v in ev.sessions:
                emit({"type": "snapshot", "session": v})
            if not ev.sessions_dir:
                emit({"type": "waiting", "path": str(project.sessions_dir)})
        elif isinstance(ev, Changed):
            for sid in ev.removed:
                emit({"type": "removed", "id": sid})
            for v in ev.sessions:
                emit({"type": "changed", "session": v})
        elif isinstance(ev, ProjectMissing):
            emit({"type": "waiting", "path": str(project.ocr_dir)})
        elif isinstance(ev, PollingFallback):
            emit({"type": "polling", "reason": ev.reason})


def cmd_watch(args: argparse.Namespace) -> int:
    project = _project(args.path)
    if project is None:
        return EXIT_NO_PROJECT
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        asyncio.run(_watch(project, args))
    except KeyboardInterrupt:
        pass
    except BrokenPipeError:
        sys.stderr.close()
    return 0


# --- dashboard / demo / simulate -------------------------------------------------------------


def cmd_dashboard(args: argparse.Namespace) -> int:
    from ocr_tui.ui.app import make_app

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


def cmd_demo(args: argparse.Namespace) -> int:
    from ocr_tui.ui.app import make_app

    app = make_app(None, demo=True, bell=args.bell)
    app.run()
    return app.return_code or 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from ocr_tui import simulate

    argv = [args.dir, "--speed", str(args.speed), "--store", args.store, "--seed", str(args.seed)]
    if args.loop:
        argv.append("--loop")
    return simulate.main(argv)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    # `ocr-tui [PATH]` and `ocr-tui --poll` open the dashboard.
    if not argv or (argv[0] not in COMMANDS and argv[0] not in ("-h", "--help")):
        argv.insert(0, "dashboard")
    args = build_parser().parse_args(argv)
    handler = {
        "status": cmd_status,
        "watch": cmd_watch,
        "dashboard": cmd_dashboard,
        "demo": cmd_demo,
        "simulate": cmd_simulate,
    }[args.command]
    return handler(args)
