"""Replace a file another program also replaces whole, without ever replacing a version we
did not read: read it, change it, swap the change in, and check what the swap handed back.

Writers that load a whole file, change it in memory and rename a temporary copy over it (as
OCR's CLI and dashboard do with `ocr.db`) lose each other's writes when two overlap. Here:

1. `read_version` reads the file's bytes once (one consistent version, even while it is being
   replaced).
2. The caller computes the new bytes from exactly those bytes.
3. `swap_in` writes them to a temporary file beside it (same mode, flushed to disk) and, on
   Linux, `renameat2(RENAME_EXCHANGE)`s it with the file: the new bytes take the file's name
   and the version they replaced comes back under the temporary name, in one step. If what
   came back is not the version read (device, inode, size, mtime), another writer replaced
   the file in between: it is swapped straight back (two system calls later) and the change
   is made again on that version. A write that lands before our swap is never lost; the one
   window left is those microseconds, in which another writer would have to *read* the file
   to miss a version.
4. Where the exchange is not available (another OS, a file system without it), the file is
   read again just before a plain rename and the rename is made only if it is unchanged: a
   write landing between that check and the rename (microseconds) is the window left.

What this cannot prevent: a writer that read the file before our swap and renames its own
copy over it afterwards drops our change (it never saw it). The caller keeps its change (a
journal) and writes it again when a later read shows it gone.

Format-neutral: bytes in, bytes out. Never follows a symbolic link.
"""

from __future__ import annotations

import ctypes
import errno
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

RENAME_EXCHANGE = 2
AT_FDCWD = -100
TRY_FOR_S = 3.0  # then `SwapError`: the file keeps changing faster than it can be written
BUSY_WAIT_S = 2.0
NEXT_WAIT_S = 0.01


class SwapError(Exception):
    """The file could not be replaced; `str()` is one plain line saying why. Nothing of ours
    was left behind and the file is as it was."""


class Busy(SwapError):
    """Another writer replaced the file before every one of our swaps for TRY_FOR_S: worth
    trying again later (nothing is wrong with the file)."""


@dataclass(frozen=True)
class Version:
    """One version of the file as read: its bytes, its mode and who it is (device, inode,
    size, mtime): a rename over it makes another file, a write into it changes its mtime."""

    data: bytes
    mode: int
    ident: tuple[int, int, int, int]
    # The file, held open until the version is let go, so that its inode number cannot be
    # given to another file meanwhile (the identity check relies on it).
    held: object = None


