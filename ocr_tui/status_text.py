"""What `ocr-tui status` prints without `--json`: a plain table of the sessions, or (`--oneline`)
the most relevant one in one short line for a tmux status bar. Terminal-safe: every text that
comes from the sessions' files passes through `safe_line`."""

from __future__ import annotations

from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import human_duration
from ocr_tui.core.view import SessionView


def _round_bits(v: SessionView) -> tuple[str, int, int]:
    """(`R2`, reviewers, distinct findings) of the current round: the findings as `status
    --json` and `ocr-tui findings` count them (merged across reviewers)."""
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
    (reviewers), FIND (distinct findings) and VERDICT are the current round's (OCR); when the
    project holds other formats, FORMAT leads and AGENTS (a format's agents summary) and ALERT
    (its first alert) close, "—" for OCR sessions."""
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
    lines = align(rows)
    for v in sessions:
        for p in v.problems:
            lines.append(f"! {safe_line(v.id)}: {safe_line(p)}")
    return "\n".join(lines)


def align(rows: list[tuple[str, ...]]) -> list[str]:
    """Rows of cells (already safe to print) as lines of left-aligned columns, two spaces
    apart."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))] if rows else []
    return ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]
