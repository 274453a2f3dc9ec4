"""The floor's store: each table's copy of its journal, in a SQLite file of its own.

A copy holds rows 1 to :attr:`Copy.head` of the table's journal, with no gap:
a row is taken only when it is the next one and is sealed to the row before it
in the journal's hash chain (:meth:`faro_pi.floor.wire.Row.follows`), so the
copy is always a whole beginning of one journal: a row of another journal, or a
rewritten one, is never spliced in, and the caller hears of it. A row that
arrives again is taken once (the table sends at least once), and the caller
hears if it is not the row the copy has. Each row keeps the event's JSON
exactly as it came, and its hash, so :func:`export_lines` prints what
``faro-pi export`` prints at the table, byte for byte, and ``faro-pi verify
--against`` holds a journal against the copy row by row.

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
from typing import NamedTuple

from faro_pi.config import TABLE_NAME
from faro_pi.floor.wire import Row
from faro_pi.service.chain import GENESIS
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
    at REAL NOT NULL,
    hash BLOB
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


class Added(NamedTuple):
    """What :meth:`Copy.add` made of a batch of rows."""

    taken: list[Row]
    """The rows that continue the copy, now in it."""
    differs: int | None
    """A row the copy has, that came again and is not the copy's row (the first such)."""
    breaks: int | None
    """The next row, that came and does not continue the copy's chain (and was left out)."""


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
                columns = {row[1] for row in self._db.execute("PRAGMA table_info(rows)")}
                if "hash" not in columns:  # a copy kept before rows came with their hashes
                    self._db.execute("ALTER TABLE rows ADD COLUMN hash BLOB")
            if self._db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                raise StoreError(f"{path}: is not a floor's copy of a table")
            self.head = self._db.execute("SELECT coalesce(max(seq), 0) FROM rows").fetchone()[0]
            self.last = GENESIS if self.head == 0 else self.hash_at(self.head)
            """The hash of the copy's last row, which the next must follow (None: not kept)."""
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: cannot open the copy: {exc}") from exc

    def add(self, rows: Iterable[Row], at: float | None = None) -> Added:
        """Takes the rows that continue the copy, in order (see the module's notes).

        A row the copy has already is checked against it; one past the next
        is left out, and the caller asks the table for the rows between.
        After a copy's last row kept without a hash, the next row is taken on
        its number alone, and the chain is followed from it.
        """
        taken: list[Row] = []
        differs = breaks = None
        last = self.last
        for row in sorted(rows, key=lambda r: r.seq):
            next_seq = self.head + len(taken) + 1
            if row.seq == next_seq:
                if last is None or row.follows(last):
                    taken.append(row)
                    last = row.hash
                elif breaks is None:
                    breaks = row.seq
            elif row.seq < next_seq and differs is None and not self._same(row, taken):
                differs = row.seq
        if taken:
            self._keep(taken, time.time() if at is None else at)
            self.last = last
        if breaks is not None and breaks <= self.head:
            breaks = None  # another row of that number came with it and continues the copy
        return Added(taken, differs, breaks)

    def _keep(self, taken: list[Row], when: float) -> None:
        records = [(r.seq, r.pack, r.event.decode(), r.refused, when, r.hash) for r in taken]
        try:
            with self._db:
                self._db.execute("BEGIN")
                self._db.executemany("INSERT INTO rows VALUES (?, ?, ?, ?, ?, ?)", records)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot keep rows: {exc}") from exc
        self.head += len(taken)

    def _same(self, row: Row, taken: list[Row]) -> bool:
        """Whether a row that came again is the row the copy has (by its hash, when kept)."""
        if taken and row.seq >= taken[0].seq:
            return row.hash == taken[row.seq - taken[0].seq].hash
        kept = self._db.execute("SELECT event, refused, hash FROM rows WHERE seq = ?", (row.seq,))
        event, refused, hashed = kept.fetchone()
        if hashed is not None:
            return hashed == row.hash
        return event.encode() == row.event and refused == row.refused

    def hash_at(self, seq: int) -> bytes | None:
        """The hash of the copy's row ``seq``; None for a row it lacks or kept without one."""
        found = self._db.execute("SELECT hash FROM rows WHERE seq = ?", (seq,)).fetchone()
        return None if found is None else found[0]

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
