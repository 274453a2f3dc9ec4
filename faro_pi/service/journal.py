"""The table's journal: every event, on disk before the table acts on it.

The daemon acknowledges a card to the reader only once its event is journalled,
so a power cut must lose nothing that :meth:`Journal.append` returned for. Each
append is one SQLite transaction in WAL mode with ``synchronous=FULL``: the
write-ahead log is fsynced before the COMMIT returns, and a torn tail of the
log is discarded whole on the next open, never half a row.

Refused readings are journalled too, with the refusal, for the record. The
shoe link's resume point (the last reader frame applied) is written in the
very row of the event its frame produced, so after a restart the link resumes
right after the last frame whose event is on disk. A reader's hello, which
has no event, moves it through the one-row ``link`` table instead.

A journal that can't be read as ours is reported, never reset: faro-pi does
not delete, truncate or recreate an existing file. A 0-byte file is taken as a
new journal: it is what a power cut between creating the file and writing its
schema leaves, and it holds no events (unless a log beside it is not empty,
which is refused).

Stopped cleanly, a journal is one self-contained file (the writer leaves WAL
mode on close), so copying it is a complete backup and a reader needs no
companion files.

Each row is sealed with a hash over the row before it and its own content
(:mod:`faro_pi.service.chain`): the writer checks the chain when it opens,
and refuses a journal in which a row was changed, removed or put in. A resume
point (the table's state after a row, so that a restart need not replay every
row) is written with the row it follows, and that row's hash covers the
point's: a start loads only a point its row seals.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from faro_pi.exc import JournalError
from faro_pi.game.codec import event_to_json
from faro_pi.game.events import Event
from faro_pi.service.chain import START, STORED, Chain, Mark, Stored, kept_hash, read_mark, seal
from faro_pi.service.journal_file import DAMAGE, broken, chain_broken, open_file, unreadable
from faro_pi.service.journal_schema import SCHEMA_VERSION

CHECKPOINT_AFTER = 2000
"""Appends without an idle moment after which an append folds the log back itself."""

_INSERT = (
    "INSERT INTO events (id, at, event, refused, seq, hash, kept) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
_KEEP = "INSERT OR REPLACE INTO resume VALUES (?, ?)"
_KEEP_LAST = (
    "DELETE FROM resume WHERE after NOT IN "
    "(SELECT after FROM resume WHERE after <= ? ORDER BY after DESC LIMIT 3)"
)
"""The point just kept and the two before it stay; so do none past it, which follow no row."""
_POINTS = (
    "SELECT resume.after, resume.state, {kept} FROM resume JOIN events ON events.id = resume.after "
    "ORDER BY resume.after DESC"
)
_LAST = "SELECT id, hash FROM events ORDER BY id DESC LIMIT 1"
_ROWS = (
    "SELECT id, at, CAST(event AS BLOB), CAST(refused AS BLOB) FROM events WHERE id > ? ORDER BY id"
)
_SEQ_RANGE = range(-(2**63), 2**63)
_SET_LINK = "UPDATE link SET seq = ?, after = (SELECT coalesce(max(id), 0) FROM events)"
_LAST_FRAME = "SELECT id, seq FROM events WHERE seq IS NOT NULL ORDER BY id DESC LIMIT 1"

_encoder = json.JSONEncoder(
    separators=(",", ":"), sort_keys=True, ensure_ascii=False, allow_nan=False
)


class Change(NamedTuple):
    """One row to journal: an event, why the rules refused it, and the reader's frame it carries.

    The event is a game event, or its JSON object as it is to be stored.
    """

    event: Event | Mapping[str, Any]
    refused: str | None = None
    """Why the rules refused this reading (it is kept for the record), or None: it applied."""
    link_seq: int | None = None
    """The reader's frame this row applies: the shoe link resumes after it."""


