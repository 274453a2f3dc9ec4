"""The publisher's cursor: the last journal row the broker has acknowledged, kept on disk.

A small file beside the journal, never a table in it: the daemon is the
journal's only writer, and the cursor must not queue behind (or ahead of) a
card's commit. It is written whole under a temporary name and renamed into
place, so a reader sees the old cursor or the new one, and never fsynced: a
cursor that a power cut rolls back, or even loses, only sends rows again,
which the floor takes once (delivery is at least once). It names the broker
and the table it was kept for, so a table moved to another floor, or renamed,
sends its journal from the first row.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import NamedTuple

log = logging.getLogger("faro_pi")

CURSOR_FILE = "floor.cursor"
"""Beside the journal, like the console's token."""


class Mark(NamedTuple):
    """A place in the journal: the row, and the pack as it stands after that row."""

    seq: int
    pack: int


START = Mark(0, 1)
"""Before the first row: the first pack is pack 1."""


class Cursor:
    """The acknowledged place for one broker and table name, read and written whole."""

    def __init__(self, path: Path, broker: str, table: str):
        self.path = path
        self.key = {"broker": broker, "table": table}
        self._lock = threading.Lock()

    def load(self) -> Mark:
        """The kept mark, or :data:`START` (with a line in the log when one was unusable)."""
        try:
            kept = json.loads(self.path.read_text(encoding="utf-8"))
            mark = Mark(kept["seq"], kept["pack"])
            sound = type(mark.seq) is int and type(mark.pack) is int and mark.seq >= 0
        except FileNotFoundError:
            return START
        except (OSError, ValueError, TypeError, KeyError) as exc:
            log.warning(
                "floor: %s is unreadable (%s); sending the journal from row 1", self.path, exc
            )
            return START
        if not sound or mark.pack < 1:
            log.warning(
                "floor: %s holds no sound cursor; sending the journal from row 1", self.path
            )
            return START
        if {k: kept.get(k) for k in self.key} != self.key:
            log.info("floor: a new broker or table name; sending the journal from row 1")
            return START
        return mark

    def save(self, mark: Mark) -> None:
        """Writes ``mark`` whole (see the module's notes); OSError if it can't."""
        spare = self.path.with_name(f".{self.path.name}.{os.getpid()}")
        text = json.dumps({**self.key, "seq": mark.seq, "pack": mark.pack}) + "\n"
        with self._lock:
            try:
                spare.write_text(text, encoding="utf-8")
                os.replace(spare, self.path)
            except OSError:
                spare.unlink(missing_ok=True)
                raise
