"""The journal as replay lines: what ``faro-pi export`` prints and the console serves.

Each journaled event becomes one line of JSON in the replay vocabulary; a
reading the rules refused keeps its reason in a ``"refused"`` field, so a
replay of the lines refuses it again.

An export checks the hash chain as it goes (:mod:`faro_pi.service.chain`):
it can stop before the first row that does not verify, or print every row and
say where the chain broke.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

from faro_pi.exc import JournalError
from faro_pi.service.chain import Break, Chain
from faro_pi.service.journal import Entry, Journal


def export_line(entry: Entry) -> str:
    """One journal entry as a line of JSON, ``type`` first, ending in a newline."""
    event = {"type": entry.event["type"], **entry.event}
    if entry.refused is not None:
        event = {**event, "refused": entry.refused}
    return json.dumps(event) + "\n"


def export_lines(journal: Journal) -> Iterator[str]:
    """Every entry of the journal in order, as :func:`export_line` writes it (the chain unread:
    the console's export, of a journal its daemon checked when it started)."""
    for entry in journal.rows():
        yield export_line(entry)


class Export:
    """One export of a journal: its lines and, once they are read, where the chain broke.

    ``verified``: stop before the first row that does not verify, rather than
    print it and the rest.
    """

    def __init__(self, journal: Journal, *, verified: bool = False):
        self.journal = journal
        self.verified = verified
        self.broken: Break | None = None
        """The first row that does not verify; None for a whole chain (or a schema-1 journal)."""

    def lines(self) -> Iterator[str]:
        chain = Chain(mark=self.journal.mark()) if self.journal.chained else None
        for row in self.journal.stored():
            if chain is not None and not chain.follow(row) and self.verified:
                break
            yield export_line(self.journal.entry(row))
        if chain is not None:
            self.broken = chain.end()


def main(path: Path, verified: bool, out=None, err=None) -> int:
    """``faro-pi export``: 0 when every row printed verifies, 1 when the chain broke."""
    out, err = out or sys.stdout, err or sys.stderr
    try:
        with Journal.open(path, readonly=True) as journal:
            export = Export(journal, verified=verified)
            out.writelines(export.lines())
    except JournalError as exc:
        print(f"faro-pi: {exc}", file=err)
        return 1
    if not journal.chained:
        print(
            f"faro-pi: {path}: a journal of schema 1 has no hash chain: nothing was verified "
            "(the daemon adds one when it next starts)",
            file=err,
        )
    if export.broken is None:
        return 0
    if verified:
        done = "exported the rows before it only"
    else:
        done = "exported every row all the same; --verified stops before it"
    print(f"faro-pi: {path}: {export.broken}; {done}", file=err)
    return 1
