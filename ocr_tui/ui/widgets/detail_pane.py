"""The detail pane under the session list: the highlighted session's phase timeline, rounds,
reviewers (with a severity breakdown), map runs, clock and problems.

Text is built as `Content` from plain strings (never markup), styled with theme variables, so
a `[bold]` in a file name stays text and themes apply. Each part is re-rendered only when its
content changed; the 1 s tick touches only the clock.
"""

from __future__ import annotations

from datetime import datetime

from textual.app import ComposeResult
from textual.containers import ScrollableContainer, VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ocr_tui.core.view import Round, SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.list_cells import coarse_duration, session_seconds
from ocr_tui.ui.style import MARK_STYLE, MUTED, STATE_STYLE
from ocr_tui.ui.widgets.clock import Clock

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
    "stalled": "stalled: no activity for a while",
    "closed": "closed",
    "problem": "see problems below",
    "loading": "not read yet",
}


def tone_style(verdict: str | None) -> str:
    return {"good": "$text-success", "bad": "$text-error"}.get(fmt.verdict_tone(verdict), "")


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _lines(parts: list[Content]) -> Content:
    return Content("\n").join(parts)


def timeline_content(view: SessionView, now: datetime) -> Content:
    width = max((len(s.label) for s in view.timeline), default=0) + 2
    rows = []
    for step in view.timeline:
        took = f" {fmt.duration(step.seconds)}" if step.seconds is not None else ""
        rows.append(
            Content.assemble(
                (fmt.PHASE_MARKS.get(step.state, "?"), MARK_STYLE.get(step.state, "")),
                " ",
                (
                    fmt.safe(step.label).ljust(width),
                    MUTED if step.state in ("pending", "skipped") else "",
                ),
                (fmt.clock_text(step.at, now, short=True) + took, MUTED),
            )
        )
    return _lines(rows) if rows else Content.styled("no phases known", MUTED)


def _round_line(rnd: Round, view: SessionView) -> list[Content]:
    current = view.current
    running = not rnd.complete and current is not None and rnd.path == current.path
    mark = "✓" if rnd.complete else ("▶" if running else "·")
    status = rnd.verdict or ("complete" if rnd.complete else "in progress")
    twin = fmt.twin_name(view.rounds, rnd)  # round-01 beside round-1: which one this is
    line = Content.assemble(
        (f"R{rnd.number} ", "bold"),
        *([(f"({twin}) ", MUTED)] if twin else []),
        (mark, MARK_STYLE["done" if rnd.complete else "current" if running else "pending"]),
        " ",
        (fmt.safe(status, 24), tone_style(rnd.verdict)),
        # the round's distinct findings, as the list's Find column and `findings` count them
        (
            f" · {plural(len(rnd.reviewers), 'reviewer')} · {plural(rnd.findings, 'finding')}",
            MUTED,
        ),
    )
    out = [line]
    if rnd.counts is not None:
        c = rnd.counts
        out.append(
            Content.assemble(
                "   ",
                (plural(c.blockers, "blocker"), "$text-error" if c.blockers else MUTED),
                (" · ", MUTED),
                (f"{c.should_fix} should fix", "$text-warning" if c.should_fix else MUTED),
                (" · ", MUTED),
                (plural(c.suggestions, "suggestion"), MUTED),
            )
        )
    return out


