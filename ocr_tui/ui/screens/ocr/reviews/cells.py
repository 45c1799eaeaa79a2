"""The Reviews view's table without a screen: which rows it shows (the
actionable filter, the sort) and their cells.

Cells are rich `Text` with foreground styles from the theme (`style(variable, bold=...)`,
e.g. `functools.partial(theme_style, widget)`); every string from disk passes `safe_line`.
Times follow `fmt.when`: the Date column names the zone in its header (`Date (UTC)`), its
cells leave it out; in a narrow terminal the relative time alone (`3d ago`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from rich.cells import cell_len
from rich.style import Style
from rich.text import Text

from ocr_tui.core import display
from ocr_tui.core.reviews import ACTIONABLE_TRIAGE, TRIAGE_WORDS, ReviewRow
from ocr_tui.core.textsafe import safe_line
from ocr_tui.ui import fmt

ThemeStyle = Callable[..., Style]

COLUMNS = [
    ("session", "Session"),
    ("round", "Rnd"),
    ("verdict", "Verdict"),
    ("blockers", "Blockers"),
    ("should_fix", "Should fix"),
    ("suggestions", "Suggestions"),
    ("triage", "Triage"),
    ("at", "Date"),
]
SORT_NAMES = {
    "at": "date",
    "session": "session",
    "round": "round",
    "verdict": "verdict",
    "blockers": "blockers",
    "should_fix": "should-fix",
    "suggestions": "suggestions",
    "triage": "triage",
}
COMPACT_LABELS = {"blockers": "Blk", "should_fix": "Fix", "suggestions": "Sug"}
VERDICT_MAX = 18
VERDICT_COMPACT = 12
SESSION_MIN = 12


@dataclass(frozen=True)
class Layout:
    """How much the columns say: the counts' labels in words or short (`Blk`), the date's
    form (`cell`: `Nov 27 16:20`; `ago`: `16h ago`; `age`: `16h`, under `Age`), and where a
    verdict is cut."""

    short_labels: bool = False
    date: str = "cell"
    verdict_max: int = VERDICT_MAX


# Most said first: the table shows the first whose columns leave the session SESSION_MIN
# (`choose_layout`). The date is shortened before the verdict is cut: at 80 columns the
# Verdict column said `REQUEST CHA…` beside a date with room to spare.
LAYOUTS = (
    Layout(),
    Layout(short_labels=True),
    Layout(short_labels=True, date="ago"),
    Layout(short_labels=True, date="age"),
    Layout(short_labels=True, date="age", verdict_max=VERDICT_COMPACT),
)
TONE_VAR = {"good": "success", "bad": "error"}
TRIAGE_ORDER = {raw: i for i, raw in enumerate(TRIAGE_WORDS)}  # needs_review first
DESC = "▼"  # descending down the table (newest, most, Z→A), as the session list's arrow
ASC = "▲"  # ascending (oldest, fewest, A→Z)

# Each column's natural order: (key, descending). Rows whose value is unknown go last.
_KEYS: dict[str, tuple[Callable[[ReviewRow], object], bool]] = {
    "at": (lambda r: r.at, True),
    "session": (lambda r: display.name_order(r.session_id), False),
    "round": (lambda r: r.number, True),
    "verdict": (lambda r: r.verdict.upper() if r.verdict else None, False),
    "blockers": (lambda r: r.blockers, True),
    "should_fix": (lambda r: r.should_fix, True),
    "suggestions": (lambda r: r.suggestions, True),
    "triage": (lambda r: TRIAGE_ORDER.get(r.triage, 99) if r.triage else None, False),
}


@dataclass(frozen=True)
class ReviewsQuery:
    """What the table shows: every round or the actionable ones, sorted by one column."""

    actionable: bool = False
    sort: str = "at"
    reverse: bool = False  # against the column's natural order
    project: str = "all"  # with several projects: one's name, or all
    search: str = ""  # `/`: every word of it is in the row (`matches`)

    def apply(self, rows: Sequence[ReviewRow]) -> list[ReviewRow]:
        kept = [r for r in rows if r.actionable] if self.actionable else list(rows)
        if self.project != "all":
            kept = [r for r in kept if r.project == self.project]
        if self.search.strip():
            kept = [r for r in kept if matches(r, self.search)]
        key, descending = _KEYS.get(self.sort, _KEYS["at"])
        known = [r for r in kept if key(r) is not None]
        unknown = [r for r in kept if key(r) is None]
        known.sort(key=key, reverse=descending != self.reverse)  # type: ignore[arg-type]
        return known + unknown

    def next_sort(self) -> ReviewsQuery:
        """`s`: the next column, in its natural order."""
        keys = [k for k, _ in COLUMNS]
        i = keys.index(self.sort) if self.sort in keys else -1
        return replace(self, sort=keys[(i + 1) % len(keys)], reverse=False)

    def sorted_by(self, column: str) -> ReviewsQuery:
        """A header click (or `S` on the sorted column): that column; again: reversed."""
        if column == self.sort:
            return replace(self, reverse=not self.reverse)
        if column not in _KEYS:
            return self
        return replace(self, sort=column, reverse=False)

    def arrow(self) -> str:
        """Which way the values run down the table: ▼ descending, ▲ ascending."""
        descending = _KEYS.get(self.sort, _KEYS["at"])[1]
        return DESC if descending != self.reverse else ASC

    def label(self) -> str:
        shown = "actionable only" if self.actionable else "all rounds"
        if self.project != "all":
            shown += f" · project: {safe_line(self.project)}"
        if self.search.strip():
            shown += f' · "{safe_line(self.search.strip())}"'
        return f"{shown} · sort: {SORT_NAMES.get(self.sort, self.sort)} {self.arrow()}"


SEARCHED = "sessions, branches, rounds, verdicts and triage"


def matches(row: ReviewRow, text: str) -> bool:
    """The `/` search: every word of `text` is in the row's session id, branch, round (`R2`),
    verdict (`in progress` without one) or triage (case-insensitive)."""
    hay = " ".join(
        [row.session_id, row.branch, f"R{row.number}", verdict_text(row), triage_text(row.triage)]
    ).casefold()
    return all(word in hay for word in text.casefold().split())


def count_text(shown: int, total: int, query: ReviewsQuery) -> str:
    """`3 of 7 reviews · actionable only · sort: date ▼`."""
    return f"{shown} of {total} review{'s' * (total != 1)} · {query.label()}"


def labels(query: ReviewsQuery, now: datetime, layout: Layout = LAYOUTS[0]) -> dict[str, str]:
    """Every column's header: short words or not (`layout`), the zone on an absolute date,
    `Age` over ages, the sort mark."""
    out = {}
    for key, label in COLUMNS:
        label = COMPACT_LABELS.get(key, label) if layout.short_labels else label
        if key == "at" and layout.date == "cell":
            label = f"Date ({fmt.zone_name(now)})"
        elif key == "at" and layout.date == "age":
            label = "Age"
        if key == query.sort:
            label = f"{label} {query.arrow()}"
        out[key] = label
    return out


def triage_text(raw: str | None) -> str:
    if not raw:
        return "—"
    return TRIAGE_WORDS.get(raw, safe_line(raw))


def session_text(row: ReviewRow) -> str:
    """The session's id, and its branch when the id does not say it (OCR names a session
    `{date}-{branch}`, a `/` in the branch written `-`); with several projects, without its
    project's name (`fit_sessions` puts it back in front, never cut)."""
    sid = safe_line(row.own_id)
    if row.branch and row.branch.replace("/", "-") not in row.session_id:
        return f"{sid} ({safe_line(row.branch)})"
    return sid


