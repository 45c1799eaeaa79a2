"""The document screen's keys and their actions: scroll, top and bottom, and the same document of
the round or map run before or after. A mixin of `DocumentScreen` (`self` is the screen)."""

from __future__ import annotations

from textual.binding import Binding
from textual.containers import VerticalScroll

from ocr_tui.core.textsafe import safe_line
from ocr_tui.core.view import Round
from ocr_tui.ui.fmt import round_label
from ocr_tui.ui.navigation import Open, RoundTarget, neighbour_file

KEYS = [
    Binding("j", "scroll(1)", "Down", id="doc.down", show=False),
    Binding("k", "scroll(-1)", "Up", id="doc.up", show=False),
    Binding("g", "top", "Top", id="doc.top", show=False),
    Binding("G", "bottom", "Bottom", id="doc.bottom", show=False),
    Binding("[", "step(-1)", "Prev round", id="doc.prev"),
    Binding("]", "step(1)", "Next round", id="doc.next"),
    Binding("[", "step_run(-1)", "Prev run", id="doc.prev_run"),
    Binding("]", "step_run(1)", "Next run", id="doc.next_run"),
]


class DocumentActions:
    """`action_*` of the document screen's keys, and `show_document`."""

    def action_step_run(self, delta: int) -> None:
        self.action_step(delta)

    def action_scroll(self, lines: int) -> None:
        self.query_one("#doc-scroll", VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_top(self) -> None:
        self.query_one("#doc-scroll", VerticalScroll).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one("#doc-scroll", VerticalScroll).scroll_end(animate=False)

    def show_document(self, rel: str) -> None:
        """Show another file of the same session in this screen."""
        self.rel_path = rel
        self.refresh_bindings()
        self.set_crumbs(self.crumbs())
        self._render_path()
        self.load(known=None)

    def action_step(self, delta: int) -> None:
        view = self.view
        if view is None:
            self.app.bell()
            return
        step = neighbour_file(view.rounds, view.map_runs, self.rel_path, delta)
        if step is None:
            self.app.bell()
            self.notify(
                "A session document: there is no round to step to.", timeout=2, markup=False
            )
        elif step.item is None:
            self.app.bell()
            word = "earlier" if delta < 0 else "later"
            self.notify(f"No {word} {step.kind}.", timeout=2, markup=False)
        elif step.rel is not None:
            self.show_document(step.rel)
        elif isinstance(step.item, Round):  # that round has no such file: go to the round
            rnd = step.item
            name = safe_line(step.name)
            self.notify(f"{round_label(view, rnd)} has no {name}.", timeout=3, markup=False)
            self.post_message(Open(RoundTarget(self.session_id, rnd.number, rnd.path), "step"))
        else:
            name = safe_line(step.name)
            self.notify(f"Map run {step.item.number} has no {name}.", timeout=3, markup=False)
