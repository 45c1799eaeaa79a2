"""`ocr-tui triage` and `ocr-tui note`: the user's marks and notes, written into `ocr.db`'s user
tables without a screen (for scripts and CI), through the same write path as the dashboard's
keys (`formats/ocr/api.py` → `triage_write`).

    ocr-tui triage [PATH] --session ID [--round N] FINDING STATE   (STATE: a finding state|clear)
    ocr-tui triage [PATH] --session ID --round N --round-state STATE
    ocr-tui note [PATH] --session ID [--round N] [--finding FINDING] TEXT

FINDING is the `id` `ocr-tui findings --json` prints; without `--round`, the latest round that
raised it. Exit 0 once the mark is in `ocr.db` and read back; 2 for a usage error or an unknown
session, round or finding; 1 when it cannot be written (no `ocr.db`, no row for it there,
`--read-only`, a write error), with one line saying why. Each run first writes again any
earlier mark a concurrent OCR write dropped (the journal).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ocr_tui.core.textsafe import safe_line

EXIT_UNKNOWN = 2
EXIT_NOT_WRITTEN = 1


def add_parsers(sub, common, triage_help: str, note_help: str) -> None:
    t = sub.add_parser(
        "triage",
        help=triage_help,
        usage="ocr-tui triage [PATH] --session ID [--round N] FINDING STATE\n"
        "       ocr-tui triage [PATH] --session ID --round N --round-state STATE",
        description="Set a finding's triage (FINDING: the id `ocr-tui findings --json` prints;"
        " STATE: unread, read, acknowledged, fixed, wont_fix, as ocr.db allows, or clear), or"
        " a round's (--round-state: needs_review, in_progress, changes_made, acknowledged,"
        " dismissed, or clear). Written into ocr.db's user tables only.",
    )
    t.add_argument("words", nargs="*", metavar="[PATH] FINDING STATE")
    _target(t, common)
    t.add_argument("--round-state", metavar="STATE", help="set the round's triage instead")
    n = sub.add_parser(
        "note",
        help=note_help,
        usage="ocr-tui note [PATH] --session ID [--round N] [--finding FINDING] TEXT",
        description="Add a note (OCR's user_notes) on the session, on --round N, or on"
        " --finding FINDING (of --round N, else of the latest round that raised it).",
    )
    n.add_argument("words", nargs="*", metavar="[PATH] TEXT")
    _target(n, common)
    n.add_argument("--finding", metavar="FINDING", help="the finding (its id, as findings --json)")


def _target(p: argparse.ArgumentParser, common) -> None:
    common(p, path=False)
    p.add_argument("--session", required=True, metavar="ID", help="the session")
    p.add_argument("--round", type=int, metavar="N", help="the round")
    p.add_argument("--read-only", action="store_true", help="write nothing (exit 1)")


def split_words(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    """`args.path` and the command's own words from `[PATH] ...` (a usage error otherwise)."""
    words = list(args.words)
    if args.command == "triage":
        wanted = 0 if args.round_state is not None else 2
        what = "no FINDING STATE with --round-state" if not wanted else "FINDING STATE"
    else:
        wanted, what = 1, "TEXT (quote it)"
    if len(words) not in (wanted, wanted + 1) or (
        len(words) == wanted == 2 and os.path.isdir(words[0])  # PATH FINDING, no STATE
    ):
        parser.error(f"expected [PATH] {what}")
    args.path = words[0] if len(words) > wanted else None
    args.words = words[len(words) - wanted :]
    if args.command == "triage" and args.round_state is not None and args.round is None:
        parser.error("--round-state needs --round N")


def _say(code: int, text: str) -> int:
    print(f"ocr-tui: {safe_line(text)}", file=sys.stderr)
    return code


def run(args: argparse.Namespace, project) -> int:
    from ocr_tui.core.engine import Engine
    from ocr_tui.formats.ocr import api

    db = project.db_path
    read_only = args.read_only or bool(getattr(args.settings, "read_only", False))
    if db is not None and not read_only:
        api.settle_marks(db)  # an earlier mark a concurrent write dropped: written again
    view = next((v for v in Engine(project, stall_after=args.stall_after).scan()
                 if v.id == args.session), None)  # fmt: skip
    if view is None:
        return _say(EXIT_UNKNOWN, f"no session {args.session!r} in {project.root}")
    if view.framework != "ocr":
        return _say(EXIT_UNKNOWN, f"{view.id} is a {view.framework} session: no triage")
    target = _resolve(args, view, project)
    if isinstance(target, int):
        return target
    if read_only:
        return _say(EXIT_NOT_WRITTEN, "writing is off (--read-only or read_only in the config)")
    if db is None:
        db = Path(project.root) / ".ocr" / "data" / "ocr.db"
    mark = target
    try:
        api.write_mark(db, mark)
    except (api.Refused, api.Pending) as exc:
        return _say(EXIT_NOT_WRITTEN, str(exc))
    print(safe_line(api.describe(mark)))
    return 0


def _resolve(args: argparse.Namespace, view, project):
    """The mark the words ask for, or an exit code (after its line)."""
    from ocr_tui.formats.ocr import api

    rounds = api.read_rounds(view.path, project.db_path, view.id)
    numbers = [r.number for r in rounds]
    if args.round is not None and args.round not in numbers:
        have = ", ".join(map(str, numbers)) or "none yet"
        return _say(EXIT_UNKNOWN, f"session {view.id} has no round {args.round} (rounds: {have})")
    finding = (
        args.words[0] if args.command == "triage" and args.words else getattr(args, "finding", None)
    )
    number = args.round
    if finding is not None:
        own = [r.number for r in rounds if any(f.id == finding for f in r.current)]
        if number is None and own:
            number = own[-1]
        if number is None or number not in own:
            where = f"round {number}" if number is not None else "any round"
            return _say(EXIT_UNKNOWN, f"no finding {finding!r} in {where} of {view.id}"
                        " (`ocr-tui findings --json` prints the ids)")  # fmt: skip
    at = api.now_sql()
    if args.command == "note":
        text = args.words[0]
        if not text.strip():
            return _say(EXIT_UNKNOWN, "an empty note")
        kind = "finding" if finding else "round" if number is not None else "session"
        return api.NoteAdd(session=view.id, target=kind, text=text, at=at, round=number,
                           finding=finding)  # fmt: skip
    if args.round_state is not None:
        state = None if args.round_state == "clear" else args.round_state
        allowed = api.allowed_states(project.db_path, "round")
        if state is not None and state not in allowed:
            return _say(EXIT_UNKNOWN, f"not a round state: {state!r} "
                        f"({', '.join(allowed)}, clear)")  # fmt: skip
        return api.RoundMark(session=view.id, round=number, status=state, at=at)
    word = args.words[1]
    state = None if word == "clear" else word
    allowed = api.allowed_states(project.db_path, "finding")
    if state is not None and state not in allowed:
        return _say(EXIT_UNKNOWN, f"not a finding state: {word!r} "
                    f"({', '.join(allowed)}, clear)")  # fmt: skip
    return api.FindingMark(session=view.id, round=number, finding=finding, status=state, at=at)
