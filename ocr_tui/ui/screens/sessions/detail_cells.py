"""The detail pane's text (`ocr_tui.ui.screens.sessions.detail_pane`): the highlighted session's
phase timeline, rounds, reviewers (with a severity breakdown), map runs, facts, clock and problems.
Pure: functions of a view, a time and a width, no widget.

Text is built as `Content` from plain strings (never markup), styled with theme variables, so
a `[bold]` in a file name stays text and themes apply. Times are `fmt.when`'s: the clock time
where the pane names the zone, `19:33 UTC` where it does not, the relative time in the clock;
a stalled session says for how long, against `--stall-after`.
"""

from __future__ import annotations

import itertools
from datetime import datetime

from rich.cells import cell_len
from textual.content import Content

from ocr_tui.core import registry, rounds
from ocr_tui.core.cells import elide_middle, pad
from ocr_tui.core.registry import is_host
from ocr_tui.core.states import CURRENT, TO_COME, agent_stale
from ocr_tui.core.view import MapRun, Round, SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.fmt.text import unsaid_badges
from ocr_tui.ui.screens.sessions.cells import coarse_duration, session_seconds
from ocr_tui.ui.style import MARK_STYLE, MUTED, STATE_STYLE

TITLE = "bold $text-accent"
TONE_STYLE = fmt.TONES
SEVERITY_STYLE = {
    "critical": "bold $text-error",
    "high": "$text-error",
    "medium": "$text-warning",
    "low": "$text-primary",
    "info": MUTED,
}
STATE_WORDS = {
    "input": "waiting on you: an approval is needed",
    "alert": "needs attention (see below)",
    "running": "running",
    "waiting": "finished, waiting to be closed",
    "stalled": "stalled",  # and for how long: `fmt.stall_text`
    "closed": "closed",
    "problem": "see problems below",
    "loading": "not read yet",
    "offline": "unknown now: its host's connection is lost (the last state known is shown)",
}


def tone_style(verdict: str | None) -> str:
    return {"good": "$text-success", "bad": "$text-error"}.get(fmt.verdict_tone(verdict), "")


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _lines(parts: list[Content]) -> Content:
    return Content("\n").join(parts)


def zone_title(title: str, now: datetime) -> str:
    """A pane's title naming the zone of the clock times in it: `Phases · times in UTC`."""
    return f"{title} · times in {fmt.zone_name(now)}"


PHASES_WIDTH = 30  # the phases pane's text: app.tcss's 34 cells, less border and padding


def label_room(view: SessionView) -> int:
    """The labels' column: the widest label shown, or the widest the format has."""
    known = registry.phase_labels(view.framework)
    shown = (cell_len(fmt.safe(s.label)) for s in view.timeline)
    return max([*shown, *(len(x) for x in known)], default=0) if view.timeline else 0


def phase_times(view: SessionView, now: datetime, width: int = PHASES_WIDTH) -> list[str]:
    """When each phase started (`fmt.when`'s clock time, the pane's title naming the zone),
    where every line has room for it beside the widest label the format has (the times do
    not come and go as the phases change); else none (the durations say how long each
    took)."""
    times = [fmt.when(s.at, now, "cell") for s in view.timeline]
    label = label_room(view)
    for step, at in zip(view.timeline, times, strict=True):
        took = len(fmt.duration(step.seconds)) + 1 if step.seconds is not None else 0
        if 2 + label + 2 + len(at) + took > width:
            return []
    return times if any(times) else []


def timeline_content(view: SessionView, now: datetime) -> Content:
    """Each phase: its mark, label, when it started (where there is room: `phase_times`)
    and how long it took."""
    labels = [fmt.safe(s.label) for s in view.timeline]
    width = label_room(view) + 2
    times = phase_times(view, now) or [""] * len(labels)
    rows = []
    for step, label, at in zip(view.timeline, labels, times, strict=True):
        took = fmt.duration(step.seconds) if step.seconds is not None else ""
        rows.append(
            Content.assemble(
                (fmt.PHASE_MARKS.get(step.state, "?"), MARK_STYLE.get(step.state, "")),
                " ",
                (pad(label, width), MUTED if step.state in ("pending", "skipped") else ""),
                (" ".join(x for x in (at, took) if x), MUTED),
            )
        )
    return _lines(rows) if rows else Content.styled("no phases known", MUTED)


