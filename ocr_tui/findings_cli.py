"""`ocr-tui findings`: one round's findings as a table or JSON, and a CI gate.

    ocr-tui findings [PATH] [--session ID] [--round N] [--min-severity S] [--blockers]
                     [--json] [--fail-on S|blocker] [--max-width N]

The session is the given one, else the newest running session, else the newest; the round is
the given one, else the session's latest. Exit 2 (one plain line) when the project, session or
round is not found. With `--fail-on`: 1 when a finding of the round (not the round before's
resolved or pending ones) is at least that severe (or, `blocker`, a blocker, or the synthesis
counts one); else 3 when the round is not complete (its findings are not all in: no synthesis
yet, and OCR has not recorded it as done), so the gate cannot pass yet; else 0. A round is never
passed before its findings are all in.

The table is led by one line naming the session and round it lists, and fits the width as
`status`' table does (`status_text.output_width`: the terminal's, else $COLUMNS, else nothing
is cut; `--max-width N`, 0 no limit): the least telling columns go first, then the title and
location are cut (the title at its end, a path in its middle, its file name and line kept).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from rich.cells import cell_len

from ocr_tui.core.cells import clip_end, elide_path
from ocr_tui.core.rounds import still_coming
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import SessionView
from ocr_tui.formats.ocr.finding import SEVERITIES, Finding, is_own
from ocr_tui.formats.ocr.findings import severity_rank, shown
from ocr_tui.status_text import GAP, align, columns_arg, output_width

if TYPE_CHECKING:
    from ocr_tui.formats.ocr.files import Tally
    from ocr_tui.formats.ocr.round_findings import RoundFindings

EXIT_NOT_FOUND = 2
EXIT_GATE = 1
EXIT_NOT_KNOWN = 3  # `--fail-on` on a round whose findings are not all in (and none fails yet)
JSON_VERSION = 2  # 2: `complete`, `gate`, counts' `pending`; `blockers`, `resolved` may be null
FAIL_ON = (*SEVERITIES, "blocker")


GATE_EPILOG = """\
--fail-on exit statuses (the round: the latest, or --round N):
  1  a finding of the round is at least S (blocker: a blocker, or its synthesis
     counts one); certain before the synthesis too, since findings only come in
  3  none is, but the round is not complete (no synthesis yet: final.md or
     round-meta.json, nor a round_completed event in ocr.db): not known yet
  0  the round is complete and none is
  2  the project, session or round is not found
