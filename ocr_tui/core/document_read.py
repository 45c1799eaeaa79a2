"""Read one session document for display (blocking IO: call it from a worker thread).

The text returned has passed through `safe_block`, so no control sequence from the file can
reach the terminal. At most `MAX_RENDER` bytes are read; binary files, symbolic links and
paths outside the project are refused with a message instead.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import PurePosixPath

from ocr_tui.core.textdecode import decode_text, sniff
from ocr_tui.core.textsafe import safe_block

MAX_RENDER = 512 * 1024


@dataclass(frozen=True)
class DocState:
    rel: str
    status: str  # "ok" | "unchanged" | "deleted" | "binary" | "error"
    key: tuple | None = None  # (size, mtime_ns, inode) of what was read
    text: str | None = None  # safe text (status "ok")
    size: int = 0
    mtime: float | None = None
    truncated: bool = False
    message: str | None = None  # why nothing is shown (error, binary)


def rel_is_safe(rel: str) -> bool:
    """A plain relative path: not absolute, no backslashes or NULs. (`..` is allowed: where it
    leads is checked against the project root by `inside`.)"""
    if not rel or "\\" in rel or "\x00" in rel:
        return False
    return not PurePosixPath(rel).is_absolute()


def inside(path: str, root: str) -> bool:
    """Does `path`, with every symbolic link resolved, stay under `root`?"""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KiB"
    return f"{n / (1024 * 1024):.1f} MiB"


def load_document(
    session_dir: str,
    rel: str,
    known: tuple | None = None,
    *,
    cap: int = MAX_RENDER,
    root: str | None = None,
) -> DocState:
    """Stat `session_dir/rel`; read it unless its (size, mtime, inode) equals `known`.
    `session_dir` may be a session file (its directory is used). The path must stay inside
    `root` (the project; default: the session directory)."""
    if os.path.isfile(session_dir):
        session_dir = os.path.dirname(session_dir)
    path = os.path.join(session_dir, rel)
    if not rel_is_safe(rel) or not inside(path, root or session_dir):
        return DocState(rel=rel, status="error", message="not a path inside the project")
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return DocState(rel=rel, status="deleted")
    except OSError as exc:
        return DocState(rel=rel, status="error", message=f"cannot be read: {exc.strerror or exc}")
    if stat.S_ISLNK(st.st_mode):
        return DocState(rel=rel, status="error", message="is a symbolic link: not followed")
    if not stat.S_ISREG(st.st_mode):
        return DocState(rel=rel, status="error", message="is not a regular file")
    key = (st.st_size, st.st_mtime_ns, st.st_ino)
    if key == known:
        return DocState(rel=rel, status="unchanged", key=key, size=st.st_size, mtime=st.st_mtime)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as fh:
            data = fh.read(cap + 1)
            st = os.fstat(fh.fileno())
    except FileNotFoundError:
        return DocState(rel=rel, status="deleted")
    except OSError as exc:
        return DocState(rel=rel, status="error", message=f"cannot be read: {exc.strerror or exc}")
    key = (st.st_size, st.st_mtime_ns, st.st_ino)
    common = {"rel": rel, "key": key, "size": st.st_size, "mtime": st.st_mtime}
    truncated = len(data) > cap
    if truncated:
        data = data[:cap]
        cut = data.rfind(b"\n", max(0, cap - 4096))
        if cut > 0 and sniff(data)[0] == "utf-8":
            data = data[: cut + 1]
    found: list[str] = []
    text = decode_text(data, rel, found, truncated=truncated)
    if any(p.endswith("looks binary") for p in found):
        return DocState(status="binary", message="looks like a binary file", **common)
    return DocState(status="ok", text=safe_block(text), truncated=truncated, **common)


def read_document(where, rel: str, known: tuple | list | None = None) -> DocState:
    """The read seam's `document` (`core.reads`): a file of the session (a path relative to
    its directory, kept inside its project: `where.root`)."""
    return load_document(where.session_dir, rel, tuple(known) if known else None,
                         root=where.root)  # fmt: skip
