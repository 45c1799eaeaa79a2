"""`row_painter.plain_cell` draws a cell exactly as Rich's `Styled(Padding(...))` does (the
session list's cells skip Rich's rendering with it)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.padding import Padding
from rich.style import Style
from rich.text import Text
from textual.renderables.styled import Styled
from textual.strip import Strip

from ocr_tui.ui.widgets.row_painter import plain_cell

STYLES = [Style(), Style(color="red"), Style(bold=True), Style(color="#00ff00", italic=True)]
PRE = Style(bgcolor="#101010") + Style.from_meta({"column": 3})
POST = Style.from_color(bgcolor=None)
words = st.text(alphabet="abc 日本·—✓", max_size=8)


def rich_way(text: Text, width: int, pad: int) -> Strip:
    console = Console(width=200, color_system="truecolor", legacy_windows=False)
    options = console.options.update_dimensions(width, 1).update(no_wrap=True)
    line = console.render_lines(
        Styled(Padding(text, (0, pad)), pre_style=PRE, post_style=POST), options
    )[0]
    return Strip(line).simplify()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(words, st.sampled_from(STYLES)), max_size=4),
    st.sampled_from(STYLES),
    st.integers(1, 30),  # (a column 0 wide is not drawn)
    st.integers(0, 2),
)
def test_a_plain_cell_is_drawn_as_rich_draws_it(parts, base, width, pad) -> None:
    text = Text(style=base, no_wrap=True, overflow="ellipsis")
    for part, style in parts:
        text.append(part, style)
    mine = plain_cell(text, width, pad, PRE, POST)
    if text.cell_len > width - 2 * pad:
        assert mine is None  # (Rich cuts it, with an ellipsis)
        return
    assert mine is not None
    assert Strip(mine).simplify() == rich_way(text, width, pad)


def test_other_renderables_are_left_to_rich() -> None:
    assert plain_cell("a string", 20, 1, PRE, POST) is None
    assert plain_cell(Text("named", style="bold"), 20, 1, PRE, POST) is None
