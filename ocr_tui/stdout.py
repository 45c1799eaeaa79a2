"""How a command ends when its output fails, handled once, as git and coreutils do: a reader
that went away (`| head`) ends it quietly, a write error (`> /dev/full`) is one line on stderr
and exit 1, Ctrl-C is a quiet 130 (SIGTERM a quiet 0 for `watch`). Never a traceback for those.
`run_guarded` runs a command so; `ocr_tui.cli.main` runs every command through it."""

from __future__ import annotations

import errno
import os
import sys
from contextlib import suppress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

EXIT_READER_GONE = 0  # `| head` took what it wanted: not an error (as `simulate` does)
EXIT_WRITE_ERROR = 1  # stdout cannot be written (a full disk, an I/O error)
EXIT_INTERRUPTED = 130  # 128 + SIGINT
EXIT_TERMINATED = 0  # SIGTERM (`watch`): a requested stop, as before


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised as Ctrl-C is, so asyncio unwinds the same way."""


def terminate(*_: object) -> None:
    """A SIGTERM handler: raise `Terminated`."""
    raise Terminated


class StdoutGuard:
    """`sys.stdout` while a command runs: it remembers the error a write or flush raised, so
    `run_guarded` tells "stdout cannot be written" from any other OSError. Python leaves
    `sys.stdout` None when fd 1 is closed (`>&-`): writing it is then EBADF, as for coreutils."""

    def __init__(self, stream) -> None:
        self._stream = stream
        self.error: OSError | None = None

    def write(self, text: str) -> int:
        try:
            if self._stream is None:
                raise OSError(errno.EBADF, os.strerror(errno.EBADF))
            return self._stream.write(text)
        except OSError as exc:
            self.error = exc
            raise

    def flush(self) -> None:
        try:
            if self._stream is not None:
                self._stream.flush()
        except OSError as exc:
            self.error = exc
            raise

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def is_output_error(exc: BaseException) -> bool:
    """Writing stdout failed, or its reader went away (any EPIPE means that here)."""
    out = sys.stdout
    return isinstance(exc, BrokenPipeError) or (isinstance(out, StdoutGuard) and out.error is exc)


def drop_output(stream) -> None:
    """Point stdout's fd at /dev/null: what is still buffered, and Python's own flush at exit,
    then go nowhere instead of failing again ("Exception ignored ... BrokenPipeError")."""
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, fd)
    finally:
        os.close(null)


def say(line: str) -> None:
    with suppress(OSError, ValueError):
        print(line, file=sys.stderr, flush=True)


def run_guarded(command: Callable[[], int]) -> int:
    """`command()`, its exit code, with `sys.stdout` guarded while it runs (see the module)."""
    real = sys.stdout
    guard = sys.stdout = StdoutGuard(real)
    leave: SystemExit | None = None
    failure: OSError | None = None
    try:
        try:
            code = command()
        except SystemExit as exc:  # `--help`, a usage error: what it printed is flushed first
            leave, code = exc, 0
        guard.flush()
    except KeyboardInterrupt as exc:
        return EXIT_TERMINATED if isinstance(exc, Terminated) else EXIT_INTERRUPTED
    except OSError as exc:
        if not is_output_error(exc):
            raise
        failure = exc
    finally:
        if sys.stdout is guard:
            sys.stdout = real
    if failure is None:
        failure = guard.error  # also one the writer swallowed (argparse's help does)
    if failure is not None:
        drop_output(real)
        if isinstance(failure, BrokenPipeError):
            return EXIT_READER_GONE
        say(f"ocr-tui: write error: {failure.strerror or failure}")
        return EXIT_WRITE_ERROR
    if leave is not None:
        raise leave
    return code
