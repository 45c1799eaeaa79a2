"""The session screen's phase timeline: each phase's mark, number and label,
when it was entered, how long it took, and a bar of its share of the session's time.

`✓ 2 Change Context   14:02   3m 10s  ████▌`

- the times are `fmt.when`'s `cell` (the pane's title names the zone); a time OCR did not
  record but ocr-tui guessed from the files a phase wrote (state.json eras, sessions of files
  only: `PhaseStep.approximate`) starts with `~`, and so does its duration;
- the current phase of a running session shows how long it has run, ticking;
- the bar is the phase's time against the longest phase's, in eighths of a cell, so the
  phase that took longest is the full BAR cells and the others are drawn to its scale.

Pure: no widget, no IO; the screen and the tests call it with a view and a time.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime

from rich.cells import cell_len
from textual.content import Content

from ocr_tui.core import registry
from ocr_tui.core.cells import pad
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.timeutil import human_duration
from ocr_tui.core.view import PhaseStep, SessionView
from ocr_tui.ui import fmt
from ocr_tui.ui.fmt.text import bar as draw_bar
from ocr_tui.ui.style import MARK_STYLE

TICKING_ROOM = 7  # a running phase's duration as it grows: `59m 59s`
BAR = 6  # the longest phase's bar, in cells
APPROX = "~"  # a time guessed from file times, not recorded
TIMELINE_KEY = f"{APPROX} approximate (from file times) · bar: time against the longest phase"
# The pane's legend, longest first: the first that fits its border is shown (`timeline_key`).
KEYS_WITH_BAR = (
    TIMELINE_KEY,
    f"{APPROX} from file times · bar: time against the longest phase",
    f"{APPROX} from file times · bar: vs the longest phase",
    f"{APPROX} from file times · bar: vs longest",
)
KEYS_ALONE = (f"{APPROX} approximate (from file times)", f"{APPROX} from file times")
BORDER = 6  # a border title's frame: `╰─ ` and ` ─╯`


def step_marks(view: SessionView) -> list[str]:
    """Each phase's `fmt.PHASE_MARKS` key: a session closed early shows the phase it stopped in
    as `stopped` and those it never reached as `unreached`."""
    closed_early = view.status == "closed" and not view.complete
    out = []
    for step in view.timeline:
        state = step.state if step.state in fmt.PHASE_MARKS else "pending"
        if closed_early and state == "current":
            state = "stopped"
        elif closed_early and state == "pending":
            state = "unreached"
        out.append(state)
    return out


def step_seconds(steps: list[PhaseStep], i: int, now: datetime, running: bool) -> int | None:
    """How long phase `i` took (or, current in a running session, has taken so far): its own
    duration, else from its start to the next phase's start; None when not known."""
    step = steps[i]
    if step.state == "current":
        at = fmt.ts(step.at)
        if running and at is not None:
            return max(0, int((now - at).total_seconds()))
        return None if step.seconds is None else int(step.seconds)
    if step.seconds is not None:
        return int(step.seconds)
    if step.state == "done" and i + 1 < len(steps):
        start, end = fmt.ts(step.at), fmt.ts(steps[i + 1].at)
        if start is not None and end is not None and end >= start:
            return int((end - start).total_seconds())
    return None


def _took(step: PhaseStep, seconds: int | None) -> str:
    if step.state == "skipped":
        return "skipped"
    if seconds is None:
        return ""
    return (APPROX if step.approximate else "") + human_duration(seconds)


def one_day(view: SessionView) -> date | None:
    """The local date every phase was entered on, when they share one: the times then say
    the clock alone (and the pane's title the date)."""
    return fmt.one_day([s.at for s in view.timeline])


def _entered(step: PhaseStep, now: datetime, clock_only: bool) -> str:
    shown = fmt.clock_cell(step.at, now, clock_only)
    return (APPROX if step.approximate else "") + shown if shown else ""


@dataclass(frozen=True)
class _Columns:
    """The timeline's cells, computed once per call: each phase's label, entered time,
    duration text and seconds, and the widths of the columns they make."""

    labels: list[str]
    entered: list[str]
    took: list[str]
    seconds: list[int | None]
    took_w: int  # the duration column (room for a running phase's to grow)
    label_w: int  # the label column: the widest label, or the widest the format has

    def width(self, at: bool, bar: bool) -> int:
        """The widest line: mark, label, (entered,) duration (and bar), with their gaps."""
        if not self.labels:
            return 0
        width = 2 + self.label_w
        at_w = max(len(x) for x in self.entered) if at else 0
        width += 2 + at_w if at_w else 0
        width += 2 + self.took_w if self.took_w else 0
        return width + (1 + BAR if bar and any(self.seconds) else 0)

    def fit(self, room: int | None) -> tuple[bool, bool]:
        """Which of the entered time and the bar show in `room` columns (None: any): both
        where they fit, else the time alone, else neither (the label and the duration are
        never given up)."""
        for at, bar in ((True, True), (True, False), (False, False)):
            if room is None or self.width(at, bar) <= room:
                return at, bar
        return False, False


