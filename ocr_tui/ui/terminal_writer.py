"""The terminal's writer, made safe for a terminal that went away.

Textual writes to the terminal through one thread fed by a queue of 30 writes. When the
terminal is gone (its window closed, `tmux kill-session`, an ssh link lost) a write raises
(EIO), which ends that thread; the queue then fills, and the next write blocks the event loop
forever: the dashboard neither quit on the hangup nor on SIGTERM, and only SIGKILL ended it.
`SafeWriterThread` keeps taking writes after a failed one and drops them, so the app's own
shutdown runs to its end. Installed in Textual's Linux and Windows drivers by `install`, when
the app picks its driver.
"""

from __future__ import annotations

import sys
from contextlib import suppress

from ocr_tui.ui.textual_compat import WriterThread


class SafeWriterThread(WriterThread):
    """Textual's writer thread, that drops what it cannot write instead of ending."""

    def run(self) -> None:
        get, qsize = self._queue.get, self._queue.qsize
        gone = False
        while True:
            text = get()
            if text is None:
                break
            if gone:
                continue  # the terminal went away: take the writes, write nothing
            try:
                self._file.write(text)
                if qsize() == 0:
                    self._file.flush()
            except (OSError, ValueError):  # EIO on a hung-up terminal; a closed file
                gone = True
        if not gone:
            with suppress(OSError, ValueError):
                self._file.flush()


def install() -> None:
    """Have Textual's drivers write through `SafeWriterThread` (their module's name for
    the thread class is looked up when application mode starts)."""
    from textual.drivers import linux_driver

    if linux_driver.WriterThread is WriterThread:
        linux_driver.WriterThread = SafeWriterThread
    if sys.platform == "win32":
        from textual.drivers import windows_driver

        if windows_driver.WriterThread is WriterThread:
            windows_driver.WriterThread = SafeWriterThread