SEVERITY_ABBR = {"critical": "crit", "high": "high", "medium": "med", "low": "low", "info": "info"}
NAME_WIDTH = 15


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
                fmt.safe(r.label, NAME_WIDTH).ljust(NAME_WIDTH),
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
    return [
        (f"{v:>5}", SEVERITY_STYLE[k] if v else MUTED) if v else (f"{'·':>5}", MUTED)
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
            files = "? files" if run.files is None else f"{run.files} files"
            twin = fmt.twin_name(view.map_runs, run)
            rows.append(
                Content.assemble(
                    (f"Run {run.number} ", "bold"),
                    *([(f"({twin}) ", MUTED)] if twin else []),
                    (("✓", MARK_STYLE["done"]) if run.complete else ("▶", MARK_STYLE["current"])),
                    f" {'complete' if run.complete else 'in progress'}",
                    (f" · {files}", MUTED),
                )
            )
    if not rows:
        return Content.styled("No rounds or map runs yet.", MUTED)
    return _lines(rows)


STEPS_SHOWN = 8


def details_content(view: SessionView, now: datetime) -> Content:
    """The middle column for formats without rounds: alerts, facts, the latest steps."""
    rows: list[Content] = []
    if view.waiting:
        rows.append(Content.styled("◆ waiting on you", STATE_STYLE["input"]))
    for alert in view.alerts:
        rows.append(Content.assemble(("! ", "$text-warning"), (fmt.safe(alert), "$text-warning")))
    if rows:
        rows.append(Content(""))
    for fact in view.facts:
        rows.append(
            Content.assemble(
                (f"{fmt.safe(fact.label, 15):<16}", MUTED),
                (fmt.safe(fact.value), TONE_STYLE.get(fact.tone, "")),
            )
        )
    if view.steps:
        if view.facts:
            rows.append(Content(""))
        rows.append(Content.styled(f"Steps · {len(view.steps)}", TITLE))
        for step in view.steps[-STEPS_SHOWN:]:
            took = f" {fmt.duration(step.seconds)}" if step.seconds is not None else ""
            rows.append(
                Content.assemble(
                    (fmt.clock_text(step.at, now, short=True).ljust(7), MUTED),
                    fmt.safe(step.label, 28),
                    (f" {fmt.safe(step.state, 12)}", fmt.state_tone_style(step.state)),
                    (took, MUTED),
                )
            )
    if not rows:
        return Content.styled("Nothing more recorded for this session.", MUTED)
    return _lines(rows)


def _field(name: str, value: str | Content, style: str = "") -> Content:
    value = value if isinstance(value, Content) else Content.styled(value, style)
    return Content.assemble((f"{name:<9}", MUTED), value)


def info_content(view: SessionView, now: datetime) -> Content:
    state = fmt.session_state(view)
    rows = [Content.styled(fmt.safe(view.id), "bold")]
    if view.framework == "ocr":
        rows.append(_field("branch", fmt.safe(view.branch) if view.branch else "—"))
    else:
        rows.append(_field("format", fmt.framework_label(view.framework)))
        if view.title:
            rows.append(_field("title", fmt.safe(view.title, 60)))
    badges = " · ".join(fmt.safe(b, 20) for b in view.badges)
    # The place among the phases; the phase's name too when no timeline shows it (iDumb).
    phase = fmt.phase_text(view, label=not view.timeline)
    rows += [
        _field(
            "workflow",
            fmt.safe(view.workflow)
            + (f" · phase {fmt.safe(phase)}" if phase else "")
            + (f" · {badges}" if badges else ""),
        ),
        _field(
            "status",
            Content.assemble(
                (fmt.glyph(state) + " ", STATE_STYLE[state]),
                f"{view.status} · {STATE_WORDS[state]}",
            ),
        ),
        _field("started", fmt.clock_text(view.started_at, now) or "—"),
        _field("source", fmt.safe(view.source)),
    ]
    if view.problems:
        rows.append(Content.styled("Problems", "bold $text-error"))
        rows.extend(Content.assemble(("✗ ", "$text-error"), fmt.safe(p)) for p in view.problems)
    return _lines(rows)


def clock_content(view: SessionView, now: datetime) -> Content:
    """The session's time (as the list's Elapsed), OCR's round (or map run) time when it
    counts from elsewhere, and the last activity."""
    el = view.elapsed
    note = " (running)" if el.running else ""
    whole = coarse_duration(session_seconds(view, now))
    rows = [_field("elapsed", Content.assemble((whole, "bold"), note))]
    if view.framework == "ocr" and el.since and el.since != view.started_at:
        unit = "map run" if view.workflow == "map" else "round"
        rows.append(_field(unit, fmt.elapsed_text(view, now, coarse=True)))
    rows.append(_field("activity", fmt.ago_text(view.last_activity, now, coarse=True)))
    return _lines(rows)


class DetailPane(ScrollableContainer, can_focus=False):
    """Shows one session; `show(None)` hides nothing itself (the screen decides). Its three
    panes side by side; app.tcss hides the phases (the list shows the phase) and stacks the
    other two when the screen is narrow."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dp-phases") as col:
            col.border_title = "Phases"
            col.can_focus = False
            yield Static(id="dp-timeline")
        with VerticalScroll(id="dp-rounds") as col:
            col.border_title = "Rounds"
            col.can_focus = False
            yield Static(id="dp-rounds-text")
        with VerticalScroll(id="dp-session") as col:
            col.border_title = "Session"
            col.can_focus = False
            yield Static(id="dp-info")
            yield Clock(id="dp-clock")

    def on_mount(self) -> None:
        self._view: SessionView | None = None
        self._shown: dict[str, tuple] = {}

    @property
    def session_id(self) -> str | None:
        return self._view.id if self._view else None

    def show(self, view: SessionView | None, now: datetime) -> None:
        if view is self._view:
            return
        self._view = view
        if view is None:
            for part in ("dp-timeline", "dp-rounds-text", "dp-info", "dp-clock"):
                self._set(part, Content(""))
            return
        self._set("dp-timeline", timeline_content(view, now))
        rounds = view.framework == "ocr"
        self.query_one("#dp-rounds").border_title = "Rounds" if rounds else "Details"
        self._set("dp-rounds-text", rounds_content(view) if rounds else details_content(view, now))
        self._set("dp-info", info_content(view, now))
        self._set("dp-clock", clock_content(view, now))

    def tick(self, now: datetime) -> None:
        if self._view is not None:
            self._set("dp-clock", clock_content(self._view, now))

    def _set(self, part: str, content: Content) -> None:
        key = (content.plain, tuple(content.spans))  # Content's == compares text only
        if self._shown.get(part) != key:
            self._shown[part] = key
            self.query_one(f"#{part}", Static | Clock).update(content)
