"""`ocr-tui findings`: one round's findings as a table or JSON, and a CI gate (issue 12).

    ocr-tui findings [PATH] [--session ID] [--round N] [--min-severity S] [--blockers]
                     [--json] [--fail-on S|blocker] [--max-width N]

The session is the given one, else the newest running session, else the newest; the round is
the given one, else the session's latest. Exit 2 (one plain line) when the project, session or
round is not found; with `--fail-on`, 1 when a finding that is not resolved is at least that
severe (or, `blocker`, is a blocker), else 0.

The table is led by one line naming the session and round it lists, and fits the width as
`status`' table does (`status_text.output_width`: the terminal's, else $COLUMNS, else nothing
is cut; `--max-width N`, 0 no limit): the least telling columns go first, then the title and
location are cut (the title at its end, a path in its middle, its file name and line kept).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rich.cells import cell_len

from ocr_tui.core.cells import clip_end, elide_middle
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import SessionView
from ocr_tui.formats.ocr.finding import SEVERITIES, Finding
from ocr_tui.formats.ocr.findings import severity_rank, shown
from ocr_tui.status_text import GAP, align, columns_arg, output_width

EXIT_NOT_FOUND = 2
EXIT_GATE = 1
FAIL_ON = (*SEVERITIES, "blocker")


def add_parser(sub, common, help_text: str) -> None:
    p = sub.add_parser("findings", help=help_text)
    common(p)
    p.add_argument("--session", metavar="ID", help="the session (default: the newest running)")
    p.add_argument("--round", type=int, metavar="N", help="the round (default: the latest)")
    p.add_argument(
        "--min-severity", choices=SEVERITIES, metavar="S",
        help="only findings this severe or worse (" + "|".join(SEVERITIES) + ")",
    )  # fmt: skip
    p.add_argument("--blockers", action="store_true", help="only blockers")
    p.add_argument("--json", action="store_true", help="one JSON object (schema in README)")
    p.add_argument(
        "--fail-on", choices=FAIL_ON, metavar="S|blocker",
        help="exit 1 when a finding not resolved is this severe (or a blocker)",
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


def counts(findings: list[Finding]) -> dict[str, int]:
    """The whole round's counts: per severity and blockers over its own findings (resolved
    ones of the round before are counted only as `resolved`)."""
    own = [f for f in findings if f.evolution != "resolved"]
    out = {s: sum(1 for f in own if f.severity == s) for s in SEVERITIES}
    out["blockers"] = sum(1 for f in own if f.blocker)
    out["resolved"] = len(findings) - len(own)
    return out


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
    """The findings `--fail-on` fails on (resolved ones never count)."""
    if not fail_on:
        return []
    live = [f for f in findings if f.evolution != "resolved"]
    if fail_on == "blocker":
        return [f for f in live if f.blocker]
    rank = severity_rank(fail_on)
    return [f for f in live if f.severity is not None and severity_rank(f.severity) <= rank]


def gate(findings: list[Finding], fail_on: str | None) -> bool:
    """Does `--fail-on` fail on these findings?"""
    return bool(failing(findings, fail_on))


def gate_reason(findings: list[Finding], fail_on: str) -> str:
    """Why the gate failed, in one line: `2 findings at high or worse are not resolved`."""
    bad = failing(findings, fail_on)
    n = len(bad)
    what = (
        f"{n} blocker{'s' if n != 1 else ''}"
        if fail_on == "blocker"
        else f"{n} finding{'s' if n != 1 else ''} at {fail_on}"
        + (" or worse" if fail_on != "critical" else "")
    )
    return f"--fail-on {fail_on}: {what} {'is' if n == 1 else 'are'} not resolved"


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


def elide_path(text: str, width: int) -> str:
    """`text` (a location: `src/api/routes/users.py:195-213`) in `width` cells by dropping
    whole directories from its middle: the file name and line stay whole, then the directories
    nearest it, then those at its start (`…/api/routes/users.py:195-213`,
    `src/…/notifications.py:265-270`). When even `…/` and the file name do not fit, its end is
    kept (`…ers.py:195-213`)."""
    if cell_len(text) <= width:
        return text
    dirs, sep, name = text.rpartition("/")
    if not sep or cell_len(name) + 2 > width:
        return elide_middle(text, width, head_max=0)
    parts = dirs.split("/")
    head, tail = "", "/" + name
    lo, hi = 0, len(parts)
    while lo < hi and cell_len(head + "…/" + parts[hi - 1] + tail) <= width:
        hi -= 1
        tail = "/" + parts[hi] + tail
    while lo < hi and cell_len(head + parts[lo] + "/…" + tail) <= width:
        head += parts[lo] + "/"
        lo += 1
    return head + "…" + tail


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


def heading(sid: str, number: int, findings: list[Finding], listed: int) -> str:
    """The line above the table: which session and round it lists, and how many findings the
    round has (as `status` counts them: its own, the resolved ones of the round before apart),
    its blockers (said here too: a narrow table gives up its BLOCKER column);
    `N shown` when the filters keep fewer rows than the round has."""
    mine = [f for f in findings if f.evolution != "resolved"]
    own, blockers = len(mine), sum(1 for f in mine if f.blocker)
    parts = [safe_line(sid), f"round {number}", f"{own} finding{'s' if own != 1 else ''}"]
    parts += [f"{blockers} blocker{'s' if blockers != 1 else ''}"] if blockers else []
    resolved = len(findings) - own
    parts += [f"{resolved} resolved"] if resolved else []
    parts += [f"{listed} shown"] if listed != len(findings) else []
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
    if args.json:
        print(encode_json({
            "version": 1, "session": view.id, "round": rnd.number,
            "counts": counts(rnd.findings), "findings": [to_json(f) for f in kept],
        }))  # fmt: skip
    elif kept:
        width = output_width(sys.stdout) if args.max_width is None else (args.max_width or None)
        head = heading(view.id, rnd.number, rnd.findings, len(kept))
        print(head if width is None else clip_end(head, width))
        print(table(kept, width))
    else:
        filtered = " (with these filters)" if args.min_severity or args.blockers else ""
        print(f"No findings in round {rnd.number} of {safe_line(view.id)}{filtered}")
    if gate(rnd.findings, args.fail_on):
        print(f"ocr-tui: {gate_reason(rnd.findings, args.fail_on)}", file=sys.stderr)
        return EXIT_GATE
    return 0
