"""A round's findings by severity as a small bar chart: one line per
severity, its count, and a bar of block characters proportional to it.

```
critical  0
high      2 ██████▌
medium    5 ████████████████
low       1 ███▎
info      0
```

- the counts are the reviewers' (`Round.reviewers[].severity`, what each reviewer file
  reports: a finding three reviewers raised counts three times, as the Rounds table's
  By severity bar and the round screen's Reviewers table count it); they are read the same for
  every OCR era (the reviewer files are there in each);
- the bars are scaled to the largest count of any severity in any of the session's rounds
  (`session_most`), so moving between rounds compares them: the largest is `BAR` cells, the
  others to its scale, in eighths of a cell (`fmt.text.bar`: any count at all shows at
  least a sliver);
- every severity has its line, a zero one muted with no bar: the lines stay where they are
  when the round changes (the cursor moves, `[` / `]`, a live round gains findings), and `0
  critical` is itself worth seeing;
- short of room the bars narrow, then go (below `MIN_BAR` cells); the words and the counts
  never do;
- colours are the app's severity colours (the findings table's, the Reviewers table's).

Counts and fixed words only: no text from disk, nothing to escape. Pure but for
`SeverityChart`, the Static that draws it in the room it has.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from textual.content import Content
from textual.geometry import Size
from textual.widgets import Static

from ocr_tui.core.view import Round
from ocr_tui.ui import fmt
from ocr_tui.ui.fmt.text import bar

SEVERITIES = fmt.SEVERITY_KEYS
# Severity -> its colour, as the findings table and the Reviewers table draw it.
SEVERITY_STYLE = {
    "critical": "$text-error",
    "high": "$text-error",
    "medium": "$text-warning",
    "low": "$text-primary",
    "info": "$foreground",
}
MUTED = "$foreground-muted"
BAR = 20  # the largest count's bar, in cells, where there is room
MIN_BAR = 4  # a bar narrower than this says nothing: the bars go, the counts stay
LABEL_W = max(len(s) for s in SEVERITIES)
CHART_KEY = "reviewers' findings"  # what is counted (the scale: the module doc, docs/usage.md)


def round_severity(rnd: Round | None) -> dict[str, int]:
    """The round's reviewers' findings by severity, every severity (0 where none)."""
    out = dict.fromkeys(SEVERITIES, 0)
    for rev in rnd.reviewers if rnd is not None else ():
        for sev in SEVERITIES:
            out[sev] += getattr(rev.severity, sev)
    return out


def session_most(rounds: Iterable[Round]) -> int:
    """The largest count of one severity in one round: the scale of every round's chart."""
    return max((n for rnd in rounds for n in round_severity(rnd).values()), default=0)


def bar_cells(counts: Mapping[str, int], room: int | None, most: int = 0) -> int:
    """How wide the largest bar is in `room` columns (None: any): BAR where it fits, less
    where it does not, 0 (no bars) below MIN_BAR."""
    if room is None:
        return BAR
    cells = min(BAR, room - (LABEL_W + 1 + _count_w(counts, most) + 1))
    return cells if cells >= MIN_BAR else 0


def _count_w(counts: Mapping[str, int], most: int) -> int:
    """The counts' column: as wide as the largest of the session's (the round's lines do
    not move when the round changes)."""
    return len(str(max(most, *(counts.get(s, 0) for s in SEVERITIES))))


def chart_width(counts: Mapping[str, int], most: int) -> int:
    """The chart's width with the full BAR: the same for every round of a session."""
    return LABEL_W + 1 + _count_w(counts, most) + 1 + BAR


def chart_lines(counts: Mapping[str, int], most: int, room: int | None = None) -> list[str]:
    """The chart's lines as plain text (`chart_content` without its colours)."""
    return chart_content(counts, most, room).plain.split("\n")


def chart_content(counts: Mapping[str, int], most: int, room: int | None = None) -> Content:
    """One line per severity: its word, its count, its bar against `most` (module doc)."""
    count_w = _count_w(counts, most)
    cells = bar_cells(counts, room, most)
    lines = []
    for sev in SEVERITIES:
        n = counts.get(sev, 0)
        if not n:
            lines.append(Content.styled(f"{sev.ljust(LABEL_W)} {str(n).rjust(count_w)}", MUTED))
            continue
        style = SEVERITY_STYLE[sev]
        parts: list = [(sev.ljust(LABEL_W), style), " ", (str(n).rjust(count_w), f"bold {style}")]
        drawn = bar(n, max(most, n), cells) if cells else ""
        if drawn:
            parts.append((f" {drawn}", style))
        lines.append(Content.assemble(*parts))
    return Content("\n").join(lines)


def chart_title(label: str) -> str:
    """The pane's title: `Round 2 by severity`."""
    return f"{label} by severity"


class SeverityChart(Static):
    """The chart of one round, drawn in the width the widget has (the bars give way first).
    Not focusable: it follows the round the screen shows (or the Rounds table's cursor)."""

    DEFAULT_CSS = """
    SeverityChart {
        height: auto;
        text-wrap: nowrap;
        text-overflow: clip;
    }
    """

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._counts: dict[str, int] = dict.fromkeys(SEVERITIES, 0)
        self._most = 0

    def show(self, counts: Mapping[str, int], most: int) -> None:
        counts = {s: counts.get(s, 0) for s in SEVERITIES}
        if counts != self._counts or most != self._most:
            self._counts, self._most = counts, most
            self.refresh(layout=True)

    @property
    def plain(self) -> str:
        """The chart as drawn now (the tests read it)."""
        return chart_content(self._counts, self._most, self._room).plain

    @property
    def _room(self) -> int | None:
        width = self.content_region.width
        return width if width > 0 else None

    def get_content_width(self, container: Size, viewport: Size) -> int:
        """As wide as the whole chart (`width: auto`): what is drawn then is fitted to the
        width given (`render`), not the other way round."""
        full = chart_width(self._counts, self._most)
        return min(full, container.width) if container.width > 0 else full

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return len(SEVERITIES)

    def render(self) -> Content:
        return chart_content(self._counts, self._most, self._room)
