"""Where ocr-tui keeps what it caches between starts: the user's cache directory
(`$OCR_TUI_CACHE_DIR`, else `$XDG_CACHE_HOME/ocr-tui`, else `~/.cache/ocr-tui`), one file per
project and kind, never inside the watched tree. `OCR_TUI_CACHE_DIR=off` turns caching off."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

import msgspec

_ENC = msgspec.msgpack.Encoder()
_FAILS = (UnicodeEncodeError, TypeError, ValueError, OverflowError)


def cache_dir() -> Path | None:
    env = os.environ.get("OCR_TUI_CACHE_DIR")
    if env is not None:
        return None if env.lower() in ("", "off", "0", "none") else Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ocr-tui"


def project_file(project_root: Path, name: str) -> Path | None:
    """`{name}-{digest of the project's path}.msgpack` in the cache directory; None when
    caching is off or the directory is inside the project (never write there)."""
    d = cache_dir()
    if d is None:
        return None
    root = project_root.resolve()
    try:
        d.resolve().relative_to(root)
        return None
    except ValueError:
        pass
    digest = hashlib.sha256(os.fsencode(root)).hexdigest()[:20]
    return d / f"{name}-{digest}.msgpack"


def encode_stamped(schema: int, stamp: object, entries: list) -> bytes:
    """`(schema, stamp, entries)` as msgpack; entries that cannot be encoded (e.g. a name not
    valid UTF-8, kept as surrogates) are left out: those are read again every time."""
    try:
        return _ENC.encode((schema, stamp, entries))
    except _FAILS:
        return _ENC.encode((schema, stamp, [e for e in entries if _encodes(e)]))


def _encodes(entry: object) -> bool:
    try:
        _ENC.encode(entry)
        return True
    except _FAILS:
        return False


def write_atomically(path: Path, data: bytes, prefix: str) -> bool:
    """`data` written to a temporary file beside `path`, then renamed over it: a reader sees
    the old file or the new one, never half of one. False when the file system refuses."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return True
    except OSError:
        return False
