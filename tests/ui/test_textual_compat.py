"""The private names of Textual that ocr-tui relies on (all in `ocr_tui/ui/textual_compat.py`)
still exist, with the shape used there: an upgrade of the pinned Textual that moves one fails
here, by name."""

from __future__ import annotations

import importlib
import inspect

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widgets import DataTable, Static
from textual.widgets._toast import ToastRack

from ocr_tui.ui import textual_compat as tc

METHODS = [
    (App, "_refresh_notifications", ["self"]),
    (App, "_check_action_state", ["self", "action", "default_namespace"]),
    (App, "_parse_action", ["self", "action", "default_namespace", "namespaces"]),
    (Screen, "_get_breakpoint_classes", ["self", "dimension", "breakpoints"]),
    (ToastRack, "_toast_id", ["notification"]),
    (DataTable, "_clear_caches", ["self"]),
    (DataTable, "_update_dimensions", ["self", "new_rows"]),
    (DataTable, "_update_column_widths", ["self", "updated_cells"]),
]


@pytest.mark.parametrize(
    ("cls", "name", "params"), METHODS, ids=lambda v: getattr(v, "__name__", v)
)
def test_private_methods_keep_their_shape(cls, name, params):
    method = getattr(cls, name, None)
    assert method is not None, f"{cls.__name__}.{name} is gone: see ui/textual_compat.py"
    assert list(inspect.signature(method).parameters) == params


def test_the_modules_and_properties_used_are_there():
    assert isinstance(inspect.getattr_static(Screen, "_modal_binding_chain"), property)
    for module, names in {
        "textual._segment_tools": ["line_crop"],
        "textual.drivers._writer_thread": ["WriterThread"],
        "textual.widgets._footer": ["FooterKey"],
        "textual.widgets._toast": ["ToastRack", "ToastHolder"],
    }.items():
        found = importlib.import_module(module)
        assert all(hasattr(found, n) for n in names), (module, names)
    for module, cls, name in tc.OVERRIDDEN:
        assert hasattr(getattr(importlib.import_module(module), cls), name), (cls, name)


async def test_the_attributes_used_are_there_on_live_objects():
    """Instance attributes (set in Textual's __init__): read through the compat functions."""

    class One(App[None]):
        def compose(self):
            yield DataTable()
            yield Static("x", markup=False)

    app = One()
    async with app.run_test() as pilot:
        table = app.query_one(DataTable)
        table.add_column("a")
        table.add_row("1")
        await pilot.pause()
        assert tc.render_markup(app.query_one(Static)) is False
        assert tc.notifications(app) is not None
        assert tc.driver(app) is not None
        assert isinstance(table._update_count, int) and hasattr(table, "_offset_cache")
        assert hasattr(table, "_require_update_dimensions")
        tc.table_draws_anew(table)
        tc.table_redrawn_measured(table)
        tc.table_measure_later(table)
        tc.table_forget_offsets(table)
        chain = list(tc.modal_binding_chain(app.screen))
        assert chain and all(len(link) == 2 for link in chain)
        assert tc.breakpoint_classes(app.screen, 100, [(0, "-narrow"), (80, "-wide")]) == {"-wide"}
