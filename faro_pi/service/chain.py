"""The journal's hash chain: each row sealed with the row before it, so a changed row shows.

A leaf: the journal's writer seals and checks rows with it, the export and
``faro-pi verify`` follow it; it imports nothing of faro-pi.

SQLite keeps no checksums: a flipped bit inside an event's text, or a row
edited with the sqlite3 shell (the append-only triggers dropped first), leaves
a file that opens and replays as if nothing happened. So each row of the
journal (from schema 2 on) keeps ``hash``, a SHA-256 over the previous row's
hash and its own content; row 1 follows :data:`GENESIS`. Changing, removing or
putting in any row breaks the chain at that row.

The bytes hashed for row ``n``, in this order (integers big-endian)::

    the hash of row n - 1    32 bytes   GENESIS for row 1
    id                        8 bytes   signed integer
    at                        8 bytes   IEEE 754 double
    len(event)                4 bytes   unsigned: the length of what follows
    event                               the event's JSON text as stored, UTF-8
    refused                   1 byte    0 when NULL (and nothing follows), else 1,
      len(refused)            4 bytes     then the length
      refused                             and the text, UTF-8
    seq                       1 byte    0 when NULL (and nothing follows), else 1,
      seq                     8 bytes     then the signed integer
    kept                                nothing when NULL, else a byte 1,
      kept                   32 bytes     then the SHA-256 of the resume point

``kept`` (schema 3) is the SHA-256 of the table's state kept after the row, a
resume point, written in the same transaction as the row: a start trusts a
resume point only when its bytes hash to the ``kept`` of the row it follows
and that row verifies, so a resume point cannot be changed without changing
its row. A row with no resume point hashes as it did in schema 2.

Checking every row of a year's journal takes seconds, more than a start may
spend, so the writer keeps a mark, the last row it has checked and that row's
hash (table ``verified``). A start checks the rows from the mark on, and every
row it replays (from the row its resume point follows, or from row 1 when it
has none), then moves the mark to the end.
``faro-pi verify`` (:mod:`faro_pi.service.verify`) checks every row from row 1,
and that each kept resume point is the state the rows before it lead to.

What the chain does not do: there is no secret, so whoever can write the file
can change a row and compute every hash after it again. That shows only
against a copy kept elsewhere: the last hash ``faro-pi verify`` prints, or the
floor's copy of the rows.
"""

from __future__ import annotations

import hashlib
import sqlite3
import struct
from collections.abc import Iterable
from typing import NamedTuple

GENESIS = hashlib.sha256(b"faro-pi journal").digest()
"""What row 1 chains from: the hash of the text ``faro-pi journal``."""

_HEAD = struct.Struct(">32sqdI")
_SEQ = struct.Struct(">Bq")


def seal(
    previous: bytes,
    id: int,
    at: float,
    event: bytes,
    refused: bytes | None,
    seq: int | None,
    kept: bytes | None = None,
) -> bytes:
    """The hash of a row, laid out as the module's notes say."""
    data = _HEAD.pack(previous, id, at, len(event)) + event
    data += b"\x00" if refused is None else b"\x01" + len(refused).to_bytes(4, "big") + refused
    data += b"\x00" if seq is None else _SEQ.pack(1, seq)
    if kept is not None:
        data += b"\x01" + kept
    return hashlib.sha256(data).digest()


def kept_hash(state: bytes) -> bytes:
    """What a row seals of the resume point kept after it (its ``kept``)."""
    return hashlib.sha256(state).digest()


class Stored(NamedTuple):
    """One row as it lies in the file: what the chain covers, the text as undecoded bytes."""

    id: int
    at: float
    event: bytes
    refused: bytes | None
    seq: int | None
    hash: bytes | None
    """None in a journal of schema 1, which has no chain."""
    kept: bytes | None
    """The hash of the resume point kept after the row; None for none (and before schema 3)."""


STORED = (
    "SELECT id, at, CAST(event AS BLOB), CAST(refused AS BLOB), seq, {hash}, {kept} "
    "FROM events WHERE id > ? ORDER BY id"
)
"""The rows after a given id; ``{hash}`` is ``hash``, or ``NULL`` in schema 1, and ``{kept}``
is ``kept``, or ``NULL`` before schema 3."""