A blocker is a critical finding, as OCR's web dashboard counts them (its reviewer
parser: isBlocker = severity === 'critical'), or one the synthesis names (final.md's
Blockers, round-meta.json's category blocker, ocr.db's is_blocker); never fewer than
the synthesis counts. A finding several reviewers raised counts once (OCR's dashboard
keeps a row per reviewer). The round before's resolved or pending findings never count.
"""


def add_parser(sub, common, help_text: str) -> None:
    p = sub.add_parser(
        "findings", help=help_text, epilog=GATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )  # fmt: skip
    common(p)
    p.add_argument("--session", metavar="ID", help="the session (default: the newest running)")
    p.add_argument("--round", type=int, metavar="N", help="the round (default: the latest)")
    p.add_argument(
        "--min-severity", choices=SEVERITIES, metavar="S",
        help="only findings this severe or worse (" + "|".join(SEVERITIES) + ")",
    )  # fmt: skip
    p.add_argument("--blockers", action="store_true", help="only blockers")
    p.add_argument("--json", action="store_true", help="one JSON object (schema in docs/json.md)")
    p.add_argument(
        "--fail-on", choices=FAIL_ON, metavar="S|blocker",
        help="exit 1 when a finding of the round is this severe (or a blocker); 3 when the"
        " round is not complete yet and none is; else 0",
    )  # fmt: skip

    p.add_argument(
        "--max-width", type=columns_arg, default=None, metavar="N",
        help="fit the table in N columns (0: no limit; default: the terminal's width,"
        " or $COLUMNS, else no limit)",
    )  # fmt: skip


def _say(text: str) -> int:
    print(f"ocr-tui: {text}", file=sys.stderr)
    return EXIT_NOT_FOUND


def pick_session(sessions: list[SessionView], wanted: str | None) -> SessionView | None:
    """The given session, else the newest running OCR session, else the newest OCR one."""
    ocr = [v for v in sessions if v.framework == "ocr"]
    if wanted is not None:
        return next((v for v in sessions if v.id == wanted), None)
    running = [v for v in ocr if v.running]
    pool = running or ocr
    return max(pool, key=lambda v: v.last_activity or "") if pool else None


def counts(rnd: RoundFindings) -> dict[str, int | None]:
    """The whole round's counts: per severity over its own findings, and its blockers,
    resolved and pending as the session view counts them (`tally.count`: one derivation;
    null when not known yet)."""
    own = rnd.current
    t = tally_of(rnd)
    known = t.findings is not None  # nothing in yet: not known, not 0 (status says null)
    out: dict[str, int | None] = {
        s: sum(1 for f in own if f.severity == s) if known else None for s in SEVERITIES
    }
    e = t.evolution
    out["blockers"] = t.blockers
    out["resolved"] = (e.resolved if e is not None else 0) if rnd.complete else None
    out["pending"] = e.pending if e is not None else 0
    return out


def tally_of(rnd: RoundFindings) -> Tally:
    """The round counted as `status --json` counts it (`tally.count`)."""
    from ocr_tui.formats.ocr.tally import count

    return count(
        rnd.findings,
        evolved_against_previous=any(f.evolution for f in rnd.findings),
        complete=rnd.complete,
        started=rnd.started,
        counts=rnd.counts,
    )


def to_json(f: Finding) -> dict:
    return {
        "id": f.id,
        "title": f.title,
        "severity": f.severity,
        "file": f.location.file,
        "line_start": f.location.line_start,
        "line_end": f.location.line_end,
        "category": f.category,
        "blocker": f.blocker,
        "reviewers": f.reviewers,
        "evolution": f.evolution,
        "triage": f.triage,
        "source": f.source,
        "path": f.path,
        "line": f.line,
    }


def failing(findings: list[Finding], fail_on: str | None) -> list[Finding]:
    """The findings `--fail-on` fails on: the round's own (the round before's resolved or
    pending ones never count)."""
    if not fail_on:
        return []
    live = [f for f in findings if is_own(f)]
    if fail_on == "blocker":
        return [f for f in live if f.blocker]
    rank = severity_rank(fail_on)
    return [f for f in live if f.severity is not None and severity_rank(f.severity) <= rank]


def gate(rnd: RoundFindings, fail_on: str | None) -> str | None:
    """`--fail-on`'s verdict on a round: "fail" (a finding of the round fails it: certain,
    whatever comes in later), "unknown" (none does yet, but the round's findings are not all
    in), "pass"; None without `--fail-on`."""
    if not fail_on:
        return None
    if failing(rnd.findings, fail_on) or (fail_on == "blocker" and (tally_of(rnd).blockers or 0)):
        return "fail"
    return "pass" if rnd.complete else "unknown"


def gate_reason(rnd: RoundFindings, fail_on: str, running: bool = True) -> str:
    """Why the gate did not pass, in one line: `2 findings at high or worse are not
    resolved`, or that the round's findings are not all in yet."""
    bad = failing(rnd.findings, fail_on)
    n = len(bad)
    if fail_on == "blocker":
        n = max(n, tally_of(rnd).blockers or 0)  # the synthesis may count unnamed ones
    if n:
        what = (
            f"{n} blocker{'s' if n != 1 else ''}"
            if fail_on == "blocker"
            else f"{n} finding{'s' if n != 1 else ''} at {fail_on}"
            + (" or worse" if fail_on != "critical" else "")
        )
        return f"--fail-on {fail_on}: {what} {'is' if n == 1 else 'are'} not resolved"
    why = "has no synthesis yet" if running else "was stopped before its synthesis"
    return (
        f"--fail-on {fail_on}: not known yet: round {rnd.number} {why}"
        " (its findings are not all in)"
    )


# --- the table -----------------------------------------------------------------------------------

