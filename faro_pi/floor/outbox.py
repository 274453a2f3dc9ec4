"""The journal read as the floor's outbox: each row as its message, from any row on.

The publisher's own read-only connection to the journal, used from a worker
thread, one call at a time: the daemon's connection, and so the card's path,
is never touched. A row's pack is counted here rather than asked of the
engine: the pack changes only at an event that starts one (its ``new_pack``,
a shuffle) which the rules applied, so the pack after a row is the pack after
the one before it, plus one at such a row.
"""

from __future__ import annotations

import contextlib
import threading
from bisect import bisect_right

from faro_pi.floor.cursor import Mark
from faro_pi.floor.wire import encode_row
from faro_pi.game.codec import TAGS
from faro_pi.service.journal import Entry, Journal

BATCH = 256
"""Rows read at a time: a few milliseconds of work, so a long backlog goes in steps."""


def starts_pack(entry: Entry) -> bool:
    """A row the rules applied whose event starts a new pack, read from its type alone."""
    kind = TAGS.get(entry.event.get("type"))
    return entry.refused is None and kind is not None and kind.new_pack


class Outbox:
    """Rows of one journal as messages, each with its pack, counted from a known mark."""

    def __init__(self, journal: Journal, mark: Mark):
        self.journal = journal
        self.mark = mark
        """A row whose pack is known; every pack after it is counted from it."""
        self.starts: list[int] = []
        """The rows read after the mark that start a pack, in order."""
        self.read_to = mark.seq
        """The last row read (and so the last that, starting a pack, is in :attr:`starts`)."""
        self._lock = threading.Lock()
        """A worker thread still reading when its caller has gone must finish before a close."""

    def head(self) -> int:
        """The journal's last row: its rows are numbered from 1 with no gaps."""
        with self._lock:
            return self.journal.count()

    def read(self, after: int, limit: int = BATCH) -> list[tuple[Mark, bytes]]:
        """Up to ``limit`` rows after row ``after``, in order: each one's mark (the row and
        its pack) and its message."""
        with self._lock:
            return self._read(after, limit)

    def end(self) -> tuple[int, bytes | None]:
        """The journal's last row and its hash, for the state's ``head``."""
        with self._lock:
            last = self.journal.count()
            found = next(self.journal.stored(after=last - 1), None)
        return last, None if found is None else found.hash

    def close(self) -> None:
        with self._lock:
            self.journal.close()

    def _pack_after(self, seq: int) -> int:
        """The pack as it stands after row ``seq``."""
        if seq >= self.mark.seq:
            if seq > self.read_to:
                self._read(self.read_to, seq - self.read_to)
            return self.mark.pack + bisect_right(self.starts, seq)
        back = 0
        with contextlib.closing(self.journal.rows(after=seq)) as rows:
            for entry in rows:
                if entry.id > self.mark.seq:
                    break
                back += starts_pack(entry)
        return self.mark.pack - back

    def _read(self, after: int, limit: int) -> list[tuple[Mark, bytes]]:
        pack = self._pack_after(after)
        out = []
        # The rows are read as they are iterated; the reading ends when the loop does.
        for row in self.journal.stored(after=after):
            if starts_pack(self.journal.entry(row)):
                pack += 1
                if row.id > self.read_to:
                    self.starts.append(row.id)
            self.read_to = max(self.read_to, row.id)
            out.append((Mark(row.id, pack), encode_row(row, pack)))
            if len(out) == limit:
                break
        return out
