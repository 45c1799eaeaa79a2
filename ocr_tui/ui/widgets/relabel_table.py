"""RelabelTable: a FitTable whose header labels change with the width (`Blockers` → `Blk`)
and are measured as shown: FitTable sizes its columns by the labels it was built with, so a
short label kept the room of the long one."""

from __future__ import annotations

from textual.widgets.data_table import ColumnKey

from ocr_tui.ui.widgets.format_panes import FitTable


class RelabelTable(FitTable):
    def set_labels(self, labels: dict[str, str]) -> None:
        self._column_spec = tuple((key, labels.get(key, label)) for key, label in self._column_spec)
        super().set_labels(labels)

    def label_of(self, key: str) -> str:
        """The label a column shows now (tests)."""
        column = self.columns.get(ColumnKey(key))
        return str(column.label) if column is not None else ""
