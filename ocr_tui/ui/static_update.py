"""`Static.update` without a layout pass when the widget keeps its size.

Textual's `Static.update` re-lays the whole screen out (every widget placed again) in case the
new content is taller or wider; a dashboard whose detail lines change with every event pays
that on each change for nothing. Here the new content's height is computed at the widget's
width first: the same height (or a height fixed by CSS) repaints the widget alone.
"""

from __future__ import annotations

from textual.visual import VisualType, visualize
from textual.widgets import Static


def update_static(widget: Static, content: VisualType) -> None:
    widget.update(content, layout=_resizes(widget, content))


def _resizes(widget: Static, content: VisualType) -> bool:
    """Whether `content` may give `widget` another size (True when unsure)."""
    if not widget.is_mounted:
        return True
    if not all(node.display for node in widget.ancestors_with_self):
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
        visual = visualize(widget, content, markup=widget._render_markup)
        return visual.get_height(styles, size.width) != size.height
    except Exception:
        return True
