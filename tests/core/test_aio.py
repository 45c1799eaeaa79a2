"""The asyncio helpers never lose a cancellation (Python 3.11's wait_for did, when the awaited
thing completed in the same loop pass: a re-armed watch then waited forever for its old pump)."""

from __future__ import annotations

import asyncio

import pytest

from ocr_tui.core.aio import cancel_and_wait, wait_event


async def test_a_cancel_that_arrives_as_the_event_is_set_is_kept() -> None:
    ev = asyncio.Event()
    task = asyncio.create_task(wait_event(ev, 10))
    await asyncio.sleep(0)  # waiting now
    ev.set()  # ...and, in the same pass of the loop, cancelled
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task


async def test_wait_event_times_out_and_sees_a_set_event() -> None:
    ev = asyncio.Event()
    assert await wait_event(ev, 0.01) is False
    ev.set()
    assert await wait_event(ev, 0.01) is True


async def test_cancel_and_wait_ends_a_task_that_swallowed_a_cancel() -> None:
    swallowed = 0

    async def stubborn() -> None:
        nonlocal swallowed
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed += 1  # as a wait_for that returned a result instead

    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    await asyncio.wait_for(cancel_and_wait([task], step=0.01), 5)
    assert task.cancelled() and swallowed == 1
