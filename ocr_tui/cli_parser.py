"""The command line's grammar: every command's parser and options (`build_parser`), the
duration and depth values they take, and `--version`. `ocr_tui.cli` runs what they parse.

Start-up: the parser holds the options of the command given only (argparse reads no other's);
`--help` without a command builds them all; `status`' and `findings`' options are read only
when those run."""

from __future__ import annotations

import argparse
import sys

from ocr_tui.core.discover import DEFAULT_DEPTH
from ocr_tui.core.timeutil import parse_duration as parse_seconds

COMMANDS = (
    "status", "findings", "watch", "triage", "note", "simulate", "demo", "dashboard", "serve",
    "agent", "completion",
)  # fmt: skip
TOP_LEVEL = ("-h", "--help", "--version")  # the options of `ocr-tui` itself, not the dashboard's


def version() -> str:
    """The installed distribution's version, else (run from a source tree) the package's."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as dist_version

    try:
        return dist_version("ocr-tui")
    except PackageNotFoundError:
        from ocr_tui import __version__

        return __version__


class _Version(argparse.Action):
    """`--version`: looked up only when asked for (the metadata costs tens of milliseconds,
    too much for every `status --oneline` of a tmux status bar)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kw) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kw)

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        sys.stdout.write(f"ocr-tui {version()}\n")  # as argparse's own: stdout, exit 0
        parser.exit()


def parse_duration(text: str) -> float:
    """`30m`, `90s`, `2h`, or a number of minutes."""
    seconds = parse_seconds(text, "m")
    if seconds is None:
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (try 30m, 90s, 2h)")
    return seconds


def _common(p: argparse.ArgumentParser, *, path: bool = True) -> None:
    if path:
        p.add_argument(
            "path",
            nargs="?",
            default=None,
            help="a project, its .ocr, or .ocr/sessions (default: here, walking up as git does)",
        )
    p.add_argument(
        "--stall-after",
        type=parse_duration,
        default=None,  # the config file's, else DEFAULT_STALL_AFTER (`_configure`)
        metavar="DURATION",
        help="a running session with no activity for this long is stalled (default 30m)",
    )


def _several(p: argparse.ArgumentParser) -> None:
    """`_common`, with any number of PATHs (several projects at once) and `--scan DIR`."""
    p.add_argument(
        "paths",
        nargs="*",
        metavar="PATH",
        help="a project, its .ocr, or .ocr/sessions (default: here, walking up as git does);"
        " several: the sessions of every one, with a project column",
    )
    _common(p, path=False)
    p.add_argument(
        "--scan",
        metavar="DIR",
        help="also every project under DIR (--depth levels down; node_modules, virtualenvs"
        " and hidden directories skipped), and those that appear later",
    )
    p.add_argument(
        "--depth",
        type=_depth,
        default=None,  # DEFAULT_DEPTH; given without --scan: a usage error
        metavar="N",
        help=f"how many levels under --scan DIR to look for projects (default {DEFAULT_DEPTH})",
    )


def _depth(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = -1
    if not 0 <= n <= 12:
        raise argparse.ArgumentTypeError(f"not a depth from 0 to 12: {text!r}")
    return n


def _only(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--session",
        action="append",
        default=None,
        metavar="ID",
        help="only this session (its id as `status` prints it; may be given more than once)",
    )


class Parser(argparse.ArgumentParser):
    """`ocr-tui`'s parser: what a command's parser leaves unread (`status --bogus`,
    `findings A B`) is that command's usage error, with its usage line, not `ocr-tui`'s
    (argparse hands a subparser's leftovers up to the top, which printed its own usage)."""

    def parse_args(self, args=None, namespace=None):  # type: ignore[override]
        known, extras = self.parse_known_args(args, namespace)
        if getattr(known, "command", None) in ("triage", "note"):
            # `triage PATH --session ID FINDING STATE`: words after the options are its too
            # (argparse stops a `*` positional at the first option).
            words = [w for w in extras if not w.startswith("-") or w == "-"]
            extras = [w for w in extras if w not in words]
            known.words = [*known.words, *words]
        if extras:
            self.command_parser(getattr(known, "command", None)).error(
                f"unrecognized arguments: {' '.join(extras)}"
            )
        if getattr(known, "command", None) in ("triage", "note"):  # [PATH] then its words
            from ocr_tui.triage_cli import split_words

            split_words(known, self.command_parser(known.command))
        return known

    def command_parser(self, command: str | None) -> argparse.ArgumentParser:
        """The parser of `command` (its usage, its errors), else this one."""
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction) and command in action.choices:
                return action.choices[command]
        return self


