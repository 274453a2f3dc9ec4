"""Log lines that stay one line, whatever a name, a card code or a reader's bytes held."""

from __future__ import annotations

import logging


def one_line(text: str) -> str:
    """Escapes what could forge or garble a log line: newlines, escapes, NUL, any control."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


class OneLine(logging.Formatter):
    """Formats a record's message on one line; a traceback after it keeps its own lines."""

    def formatMessage(self, record: logging.LogRecord) -> str:
        record.message = one_line(record.message)
        return super().formatMessage(record)
