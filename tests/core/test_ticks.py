"""`core.ticks.next_change`: the next instant a time's text changes, exactly."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import example, given, settings
from hypothesis import strategies as st

from ocr_tui.core.ticks import MAX_WAIT, next_change
from ocr_tui.core.timeutil import human_duration, human_relative

TINY = timedelta(microseconds=1)  # (an instant is tried a microsecond after its boundary)
NOW = datetime(2026, 11, 28, 18, 0, 0, 250_000, tzinfo=UTC)
offsets = st.floats(min_value=-3 * 86400, max_value=40 * 86400, allow_nan=False)


def texts_of(origins: list[datetime]):
    def text_at(t: datetime) -> tuple[str, ...]:
        out = []
        for i, o in enumerate(origins):
            s = (t - o).total_seconds()
            out.append(human_duration(s) if i % 2 else human_relative(s))
        return tuple(out)

    return text_at


@settings(max_examples=1000, deadline=None)
@given(st.lists(offsets, min_size=1, max_size=4), st.floats(0, 1))
@example(ago=[3600.0, -60.0], frac=0.0)  # a time ahead: `0s` until a second past it
@example(ago=[3600.0, -120.0], frac=0.0)
@example(ago=[-86400.0 * 2], frac=0.5)
def test_the_text_holds_until_the_instant_it_changes(ago: list[float], frac: float) -> None:
    now = NOW + timedelta(seconds=frac)
    origins = [now - timedelta(seconds=a) for a in ago]
    text_at = texts_of(origins)
    due = next_change(text_at, origins, now, horizon=timedelta(hours=2))
    assert now < due <= now + timedelta(hours=2)
    shown = text_at(now)
    # every whole-second step before it (and just before it) says the same
    step, t = timedelta(seconds=1), now
    while t + step < due - TINY and t - now < timedelta(minutes=10):
        t += step
        assert text_at(t) == shown, (t, due)
    assert text_at(max(now, due - 2 * TINY)) == shown
    if due < now + timedelta(hours=2):
        assert text_at(due) != shown


def test_seconds_tick_every_second_minutes_every_minute() -> None:
    origin = NOW - timedelta(seconds=30)
    text_at = texts_of([origin, origin])
    assert next_change(text_at, [origin], NOW) == origin + timedelta(seconds=31) + TINY
    origin = NOW - timedelta(minutes=30, seconds=10)  # "30m ago", "30m"
    due = next_change(texts_of([origin, origin]), [origin], NOW)
    assert due == origin + timedelta(minutes=31) + TINY


def test_nothing_within_the_horizon_is_the_horizon() -> None:
    origin = NOW - timedelta(days=3, hours=2)  # "3d ago": the next change in hours
    assert next_change(texts_of([origin]), [origin], NOW) == NOW + MAX_WAIT