def unit_state(complete: bool, current: bool, view: SessionView) -> tuple[str, str, str]:
    """A round's (or map run's) (mark, mark style, state words), in `fmt.ROUND_STATES`'
    words: done ✓, in progress (▶ the session's current one, else ·: to come), stopped ■:
    the marks of the phases (`core.states.PHASE_MARKS`), one glyph per meaning."""
    state = fmt.round_state(complete, view)
    if state == "done":
        key = "done"
    elif state == "stopped":
        key = "stopped"
    else:
        key = "current" if current else "pending"
    mark = {"pending": TO_COME, "current": CURRENT}.get(key) or fmt.PHASE_MARKS[key]
    return mark, MARK_STYLE[key], fmt.ROUND_STATES[state]


def _round_line(rnd: Round, view: SessionView) -> list[Content]:
    current = view.current is not None and rnd.path == view.current.path
    found = rounds.findings_words(rnd, live=rounds.still_coming(view, rnd.number, rnd.path))
    mark, mark_style, state = unit_state(rnd.complete, current, view)
    status = fmt.safe(rnd.verdict, 24) if rnd.verdict else state
    twin = fmt.twin_name(view.rounds, rnd)  # round-01 beside round-1: which one this is
    line = Content.assemble(
        (f"R{rnd.number} ", "bold"),
        *([(f"({twin}) ", MUTED)] if twin else []),
        (mark, mark_style),
        " ",
        (status, tone_style(rnd.verdict)),
        # the round's distinct findings, as the list's Find column and `findings` count them
        (
            f" · {plural(len(rnd.reviewers), 'reviewer')} · {found}",
            MUTED,
        ),
    )
    out = [line]
    if rnd.counts is not None:
        c = rnd.counts
        out.append(
            Content.assemble(
                "   ",
                (rounds.blockers_words(rnd), "$text-error" if rnd.blockers else MUTED),
                (" · ", MUTED),
                (f"{c.should_fix} should fix", "$text-warning" if c.should_fix else MUTED),
                (" · ", MUTED),
                (plural(c.suggestions, "suggestion"), MUTED),
            )
        )
    return out


SEVERITY_ABBR = {"critical": "crit", "high": "high", "medium": "med", "low": "low", "info": "info"}
NAME_WIDTH = 14  # (`Performance #1`): the table fits beside a scrollbar at 80 columns


def reviewers_content(view: SessionView) -> list[Content]:
    rnd = view.current
    if rnd is None or not rnd.reviewers:
        return []
    rows = [
        Content.styled(f"Reviewers · round {rnd.number}", TITLE),
        Content.assemble(
            " " * NAME_WIDTH,
            (f"{'all':>5} ", MUTED),
            *((f"{SEVERITY_ABBR[k]:>5}", SEVERITY_STYLE[k]) for k in fmt.SEVERITY_KEYS),
        ),
    ]
    for r in rnd.reviewers:
        rows.append(
            Content.assemble(
                pad(fmt.safe(r.label, NAME_WIDTH), NAME_WIDTH),
                (f"{r.findings:>5} ", "bold"),
                *_severity_cells([getattr(r.severity, k) for k in fmt.SEVERITY_KEYS]),
            )
        )
    if len(rnd.reviewers) > 1:
        totals = [sum(getattr(r.severity, k) for r in rnd.reviewers) for k in fmt.SEVERITY_KEYS]
        rows.append(
            Content.assemble(
                ("reported".ljust(NAME_WIDTH), MUTED),  # a finding raised twice counts twice
                (f"{rnd.reviewer_findings:>5} ", "bold"),
                *_severity_cells(totals),
            )
        )
    return rows


def _severity_cells(values: list[int]) -> list[tuple[str, str]]:
    """A count per severity; a zero is `0`, muted (`·` means "to come", never zero)."""
    return [
        (f"{v:>5}", SEVERITY_STYLE[k] if v else MUTED)
        for k, v in zip(fmt.SEVERITY_KEYS, values, strict=True)
    ]


def rounds_content(view: SessionView) -> Content:
    rows: list[Content] = []
    for rnd in reversed(view.rounds):
        rows.extend(_round_line(rnd, view))
    reviewers = reviewers_content(view)
    if reviewers:
        rows.extend([Content(""), *reviewers])
    if view.map_runs:
        if rows:
            rows.append(Content(""))
        rows.append(Content.styled("Map runs", TITLE))
        for run in reversed(view.map_runs):
            rows.append(_run_line(run, view))
    if not rows:
        return Content.styled("No rounds or map runs yet.", MUTED)
    return _lines(rows)