def verdict_text(row: ReviewRow, most: int = VERDICT_MAX) -> str:
    if row.verdict:
        return fmt.clip_cells(safe_line(row.verdict), most)
    return fmt.ROUND_STATES["open"] if row.running else "—"


def date_text(row: ReviewRow, now: datetime, form: str = "cell") -> str:
    """When the round ended (`Layout.date`'s form), `~` before a file's time, `—` unknown."""
    if form == "age":
        at = fmt.when(row.at, now, "ago").removesuffix(" ago")
        at = "now" if at == "just now" else at
    else:
        at = fmt.when(row.at, now, form)
    if not at:
        return "—"
    return f"~{at}" if row.approximate else at  # from a file's time, as the phases' guesses


def _steady(row: ReviewRow) -> tuple[str, ...]:
    """The cells every layout writes alike: round, the three counts, triage."""
    counts = (row.blockers, row.should_fix, row.suggestions)
    return (
        f"R{row.number}",
        *("—" if n is None else str(n) for n in counts),
        triage_text(row.triage),
    )


def choose_layout(
    rows: Sequence[ReviewRow], query: ReviewsQuery, now: datetime, width: int
) -> Layout:
    """The first of LAYOUTS whose columns (each as wide as its widest cell or label, one cell
    of padding each side) leave the session column SESSION_MIN of the table's `width`."""
    if width <= 0:  # not laid out yet
        return LAYOUTS[0]

    def widest(texts) -> int:
        return max(map(cell_len, texts), default=0)

    steady = [widest(col) for col in zip(*map(_steady, rows), strict=True)] or [0] * 5
    fixed = dict(
        zip(("round", "blockers", "should_fix", "suggestions", "triage"), steady, strict=True)
    )
    dates = {form: widest(date_text(r, now, form) for r in rows) for form in ("cell", "ago", "age")}
    verdicts = {n: widest(verdict_text(r, n) for r in rows) for n in (VERDICT_MAX, VERDICT_COMPACT)}
    for layout in LAYOUTS:
        heads = labels(query, now, layout)
        cells = fixed | {"verdict": verdicts[layout.verdict_max], "at": dates[layout.date]}
        others = sum(2 + max(cell_len(heads[k]), n) for k, n in cells.items())
        if width - others - 2 >= SESSION_MIN:
            return layout
    return LAYOUTS[-1]


