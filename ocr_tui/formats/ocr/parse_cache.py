"""A persistent cache of parsed markdown (findings, verdicts, file counts) and of each round's
distinct findings counted (`tally`), so a second start on a large history re-reads directory
listings but not file contents.

Entries are (kind, session, path within it, stamp, value), one per file (`file_cache`): the
stamp is the file's (size, mtime, ctime, inode), so any rewrite is a miss (a round's counts,
read from several files, are stamped with a digest of every input's path and keys:
`fs.cached_of_many`). Only the sessions a full scan listed are written back. The
file is stamped with the build that wrote it (the program's version, the cache schema and a
digest of the parsers' source): a file from another build is not read, and every entry is
decoded against its kind's type, so a value of another shape is a miss, never a wrong answer.
The cache lives in the user's cache directory (`$OCR_TUI_CACHE_DIR`, else `$XDG_CACHE_HOME/ocr-tui`,
else `~/.cache/ocr-tui`), never inside the watched tree; `OCR_TUI_CACHE_DIR=off` disables it.
One file per project, replaced atomically.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import msgspec

import ocr_tui
from ocr_tui.core.cachedir import encode_stamped, project_file, write_atomically
from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import Counts, Evolution, Severity
from ocr_tui.formats.ocr.files import Tally

SCHEMA = 6  # the layout of the file and of its entries (3: `tally` entries; 4: open blockers;
# 5: counts not known yet, pending evolution; 6: keyed by session and path, one per file)
KINDS = ("findings", "final", "topology", "tally")
MAX_ENTRIES = 500_000
# The modules whose code decides a cached value: a change to any of them is another build.
# Every module of the OCR format but its simulator (a round's counts, `tally`, run the whole
# findings model, whose helpers come and go), and the core's text and view modules.
_PARSERS = ("core/textdecode.py", "core/textsafe.py", "core/view.py")
_FORMAT_DIR = "formats/ocr"


def _parser_files(package: Path) -> list[str]:
    try:
        names = sorted(p.name for p in (package / _FORMAT_DIR).glob("*.py"))
    except OSError:
        names = []
    own = [f"{_FORMAT_DIR}/{n}" for n in names if not n.startswith("sim")]
    return [*_PARSERS, *own]


@functools.cache
def build_stamp() -> str:
    """`{version}/schema-{SCHEMA}/{digest of the parsers' source}`."""
    digest = hashlib.sha256()
    package = Path(ocr_tui.__file__).parent
    for rel in _parser_files(package):
        digest.update(rel.encode())
        try:
            digest.update((package / rel).read_bytes())
        except OSError:  # installed without sources: the version and schema still tell
            pass
    return f"{ocr_tui.__version__}/schema-{SCHEMA}/{digest.hexdigest()[:24]}"


def cache_file(project_root: Path) -> Path | None:
    return project_file(project_root, f"parse-v{SCHEMA}")


def to_plain(kind: str, entry: tuple) -> list | None:
    value, problems = entry
    if kind == "findings":
        v = None if value is None else [value.critical, value.high, value.medium, value.low,
                                        value.info]  # fmt: skip
    elif kind == "final":
        if value is None:
            v = None
        else:
            verdict, counts = value
            v = [verdict, None if counts is None else
                 [counts.blockers, counts.should_fix, counts.suggestions]]  # fmt: skip
    elif kind == "topology":
        v = value
    elif kind == "tally":
        e = value.evolution
        v = [value.findings, value.blockers, None if e is None else
             [e.new, e.open, e.resolved, e.new_blockers, e.resolved_blockers, e.pending,
              e.pending_blockers],
             value.open_blockers]  # fmt: skip
    else:
        return None
    return [v, list(problems)]


_Count = Annotated[int, msgspec.Meta(ge=0)]
_Problems = list[str]
_TYPES = {  # each kind's plain value, exactly
    "findings": tuple[tuple[_Count, _Count, _Count, _Count, _Count] | None, _Problems],
    "final": tuple[tuple[str | None, tuple[_Count, _Count, _Count] | None] | None, _Problems],
    "topology": tuple[_Count | None, _Problems],
    "tally": tuple[
        tuple[
            _Count | None,
            _Count | None,
            tuple[_Count, _Count, _Count | None, _Count, _Count | None, _Count, _Count] | None,
            _Count,
        ],
        _Problems,
    ],
}
_KIND_DEC = {kind: msgspec.msgpack.Decoder(typ) for kind, typ in _TYPES.items()}


def from_plain(kind: str, raw: msgspec.Raw | bytes) -> tuple:
    """An entry's value as the parsers return it; ValidationError when it is not exactly of
    its kind's type (and KeyError for an unknown kind)."""
    v, problems = _KIND_DEC[kind].decode(raw)
    if v is not None:
        if kind == "findings":
            c, h, m, lo, i = v
            v = Severity(critical=c, high=h, medium=m, low=lo, info=i)
        elif kind == "final":
            verdict, counts = v
            if counts is not None:
                b, s, g = counts
                counts = Counts(blockers=b, should_fix=s, suggestions=g)
            v = (None if verdict is None else safe_line(verdict), counts)
        elif kind == "tally":
            findings, blockers, e, open_blockers = v
            evolution = None
            if e is not None:
                n, o, r, nb, rb, p, pb = e
                evolution = Evolution(
                    new=n, open=o, resolved=r, new_blockers=nb, resolved_blockers=rb, pending=p,
                    pending_blockers=pb,
                )  # fmt: skip
            v = Tally(
                findings=findings, blockers=blockers, evolution=evolution,
                open_blockers=open_blockers,
            )  # fmt: skip
    return (v, [safe_line(p) for p in problems])


# kind, session, path within it, stamp (size, mtime, ctime, ino; or a digest), value
_Entry = tuple[str, str, str, tuple[int, int, int, int] | str, msgspec.Raw]
_DEC = msgspec.msgpack.Decoder(tuple[int, str, list[_Entry]])

Loaded = dict[str, dict[tuple[str, str], tuple]]  # session -> (kind, rel) -> (stamp, value)


def load(path: Path | None) -> Loaded:
    """Entries as `file_cache` keeps them: session -> (kind, rel) -> (stamp, value). Nothing
    from a file of another build or layout; no entry whose value is not exactly of its kind's
    type."""
    if path is None:
        return {}
    try:
        schema, stamp, entries = _DEC.decode(path.read_bytes())
    except (OSError, msgspec.DecodeError, ValueError, TypeError, RecursionError):
        return {}  # msgspec.ValidationError is a DecodeError: another layout
    if schema != SCHEMA or stamp != build_stamp():
        return {}
    out: Loaded = {}
    for kind, session, rel, key, raw in entries:
        try:
            value = from_plain(kind, raw)
        except (KeyError, msgspec.DecodeError, TypeError, ValueError, RecursionError):
            continue
        out.setdefault(session, {})[(kind, rel)] = (key, value)
    return out


def save(path: Path | None, cache: Iterable[tuple[str, str, str, object, object]]) -> bool:
    """Write `cache`'s entries, (kind, session, rel, stamp, value), of the kinds kept."""
    if path is None:
        return False
    entries = []
    for kind, session, rel, key, entry in cache:
        if kind not in KINDS:
            continue
        plain = to_plain(kind, entry)  # type: ignore[arg-type]
        if plain is not None:
            entries.append((kind, session, rel, key, plain))
        if len(entries) >= MAX_ENTRIES:
            break
    return write_atomically(path, encode_stamped(SCHEMA, build_stamp(), entries), ".parse-")