def _run_line(run: MapRun, view: SessionView) -> Content:
    files = "? files" if run.files is None else f"{run.files} files"
    twin = fmt.twin_name(view.map_runs, run)
    current = run is view.map_runs[-1]
    mark, mark_style, state = unit_state(run.complete, current, view)
    return Content.assemble(
        (f"Run {run.number} ", "bold"),
        *([(f"({twin}) ", MUTED)] if twin else []),
        (mark, mark_style),
        f" {state}",
        (f" · {files}", MUTED),
    )


STEPS_SHOWN = 8


def fact_value(value: str, now: datetime) -> str:
    """A fact's value as the session screen shows it: made safe, its timestamps `fmt.when`'s
    (the clock time: the pane is not repainted every second), home written `~`."""
    return fmt.home_paths(fmt.times_in(fmt.safe(value), now, "clock"))


def details_content(view: SessionView, now: datetime, width: int = 80) -> Content:
    """The middle column for formats without rounds, laid out in `width` cells: alerts,
    facts (labels as wide as the longest, values wrapped at words), the latest steps."""
    rows: list[Content] = []
    if view.waiting:
        rows.append(Content.styled("◆ waiting on you", STATE_STYLE["input"]))
    for alert in view.alerts:
        rows.append(Content.assemble(("! ", "$text-warning"), (fmt.safe(alert), "$text-warning")))
    if rows:
        rows.append(Content(""))
    facts = [(fmt.safe(f.label), fact_value(f.value, now)) for f in view.facts]
    for i, label, value in fmt.labelled_lines(facts, width):
        rows.append(
            Content.assemble((label, MUTED), (value, TONE_STYLE.get(view.facts[i].tone, "")))
        )
    if view.steps:
        if view.facts:
            rows.append(Content(""))
        steps = view.steps[-STEPS_SHOWN:]
        times = [fmt.when(step.at, now, "cell") for step in steps]
        title = f"Steps · {len(view.steps)}"
        rows.append(Content.styled(zone_title(title, now) if any(times) else title, TITLE))
        room = max(len(t) for t in times) + 2 if any(times) else 0
        for step, at in zip(steps, times, strict=True):
            took = f" {fmt.duration(step.seconds)}" if step.seconds is not None else ""
            state = f" {fmt.words(step.state)}" if step.state else ""
            # the label takes what the rest leaves, ending in `…` when it must (never the state)
            label = fmt.clip_cells(fmt.safe(step.label), max(8, width - room - len(state + took)))
            rows.append(
                Content.assemble(
                    (at.ljust(room), MUTED),
                    label,
                    (state, fmt.state_tone_style(step.state)),
                    (took, MUTED),
                )
            )
    if not rows:
        return Content.styled("Nothing more recorded for this session.", MUTED)
    return _lines(rows)


FIELD = 9  # the session column's labels


def _field(name: str, value: str | Content, style: str = "") -> Content:
    value = value if isinstance(value, Content) else Content.styled(value, style)
    return Content.assemble((f"{name:<{FIELD}}", MUTED), value)


def state_words(view: SessionView, state: str, now: datetime, stall_limit: float | None) -> str:
    """What the status line says of the state: a stalled session for how long it has been
    quiet, against `--stall-after` (`stalled: no activity for 36m (limit 30m)`)."""
    if state == "stalled":
        return f"stalled: {fmt.stall_text(view, now, stall_limit)}"
    if state == "alert" and not view.alerts and agent_stale(view):
        return "needs attention: an agent command went stale (see Running agents)"
    return STATE_WORDS[state]


def status_words(view: SessionView, state: str, now: datetime, stall_limit: float | None) -> str:
    """The status file's word and what the state means, each said once: `active · running`,
    `closed` (not `closed · closed`)."""
    raw, meaning = fmt.words(view.status), state_words(view, state, now, stall_limit)
    if not raw or raw.lower() == meaning.lower() or meaning.lower().startswith(raw.lower()):
        return meaning
    return f"{raw} · {meaning}"


BAR_MARKS = {"▰": "$text-accent", "▱": MUTED}  # fmt.phase_bar's, as the list colours them


