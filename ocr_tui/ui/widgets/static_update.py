"""`Static.update` without a layout pass when the widget keeps its size, and border titles
set only when they change.

Textual's `Static.update` re-lays the whole screen out (every widget placed again) in case the
new content is taller or wider; a dashboard whose detail lines change with every event pays
that on each change for nothing. Here the new content's height is computed at the widget's
width first: the same height (or a height fixed by CSS) repaints the widget alone.
"""

from __future__ import annotations

from textual.visual import VisualType, visualize
from textual.widget import Widget
from textual.widgets import Static

from ocr_tui.ui import textual_compat as tc


class LazyStatic(Static):
    """A Static that, while it is hidden (itself or a pane around it), keeps its newest
    content aside and shows it when it is shown: a hidden widget repainted makes Textual
    map the whole screen again at the next frame."""

    _pending: VisualType | None = None

    def on_show(self) -> None:
        if self._pending is not None:
            content, self._pending = self._pending, None
            self.update(content)


def update_static(widget: Static, content: VisualType, *, keep_height: bool = False) -> None:
    """`keep_height`: a shorter content does not shrink the widget (its last lines are left
    blank until the next layout), so text whose height goes up and down with each change (a
    phase's name wrapping or not) lays the screen out once, not on every change."""
    if isinstance(widget, LazyStatic):
        if widget.is_mounted and not shown(widget):
            widget._pending = content
            return
        widget._pending = None
    widget.update(content, layout=_resizes(widget, content, keep_height))


def shown(widget: Widget) -> bool:
    """Whether `widget` and every pane around it are displayed."""
    return all(node.display for node in widget.ancestors_with_self)


def _resizes(widget: Static, content: VisualType, keep_height: bool = False) -> bool:
    """Whether `content` may give `widget` another size (True when unsure)."""
    if not widget.is_mounted:
        return True
    if not shown(widget):
        return False  # not shown: showing it lays the screen out again anyway
    styles = widget.styles
    width = styles.width
    if width is not None and width.is_auto:
        return True  # its width follows its content
    height = styles.height
    if height is not None and not height.is_auto:
        return False  # fixed by CSS (cells, fr, %): the content cannot change it
    size = widget.content_size
    if not size.width:
        return True
    try:
        visual = visualize(widget, content, markup=tc.render_markup(widget))
        height = visual.get_height(styles, size.width)
        return height > size.height if keep_height else height != size.height
    except Exception:
        return True


def set_border_title(widget: Widget, title: str) -> None:
    """`widget.border_title = title`, but only when it changes: Textual repaints the whole
    widget (a pane and its border) on every assignment, the same title or not."""
    if getattr(widget, "_ocr_border_title", None) != title:
        widget._ocr_border_title = title  # type: ignore[attr-defined]
        widget.border_title = title
