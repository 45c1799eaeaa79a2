"""`descending`: a key whose ascending order is the text's descending order, a longer text
before its prefix, for any text (the list's sorts by last activity and start)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from ocr_tui.core.order import descending

texts = st.one_of(
    st.text(alphabet="0123456789-:TZ.+", max_size=25),  # timestamps' characters
    st.text(max_size=12),  # anything, astral characters included
)


@given(st.lists(texts, max_size=12))
def test_its_order_is_the_texts_descending_order(items: list[str]) -> None:
    assert sorted(items, key=descending) == sorted(items, reverse=True)


@given(texts, texts)
def test_equal_keys_are_equal_texts(a: str, b: str) -> None:
    assert (descending(a) == descending(b)) == (a == b)


def test_a_longer_text_comes_before_its_prefix() -> None:
    assert sorted(["2026", "2026-01", ""], key=descending) == ["2026-01", "2026", ""]
