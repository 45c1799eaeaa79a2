"""asyncio helpers that stay cancellable.

Python 3.11's `asyncio.wait_for` swallows a cancellation that arrives in the same loop pass as
the awaited thing completing (it returns the result instead: CPython gh-86296, fixed in 3.12
by reimplementing it on `asyncio.timeout`). A task cancelled that way runs on: a watch being
re-armed under a busy agent waited forever for its old inotify pump to end, and the dashboard
stopped updating. `asyncio.timeout` counts cancellations (`Task.uncancel`) and never loses one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable


async def wait_event(event: asyncio.Event, timeout: float) -> bool:
    """`event.wait()` for at most `timeout` seconds; True when it is set."""
    if event.is_set():
        return True
    try:
        async with asyncio.timeout(timeout):
            await event.wait()
    except TimeoutError:
        return False
    return True


async def cancel_and_wait(tasks: Iterable[asyncio.Task], step: float = 0.1) -> None:
    """Cancel `tasks` and wait until each has ended, cancelling again any that went on (a
    cancellation some code swallowed), however they end."""
    tasks = [t for t in tasks if not t.done()]
    while tasks:
        for t in tasks:
            t.cancel()
        await asyncio.wait(tasks, timeout=step)
        tasks = [t for t in tasks if not t.done()]
