"""`ocr-tui findings`: one round's findings as a table or JSON, and a CI gate (issue 12).

    ocr-tui findings [PATH] [--session ID] [--round N] [--min-severity S] [--blockers]
                     [--json] [--fail-on S|blocker]

The session is the given one, else the newest running session, else the newest; the round is
the given one, else the session's latest. Exit 2 (one plain line) when the project, session or
round is not found; with `--fail-on`, 1 when a finding that is not resolved is at least that
severe (or, `blocker`, is a blocker), else 0.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import SessionView
from ocr_tui.formats.ocr.finding import SEVERITIES, Finding
from ocr_tui.formats.ocr.findings import severity_rank, shown
from ocr_tui.status_text import align

EXIT_NOT_FOUND = 2
EXIT_GATE = 1
FAIL_ON = (*SEVERITIES, "blocker")


def add_parser(sub, common) -> None:
    p = sub.add_parser("findings", help="one round's findings (table or JSON; a CI gate)")
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


def table(findings: list[Finding]) -> str:
    """Severity, blocker, title, location, reviewers, evolution (and triage when ocr.db has
    it): one finding a row, escape-safe."""
    triage = any(f.triage for f in findings)
    head = ("SEVERITY", "BLOCKER", "TITLE", "LOCATION", "REVIEWERS", "EVOLUTION")
    head += ("TRIAGE",) if triage else ()
    rows = []
    for f in findings:
        title = safe_line(f.title)
        row = (
            f.severity or "—",
            "blocker" if f.blocker else "no",
            title if len(title) <= 60 else title[:59] + "…",
            f.location.text() or "—",
            ", ".join(f.reviewers) or "—",
            f.evolution or "—",
        )
        rows.append(row + ((f.triage or "none",) if triage else ()))
    return "\n".join(align([head, *(tuple(safe_line(c) for c in r) for r in rows)]))


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
        print(table(kept))
    else:
        filtered = " (with these filters)" if args.min_severity or args.blockers else ""
        print(f"No findings in round {rnd.number} of {safe_line(view.id)}{filtered}")
    if gate(rnd.findings, args.fail_on):
        print(f"ocr-tui: {gate_reason(rnd.findings, args.fail_on)}", file=sys.stderr)
        return EXIT_GATE
    return 0