def _ident(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def read_version(path: Path, limit: int) -> Version:
    """The file's bytes (at most `limit`), read once through one descriptor. Raises
    FileNotFoundError, SwapError (a link, not a regular file, too big) or OSError."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    fh = os.fdopen(fd, "rb")
    try:
        st = os.fstat(fh.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise SwapError(f"{path.name} is not a regular file")
        data = fh.read(limit + 1)
        after = os.fstat(fh.fileno())
        if len(data) > limit:
            raise SwapError(f"{path.name} is over {limit // (1024 * 1024)} MiB")
        if _ident(after) != _ident(st):
            raise InterruptedError  # written into while read: read it again
    except BaseException:
        fh.close()
        raise
    return Version(data, stat.S_IMODE(st.st_mode), _ident(st), fh)


def _let_go(v: Version | None) -> None:
    if v is not None and v.held is not None:
        v.held.close()  # type: ignore[attr-defined]


_exchange_fn: Callable | None | bool = False  # False: not looked up yet


def _renameat2() -> Callable | None:
    global _exchange_fn
    if _exchange_fn is False:
        try:
            fn = ctypes.CDLL(None, use_errno=True).renameat2
            fn.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                           ctypes.c_uint)  # fmt: skip
            fn.restype = ctypes.c_int
            _exchange_fn = fn
        except (OSError, AttributeError):  # not Linux, or a libc older than glibc 2.28
            _exchange_fn = None
    return _exchange_fn  # type: ignore[return-value]


def exchange(a: Path, b: Path) -> bool:
    """Swap two names atomically; False when this system or file system cannot (the caller
    falls back); OSError for a real failure."""
    fn = _renameat2()
    if fn is None:
        return False
    if fn(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))


def _write_temp(path: Path, data: bytes, mode: int, tag: str) -> Path:
    tmp = path.with_name(f".{path.name}.{tag}-{os.getpid()}-{os.urandom(4).hex()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fchmod(fh.fileno(), mode)
            os.fsync(fh.fileno())
    except BaseException:
        _unlink(tmp)
        raise
    return tmp


def _unlink(p: Path) -> None:
    try:
        os.unlink(p)
    except OSError:
        pass


def _fsync_dir(d: Path) -> None:
    try:
        fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _plain(err: OSError, path: Path) -> str:
    if err.errno == errno.ENOSPC:
        return f"no space left on the device of {path.parent}: nothing written"
    if err.errno in (errno.EACCES, errno.EPERM):
        return f"{path.parent} is not writable: nothing written"
    if err.errno == errno.EROFS:
        return f"{path.parent} is on a read-only file system: nothing written"
    return f"{path.name} could not be written ({err.strerror or err}): nothing written"


def replace_checked(
    path: Path,
    change: Callable[[bytes], bytes],
    *,
    limit: int,
    tag: str = "swap",
    exchange_ok: bool = True,
    busy: Callable[[], bool] | None = None,
    returned: Callable[[bytes, bytes], None] | None = None,
) -> bytes:
    """Replace `path` with `change(its bytes)`, never over a version `change` did not see
    (see the module). `change` raises what it likes to refuse (nothing is written); it may be
    called several times, each time with the newest version. Returns the bytes written.

    `busy()`: whether another writer is in the middle of a write (its temporary file is
    there): the swap waits for it to finish, so that its rename does not land between our
    last check and our swap (on ext4 a rename over a file waits for the new file's data, so
    it takes a while). Waited for at most BUSY_WAIT_S.

    `returned(base, theirs)`: called when an exchange handed back another writer's version
    (`theirs`, renamed over `base`, the version read) and it was put back: the caller makes
    sure no later version loses what `theirs` changed (`core.rowmerge`).

    Raises FileNotFoundError (no file), SwapError (one plain line: cannot be written, kept
    changing for TRY_FOR_S) or what `change` raised."""
    waited_until = time.monotonic() + BUSY_WAIT_S
    deadline = time.monotonic() + TRY_FOR_S
    while time.monotonic() < deadline:
        try:
            seen = read_version(path, limit)
        except InterruptedError:
            continue
        try:
            new = change(seen.data)
            tmp = _write_temp(path, new, seen.mode, tag)
        except OSError as exc:
            _let_go(seen)
            raise SwapError(_plain(exc, path)) from None
        except BaseException:
            _let_go(seen)
            raise
        try:
            ours = _ident(os.lstat(tmp))[:2]
            while busy is not None and busy() and time.monotonic() < waited_until:
                time.sleep(0.0005)
            # The last checks and the swap in one fresh time slice: a writer whose whole
            # write lands between them is what could still come back from the exchange.
            os.sched_yield()
            if busy is not None and busy() and time.monotonic() < waited_until:
                continue
            # Replaced since the read: start again from the new version, nothing exposed.
            now = _ident(os.lstat(path))
            if now != seen.ident:
                _next_quiet(path, now)
                continue
            if exchange_ok and _exchange(tmp, path):
                # `tmp` now names the version our bytes replaced: the one we read, or one
                # renamed over it in the microseconds since the check above.
                if _ident(os.lstat(tmp)) == seen.ident:
                    _fsync_dir(path.parent)
                    return new
                held = _hold(tmp)
                _put_back(tmp, path, ours)
                if returned is not None and held is not None:
                    with held:
                        theirs = held.read(limit + 1)
                    returned(seen.data, theirs)
                elif held is not None:
                    held.close()
                continue
            os.replace(tmp, path)
            _fsync_dir(path.parent)
            return new
        finally:
            _unlink(tmp)
            _let_go(seen)
    raise Busy(f"{path.name} kept changing while it was being written: nothing written yet")


def _next_quiet(path: Path, last: tuple) -> None:
    """After losing a race to another writer: wait (up to NEXT_WAIT_S) for its next version
    to land, so the next try starts right after a write, with the most time before another
    (a writer in a loop otherwise wins every time the file takes us longer than its pause)."""
    until = time.monotonic() + NEXT_WAIT_S
    while time.monotonic() < until:
        time.sleep(0.0002)
        try:
            if _ident(os.lstat(path)) != last:
                return
        except OSError:
            return


def _hold(p: Path):
    try:
        return open(p, "rb")  # noqa: SIM115  (read after the put-back, then closed)
    except OSError:
        return None


def _exchange(tmp: Path, path: Path) -> bool:
    try:
        return exchange(tmp, path)
    except FileNotFoundError:  # the file was removed meanwhile: never create it
        raise
    except OSError as exc:
        raise SwapError(_plain(exc, path)) from None


def _put_back(tmp: Path, path: Path, ours: tuple[int, int]) -> None:
    """Another writer's version came back from the exchange: swap it back at once (the file
    held our unmerged bytes for the time of two system calls). Should a third writer have
    renamed over ours in those microseconds, its version came back instead and goes back,
    the newest."""
    try:
        if not exchange(tmp, path):
            os.replace(tmp, path)
            return
        if _ident(os.lstat(tmp))[:2] != ours:
            exchange(tmp, path)
    except OSError:
        os.replace(tmp, path)
