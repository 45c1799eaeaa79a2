"""Command line: `ocr-tui [COMMAND] [PATH]`. Headless commands answer without a screen; the
dashboard is built through the one factory `ocr_tui.ui.app.make_app`."""

from __future__ import annotations

import argparse
import asyncio
import errno
import os
import re
import signal
import stat
import sys
from contextlib import suppress
from pathlib import Path
from typing import TYPE_CHECKING

from ocr_tui.core.project import Project, ProjectNotFound, find_project
from ocr_tui.core.source import DEFAULT_STALL_AFTER
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import human_duration
from ocr_tui.core.view import SessionView

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

    from ocr_tui.ui.app import OcrTuiApp

COMMANDS = ("status", "watch", "simulate", "demo", "dashboard")
EXIT_NO_PROJECT = 2
EXIT_NO_SESSION = 3  # `--session ID` names no session of the project
EXIT_READER_GONE = 0  # `| head` took what it wanted: not an error (as `simulate` does)
EXIT_WRITE_ERROR = 1  # stdout cannot be written (a full disk, an I/O error)
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 0  # SIGTERM (`watch`): a requested stop, as before


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
    parts = [f"{safe_line(pick.id)} {safe_line(kind)} {_phase(pick)}"]
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


def _phase(v: SessionView) -> str:
    """The phase the session is in: its position among the workflow's phases, and its label.
    The position is the timeline's current phase (the code workflow's `phase_number` counts
    the phases done, one less), else `phase_number`; none when the format gives no ladder
    (iDumb's free-text phase), and not twice when the label starts with it (iDumb's "2/4 ...")."""
    label = safe_line(v.phase_label)
    if not v.phase_total:
        return label
    current = next((s.number for s in v.timeline if s.state == "current"), None)
    number = current if current is not None else v.phase_number
    position = f"{number or '?'}/{v.phase_total}"
    return label if label.startswith(position) else f"{position} {label}"


def _alert(v: SessionView) -> str:
    if not v.alerts:
        return "—"
    more = f" (+{len(v.alerts) - 1} more)" if len(v.alerts) > 1 else ""
    return safe_line(v.alerts[0]) + more


def table(sessions: list[SessionView]) -> str:
    """A plain table. Each column means one thing in every format, or is "—": ROUND, REV
    (reviewers), FIND and VERDICT are the current round's (OCR); when the project holds other
    formats, FORMAT leads and AGENTS (a format's agents summary) and ALERT (its first alert)
    close, "—" for OCR sessions."""
    mixed = any(v.framework != "ocr" for v in sessions)
    head = ("SESSION", "STATUS", "WORKFLOW", "PHASE", "ROUND", "REV", "FIND", "VERDICT", "ELAPSED")
    if mixed:
        head = ("FORMAT", *head, "AGENTS", "ALERT")
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
            _phase(v),
            rnd,
            str(reviewers) if v.current_round else "—",
            str(findings) if v.current_round else "—",
            safe_line(cur.verdict) if cur and cur.verdict else "—",
            _elapsed(v),
        ]
        if mixed:
            row = [safe_line(v.framework), *row, safe_line(v.summary or "—"), _alert(v)]
        rows.append(tuple(row))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
    for v in sessions:
        for p in v.problems:
            lines.append(f"! {safe_line(v.id)}: {safe_line(p)}")
    return "\n".join(lines)


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


# --- watch -----------------------------------------------------------------------------------


async def _stream(project: Project, args: argparse.Namespace) -> None:
    from ocr_tui.core.engine import Engine, encode_json
    from ocr_tui.core.watch import Changed, PollingFallback, ProjectMissing, Scanned, watch_project

    engine = Engine(project, stall_after=args.stall_after)
    out = sys.stdout

    def emit(obj: dict) -> None:
        out.write(encode_json(obj) + "\n")
        out.flush()

    only = set(args.session or ())

    def wanted(sid: str) -> bool:  # `--session`: a session that appears later is streamed too
        return not only or sid in only

    headers_seen = 0
    async for ev in watch_project(engine, poll=args.poll):
        if engine.headers_version != headers_seen:  # a format's project-level state changed
            headers_seen = engine.headers_version
            emit(
                {"type": "headers", "headers": [engine.headers[k] for k in sorted(engine.headers)]}
            )
        if isinstance(ev, Scanned):
            for v in ev.sessions:
                if wanted(v.id):
                    emit({"type": "snapshot", "session": v})
            if not ev.sessions_dir:
                emit({"type": "waiting", "path": str(project.sessions_dir)})
        elif isinstance(ev, Changed):
            for sid in ev.removed:
                if wanted(sid):
                    emit({"type": "removed", "id": sid})
            for v in ev.sessions:
                if wanted(v.id):
                    emit({"type": "changed", "session": v})
        elif isinstance(ev, ProjectMissing):
            emit({"type": "waiting", "path": str(project.ocr_dir)})
        elif isinstance(ev, PollingFallback):
            emit({"type": "polling", "reason": ev.reason})