HEADERS = {
    "severity": "SEVERITY", "blocker": "BLOCKER", "title": "TITLE", "location": "LOCATION",
    "reviewers": "REVIEWERS", "evolution": "EVOLUTION", "triage": "TRIAGE",
}  # fmt: skip
TITLE_CAP = 60  # a title is never longer, whatever the room
# When the width is short, the table gives way in this order: first a column that says
# nothing (`silent`: BLOCKER when no row is one, EVOLUTION in round 1, all `—`), then
# REVIEWERS, then TRIAGE go before any cell is cut; then TITLE and LOCATION are cut (the wider
# first) down to a readable width (TITLE_READABLE cells of a title; every file name and line
# whole, up to LOCATION_READABLE cells); then BLOCKER goes; then TITLE and LOCATION are cut
# down to CUT_FLOOR cells; EVOLUTION goes last (without it a resolved finding reads as open);
# then the lines' ends. SEVERITY, TITLE and LOCATION never go. A row is never wrapped.
CUT = ("title", "location")
TITLE_READABLE = 24
LOCATION_READABLE = 28
CUT_FLOOR = 10
# (the column that goes, then how far TITLE and LOCATION may be cut), tried in turn
STEPS: tuple[tuple[str | None, str], ...] = (
    (None, "whole"),
    ("reviewers", "whole"),
    ("triage", "whole"),
    (None, "readable"),
    ("blocker", "readable"),
    (None, "floor"),
    ("evolution", "floor"),
)
# A column whose every cell is this says nothing: it goes first.
SILENT = {"blocker": "no", "evolution": "—", "triage": "—"}


# How a cell is cut to its column (the others: at their end).
CUTS = {"location": elide_path}


def _readable(key: str, texts: list[str], natural: int) -> int:
    """The width TITLE or LOCATION is cut to before EVOLUTION and BLOCKER go (never more than
    its widest cell, never less than CUT_FLOOR)."""
    if key == "title":
        want = TITLE_READABLE
    else:  # every file name and line whole, behind `…/` (a very long one: its end)
        want = max((cell_len(t.rpartition("/")[2]) + 2 * ("/" in t) for t in texts), default=0)
        want = min(want, LOCATION_READABLE)
    return min(natural, max(want, CUT_FLOOR, len(HEADERS[key])))


def fit(
    natural: dict[str, int],
    width: int | None,
    readable: dict[str, int],
    silent: tuple[str, ...] = (),
) -> dict[str, int]:
    """The columns shown, in order, with their widths: every column as wide as its widest cell
    (`natural`) when `width` is None or they fit, else as the table gives way (`silent` ones
    first, then `STEPS`)."""
    if width is None:
        return dict(natural)
    steps = tuple((k, "whole") for k in silent) + STEPS
    floor = {k: min(natural[k], max(CUT_FLOOR, len(HEADERS[k]))) for k in CUT}
    least = {"whole": natural, "readable": readable, "floor": floor}
    keys = list(natural)
    widths = dict(natural)
    for gone, how in steps:
        if gone in keys:
            keys.remove(gone)
        widths = {k: natural[k] for k in keys}
        over = sum(widths.values()) + GAP * (len(widths) - 1) - width
        while over > 0:  # the wider of TITLE and LOCATION gives a cell, down to its least
            cut = [k for k in CUT if widths[k] > least[how][k]]
            if not cut:
                break
            widths[max(cut, key=widths.__getitem__)] -= 1
            over -= 1
        if over <= 0:
            break
    return widths


def cells(f: Finding, triage: bool) -> dict[str, str]:
    """A finding's cells, by column, escape-safe (the title at most TITLE_CAP cells)."""
    row = {
        "severity": f.severity or "—",
        "blocker": "blocker" if f.blocker else "no",
        "title": clip_end(safe_line(f.title), TITLE_CAP),
        "location": f.location.text() or "—",
        "reviewers": ", ".join(f.reviewers) or "—",
        "evolution": f.evolution or "—",
    }
    if triage:
        row["triage"] = f.triage or "none"
    return {k: safe_line(v) for k, v in row.items()}


def table(findings: list[Finding], width: int | None = None) -> str:
    """Severity, blocker, title, location, reviewers, evolution (and triage when ocr.db has
    it): one finding a row, escape-safe, every line at most `width` cells (None: nothing cut;
    see `STEPS` for what gives way)."""
    triage = any(f.triage for f in findings)
    rows = [cells(f, triage) for f in findings]
    keys = [k for k in HEADERS if k != "triage" or triage]
    natural = {k: max([cell_len(HEADERS[k])] + [cell_len(r[k]) for r in rows]) for k in keys}
    readable = {k: _readable(k, [r[k] for r in rows], natural[k]) for k in CUT}
    silent = tuple(
        k for k, quiet in SILENT.items() if k in keys and all(r[k] == quiet for r in rows)
    )
    widths = fit(natural, width, readable, silent)
    cut = [{k: CUTS.get(k, clip_end)(r[k], w) for k, w in widths.items()} for r in rows]
    # A path loses whole directories: the cells that leaves unused go to the title.
    used = max([cell_len(HEADERS["location"])] + [cell_len(c["location"]) for c in cut])
    spare = widths["location"] - used
    if spare > 0 and widths["title"] < natural["title"]:
        widths["title"] = min(natural["title"], widths["title"] + spare)
        for r, c in zip(rows, cut, strict=True):
            c["title"] = clip_end(r["title"], widths["title"])
    lines = [tuple(HEADERS[k] for k in widths)]
    lines += [tuple(c.values()) for c in cut]
    return "\n".join(align(lines, width))