def _encoded(path: Path, at: float, change: Change) -> tuple[float, str, str | None, int | None]:
    """A change as the row :meth:`Journal._insert` writes, or :exc:`JournalError` ``cannot-encode``.

    Everything SQLite would refuse half-way is refused here, before the file
    is touched: text that is not UTF-8 (a lone surrogate), a number JSON has
    no word for (NaN), a frame that is not a 64-bit whole number.
    """
    event, refused, seq = change
    try:
        text = _encoder.encode(event if isinstance(event, Mapping) else event_to_json(event))
        text.encode()
        if refused is not None:
            refused.encode()
        if seq is not None and (type(seq) is not int or seq not in _SEQ_RANGE):
            raise ValueError(f"the link's frame {seq!r} is not a whole number")
    except (ValueError, TypeError) as exc:  # UnicodeEncodeError is a ValueError
        kind = event.get("type") if isinstance(event, Mapping) else type(event).__name__
        raise JournalError(
            f"{path}: cannot journal this {kind!r} ({exc}): the event is not journalled, "
            "and the journal is unchanged",
            "cannot-encode",
        ) from exc
    return at, text, refused, seq


class Point(NamedTuple):
    """A kept resume point: the row it follows, the table's state after it, and the hash that
    row seals of that state (None: a point kept before they were sealed, or put in since)."""

    after: int
    state: bytes
    sealed: bytes | None

    @property
    def matches(self) -> bool:
        """Whether the state is the one its row seals (the row itself is the chain's to check)."""
        return type(self.state) is bytes and kept_hash(self.state) == self.sealed


class Entry(NamedTuple):
    """One journalled event, as a restart replays it and export prints it."""

    id: int
    """The journal's sequence: 1, 2, 3... with no gaps."""
    at: float
    """Wall-clock time (``time.time()``) of the append, for people reading the record."""
    event: dict[str, Any]
    refused: str | None
    """Why the rules refused this reading, or None for an event that was applied."""

    @property
    def row(self) -> tuple[int, dict[str, Any], str | None]:
        """The entry as :func:`faro_pi.game.replay.replay` takes it."""
        return self.id, self.event, self.refused


