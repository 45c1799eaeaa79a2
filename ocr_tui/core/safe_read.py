"""Capped, non-blocking reads of the small JSON files other formats keep (IO only).

A session file may be huge, a FIFO, a directory or unreadable: none of these may block or crash
a reader. `read_capped` opens with O_NONBLOCK (a FIFO never blocks), reads only regular files
and at most `limit` bytes, and names what went wrong in `problems`. A missing file is not a
problem here: each reader says in its own words what a missing file means.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path

MIB = 1024 * 1024
MAX_JSON = MIB  # a larger file is not decoded
_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def read_capped(
    path: Path | str, name: str, problems: list[str], *, limit: int = MAX_JSON
) -> tuple[bytes | None, os.stat_result | None]:
    """(the bytes of a regular, non-empty file of at most `limit` bytes, its stat), or None
    for the bytes (with a problem unless the file is missing). The bytes are as on disk:
    `ocr_tui.core.textdecode` turns them into text (BOMs, UTF-16)."""
    try:
        fd = os.open(path, _FLAGS)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        problems.append(f"{name} cannot be read ({_why(exc)})")
        try:  # its time still tells when the session last moved
            return None, os.stat(path)
        except OSError:
            return None, None
    st = None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            problems.append(f"{name} is not a regular file")
            return None, st
        with os.fdopen(fd, "rb", closefd=False) as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        problems.append(f"{name} cannot be read ({_why(exc)})")
        return None, st
    finally:
        os.close(fd)
    if len(data) > limit:
        problems.append(f"{name} is larger than {limit // MIB} MiB: not read")
        return None, st
    if not data.strip():
        problems.append(f"{name} is empty")
        return None, st
    return data, st


def read_tail(path: Path | str, limit: int) -> tuple[bytes, bool] | None:
    """The last `limit` bytes of a regular file, and whether it was cut; None when it cannot
    be read (missing, not a regular file, no permission)."""
    try:
        fd = os.open(path, _FLAGS)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as fh:
            size = fh.seek(0, os.SEEK_END)
            start = max(0, size - limit)
            fh.seek(start)
            return fh.read(limit), start > 0
    except OSError:
        return None
    finally:
        os.close(fd)


def inside(path: str, tops: Iterable[str]) -> bool:
    """`path` is one of `tops` or below one of them (plain strings: resolve links first)."""
    return any(path == t or path.startswith(t.rstrip(os.sep) + os.sep) for t in tops)