def _pipe_fd(stream) -> int | None:
    """The fd of `stream` when it is the write-only end of a pipe: the event loop can then be
    told when the reader closes it (the write end then polls as an error)."""
    try:
        import fcntl

        fd = stream.fileno()
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
        if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE != os.O_WRONLY:
            return None  # also readable (`1<>fifo`): our own lines would look like the signal
    except (AttributeError, ImportError, OSError, ValueError):
        return None
    return fd


async def _watch(project: Project, args: argparse.Namespace) -> None:
    """`_stream` until it ends or fails. It also ends, with the same errors a write raises,
    when the reader of stdout goes away while nothing is being written (`| head -n 1` after
    the first lines: a watch would otherwise wait for the next change to learn it), and when a
    write to stdout fails in a callback of the loop (asyncio would only log that)."""
    loop = asyncio.get_running_loop()
    failed: asyncio.Future = loop.create_future()

    def fail(exc: BaseException) -> None:
        if not failed.done():
            failed.set_exception(exc)

    def on_loop_error(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        exc = context.get("exception")
        if exc is not None and _is_output_error(exc):
            fail(exc)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(on_loop_error)
    fd = _pipe_fd(sys.stdout)
    if fd is not None:

        def reader_gone() -> None:
            loop.remove_reader(fd)
            fail(BrokenPipeError(errno.EPIPE, os.strerror(errno.EPIPE)))

        try:
            loop.add_reader(fd, reader_gone)
        except (NotImplementedError, OSError, ValueError):  # no poll on it (Windows, ...)
            fd = None
    stream = asyncio.ensure_future(_stream(project, args))
    try:
        await asyncio.wait({stream, failed}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if fd is not None:
            loop.remove_reader(fd)
        if not failed.done():
            failed.cancel()  # a failure while winding down is not news
        if not stream.done():
            stream.cancel()
            with suppress(asyncio.CancelledError, Exception):
                await stream  # ended for `failed`, or we are cancelled: how is not news
        # Taken here, so asyncio never logs "exception was never retrieved" at exit (a
        # KeyboardInterrupt in `stream` leaves the loop at once, its task still holding it).
        errors = [f.exception() for f in (failed, stream) if f.done() and not f.cancelled()]
    for exc in errors:
        if exc is not None:
            raise exc


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised as Ctrl-C is, so asyncio unwinds the same way."""


def _terminate(*_: object) -> None:
    raise _Terminated


def cmd_watch(args: argparse.Namespace) -> int:
    project = _project(args.path)
    if project is None:
        return EXIT_NO_PROJECT
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        asyncio.run(_watch(project, args))
    finally:
        signal.signal(signal.SIGTERM, previous)
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


class _Stdout:
    """`sys.stdout` while a command runs: it remembers the error a write or flush raised, so
    `main` tells "stdout cannot be written" from any other OSError. Python leaves `sys.stdout`
    None when fd 1 is closed (`>&-`): writing it is then EBADF, as for coreutils."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.error: OSError | None = None

    def write(self, text: str) -> int:
        try:
            if self._stream is None:
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            return self._stream.write(text)
        except OSError as exc:
            self.error = exc
            raise

    def flush(self) -> None:
        try:
            if self._stream is not None:
                self._stream.flush()
        except OSError as exc:
            self.error = exc
            raise

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _is_output_error(exc: BaseException) -> bool:
    """Writing stdout failed, or its reader went away (any EPIPE means that here)."""
    out = sys.stdout
    return isinstance(exc, BrokenPipeError) or (isinstance(out, _Stdout) and out.error is exc)


def _drop_output(stream) -> None:
    """Point stdout's fd at /dev/null: what is still buffered, and Python's own flush at exit,
    then go nowhere instead of failing again ("Exception ignored ... BrokenPipeError")."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def _say(line: str) -> None:
    with suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    """Run one command. Every way its output can fail is handled here, once, as git and
    coreutils do: a reader that went away (`| head`) ends it quietly, a write error (`>
    /dev/full`) is one line on stderr and exit 1, Ctrl-C is a quiet 130 (SIGTERM a quiet 0
    for `watch`). Never a traceback for those."""
    real = sys.stdout
    guard = sys.stdout = _Stdout(real)
    leave: SystemExit | None = None
    failure: OSError | None = None
    try:
        try:
            code = _dispatch(argv)
        except SystemExit as exc:  # `--help`, a usage error: what it printed is flushed first
            leave, code = exc, 0
        guard.flush()
    except KeyboardInterrupt as exc:
        return EXIT_TERMINATED if isinstance(exc, _Terminated) else EXIT_INTERRUPTED
    except OSError as exc:
        if not _is_output_error(exc):
            raise
        failure = exc
    finally:
        if sys.stdout is guard:
            sys.stdout = real
    if failure is None:
        failure = guard.error  # also one the writer swallowed (argparse's help does)
    if failure is not None:
        _drop_output(real)
        if isinstance(failure, BrokenPipeError):
            return EXIT_READER_GONE
        _say(f"ocr-tui: write error: {failure.strerror or failure}")
        return EXIT_WRITE_ERROR
    if leave is not None:
        raise leave
    return code


def _dispatch(argv: list[str] | None) -> int:
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
