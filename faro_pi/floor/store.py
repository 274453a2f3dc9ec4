"""The floor's store: each table's copy of its journal, in a SQLite file of its own.

A copy holds rows 1 to :attr:`Copy.head` of the table's journal, with no gap:
a row is taken only when it is the next one, so the copy is always a whole
beginning of the journal, and a row that arrives again is taken once (the
table sends at least once). Each row keeps the event's JSON exactly as it
came, so :func:`export_lines` prints what ``faro-pi export`` prints at the
table, byte for byte.

Nothing here deletes a row or a file: a table that is removed from the
floor, or never comes back, keeps its copy. The files are in WAL mode with
``synchronous=NORMAL``: a power cut may take the last rows back, and the
table sends them again when the floor asks (the table's own journal is the
durable record; this is its copy).
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from faro_pi.config import TABLE_NAME
from faro_pi.floor.wire import Row
from faro_pi.service.export import export_line
from faro_pi.service.journal import Entry

log = logging.getLogger("faro_pi")

APPLICATION_ID = 0x464C4F52
"""``PRAGMA application_id`` ("FLOR"): a floor's copy, not a table's journal."""

SUFFIX = ".sqlite3"

_SCHEMA = f"""
BEGIN;
CREATE TABLE IF NOT EXISTS rows (
    seq INTEGER PRIMARY KEY,
    pack INTEGER NOT NULL,
    event TEXT NOT NULL,
    refused TEXT,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS status (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    online INTEGER NOT NULL,
    since REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS resume (after INTEGER PRIMARY KEY, state BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS packs (
    pack INTEGER PRIMARY KEY,
    cards TEXT NOT NULL,
    flagged TEXT NOT NULL
);
PRAGMA application_id = {APPLICATION_ID};
COMMIT;
"""


class StoreError(Exception):
    """A copy that can't be opened or read; the message names the file."""


def copy_path(folder: Path, table: str) -> Path:
    if not TABLE_NAME.fullmatch(table):
        raise StoreError(f"{table!r} is not a table's name (a-z, 0-9 and - only)")
    return folder / f"{table}{SUFFIX}"


def tables(folder: Path) -> list[str]:
    """The tables that have a copy in ``folder``, by name."""
    names = (path.name.removesuffix(SUFFIX) for path in folder.glob(f"*{SUFFIX}"))
    return sorted(name for name in names if TABLE_NAME.fullmatch(name))


class Copy:
    """One table's copy, open for writing by the floor (or for reading, by an export)."""

    def __init__(self, path: Path, *, readonly: bool = False):
        self.path = path
        try:
            if readonly:
                uri = path.absolute().as_uri() + "?mode=ro"
                self._db = sqlite3.connect(uri, uri=True, isolation_level=None)
            else:
                # Opened in a worker thread at the floor's start, then used on its loop alone.
                self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
                self._db.execute("PRAGMA journal_mode = WAL")
                self._db.execute("PRAGMA synchronous = NORMAL")
                self._db.executescript(_SCHEMA)
            if self._db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                raise StoreError(f"{path}: is not a floor's copy of a table")
            self.head = self._db.execute("SELECT coalesce(max(seq), 0) FROM rows").fetchone()[0]
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: cannot open the copy: {exc}") from exc
        self._differs_told = False

    def add(self, rows: Iterable[Row], at: float | None = None) -> list[Row]:
        """Takes the rows that continue the copy, in order; returns them.

        A row the copy has already is checked against it; one past the next
        is left out, and the caller asks the table for the rows between.
        """
        taken: list[Row] = []
        for row in sorted(rows, key=lambda r: r.seq):
            next_seq = self.head + len(taken) + 1
            if row.seq == next_seq:
                taken.append(row)
            elif row.seq < next_seq:
                self._check_again(row, taken)
        if taken:
            when = time.time() if at is None else at
            records = [(r.seq, r.pack, r.event.decode(), r.refused, when) for r in taken]
            try:
                with self._db:
                    self._db.execute("BEGIN")
                    self._db.executemany("INSERT INTO rows VALUES (?, ?, ?, ?, ?)", records)
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot keep rows: {exc}") from exc
            self.head += len(taken)
        return taken

    def _check_again(self, row: Row, taken: list[Row]) -> None:
        """A row that came again must be the same row; one that is not is told once."""
        if self._differs_told or (taken and row.seq >= taken[0].seq):
            return
        kept = self._db.execute("SELECT event, refused FROM rows WHERE seq = ?", (row.seq,))
        event, refused = kept.fetchone()
        if event.encode() != row.event or refused != row.refused:
            self._differs_told = True
            log.warning(
                "floor: %s: row %d came again and differs from the copy (a new journal at "
                "the table?); the copy keeps what came first",
                self.path.stem,
                row.seq,
            )

    def rows(self, after: int = 0) -> Iterator[tuple[int, bytes, str | None]]:
        """(seq, event, refused) of the rows after ``after``, in order."""
        cursor = self._db.execute(
            "SELECT seq, event, refused FROM rows WHERE seq > ? ORDER BY seq", (after,)
        )
        while batch := cursor.fetchmany(512):
            for seq, event, refused in batch:
                yield seq, event.encode(), refused

    def entries(self) -> Iterator[Entry]:
        """The copy as the table's journal entries, for :func:`export_line`."""
        cursor = self._db.execute("SELECT seq, at, event, refused FROM rows ORDER BY seq")
        while batch := cursor.fetchmany(512):
            for seq, at, event, refused in batch:
                yield Entry(seq, at, json.loads(event), refused)

    def status(self) -> tuple[bool, float] | None:
        """(online, since) as last heard, or None for a table never heard from."""
        found = self._db.execute("SELECT online, since FROM status").fetchone()
        return None if found is None else (bool(found[0]), found[1])

    def keep_status(self, online: bool, since: float) -> None:
        self._write("INSERT OR REPLACE INTO status VALUES (1, ?, ?)", (int(online), since))

    def resume_point(self) -> tuple[int, bytes] | None:
        """The latest kept state of the table's engine, and the row it follows."""
        return self._db.execute(
            "SELECT after, state FROM resume ORDER BY after DESC LIMIT 1"
        ).fetchone()

    def keep_resume_point(self, after: int, state: bytes) -> None:
        """Keeps the engine's state after row ``after`` (and the two before), so a restart of
        the floor replays only what follows."""
        self._write("INSERT OR REPLACE INTO resume VALUES (?, ?)", (after, state))
        self._write(
            "DELETE FROM resume WHERE after NOT IN "
            "(SELECT after FROM resume ORDER BY after DESC LIMIT 3)"
        )

    def keep_pack(self, pack: int, cards: list[str], flagged: tuple[str, ...]) -> None:
        """A complete pack's order and what its integrity report flagged (nothing: fair)."""
        self._write(
            "INSERT OR REPLACE INTO packs VALUES (?, ?, ?)",
            (pack, " ".join(cards), json.dumps(flagged)),
        )

    def pack_cards(self, pack: int) -> list[str] | None:
        """The order of a complete pack's cards, as codes; None for one not kept."""
        found = self._db.execute("SELECT cards FROM packs WHERE pack = ?", (pack,)).fetchone()
        return None if found is None else found[0].split()

    def integrity(self) -> dict[int, tuple[str, ...]]:
        """What each complete pack's integrity report flagged, by pack."""
        rows = self._db.execute("SELECT pack, flagged FROM packs ORDER BY pack")
        return {pack: tuple(json.loads(flagged)) for pack, flagged in rows}

    def _write(self, sql: str, params: tuple = ()) -> None:
        try:
            self._db.execute(sql, params)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot write: {exc}") from exc

    def close(self) -> None:
        self._db.close()


def export_lines(folder: Path, table: str) -> Iterator[str]:
    """The copy of ``table`` as ``faro-pi export`` prints the table's own journal."""
    path = copy_path(folder, table)
    if not path.exists():
        known = ", ".join(tables(folder)) or "none yet"
        raise StoreError(f"{path}: the floor has no copy of table {table!r} (it has: {known})")
    copy = Copy(path, readonly=True)
    try:
        for entry in copy.entries():
            yield export_line(entry)
    finally:
        copy.close()
