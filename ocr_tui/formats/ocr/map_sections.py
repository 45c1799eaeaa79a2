"""A map run's review sections and their files, from whichever record has
them, best first: `map-meta.json` (OCR >= 1.6, `ocr state map-complete`), ocr.db's
`map_sections` / `map_files` (with the user's `user_file_progress`), or `map.md`'s
`### Section N: Title` tables. Pure: the callers read the files (no IO here).

Lenient like every reader here: a section without a usable number takes its place in the
list, a file without a path is skipped, a count that is not a non-negative integer is None.
Every pattern is linear (one pass per line, no nested quantifiers).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import msgspec

MAX_SECTIONS = 500
MAX_FILES = 5000  # per section


@dataclass(frozen=True)
class MapFile:
    path: str
    role: str | None = None
    added: int | None = None
    deleted: int | None = None
    reviewed: bool = False


@dataclass(frozen=True)
class MapSection:
    number: int
    title: str
    description: str | None = None
    files: tuple[MapFile, ...] = ()

    @property
    def reviewed(self) -> int:
        return sum(1 for f in self.files if f.reviewed)


@dataclass(frozen=True)
class Dependency:
    source: int | None  # from_section
    target: int | None  # to_section
    source_title: str | None = None
    target_title: str | None = None
    relationship: str | None = None


@dataclass(frozen=True)
class RunMap:
    sections: tuple[MapSection, ...]
    dependencies: tuple[Dependency, ...] = ()
    origin: str = "map-meta.json"  # | "ocr.db" | "map.md"
    problems: tuple[str, ...] = field(default=())

    @property
    def files(self) -> int:
        return sum(len(s.files) for s in self.sections)

    @property
    def reviewed(self) -> int:
        return sum(s.reviewed for s in self.sections)


# --- values ---------------------------------------------------------------------------------

_SECTION_PREFIX = re.compile(r"^\s*section\s+\d+\s*[:.\-–—]\s*", re.IGNORECASE)


def clean_title(value: object) -> str | None:
    """A section title without its `Section N:` prefix (map.md's headings carry one)."""
    text = _text(value)
    if text is None:
        return None
    return _SECTION_PREFIX.sub("", text, count=1).strip() or text.strip() or None


def _text(value: object) -> str | None:
    if isinstance(value, str) and value.strip():
        return value.strip()[:500]
    return None


def _count(value: object) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if 0 <= value < 10**9 else None


def _number(value: object) -> int | None:
    n = _count(value)
    return n if n is not None and n > 0 else None


# --- map-meta.json --------------------------------------------------------------------------


class _MetaFile(msgspec.Struct, kw_only=True, frozen=True):
    file_path: object = None
    role: object = None
    lines_added: object = None
    lines_deleted: object = None


class _MetaSection(msgspec.Struct, kw_only=True, frozen=True):
    section_number: object = None
    title: object = None
    description: object = None
    files: list[_MetaFile] = []


class _MetaDependency(msgspec.Struct, kw_only=True, frozen=True):
    from_section: object = None
    from_title: object = None
    to_section: object = None
    to_title: object = None
    relationship: object = None


class MapMeta(msgspec.Struct, kw_only=True, frozen=True):
    """`map/runs/run-N/map-meta.json` (ocr-format.md §4.4)."""

    schema_version: object = None
    sections: list[_MetaSection] = []
    dependencies: list[_MetaDependency] = []


MAP_META_DECODER = msgspec.json.Decoder(MapMeta)


def from_meta(meta: MapMeta) -> RunMap:
    sections = []
    for i, s in enumerate(meta.sections[:MAX_SECTIONS], start=1):
        files = tuple(
            MapFile(
                path=path,
                role=_text(f.role),
                added=_count(f.lines_added),
                deleted=_count(f.lines_deleted),
            )
            for f in s.files[:MAX_FILES]
            if (path := _text(f.file_path)) is not None
        )
        sections.append(
            MapSection(
                number=_number(s.section_number) or i,
                title=clean_title(s.title) or f"Section {_number(s.section_number) or i}",
                description=_text(s.description),
                files=files,
            )
        )
    deps = tuple(
        Dependency(
            source=_number(d.from_section),
            target=_number(d.to_section),
            source_title=clean_title(d.from_title),
            target_title=clean_title(d.to_title),
            relationship=_text(d.relationship),
        )
        for d in meta.dependencies[:MAX_SECTIONS]
    )
    return RunMap(sections=tuple(sections), dependencies=deps, origin="map-meta.json")


# --- map.md ---------------------------------------------------------------------------------

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*)$")
_SECTION = re.compile(r"^section[ \t]+(\d{1,6})\b", re.IGNORECASE)
_PATH = re.compile(r"`([^`]+)`")
# `- [ ] \`src/a.ts\` — entry point` (OCR's checkbox list form)
_CHECKBOX = re.compile(r"^[-*+] ?\[[ xX]\] ?`([^`]+)`(.*)$")
_CHANGE = re.compile(r"\+(\d{1,9}) ?/ ?-(\d{1,9})")
_COUNT_CELL = re.compile(r"^\+?(\d{1,9}) ?/ ?-?(\d{1,9})$")
_RULE_CELL = re.compile(r"^:?-{1,}:?$")
# Headings that are not review sections (OCR's dashboard's `isMetaHeading`: a title that
# starts with one of these, case-insensitive).
_META_HEADINGS = (
    "executive summary", "how to use this map", "smoke tests", "manual verification",
    "unrelated changes", "file index", "requirements summary", "manual review suggestions",
    "reviewer checklist", "map metadata", "key approaches", "assumptions made",
    "critical path tests", "edge case tests", "error handling tests", "non-functional checks",
    "test environment notes", "coverage matrix", "unaddressed requirements",
    "questions for author", "questions & clarifications", "requirements coverage",
    "critical review focus", "critical review points", "critical path", "edge cases",
    "non-functional", "security-sensitive areas", "architectural decisions to verify",
    "requirements verification points", "file review", "section dependencies", "sections",
    "verification", "manual review", "completion",
)  # fmt: skip