def review_cells(
    row: ReviewRow, now: datetime, style: ThemeStyle, layout: Layout = LAYOUTS[0]
) -> list[Text]:
    muted = style("foreground-muted")
    tone = TONE_VAR.get(fmt.verdict_tone(row.verdict))
    verdict = Text(verdict_text(row, layout.verdict_max), style=style(tone) if tone else Style())
    if not row.verdict:
        verdict.stylize(muted)
    blockers = Text(
        "—" if row.blockers is None else str(row.blockers),
        style=style("error", bold=True) if row.blockers else muted,
    )

    def count(n: int | None) -> Text:
        return Text("—" if n is None else str(n), style=muted if not n else Style())

    triage = Text(triage_text(row.triage))
    if row.triage in ACTIONABLE_TRIAGE:
        triage.stylize(style("warning"))
    elif not row.triage:
        triage.stylize(muted)
    at = date_text(row, now, layout.date)
    return [
        Text(session_text(row)),
        Text(f"R{row.number}"),
        verdict,
        blockers,
        count(row.should_fix),
        count(row.suggestions),
        triage,
        Text(at, style=Style() if row.at else muted),
    ]


def fit_sessions(
    rows: list[list[Text]],
    heads: dict[str, str],
    width: int,
    projects: Sequence[str] | None = None,
) -> list[list[Text]]:
    """The session cells of `rows` fitted to what the table's `width` leaves beside the other
    columns (each as wide as its widest cell or label, one cell of padding each side), as the
    session list shortens ids (`core.display.shorten_id`): when one does not fit, every row
    drops the date the Date column shows (ids that would then read the same keep it), then
    what is still too long loses its middle, never its end. `projects`: each row's project
    (several projects), led with `project/` whole, the id fitted to the room left."""
    heads_of = [safe_line(p) + "/" if p else "" for p in (projects or [""] * len(rows))]
    keys = [k for k, _ in COLUMNS]
    others = sum(
        2 + max([cell_len(heads.get(k, k))] + [row[i].cell_len for row in rows])
        for i, k in enumerate(keys)
        if i
    )
    room = max(SESSION_MIN, width - others - 2)
    plains = [row[0].plain for row in rows]
    widest = max((cell_len(h + p) for h, p in zip(heads_of, plains, strict=True)), default=0)
    if not display.drops_prefix(widest, room):
        return [
            [Text(h + row[0].plain, style=row[0].style), *row[1:]] if h else row
            for h, row in zip(heads_of, rows, strict=True)
        ]
    keep = display.ambiguous(set(plains))
    return [
        [
            Text(
                head
                + display.shorten_id(plain, max(6, room - cell_len(head)), drop=True, keep=keep),
                style=row[0].style,
            ),
            *row[1:],
        ]
        for head, plain, row in zip(heads_of, plains, rows, strict=True)
    ]