class Journal:
    """The daemon's one connection to its journal file, or a reader's.

    Only the daemon writes. The connection may be used from a worker thread
    (``asyncio.to_thread``), but calls must not overlap: await one before
    starting the next.
    """

    def __init__(
        self,
        db: sqlite3.Connection,
        path: Path,
        readonly: bool,
        created: bool,
        lock: int | None = None,
        version: int = SCHEMA_VERSION,
    ):
        self._db = db
        self._closed = False
        self.path = path
        self.readonly = readonly
        self.created = created
        """True when this open started a new journal, so the daemon can say so."""
        self.version = version
        """The schema its rows are in: older only for a reader of a journal not yet upgraded."""
        self.chained = version >= 2
        """False for a reader of a schema-1 journal, whose rows have no hashes yet."""
        self._since_checkpoint = 0
        self._lock = lock
        self._checked_after: int | None = None
        """The row after which the open checked the chain already: a replay need not again."""

    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        *,
        readonly: bool = False,
        replay: Callable[[Journal], None] | None = None,
    ) -> Journal:
        """Opens (or, for the writer, creates) the journal at ``path`` after checking it is sound.

        Read-only opens are for ``faro-pi export`` while the daemon runs: they
        create nothing and see every committed event. ``replay`` is a start's:
        the open checks what a start checks (the chain from the writer's mark
        too), then calls it with the journal read-only, before anything is
        written; what it raises refuses the open, and the file is left byte for
        byte as it was. It is not called for a new journal.
        """
        path = Path(path)
        hook = None
        if replay is not None:

            def hook(db: sqlite3.Connection, version: int, checked: int | None) -> None:
                reader = cls(db, path, True, created=False, version=version)
                reader._checked_after = checked
                replay(reader)

        db, lock, fresh, version = open_file(path, readonly, hook)
        return cls(db, path, readonly, created=fresh, lock=lock, version=version)

    def append(
        self,
        changes: Sequence[Change],
        *,
        at: float | None = None,
        resume_point: bytes | None = None,
    ) -> int:
        """Journals ``changes`` in order, in one transaction; returns the last id once committed.

        A crash leaves all the rows or none. A reading comes with what it
        brings (the alarm of frames that never arrived, the alarm of a card
        the rules refused, the clearing of a no-read), so a dealt card is
        never on disk without the alarms that tell the table, nor they twice.
        A change's ``link_seq`` becomes the shoe link's resume point in the
        very row of its event, so the frame and its event are both on disk or
        neither. Every change is encoded before the file is touched: one that
        cannot be (:exc:`JournalError` ``cannot-encode``) leaves it as it was.

        ``resume_point`` is the table's state after the changes, kept in the same
        transaction (with the two before it) and sealed in the last row, whose
        hash covers the point's hash (``kept``): a start loads no other.
        """
        now = time.time() if at is None else at
        lines = [_encoded(self.path, now, change) for change in changes]
        self._since_checkpoint += len(lines)
        if self._since_checkpoint > CHECKPOINT_AFTER:
            self.checkpoint()
        try:
            with self._db:
                self._db.execute("BEGIN")
                return self._insert(lines, resume_point)
        except sqlite3.Error as exc:
            raise JournalError(
                f"{self.path}: cannot append, the event is not journalled: {exc}", "cannot-write"
            ) from exc

    def _insert(self, rows: list[tuple], point: bytes | None) -> int:
        """Inserts ``rows`` (at, text, refused, seq) after the last, each sealed to the one before,
        and the resume point ``point`` after the last of them, sealed in it.

        The last row is read again each time rather than remembered, so a
        rolled-back append can never leave a wrong hash behind for the next.
        """
        if self.readonly:
            raise sqlite3.OperationalError("the journal is open readonly")
        last = Mark(*(self._db.execute(_LAST).fetchone() or START))
        for n, (at, text, refused, seq) in enumerate(rows, start=1):
            at, id = float(at), last.id + 1
            data, why = text.encode(), None if refused is None else refused.encode()
            kept = kept_hash(point) if point is not None and n == len(rows) else None
            last = Mark(id, seal(last.hash, id, at, data, why, seq, kept))
            self._db.execute(_INSERT, (id, at, text, refused, seq, last.hash, kept))
        if point is not None and rows:
            self._db.execute(_KEEP, (last.id, point))
            self._db.execute(_KEEP_LAST, (last.id,))
        return last.id

    def checkpoint(self) -> None:
        """Folds the write-ahead log back into the file, at a quiet moment.

        Appends never do this themselves (until :data:`CHECKPOINT_AFTER`), so
        the copy and its fsync stay off the path of a card's acknowledgement;
        the daemon calls it when the table has been still for a moment.
        """
        if self.readonly or self._closed or self._db.in_transaction:
            return
        try:
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as exc:
            raise JournalError(
                f"{self.path}: cannot fold the log back: {exc}", "cannot-write"
            ) from exc
        self._since_checkpoint = 0

    def set_link_seq(self, seq: int | None) -> None:
        """Moves the shoe link's resume point with no event, as a reader's hello does."""
        try:
            self._db.execute(_SET_LINK, (seq,))
        except sqlite3.Error as exc:
            raise JournalError(
                f"{self.path}: cannot record the link's frame: {exc}", "cannot-write"
            ) from exc

    @property
    def link_seq(self) -> int | None:
        """The last reader frame applied, or None when the link starts afresh."""
        frame = self._read(_LAST_FRAME).fetchone()
        seq, after = self._read("SELECT seq, after FROM link").fetchone()
        if frame is None or after >= frame[0]:
            return seq
        return frame[1]

    def resume_points(self) -> Iterator[Point]:
        """The kept resume points, newest first, each with what its row seals of it; none in a
        journal no writer of this faro-pi has opened, nor any after the journal's last row."""
        sealed = "events.kept" if self.version >= 3 else "NULL"
        try:
            cursor = self._db.execute(_POINTS.format(kept=sealed))
        except sqlite3.OperationalError:
            return  # no resume table yet
        except DAMAGE as exc:
            raise unreadable(self.path, exc) from exc
        yield from map(Point._make, cursor)

    def count(self) -> int:
        return self._read("SELECT count(*) FROM events").fetchone()[0]

    def rows(self, after: int = 0) -> Iterator[Entry]:
        """The entries with ids above ``after``, in order, read as they are iterated.

        A reader opened while the daemon runs sees what was committed when the
        iteration started.
        """
        for rowid, at, text, refused in self._stream(_ROWS, after):
            yield self._entry(rowid, at, text, refused)

    def replayed(self, after: int = 0) -> Iterator[Entry]:
        """The entries after ``after`` as a start replays them: each row, and row ``after``
        itself (whose hash seals the resume point the start loaded), checked first against the
        chain; a break is refused as the writer's open refuses one."""
        if not self.chained:  # schema 1: nothing to check yet
            yield from self.rows(after)
            return
        begin = max(after - 1, 0)
        found = self._read("SELECT hash FROM events WHERE id = ?", (begin,)).fetchone()
        chain = Chain(START if begin == 0 else Mark(begin, found and found[0]))
        checked = self._checked_after
        for row in self.stored(begin):
            if (checked is None or row.id <= checked) and not chain.follow(row):
                raise chain_broken(self.path, chain.broken)
            if row.id > after:
                yield self.entry(row)

    def stored(self, after: int = 0) -> Iterator[Stored]:
        """The rows with ids above ``after`` as they lie in the file, for checking the chain."""
        sql = STORED.format(
            hash="hash" if self.chained else "NULL", kept="kept" if self.version >= 3 else "NULL"
        )
        return map(Stored._make, self._stream(sql, after))

    def entry(self, row: Stored) -> Entry:
        """A stored row read as an entry; a row that is not an event is reported."""
        return self._entry(row.id, row.at, row.event, row.refused)

    def mark(self) -> Mark:
        """The last row the writer checked the chain through, and its hash (see :mod:`.chain`)."""
        try:
            return read_mark(self._db)
        except DAMAGE as exc:
            raise unreadable(self.path, exc) from exc

    def _entry(self, rowid: int, at: float, text: bytes, refused: bytes | None) -> Entry:
        try:
            event = json.loads(text)
        except ValueError:  # not UTF-8 either
            event = None
        if type(event) is not dict or type(event.get("type")) is not str:
            raise broken(self.path, f"row {rowid} is not an event (a JSON object with a type)")
        try:
            return Entry(rowid, at, event, None if refused is None else refused.decode())
        except UnicodeDecodeError:
            raise broken(self.path, f"row {rowid}'s refusal is not UTF-8 text") from None

    def _stream(self, sql: str, after: int) -> Iterator[tuple]:
        cursor = self._read(sql, (after,))
        try:
            while batch := self._fetch(cursor):
                yield from batch
        finally:
            cursor.close()

    def close(self) -> None:
        """Closes the file; the writer first folds the log back into it (see the module's notes)."""
        if self._closed:
            return
        self._closed = True
        try:
            if not self.readonly:
                # A reader still inside keeps the file in WAL mode: fine, and not worth waiting for.
                self._db.execute("PRAGMA busy_timeout = 0")
                with contextlib.suppress(sqlite3.OperationalError):
                    self._db.execute("PRAGMA journal_mode = DELETE")
        finally:
            self._db.close()
            if self._lock is not None:
                os.close(self._lock)  # after SQLite's own descriptor: its locks stay whole
                self._lock = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _read(self, sql: str, params: tuple = ()) -> sqlite3.Cursor:
        try:
            return self._db.execute(sql, params)
        except DAMAGE as exc:
            raise unreadable(self.path, exc) from exc

    def _fetch(self, cursor: sqlite3.Cursor) -> list[tuple]:
        try:
            return cursor.fetchmany(256)
        except DAMAGE as exc:
            raise unreadable(self.path, exc) from exc
