"""ocr-tui: a live terminal dashboard for Open Code Review sessions."""

__version__ = "0.1.0"
