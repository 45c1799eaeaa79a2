"""The session screen's drawing: its two header lines, problems, the blocker trend, the rounds
table's cells (with the user's triage of the round) and the map runs table's. Pure functions of
a view (and a time, and the screen's theme colours as `ThemeStyle`): no widget, no IO.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from rich.style import Style
from rich.text import Text
from textual.content import Content

from ocr_tui.core import display, rounds
from ocr_tui.core.registry import is_host
from ocr_tui.core.reviews import ACTIONABLE_TRIAGE
from ocr_tui.core.states import CURRENT
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import human_duration
from ocr_tui.core.view import Round, SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.screens.ocr.reviews.cells import triage_text
from ocr_tui.ui.style import VERDICT_VAR

ROUND_COLUMNS = [
    ("round", "Round"),
    ("reviewers", "Revs"),
    ("findings", "Findings"),
    ("counts", "Blk/Fix/Sug"),
    ("verdict", "Verdict"),
    ("bar", "Reported"),  # each reviewer's: one finding raised by three is three
]
RUN_COLUMNS = [("run", "Run"), ("state", "State"), ("files", "Files"), ("doc", "Document")]
# a run's state is one of the round states: planned at the longest (in progress) from the
# first frame, so the table does not re-fit when a run ends
RUN_LEAST = {"state": max(len(w) for w in fmt.ROUND_STATES.values())}
DOC_COLUMNS = [("name", "Document")]
BAR_WIDTH = 10
# Severity -> theme variable of its part of the bar (and of its count beside the bar).
BAR_PARTS = (("critical", "error"), ("high", "error"), ("medium", "warning"), ("low", "primary"))
ROUNDS_KEY = f"{CURRENT} current · +new −resolved ?pending =unchanged · ? all markers"
WIDE_AT = 120  # from this many columns the phases are a column of their own

# A theme colour as a rich Style (`style.theme_style` bound to the screen).
ThemeStyle = Callable[..., Style]

SEP = (" · ", "$foreground-muted")


def meta_content(view: SessionView, now: datetime, stall_limit: float | None = None) -> Content:
    """Two lines: `review · active · phase 4/8 Parallel Reviews · elapsed 12m 03s` (with
    `stalled: no activity for 36m (limit 30m)` when it is) and `started 14:02 UTC (12m ago) ·
    last activity 14:13 UTC (just now) · read from state.json`."""
    status_style = "$text-success" if view.running else "$foreground-muted"
    status = "complete" if view.complete else fmt.words(view.status)
    parts: list = [(workflow_words(view), "bold"), SEP, (status, status_style)]
    if view.stalled and view.status != "closed":
        parts += [SEP, (f"stalled: {fmt.stall_text(view, now, stall_limit)}", "$text-warning")]
    parts += [SEP, *phase_progress(view)]
    parts += [SEP, "elapsed ", *elapsed_parts(view, now)]
    second: list = [("started ", "$foreground-muted"), fmt.when(fmt.started_at(view), now) or "—"]
    if view.last_activity:
        second += [SEP, ("last activity ", "$foreground-muted"), fmt.when(view.last_activity, now)]
    second += [SEP, ("read from ", "$foreground-muted"), safe_line(view.source)]
    return Content("\n").join([Content.assemble(*parts), Content.assemble(*second)])


PHRASE_SEP = " · "


def wrap_phrases(content: Content, width: int) -> Content:
    """`content` wrapped to `width` between its ` · `-separated phrases, never inside one
    (`elapsed 50m 00s (round` / `2: 20m 00s)`): each line holds as many whole phrases as fit,
    a line break stands for the separator. A phrase wider than `width` is left to the widget's
    own wrapping."""
    if width <= 0:
        return content
    out: list[Content] = []
    for line in content.split("\n"):
        plain, cuts, at = line.plain, [], 0
        while (i := plain.find(PHRASE_SEP, at)) >= 0:
            cuts += [i, i + len(PHRASE_SEP)]
            at = i + len(PHRASE_SEP)
        pieces = line.divide(cuts) if cuts else [line]
        phrases, seps = pieces[0::2], pieces[1::2]
        current = phrases[0]
        for sep, phrase in zip(seps, phrases[1:], strict=True):
            if current.cell_length + sep.cell_length + phrase.cell_length <= width:
                current = current + sep + phrase
            else:
                out.append(current)
                current = phrase
        out.append(current)
    return Content("\n").join(out)


def workflow_words(view: SessionView) -> str:
    """OCR's workflow (`review`, `map`); another format's name and, where it says more, its
    flow as the list's Flow column says it (`code workflow · fast`), never a raw `code:fast`."""
    if is_host(view.framework):
        return fmt.words(view.workflow)
    flow = display.flow_text(view)
    label = fmt.framework_label(view.framework)
    return f"{label} · {flow}" if flow else label