def heading(sid: str, rnd: RoundFindings, listed: int, running: bool = True) -> str:
    """The line above the table: which session and round it lists, whether the round is
    complete, how many findings it has (as `status` counts them: its own; the round before's
    resolved or pending ones apart), its blockers (said here too: a narrow table gives up its
    BLOCKER column); `N shown` when the filters keep fewer rows than the round has."""
    t = tally_of(rnd)
    parts = [safe_line(sid), f"round {rnd.number}"]
    if not rnd.complete:
        parts.append("in progress" if running else "stopped before its synthesis")
    if t.findings is None:
        parts.append("no findings in yet" if running else "no findings")
    else:
        so_far = " so far" if running and not rnd.complete else ""
        parts.append(f"{t.findings} finding{'s' if t.findings != 1 else ''}{so_far}")
    if t.blockers:
        parts.append(f"{t.blockers} blocker{'s' if t.blockers != 1 else ''}")
    e = t.evolution
    if e is not None and e.resolved:
        parts.append(f"{e.resolved} resolved")
    if e is not None and e.pending:
        parts.append(f"{e.pending} of round {rnd.number - 1} not re-reviewed yet")
    parts += [f"{listed} shown"] if listed != len(rnd.findings) else []
    return " · ".join(parts)


def cmd_findings(args: argparse.Namespace, project) -> int:
    from ocr_tui.core.engine import Engine, encode_json
    from ocr_tui.formats.ocr.round_findings import read_with_store

    engine = Engine(project, stall_after=args.stall_after)
    view = pick_session(engine.scan(), args.session)
    if view is None:
        if args.session:
            return _say(f"no session {safe_line(args.session)!r} in {safe_line(project.root)}")
        return _say(f"no OCR session in {safe_line(project.root)}")
    if view.framework != "ocr":
        return _say(f"{safe_line(view.id)} is a {safe_line(view.framework)} session: no findings")
    rounds, store_problem = read_with_store(Path(view.path), project.db_path, view.id)
    if not rounds:
        return _say(f"session {safe_line(view.id)} has no rounds yet")
    number = args.round if args.round is not None else rounds[-1].number
    rnd = next((r for r in rounds if r.number == number), None)
    if rnd is None:
        have = ", ".join(str(r.number) for r in rounds)
        return _say(f"session {safe_line(view.id)} has no round {number} (rounds: {have})")
    for problem in ([store_problem] if store_problem else []) + rnd.problems:
        print(f"ocr-tui: note: {safe_line(problem)}", file=sys.stderr)  # read, with problems
    kept = [f for f in rnd.findings if shown(f, args.min_severity, args.blockers)]
    verdict = gate(rnd, args.fail_on)
    live = still_coming(view, rnd.number)  # its findings may still come in
    if args.json:
        out: dict = {
            "version": JSON_VERSION, "session": view.id, "round": rnd.number,
            "complete": rnd.complete, "counts": counts(rnd),
            "findings": [to_json(f) for f in kept],
        }  # fmt: skip
        if verdict is not None:
            out["gate"] = {"fail_on": args.fail_on, "result": verdict}
        print(encode_json(out))
    elif kept:
        width = output_width(sys.stdout) if args.max_width is None else (args.max_width or None)
        head = heading(view.id, rnd, len(kept), live)
        print(head if width is None else clip_end(head, width))
        print(table(kept, width))
    else:
        filtered = " (with these filters)" if args.min_severity or args.blockers else ""
        if tally_of(rnd).findings is None:
            state = "in progress" if live else "stopped before its synthesis"
            print(f"Round {rnd.number} of {safe_line(view.id)} has no findings in yet ({state})")
        else:
            print(f"No findings in round {rnd.number} of {safe_line(view.id)}{filtered}")
    if verdict in ("fail", "unknown"):
        print(f"ocr-tui: {gate_reason(rnd, args.fail_on, live)}", file=sys.stderr)
        return EXIT_GATE if verdict == "fail" else EXIT_NOT_KNOWN
    return 0