class Mark(NamedTuple):
    """The last row a check went through, and its hash."""

    id: int
    hash: bytes


START = Mark(0, GENESIS)


class Break(NamedTuple):
    """The first row that does not verify, and what is wrong with it."""

    row: int
    what: str

    def __str__(self) -> str:
        return f"row {self.row} {self.what}"


class Chain:
    """Follows rows in order from a known place and keeps the first that does not verify.

    ``mark`` is a row checked before: reaching it, its hash must still be the
    one noted then, and a journal that ends before it has lost rows.
    """

    def __init__(self, start: Mark = START, mark: Mark = START):
        self.start = start
        """Where the check began: the rows after it are the ones it covers."""
        self.last = start
        """The last row that verified, and its hash."""
        self.mark = mark
        self.broken: Break | None = None

    def follow(self, row: Stored) -> bool:
        """True when ``row`` comes next and verifies; False for it and every row after a break."""
        if self.broken is None:
            self.broken = self._fault(row)
            if self.broken is None:
                self.last = Mark(row.id, row.hash)
        return self.broken is None

    def end(self) -> Break | None:
        """The first break, once the rows are all followed (rows lost at the end count)."""
        if self.broken is None and self.last.id < self.mark.id:
            self.broken = Break(
                self.last.id + 1,
                f"is missing: the journal ends at row {self.last.id}, "
                f"but had reached row {self.mark.id} when it was last verified",
            )
        return self.broken

    def _fault(self, row: Stored) -> Break | None:
        expected = self.last.id + 1
        if row.id != expected:
            more = "" if row.id == expected + 1 else f" (and the rows up to {row.id - 1})"
            return Break(expected, f"is missing{more}: the journal was cut")
        if row.hash is None:
            return Break(row.id, "has no hash")
        try:
            made = seal(self.last.hash, *row[:5], row.kept)
        except (struct.error, TypeError):  # a column of the wrong type
            made = None
        if made != row.hash:
            return Break(row.id, "does not match its hash: it was changed after it was written")
        if row.id == self.mark.id and row.hash != self.mark.hash:
            return Break(
                row.id,
                "is not the row verified before: the rows up to it were rewritten and rehashed",
            )
        return None


def read_mark(db: sqlite3.Connection) -> Mark:
    """The writer's mark, or :data:`START` when there is none (or none that makes sense)."""
    try:
        found = db.execute("SELECT id, hash FROM verified").fetchone()
    except sqlite3.OperationalError:  # no such table: schema 1, or dropped
        return START
    if found is None or type(found[0]) is not int or type(found[1]) is not bytes:
        return START
    if found[0] < 0 or len(found[1]) != len(GENESIS):
        return START
    return Mark(*found)


def since_mark(db: sqlite3.Connection, kept: bool = True) -> Chain:
    """Checks the rows from the writer's mark to the end (a start checks the rows it replays too).

    The row at the mark is checked again from the one before it, so a start
    also sees that row changed, or the rows up to it rehashed, or gone.
    ``kept``: the rows have their ``kept`` column (schema 3).
    """
    mark = read_mark(db)
    begin = max(mark.id - 1, 0)
    found = db.execute("SELECT hash FROM events WHERE id = ?", (begin,)).fetchone()
    if found is None or type(found[0]) is not bytes:  # none, or gone: check every row
        begin, found = 0, (GENESIS,)
    chain = Chain(Mark(begin, found[0]), mark)
    select = STORED.format(hash="hash", kept="kept" if kept else "NULL")
    return follow(chain, _stored(db.execute(select, (begin,))))


def follow(chain: Chain, rows: Iterable[Stored]) -> Chain:
    """Follows ``rows`` until the first break, then ends the chain."""
    for row in rows:
        if not chain.follow(row):
            break
    chain.end()
    return chain


def _stored(cursor: sqlite3.Cursor) -> Iterable[Stored]:
    while batch := cursor.fetchmany(512):
        yield from map(Stored._make, batch)
