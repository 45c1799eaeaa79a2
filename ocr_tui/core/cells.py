"""Text cut to a number of terminal cells (wide characters count two): one set of helpers for
the screens and the readable commands alike. Text in, text out: the caller has made it
escape-safe. No Textual (Rich's cell widths only)."""

from __future__ import annotations

from rich.cells import cell_len


def take(text: str, cells: int) -> str:
    """The longest start of `text` that fits in `cells` terminal cells."""
    used = 0
    for i, ch in enumerate(text):
        used += cell_len(ch)
        if used > cells:
            return text[:i]
    return text


def pad(text: str, width: int) -> str:
    """`text` padded with spaces to `width` cells (`str.ljust` counts characters: a column of
    names with a wide one in it would not line up)."""
    return text + " " * max(0, width - cell_len(text))


def clip_end(text: str, width: int) -> str:
    """`text` in `width` cells, cut at its end with `…` (prose: keep its start)."""
    if cell_len(text) <= width:
        return text
    if width < 1:
        return ""
    return take(text, width - 1) + "…"


def clip_words(text: str, width: int) -> str:
    """`text` in `width` cells: the words that fit whole (`⚠ active stalled` → `⚠ active`),
    else cut at its end."""
    if cell_len(text) <= width:
        return text
    words = text.split(" ")
    for n in range(len(words) - 1, 0, -1):
        start = " ".join(words[:n])
        if cell_len(start) <= width:
            return start
    return clip_end(text, width)


def elide_middle(text: str, width: int, *, head_max: int | None = None) -> str:
    """`text` in `width` cells by dropping its middle: a third of the room to its start (at
    most `head_max` cells), the rest to its end — a path keeps its file name and line
    (`src/…/handlers/auth.py:42`), an id the part that names its branch."""
    if width < 1:
        return ""
    if cell_len(text) <= width:
        return text
    if width < 5:
        return clip_end(text, width)
    head_cells = width - 1 - (width - 1) * 2 // 3
    if head_max is not None:
        head_cells = min(head_cells, head_max)
    head = take(text, head_cells)
    tail = take(text[::-1], width - 1 - cell_len(head))[::-1]
    return head + "…" + tail


def elide_path(text: str, width: int) -> str:
    """`text` (a location: `src/api/routes/users.py:195-213`) in `width` cells by dropping
    whole directories from its middle: the file name and line stay whole, then the directories
    nearest it, then those at its start (`…/api/routes/users.py:195-213`,
    `src/…/notifications.py:265-270`). When even `…/` and the file name do not fit, its end is
    kept (`…ers.py:195-213`)."""
    if cell_len(text) <= width:
        return text
    dirs, sep, name = text.rpartition("/")
    if not sep or cell_len(name) + 2 > width:
        return elide_middle(text, width, head_max=0)
    parts = dirs.split("/")
    head, tail = "", "/" + name
    lo, hi = 0, len(parts)
    while lo < hi and cell_len(head + "…/" + parts[hi - 1] + tail) <= width:
        hi -= 1
        tail = "/" + parts[hi] + tail
    while lo < hi and cell_len(head + parts[lo] + "/…" + tail) <= width:
        head += parts[lo] + "/"
        lo += 1
    return head + "…" + tail
