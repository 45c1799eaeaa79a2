"""A terminal that went away (EIO on every write) never blocks the app: the writer thread
takes the writes and drops them, and stopping it returns."""

from __future__ import annotations

import errno
import threading

from textual.drivers import linux_driver
from textual.drivers._writer_thread import MAX_QUEUED_WRITES

from ocr_tui.ui.terminal_writer import SafeWriterThread, install


class GoneTerminal:
    def __init__(self) -> None:
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        raise OSError(errno.EIO, "Input/output error")

    def flush(self) -> None:
        raise OSError(errno.EIO, "Input/output error")

    def fileno(self) -> int:
        return 2


def test_writes_to_a_gone_terminal_never_block() -> None:
    term = GoneTerminal()
    writer = SafeWriterThread(term)  # type: ignore[arg-type]
    writer.start()
    done = threading.Event()

    def write_a_lot() -> None:
        for _ in range(MAX_QUEUED_WRITES * 10):  # Textual's own thread died at the first
            writer.write("\x1b[2J")
        writer.stop()
        done.set()

    threading.Thread(target=write_a_lot, daemon=True).start()
    assert done.wait(10), "a write or stop() blocked"
    assert term.writes == 1  # tried once, then dropped
    assert not writer.is_alive()


def test_the_app_installs_it(app) -> None:
    app.get_driver_class()
    assert linux_driver.WriterThread is SafeWriterThread
    install()  # twice: the same
    assert linux_driver.WriterThread is SafeWriterThread