def elapsed_parts(view: SessionView, now: datetime) -> list:
    """The session's time, as the list's Elapsed says it (`display.session_seconds`), ticking
    while it runs; and, where OCR's current round (or map run) has run for less, its own time
    as the list's Round time says it: `12m 03s (round 2: 4m 06s)`."""
    running = view.elapsed.running

    def said(seconds: int | None) -> str:
        return fmt.ticking_duration(seconds) if running else human_duration(seconds)

    whole = display.session_seconds(view, now)
    parts: list = [(said(whole), "bold")]
    part = fmt.elapsed_seconds(view, now)
    if part is not None and whole is not None and part < whole:
        if view.workflow == "map" and view.current_map_run is not None:
            what = f"map run {view.current_map_run}"
        elif view.current_round is not None:
            what = f"round {view.current_round}"
        else:
            what = "this round"
        parts.append((f" ({what}: {said(part)})", "$foreground-muted"))
    return parts


def phase_progress(view: SessionView) -> list:
    """`phase ▰▰▰▱▱▱▱▱ 3/8 Subsection Planning`: the place among the phases as the list shows
    it, the same for every format (the bar only where the number of phases is known)."""
    fraction, label = fmt.phase_parts(view)  # `4/8`; none when the total is not known
    parts: list = ["phase "]
    if fraction:
        done, todo = fmt.phase_bar(fmt.phase_position(view), view.phase_total)
        parts += [(done, "$text-accent"), (todo, "$text-muted"), f" {fraction} "]
    return [*parts, (safe_line(label), "$text-accent")]


TONE_VAR = {"bad": "$text-error", "good": "$text-success", "warn": "$text-warning"}


def trend_content(view: SessionView) -> Content | None:
    """The blocker trend above the rounds table (`fmt.blocker_trend`); None without rounds."""
    parts = fmt.blocker_trend(view.rounds)
    if parts is None:
        return None
    styles = TONE_VAR | {"muted": "$foreground-muted", "": ""}
    return Content.assemble(*((text, styles[tone]) for text, tone in parts))


# -- table rows (DataTable cells are rich Text, styled with the theme's colours) ---------------


def round_rows(view: SessionView, style: ThemeStyle) -> list[tuple[str, list[Text]]]:
    """One row per round, keyed by directory: `rounds/round-01` and `rounds/round-1` are both
    round 1."""
    most = max((r.reviewer_findings for r in view.rounds), default=0)
    return [(rnd.path, round_cells(view, rnd, most, style)) for rnd in view.rounds]


def round_cells(view: SessionView, rnd: Round, most: int, style: ThemeStyle) -> list[Text]:
    """Round, reviewers, findings (with their change against the round before), counts,
    verdict (a round without one: `in progress`, or `stopped` in a closed session), bar (with
    its counts)."""
    muted = style("foreground-muted")
    tone = {"warn": style("warning"), "good": style("success"), "muted": muted}
    current = view.current is not None and rnd.path == view.current.path
    twin = fmt.twin_name(view.rounds, rnd)
    label = Text(
        f"{rnd.number}{f' ({twin})' if twin else ''}{f' {CURRENT}' if current else ''}",
        style="bold" if current else "",
    )
    found = rounds.findings_text(rnd)
    findings = Text(found, style=muted if rnd.findings is None else "")
    for text, kind in fmt.findings_change(rnd):
        findings.append(" " + text, style=tone[kind])
    if rnd.counts is not None:
        c = rnd.counts  # the round's blockers: never fewer than the synthesis names
        blockers = rounds.blockers_text(rnd)
        counts = Text(f"{blockers} / {c.should_fix} / {c.suggestions}")
        if rnd.blockers:
            counts.stylize(style("error", bold=True), 0, len(blockers))
    else:
        counts = Text("—", style=muted)
    var = VERDICT_VAR.get(fmt.verdict_kind(rnd))
    if rnd.verdict:
        verdict_style = style(var, bold=True) if var else style("foreground")
        verdict = Text(safe_line(rnd.verdict), style=verdict_style)
    elif rnd.complete:
        verdict = Text("no verdict", style=muted)
    else:  # no synthesis yet: the round's state says more than "—"
        verdict = _state_cell(rnd.complete, view, style)
    if rnd.triage:  # the user's triage of the round (OCR's dashboard), under the verdict
        verdict.append("\n")
        verdict.append(triage_text(rnd.triage), style=style(TRIAGE_VAR.get(rnd.triage, "")))
    reviewers = Text(str(len(rnd.reviewers)))
    return [label, reviewers, findings, counts, verdict, severity_bar(rnd, most, style)]