def info_content(
    view: SessionView, now: datetime, stall_limit: float | None = None, width: int | None = None
) -> Content:
    """The session's id, then its facts as labelled lines (`fmt.labelled_lines`: labels as
    wide as the longest, values wrapped at words under themselves in `width` cells; None: one
    line each): branch or format and title, the workflow, the place among the phases (the
    phase bar and `3/8`, as the list and the session screen show them), the status, the
    start, the source; then the problems. In `width` cells, the id loses its middle."""
    state = fmt.session_state(view)
    fields: list[tuple[str, str]] = []
    if is_host(view.framework):
        fields.append(("branch", fmt.safe(view.branch) if view.branch else "—"))
    else:
        fields.append(("format", fmt.framework_label(view.framework)))
        if view.title:
            fields.append(("title", fmt.safe(view.title)))
    badges = " · ".join(fmt.safe(b) for b in unsaid_badges(view))  # each fact once
    # The place among the phases; the phase's name too when no timeline shows it (iDumb).
    fraction, label = fmt.phase_parts(view)
    phase = ""
    if fraction:
        done, todo = fmt.phase_bar(fmt.phase_position(view), view.phase_total)
        phase = f"{done}{todo} {fraction}"
    if not view.timeline and label:
        phase = f"{phase} {fmt.safe(label)}".strip()
    fields.append(("workflow", fmt.safe(view.workflow) + (f" · {badges}" if badges else "")))
    if phase:  # a line of its own: the bar and the fraction are not split at the pane's edge
        fields.append(("phase", phase))
    fields += [
        ("status", f"{fmt.glyph(state)} {status_words(view, state, now, stall_limit)}"),
        # the clock time: the relative one would freeze (this part is not ticked every second)
        ("started", fmt.when(fmt.started_at(view), now, "clock") or "—"),
        ("source", fmt.safe(view.source)),
    ]
    sid = fmt.safe(view.id)  # in `width` cells: its middle goes (its end names its branch)
    rows = [Content.styled(sid if width is None else elide_middle(sid, width), "bold")]
    status_at = [label for label, _ in fields].index("status")
    if width is None:
        lw = fmt.label_width([label for label, _ in fields])
        laid = [(i, f"{label:<{lw + 1}}", value) for i, (label, value) in enumerate(fields)]
    else:
        laid = fmt.labelled_lines(fields, width)
    first_of = set()
    for i, cell, line in laid:
        parts: list[tuple[str, str] | str] = [(cell, MUTED)]
        if i == status_at and i not in first_of and line[:1] == fmt.glyph(state):
            parts += [(line[:1], STATE_STYLE[state]), line[1:]]
        else:
            parts += _runs(line)
        first_of.add(i)
        rows.append(Content.assemble(*parts))
    if view.problems:
        rows.append(Content.styled("Problems", "bold $text-error"))
        rows.extend(
            Content.assemble(
                (f"{fmt.glyph('problem')} ", "$text-error"), fmt.times_in(fmt.safe(p), now, "clock")
            )
            for p in view.problems
        )
    return _lines(rows)


def _runs(line: str) -> list[tuple[str, str]]:
    """`line` as (text, style) runs: the phase bar's marks coloured as the list colours them."""
    return [
        ("".join(chars), style)
        for style, chars in itertools.groupby(line, key=lambda ch: BAR_MARKS.get(ch, ""))
    ]


def clock_content(view: SessionView, now: datetime, width: int = 36) -> Content:
    """The session's time (as the list's Elapsed), OCR's round (or map run) time when it
    counts from elsewhere, and the last activity (`fmt.when`: `19:33 UTC (12m ago)`, the
    relative time alone when that does not fit in `width` cells)."""
    el = view.elapsed
    note = " (running)" if el.running else ""
    whole = coarse_duration(session_seconds(view, now))
    rows = [_field("elapsed", Content.assemble((whole, "bold"), note))]
    if is_host(view.framework) and el.since and el.since != view.started_at:
        unit = "map run" if view.workflow == "map" else "round"
        rows.append(_field(unit, fmt.elapsed_text(view, now, coarse=True)))
    activity = fmt.when(view.last_activity, now)
    if len(activity) > width - FIELD:
        activity = fmt.when(view.last_activity, now, "ago")
    rows.append(_field("activity", activity or "—"))
    return _lines(rows)