def build_parser(command: str | None = None) -> Parser:
    """Every command's parser; given `command`, the others are listed (for `--help` and the
    choice of command) without their options, which only their own modules know: `status`'s
    and `findings`' are read only when those run."""
    parser = Parser(
        prog="ocr-tui",
        description="A live terminal dashboard for Open Code Review sessions (and the code"
        " workflow, scientific analysis and iDumb formats).",
        epilog="With no command, opens the dashboard on PATH (an existing directory; a"
        " directory named like a command: ./NAME).",
    )
    parser.add_argument("--version", action=_Version, help="print the version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    d = sub.add_parser("dashboard", help="open the live dashboard (the default)")
    _several(d)
    d.add_argument("--poll", action="store_true", help="watch by polling (network file systems)")
    _notify_options(d)
    d.add_argument(
        "--sort",
        choices=("activity", "start", "name", "project"),
        help="the list's order (project: with several projects)",
    )
    d.add_argument("--filter", choices=("all", "active", "closed"), help="the sessions shown")
    d.add_argument("--theme", metavar="NAME", help="a Textual theme (ctrl+p: Change theme)")
    d.add_argument("--read-only", action="store_true", help=READ_ONLY_HELP)
    _via(d)

    s = sub.add_parser("status", help=STATUS_HELP)
    if command in (None, "status"):
        _status_options(s)

    if command in (None, "findings"):
        from ocr_tui import findings_cli

        findings_cli.add_parser(sub, _common, FINDINGS_HELP)
    else:
        sub.add_parser("findings", help=FINDINGS_HELP)

    if command in (None, "triage", "note"):
        from ocr_tui import triage_cli

        triage_cli.add_parsers(sub, _common, TRIAGE_HELP, NOTE_HELP)
    else:
        sub.add_parser("triage", help=TRIAGE_HELP)
        sub.add_parser("note", help=NOTE_HELP)

    w = sub.add_parser("watch", help="stream session changes as JSON lines")
    _several(w)
    _only(w)
    w.add_argument("--jsonl", action="store_true", help="JSON lines (the only format; default)")
    w.add_argument("--poll", action="store_true", help="watch by polling")
    _via(w)

    sim = sub.add_parser("simulate", help="play a simulated OCR run into DIR")
    sim.add_argument("dir", help="the directory to make an OCR project of")
    sim.add_argument("--speed", type=float, default=1.0, help="time multiplier (default 1)")
    sim.add_argument("--store", choices=("state.json", "ocr.db"), default="state.json")
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--loop", action="store_true", help="start a new live session after each")

    demo = sub.add_parser("demo", help="open the dashboard on a live simulated review")
    demo.add_argument("--speed", type=float, default=1.0, help="simulation speed (default 1)")
    _notify_options(demo)

    sv = sub.add_parser("serve", help="serve the dashboard to a browser (textual-serve)")
    _several(sv)
    _via(sv)
    sv.add_argument("--poll", action="store_true", help="watch by polling (network file systems)")
    sv.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1; any other: whoever reaches it sees"
        " the project)",
    )
    sv.add_argument(
        "--port", type=int, default=8000, help="the port (default 8000; 0: any free one)"
    )
    sv.add_argument(
        "--allow-writes",
        action="store_true",
        help="let the page write marks and notes into ocr.db (read-only without it)",
    )

    ag = sub.add_parser(
        "agent",
        help="the far side of a remote project: its sessions on stdout, requests on stdin"
        " (ssh HOST ocr-tui agent --stdio PATH; docs/remote.md)",
    )
    _common(ag)
    ag.add_argument("--stdio", action="store_true", required=True,
                    help="speak the protocol on stdin/stdout (the only transport)")  # fmt: skip
    ag.add_argument("--poll", action="store_true", help="watch by polling")

    comp = sub.add_parser("completion", help="print a shell completion script (docs/install.md)")
    comp.add_argument("shell", choices=("bash", "zsh", "fish"))
    return parser


READ_ONLY_HELP = (
    "write nothing: no triage marks or notes into ocr.db (the only file ocr-tui ever writes,"
    " and only its user tables)"
)
TRIAGE_HELP = "mark a finding (or a round) in ocr.db, as OCR's dashboard does"
NOTE_HELP = "write a note on a session, round or finding into ocr.db"

NOTIFY_HELP = (
    "on a phase change, a round completing, a session starting, stalling or finishing: ring"
    " the terminal's bell, or raise a desktop notification through the terminal (OSC 777, 9"
    " or 99 as it understands; the bell when it is not known). Never for the session on"
    " screen. Default off"
)


def _notify_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--notify", choices=("off", "bell", "desktop"), help=NOTIFY_HELP)
    p.add_argument(
        "--bell", dest="notify", action="store_const", const="bell", help="--notify bell"
    )


STATUS_HELP = "print the sessions once and exit"
FINDINGS_HELP = "one round's findings (table or JSON; a CI gate)"


def _via(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--via",
        metavar="CMD",
        help="with HOST:PATH: reach the far side with CMD instead of ssh (e.g. 'docker exec -i"
        " ctr'); ocr-tui's agent is run after it ($OCR_TUI_AGENT: its command, default ocr-tui)",
    )


def _status_options(s: argparse.ArgumentParser) -> None:
    from ocr_tui.status_text import ONELINE_WIDTH, columns_arg

    _several(s)
    _only(s)
    fmt = s.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="one JSON object (schema in docs/json.md)")
    fmt.add_argument("--oneline", action="store_true", help="one short line for a tmux status bar")
    _via(s)
    s.add_argument(
        "--max-width",
        type=columns_arg,
        default=None,
        metavar="N",
        help=f"fit the table or the line in N columns (0: no limit; default: --oneline"
        f" {ONELINE_WIDTH}, the table the terminal's width, or $COLUMNS, else no limit)",
    )