# The triage words' colours: what wants the user in the warning colour, what is settled muted.
TRIAGE_VAR = dict.fromkeys(ACTIONABLE_TRIAGE, "warning") | {
    "changes_made": "success",
    "acknowledged": "foreground-muted",
    "dismissed": "foreground-muted",
}


def round_labels(view: SessionView) -> dict[str, str]:
    """The rounds table's headers: `Verdict · triage` once some round has the user's triage."""
    if any(r.triage for r in view.rounds):
        return {"verdict": "Verdict · triage"}
    return {"verdict": "Verdict"}


STATE_VAR = {"done": "success", "stopped": "foreground-muted", "open": "accent"}


def _state_cell(complete: bool, view: SessionView, style: ThemeStyle) -> Text:
    state = fmt.round_state(complete, view)
    return Text(fmt.ROUND_STATES[state], style=style(STATE_VAR[state]))


def severity_counts(rnd: Round) -> dict[str, int]:
    """The reviewers' findings by the bar's severities (info counts as low)."""
    return {
        "critical": sum(r.severity.critical for r in rnd.reviewers),
        "high": sum(r.severity.high for r in rnd.reviewers),
        "medium": sum(r.severity.medium for r in rnd.reviewers),
        "low": sum(r.severity.low + r.severity.info for r in rnd.reviewers),
    }


def severity_bar(rnd: Round, most: int, style: ThemeStyle) -> Text:
    """BAR_WIDTH cells scaled to the round whose reviewers reported the most findings (each
    reviewer's count: a finding three reviewers raised is three), coloured by severity, then
    the counts in words (`2 high 3 medium`): the colours alone are no key. Foreground colours
    only: the row (the cursor) owns the background."""
    bar = Text()
    if most <= 0:
        return Text("·" * BAR_WIDTH, style=style("foreground-muted"))
    reported = rnd.reviewer_findings
    total_cells = max(1, round(reported / most * BAR_WIDTH)) if reported else 0
    sev = severity_counts(rnd)
    used = 0
    for i, (name, var) in enumerate(BAR_PARTS):
        if i == len(BAR_PARTS) - 1:
            cells = total_cells - used
        else:
            cells = round(sev[name] / reported * total_cells) if reported else 0
            cells = min(cells, total_cells - used)
        if cells > 0:
            bar.append("█" * cells, style=style(var))
            used += cells
    bar.append("·" * (BAR_WIDTH - used), style=style("foreground-muted"))
    info = sum(r.severity.info for r in rnd.reviewers)  # drawn as low, counted apart
    counts = [(name, var, sev[name] - (info if name == "low" else 0)) for name, var in BAR_PARTS]
    counts.append(("info", "foreground-muted", info))
    for name, var, n in counts:
        if n:
            # a count and its word are one: a narrow column wraps between counts, never
            # inside one (`2` / `critical 2` / `high` read as "critical 2")
            bar.append(f" {n}{fmt.KEEP_TOGETHER}", style=style(var, bold=True))
            bar.append(name, style=style(var))
    return bar


def run_rows(view: SessionView, style: ThemeStyle) -> list[tuple[str, list[Text]]]:
    """One row per document of each map run (a run without documents: one row, keyed by the
    run's directory)."""
    rows = []
    for run in view.map_runs:
        state = _state_cell(run.complete, view, style)
        files = Text("—" if run.files is None else str(run.files))
        twin = fmt.twin_name(view.map_runs, run)
        number = f"{run.number} ({twin})" if twin else str(run.number)
        docs = run.documents or [None]
        for i, rel in enumerate(docs):
            first = i == 0
            cells = [
                Text(number if first else ""),
                state if first else Text(""),
                files if first else Text(""),
                Text(safe_line(rel.rsplit("/", 1)[-1]) if rel else "—"),
            ]
            rows.append((rel or run.path, cells))
    return rows


def problems_content(view: SessionView, now: datetime) -> Content:
    """One line per problem, its times as every time is shown."""
    mark = f"{fmt.glyph('problem')} "
    return Content("\n").join(
        Content.assemble((mark, "$text-error"), fmt.times_in(safe_line(p), now))
        for p in view.problems
    )