def _table_file(line: str) -> MapFile | None:
    """A table row's file, in the shapes OCR's dashboard reads: a backticked path in any cell
    (`| [ ] | ``src/a.ts`` | source |`), else a bare path before its role and a `+N/-M`
    count (`| src/a.ts | source | +4/-2 |`); the role is the cell after the path."""
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if all(_RULE_CELL.match(c) or not c for c in cells):
        return None  # the header's rule
    at = next((i for i, c in enumerate(cells) if _PATH.search(c)), None)
    if at is not None:
        m = _PATH.search(cells[at])
        assert m
        path = m.group(1).strip()
    elif len(cells) >= 3 and cells[0] and " " not in cells[0] and _COUNT_CELL.match(cells[2]):
        at, path = 0, cells[0]
    else:
        return None
    if not path:
        return None
    rest = cells[at + 1 :]
    role = next((c for c in rest if c and not _COUNT_CELL.match(c)), None)
    change = next((m for c in rest if (m := _COUNT_CELL.match(c) or _CHANGE.search(c))), None)
    added, deleted = (int(change.group(1)), int(change.group(2))) if change else (None, None)
    return MapFile(path=path, role=role, added=added, deleted=deleted)


def _checkbox_file(line: str) -> MapFile | None:
    """`- [ ] ``src/a.ts`` — entry point +12/-3`: the file, its role, its change."""
    m = _CHECKBOX.match(line)
    if not m or not m.group(1).strip():
        return None
    role = m.group(2).strip().lstrip("—–-:").strip()
    change = _CHANGE.search(role)
    added, deleted = (int(change.group(1)), int(change.group(2))) if change else (None, None)
    if change:
        role = (role[: change.start()] + role[change.end() :]).strip(" ,;·()")
    return MapFile(path=m.group(1).strip(), role=role or None, added=added, deleted=deleted)


def from_markdown(text: str) -> RunMap | None:
    """The review sections of a map.md, read as OCR's dashboard reads them (its map parser):
    every `##` / `###` heading that is not one of its metadata headings (`Executive Summary`,
    `File Review`, `Manual Verification`, ...) starts a section, numbered by its `Section N`
    or else by its place among them (OCR's numbering, which ocr.db's reviewed marks use); its
    files are the rows of its tables (`_table_file`) and its checkbox list items
    (`_checkbox_file`). A heading with no file under it and no `Section N` is no section here.
    (The Done column's ticks are not read: what was reviewed comes from ocr.db alone, the
    record OCR's dashboard keeps, so every output counts it alike.)"""
    sections: list[MapSection] = []
    current: tuple[int, str, bool] | None = None  # (number, title, numbered)
    files: list[MapFile] = []
    counter = 0

    def close() -> None:
        if current is None or len(sections) >= MAX_SECTIONS:
            return
        if files or current[2]:
            sections.append(MapSection(number=current[0], title=current[1], files=tuple(files)))

    for raw in text.splitlines():
        line = raw.strip()
        h = _HEADING.match(line)
        if h:
            level = len(h.group(1))
            if level not in (2, 3):
                continue
            title = h.group(2).strip().strip("#").strip()
            close()
            current, files = None, []
            bare = title.lower().lstrip("*_ ")
            if bare.startswith(_META_HEADINGS):
                continue
            counter += 1
            m = _SECTION.match(title.lstrip("*_ "))
            number = int(m.group(1)) if m else counter
            current = (number, clean_title(title.strip("*_ ")) or title, m is not None)
            continue
        if current is None or len(files) >= MAX_FILES:
            continue
        found = _table_file(line) if line.startswith("|") else _checkbox_file(line)
        if found is not None:
            files.append(found)
    close()
    if not sections:
        return None
    return RunMap(sections=tuple(sections), origin="map.md")


# --- the user's progress (ocr.db) -----------------------------------------------------------


def with_progress(run: RunMap, reviewed: set[tuple[int, str]]) -> RunMap:
    """`run` with each file's reviewed mark from ocr.db (`reviewed`: (section number, file
    path) the user marked reviewed)."""
    sections = tuple(
        MapSection(
            number=s.number,
            title=s.title,
            description=s.description,
            files=tuple(
                MapFile(f.path, f.role, f.added, f.deleted, (s.number, f.path) in reviewed)
                for f in s.files
            ),
        )
        for s in run.sections
    )
    return RunMap(sections, run.dependencies, run.origin, run.problems)
