"""A small journal of the user's marks not yet known to be safe in the file they were
written to, kept outside the user's tree (`$OCR_TUI_STATE_DIR`, else
`$XDG_STATE_HOME/ocr-tui`, else `~/.local/state/ocr-tui`), one file per target file.

A mark stays until a read of the file, at least `GRACE_S` after it was written, shows it
there (by then any writer that had read the file before our write has written too), or until
something newer replaced it. A writer that read an older version and dropped it is answered
by writing the mark again. Several ocr-tui processes share a journal: each change of it is
made under an exclusive `flock` of a lock file beside it.

Format-neutral: entries are msgpack-encodable objects the caller's format defines.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec

GRACE_S = 5.0
SCHEMA = 1
MAX_ENTRIES = 10_000


class Entry(msgspec.Struct, kw_only=True):
    mark: msgspec.Raw  # the format's mark, msgpack
    key: str  # what it marks: a newer mark of the same key replaces it
    written: float  # time.time() of the last write of it


def state_dir() -> Path:
    env = os.environ.get("OCR_TUI_STATE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "state"
    )
    return Path(base) / "ocr-tui"


def journal_path(target: Path) -> Path:
    digest = hashlib.sha256(os.fsencode(os.path.abspath(target))).hexdigest()[:20]
    return state_dir() / f"journal-{digest}.msgpack"


_DEC = msgspec.msgpack.Decoder(tuple[int, str, list[Entry]])
_ENC = msgspec.msgpack.Encoder()


class Journal:
    """The journal of marks written to `target` (see the module)."""

    def __init__(self, target: Path) -> None:
        self.target = Path(os.path.abspath(target))
        self.path = journal_path(target)

    @contextmanager
    def _locked(self) -> Iterator[list[Entry]]:
        """The entries, under the lock; what the block leaves in the list is saved."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        lock = os.open(self.path.with_suffix(".lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC,
                       0o600)  # fmt: skip
        try:
            fcntl.flock(lock, fcntl.LOCK_EX)
            entries = self._read()
            before = list(entries)
            yield entries
            if entries != before:
                self._write(entries[-MAX_ENTRIES:])
        finally:
            os.close(lock)

    def _read(self) -> list[Entry]:
        try:
            schema, target, entries = _DEC.decode(self.path.read_bytes())
        except (OSError, msgspec.DecodeError, ValueError):
            return []
        return entries if schema == SCHEMA and target == str(self.target) else []

    def _write(self, entries: list[Entry]) -> None:
        if not entries:
            try:
                os.unlink(self.path)
            except OSError:
                pass
            return
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        with open(tmp, "wb") as fh:
            fh.write(_ENC.encode((SCHEMA, str(self.target), entries)))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)

    def add(self, key: str, mark: bytes, written: float | None = None) -> None:
        """Keep `mark` (msgpack bytes); an earlier mark of the same `key` is dropped."""
        entry = Entry(mark=msgspec.Raw(mark), key=key, written=written or time.time())
        # `written` 1.0 (long ago): never written yet, due at the next settle.
        with self._locked() as entries:
            entries[:] = [e for e in entries if e.key != key] + [entry]

    def drop(self, key: str, mark: bytes) -> None:
        """Forget the entry of `key` if it still holds `mark` (not a newer one)."""
        with self._locked() as entries:
            entries[:] = [e for e in entries if not (e.key == key and bytes(e.mark) == mark)]

    def pending(self) -> list[Entry]:
        if not self.path.exists():
            return []
        with self._locked() as entries:
            return list(entries)

    def settle(self, judge: Callable[[Entry], str], now: float | None = None) -> list[Entry]:
        """Judge each entry against the file as it is now (`judge` reads it: "in", "gone" or
        "superseded"); keep those not yet safe; return the gone ones, for the caller to write
        again (it `add`s each one it wrote, which renews it)."""
        if not self.path.exists():
            return []
        now = time.time() if now is None else now
        gone: list[Entry] = []
        with self._locked() as entries:
            keep = []
            for e in entries:
                verdict = judge(e)
                if verdict == "superseded" or (verdict == "in" and now - e.written >= GRACE_S):
                    continue
                if verdict == "gone":
                    gone.append(e)
                keep.append(e)
            entries[:] = keep
        return gone
