"""The journal as replay lines: what ``faro-pi export`` prints and the console serves.

Each journaled event becomes one line of JSON in the replay vocabulary; a
reading the rules refused keeps its reason in a ``"refused"`` field, so a
replay of the lines refuses it again.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from faro_pi.service.journal import Entry, Journal


def export_line(entry: Entry) -> str:
    """One journal entry as a line of JSON, ``type`` first, ending in a newline."""
    event = {"type": entry.event["type"], **entry.event}
    if entry.refused is not None:
        event = {**event, "refused": entry.refused}
    return json.dumps(event) + "\n"


def export_lines(journal: Journal) -> Iterator[str]:
    """Every entry of the journal in order, as :func:`export_line` writes it."""
    for entry in journal.rows():
        yield export_line(entry)
