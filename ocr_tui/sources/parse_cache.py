"""A persistent cache of parsed markdown (findings, verdicts, file counts), so a second start
on a large history re-reads directory listings but not file contents.

Entries are keyed by (kind, path, size, mtime, ctime, inode): any rewrite changes the key. The
cache lives in the user's cache directory (`$OCR_TUI_CACHE_DIR`, else `$XDG_CACHE_HOME/ocr-tui`,
else `~/.cache/ocr-tui`), never inside the watched tree; `OCR_TUI_CACHE_DIR=off` disables it.
One file per project, replaced atomically.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import msgspec

from ocr_tui.model.view import Counts, Severity

VERSION = 1
KINDS = ("findings", "final", "topology")
MAX_ENTRIES = 500_000


def cache_dir() -> Path | None:
    env = os.environ.get("OCR_TUI_CACHE_DIR")
    if env is not None:
        return None if env.lower() in ("", "off", "0", "none") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ocr-tui"


def cache_file(project_root: Path) -> Path | None:
    d = cache_dir()
    if d is None:
        return None
    root = project_root.resolve()
    try:
        d.resolve().relative_to(root)
        return None  # the cache would be inside the watched tree: never write there
    except ValueError:
        pass
    digest = hashlib.sha256(os.fsencode(root)).hexdigest()[:20]
    return d / f"parse-v{VERSION}-{digest}.msgpack"


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
    else:
        return None
    return [v, list(problems)]


def from_plain(kind: str, plain: list) -> tuple:
    v, problems = plain
    if v is not None:
        if kind == "findings":
            c, h, m, lo, i = v
            v = Severity(critical=c, high=h, medium=m, low=lo, info=i)
        elif kind == "final":
            verdict, counts = v
            if counts is not None:
                b, s, g = counts
                counts = Counts(blockers=b, should_fix=s, suggestions=g)
            v = (verdict, counts)
    return (v, list(problems))


_Entry = tuple[str, str, int, int, int, int, list]  # kind, path, size, mtime, ctime, ino, plain
_DEC = msgspec.msgpack.Decoder(tuple[int, list[_Entry]])
_ENC = msgspec.msgpack.Encoder()


def load(path: Path | None) -> dict[tuple, tuple]:
    """Entries as the in-memory cache keys them: (kind + path, size, mtime, ctime, ino)."""
    if path is None:
        return {}
    try:
        version, entries = _DEC.decode(path.read_bytes())
    except (OSError, msgspec.DecodeError, ValueError, TypeError):
        return {}
    if version != VERSION:
        return {}
    out = {}
    for kind, p, size, mtime, ctime, ino, plain in entries:
        try:
            out[(kind + p, size, mtime, ctime, ino)] = from_plain(kind, plain)
        except (TypeError, ValueError):
            continue
    return out


def save(path: Path | None, cache: dict[tuple, object]) -> bool:
    if path is None:
        return False
    entries = []
    for key, entry in cache.items():
        kp, size, mtime, ctime, ino = key
        for kind in KINDS:
            if kp.startswith(kind + "/") or kp.startswith(kind + os.sep):
                plain = to_plain(kind, entry)  # type: ignore[arg-type]
                if plain is not None:
                    entries.append((kind, kp[len(kind) :], size, mtime, ctime, ino, plain))
                break
        if len(entries) >= MAX_ENTRIES:
            break
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".parse-", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(_ENC.encode((VERSION, entries)))
        os.replace(tmp, path)
        return True
    except OSError:
        return False
