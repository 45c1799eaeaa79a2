"""A map run's sections, files and dependencies drawn without a screen: the map run screen's
cells, from what `api.read_run` read (blocking IO, in a worker). Cells are rich `Text`; every
string from disk passes `safe_line`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.style import Style
from rich.text import Text

from ocr_tui.core.textsafe import safe_line
from ocr_tui.formats.ocr.api import Dependency, MapFile, MapSection, RunMap, RunRead

ThemeStyle = Callable[..., Style]

SECTION_COLUMNS = [
    ("number", "#"),
    ("title", "Section"),
    ("files", "Files"),
    ("reviewed", "Reviewed"),
]
FILE_COLUMNS = [
    ("done", "✓"),
    ("path", "File"),
    ("role", "Role"),
    ("added", "+"),
    ("deleted", "−"),
]
BAR = 10  # cells of the reviewed/total bar


# -- text ------------------------------------------------------------------------------------


def files_word(n: int) -> str:
    return f"{n} file{'s' * (n != 1)}"


def overall_text(read: RunRead) -> str:
    """`3 / 12 files reviewed · 4 sections · map-meta.json, marks from ocr.db`."""
    m = read.map
    if m is None:
        return "No sections yet."
    n = len(m.sections)
    done = m.reviewed if read.db_has_run else "—"  # no record: not known, not 0
    text = f"{done} / {files_word(m.files)} reviewed · {n} section{'s' * (n != 1)}"
    text += f" · {m.origin}"
    if read.db_has_run and m.origin != "ocr.db":
        text += ", marks from ocr.db"
    elif not read.db_has_run:
        text += " (no reviewed marks: OCR's dashboard keeps them in ocr.db)"
    return text


def section_heading(section: MapSection) -> str:
    return f"Section {section.number}: {safe_line(section.title)}"


def bar(done: int | None, total: int, style: ThemeStyle) -> Text:
    """`████░░░░░░ 2/5`: the reviewed share of the section's files (`done` None: not known,
    no record of it: `—/5` and an empty bar)."""
    if done is None:
        out = Text("·" * BAR, style=style("foreground-muted"))
        out.append(f" —/{total}", style=style("foreground-muted"))
        return out
    filled = round(done / total * BAR) if total else 0
    if done and not filled:
        filled = 1
    if done < total and filled == BAR:
        filled = BAR - 1
    tone = style("success") if total and done == total else style("accent")
    out = Text("█" * filled, style=tone)
    out.append("░" * (BAR - filled), style=style("foreground-muted"))
    out.append(f" {done}/{total}", style=tone if done else style("foreground-muted"))
    return out


def section_rows(
    m: RunMap | None, style: ThemeStyle, known: bool = True
) -> list[tuple[str, list[Text]]]:
    """One row per section, keyed by its place in the map (numbers can repeat); `known`:
    ocr.db has the run's reviewed marks."""
    if m is None:
        return []
    return [
        (
            str(i),
            [
                Text(str(s.number)),
                Text(safe_line(s.title)),
                Text(str(len(s.files))),
                bar(s.reviewed if known else None, len(s.files), style),
            ],
        )
        for i, s in enumerate(m.sections)
    ]


def _lines(n: int | None, sign: str, style: Style) -> Text:
    return Text("—" if n is None else f"{sign}{n}", style=style)


def file_rows(
    section: MapSection | None, style: ThemeStyle, known: bool = True
) -> list[tuple[str, list[Text]]]:
    """One row per file of `section`, keyed by its place (a path can be listed twice);
    `known`: ocr.db has the reviewed marks (else `—`, not `·` not reviewed)."""
    if section is None:
        return []
    muted = style("foreground-muted")
    rows = []
    for i, f in enumerate(section.files):
        if not known:
            done = Text("—", muted)
        elif f.reviewed:
            done = Text("✓", style=style("success", bold=True))
        else:
            done = Text("·", muted)
        rows.append(
            (
                str(i),
                [
                    done,
                    Text(safe_line(f.path)),
                    Text(safe_line(f.role) if f.role else "—", style=Style() if f.role else muted),
                    _lines(f.added, "+", style("success") if f.added else muted),
                    _lines(f.deleted, "−", style("error") if f.deleted else muted),
                ],
            )
        )
    return rows


def file_at(section: MapSection | None, key: str | None) -> MapFile | None:
    if section is None or key is None or not key.isdigit():
        return None
    i = int(key)
    return section.files[i] if i < len(section.files) else None


def section_at(m: RunMap | None, key: str | None) -> MapSection | None:
    if m is None or not m.sections:
        return None
    i = int(key) if key is not None and key.isdigit() else 0
    return m.sections[min(i, len(m.sections) - 1)]


def _end(number: int | None, title: str | None, titles: dict[int, str]) -> str:
    name = title or (titles.get(number) if number is not None else None)
    if number is None:
        return safe_line(name) if name else "?"
    return f"{number} {safe_line(name)}" if name else str(number)


def dependency_lines(
    deps: Sequence[Dependency], sections: Sequence[MapSection], style: ThemeStyle
) -> list[Text]:
    """`1 Core → 2 API  calls`: each dependency between sections, as the map lists them."""
    titles = {s.number: s.title for s in sections}
    out = []
    for d in deps:
        line = Text(_end(d.source, d.source_title, titles))
        line.append(" → ", style=style("accent"))
        line.append(_end(d.target, d.target_title, titles))
        if d.relationship:
            line.append(f"  {safe_line(d.relationship)}", style=style("foreground-muted"))
        out.append(line)
    return out