def label_room(view: SessionView) -> int:
    """The label column's width for every phase the session's format has (`9 Requirements
    Mapping`: a map that follows a review widens nothing); 0 when its labels are free text."""
    labels = registry.phase_labels(view.framework)
    return 2 + max(len(x) for x in labels) if labels else 0


def _columns(view: SessionView, now: datetime) -> _Columns:
    steps = view.timeline
    seconds = [step_seconds(steps, i, now, view.running) for i in range(len(steps))]
    clock_only = one_day(view) is not None
    took = [_took(s, sec) for s, sec in zip(steps, seconds, strict=True)]
    # the duration column: its longest (`skipped` for a skipped phase), room for `59m 59s`
    # beside a phase that runs (only its duration depends on `now`): held while any phase
    # has a duration, so the column does not narrow when the run ends
    took_w = max((len(t) for t in took), default=0)
    if took_w or (view.running and any(s.state == "current" for s in steps)):
        took_w = max(took_w, TICKING_ROOM + any(s.approximate for s in steps))
    labels = [safe_line(f"{s.number} {s.label}") for s in steps]
    return _Columns(
        labels=labels,
        entered=[_entered(s, now, clock_only) for s in steps],
        took=took,
        seconds=seconds,
        took_w=took_w,
        label_w=max([label_room(view), *(cell_len(x) for x in labels)]),
    )


def timeline_fit(view: SessionView, now: datetime, room: int | None) -> tuple[bool, bool]:
    """Which of the entered time and the bar the timeline shows in `room` columns."""
    return _columns(view, now).fit(room)


def left_limit(width: int) -> int:
    """The most a wide session screen of `width` columns gives its left column: 40 %."""
    return width * 2 // 5


def left_width(view: SessionView, now: datetime | None = None, limit: int | None = None) -> int:
    """What the left column needs: the timeline (as much of it as fits in `limit` columns:
    `_Columns.fit`) and the longest document name, with the panes' borders and padding."""
    cols = _columns(view, now or datetime.now(UTC))
    docs = max((len(safe_line(d)) for d in view.documents), default=0) + 2
    return max(cols.width(*cols.fit(None if limit is None else limit - 4)), docs) + 4


def timeline_title(view: SessionView, now: datetime, room: int | None = None) -> str:
    """The pane's title: `Phases`, whose they are when the session has had more than one
    round or map run (`of round 2`: the times are the current round's), and, when times are
    shown, their day and zone."""
    head = f"Phases of {unit}" if (unit := fmt.timeline_unit(view)) else "Phases"
    if not any(s.at for s in view.timeline) or not timeline_fit(view, now, room)[0]:
        return f"{head} · took" if any(s.at or s.seconds for s in view.timeline) else head
    day = fmt.day_text(one_day(view), now)
    on = f" {day}" if day else ""
    return f"{head} · entered{on} ({fmt.zone_name(now)}) · took"


def timeline_key(view: SessionView, now: datetime, room: int | None, pane_width: int) -> str:
    """The pane's legend in a pane `pane_width` columns wide (its timeline `room` columns):
    what applies (the `~` when a time is approximate; then the bar, when drawn), in the
    longest words that fit the border whole; "" when no time is approximate (the `?` screen
    lists every marker)."""
    if not any(s.approximate for s in view.timeline):
        return ""
    cols = _columns(view, now)
    drawn = cols.fit(room)[1] and any(cols.seconds)
    fits = pane_width - BORDER
    keys = (KEYS_WITH_BAR if drawn else ()) + KEYS_ALONE
    return next((k for k in keys if cell_len(k) <= fits), "")


def timeline_content(view: SessionView, now: datetime, room: int | None = None) -> Content:
    """One line per phase (module doc): the labels, times and durations each one column, as
    wide as their longest; the bar in the phase's colour. In `room` columns, as much as fits
    (`_Columns.fit`)."""
    if not view.timeline:
        return Content("")
    cols = _columns(view, now)
    show_at, show_bar = cols.fit(room)
    labels, entered, took, seconds = cols.labels, cols.entered, cols.took, cols.seconds
    label_w = cols.label_w
    at_w = max(len(x) for x in entered) if show_at else 0
    took_w = cols.took_w
    longest = max((s for s in seconds if s), default=0)
    lines = []
    for i, state in enumerate(step_marks(view)):
        style = MARK_STYLE.get(state, "")
        parts: list = [
            (f"{fmt.PHASE_MARKS[state]} ", style),
            (pad(labels[i], label_w), "" if state == "done" else style),
        ]
        if at_w:
            parts.append((f"  {entered[i].rjust(at_w)}", "$foreground-muted"))
        if took_w:
            parts.append((f"  {took[i].rjust(took_w)}", "$foreground-muted"))
        drawn = draw_bar(seconds[i], longest) if show_bar else ""
        if drawn:
            parts.append((f" {drawn}", "$text-accent" if state == "current" else style or ""))
        lines.append(Content.assemble(*parts))
    return Content("\n").join(lines)
