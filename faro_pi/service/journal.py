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
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

from faro_pi.exc import JournalError
from faro_pi.game.events import Event, event_to_json

SCHEMA_VERSION = 1
"""Kept in ``PRAGMA user_version``; a journal from a newer faro-pi is refused, not guessed at."""

APPLICATION_ID = 0x4641524F
"""``PRAGMA application_id`` ("FARO"): tells our journal from any other SQLite file."""

_SCHEMA = f"""
BEGIN;
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    event TEXT NOT NULL,
    refused TEXT,
    seq INTEGER CHECK (seq IS NULL OR typeof(seq) = 'integer')
);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TABLE link (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    seq INTEGER CHECK (seq IS NULL OR typeof(seq) = 'integer'),
    after INTEGER
);
INSERT INTO link (one, seq, after) VALUES (1, NULL, 0);
CREATE TABLE room (pad BLOB);
PRAGMA application_id = {APPLICATION_ID};
PRAGMA user_version = {SCHEMA_VERSION};
COMMIT;
"""

LOG_ROOM = 1 << 20
"""Bytes of write-ahead log made ready at each writer's open (see :func:`_make_room`)."""

CHECKPOINT_AFTER = 2000
"""Appends without an idle moment after which an append folds the log back itself."""

_INSERT = "INSERT INTO events (at, event, refused, seq) VALUES (?, ?, ?, ?)"
_SET_LINK = "UPDATE link SET seq = ?, after = (SELECT coalesce(max(id), 0) FROM events)"
_LAST_FRAME = "SELECT id, seq FROM events WHERE seq IS NOT NULL ORDER BY id DESC LIMIT 1"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_ADVICE = (
    "move it aside and restore a backup or start a new journal; faro-pi never overwrites a journal"
)

_encoder = json.JSONEncoder(
    separators=(",", ":"), sort_keys=True, ensure_ascii=False, allow_nan=False
)


class Entry(NamedTuple):
    """One journalled event, as a restart replays it and export prints it."""

    id: int
    """The journal's sequence: 1, 2, 3... with no gaps."""
    at: float
    """Wall-clock time (``time.time()``) of the append, for people reading the record."""
    event: dict[str, Any]
    refused: str | None
    """Why the rules refused this reading, or None for an event that was applied."""


class Journal:
    """The daemon's one connection to its journal file, or a reader's.

    Only the daemon writes. The connection may be used from a worker thread
    (``asyncio.to_thread``), but calls must not overlap: await one before
    starting the next.
    """

    def __init__(self, db: sqlite3.Connection, path: Path, readonly: bool, created: bool):
        self._db = db
        self._closed = False
        self.path = path
        self.readonly = readonly
        self.created = created
        """True when this open started a new journal, so the daemon can say so."""
        self._since_checkpoint = 0
        self._lock: int | None = None

    @classmethod
    def open(cls, path: str | os.PathLike[str], *, readonly: bool = False) -> Journal:
        """Opens (or, for the writer, creates) the journal at ``path`` after checking it is sound.

        Read-only opens are for ``faro-pi export`` while the daemon runs: they
        create nothing and see every committed event.
        """
        path = Path(path)
        size = _size(path)
        if size is None and readonly:
            raise JournalError(f"{path}: no journal there", "missing")
        if size == 0:
            _check_empty(path, readonly)
        elif size is not None:
            _check_header(path)
        else:
            _make_folder(path.parent)
        try:
            if readonly:
                target = path.absolute().as_uri() + "?mode=ro"
                db = sqlite3.connect(
                    target, uri=True, isolation_level=None, check_same_thread=False
                )
            else:
                db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise JournalError(f"{path}: cannot open the journal: {exc}", "cannot-open") from exc
        lock = None
        try:
            if not readonly:
                lock = _only_writer(path)
            fresh = _verify(db, path)
            if fresh and readonly:
                raise JournalError(f"{path}: holds no journal yet", "empty")
            if not readonly:
                _prepare(db, path, fresh)
        except BaseException:
            db.close()
            if lock is not None:
                os.close(lock)
            raise
        journal = cls(db, path, readonly, created=fresh)
        journal._lock = lock
        return journal

    def append(
        self,
        event: dict[str, Any] | Event,
        refused: str | None = None,
        link_seq: int | None = None,
        *,
        at: float | None = None,
    ) -> int:
        """Journals ``event`` and returns its id once it is durably committed.

        ``link_seq``, when given, becomes the shoe link's resume point in the
        same row, so the frame and its event are both on disk or neither.
        """
        text = _encoder.encode(event if isinstance(event, dict) else event_to_json(event))
        row = (time.time() if at is None else at, text, refused, link_seq)
        self._since_checkpoint += 1
        if self._since_checkpoint > CHECKPOINT_AFTER:
            self.checkpoint()
        try:
            # One row, one statement, one page: the frame rides in its event's row.
            return self._db.execute(_INSERT, row).lastrowid
        except sqlite3.Error as exc:
            raise JournalError(
                f"{self.path}: cannot append, the event is not journalled: {exc}", "cannot-write"
            ) from exc

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

    def count(self) -> int:
        return self._read("SELECT count(*) FROM events").fetchone()[0]

    def rows(self, after: int = 0) -> Iterator[Entry]:
        """The entries with ids above ``after``, in order, read as they are iterated.

        A reader opened while the daemon runs sees what was committed when the
        iteration started.
        """
        cursor = self._read(
            "SELECT id, at, event, refused FROM events WHERE id > ? ORDER BY id", (after,)
        )
        try:
            while batch := self._fetch(cursor):
                for rowid, at, text, refused in batch:
                    try:
                        event = json.loads(text)
                    except ValueError:
                        event = None
                    if type(event) is not dict:
                        raise _broken(self.path, f"row {rowid} is not a JSON object")
                    yield Entry(rowid, at, event, refused)
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
        except _DAMAGE as exc:
            raise _unreadable(self.path, exc) from exc

    def _fetch(self, cursor: sqlite3.Cursor) -> list[tuple]:
        try:
            return cursor.fetchmany(256)
        except _DAMAGE as exc:
            raise _unreadable(self.path, exc) from exc


def _broken(path: Path, what: str, reason: str = "corrupt") -> JournalError:
    return JournalError(f"{path}: {what}; {_ADVICE}", reason)


_DAMAGE = (sqlite3.DatabaseError, MemoryError)
"""What SQLite raises on a damaged file: mostly "malformed", but a wild length
in a damaged page can make it give up for want of memory (SQLITE_NOMEM)."""


def _unreadable(path: Path, exc: BaseException) -> JournalError:
    if isinstance(exc, MemoryError):
        return _broken(
            path, "cannot be read (SQLite ran out of memory, as a damaged page makes it)"
        )
    return _broken(path, f"cannot be read ({exc})")


def _size(path: Path) -> int | None:
    """The file's size, or None when there is no file; anything but a file is an error."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise JournalError(
            f"{path}: cannot open the journal: {exc.strerror}", "cannot-open"
        ) from exc
    if not path.is_file():
        raise JournalError(f"{path}: is not a file; give the path of a journal file", "not-a-file")
    return stat.st_size


def _check_header(path: Path) -> None:
    """Refuses a file that is not SQLite before SQLite touches it."""
    try:
        with path.open("rb") as file:
            header = file.read(100)
    except OSError as exc:
        raise JournalError(
            f"{path}: cannot open the journal: {exc.strerror}", "cannot-open"
        ) from exc
    if len(header) < 100 or not header.startswith(_SQLITE_MAGIC):
        raise _broken(path, "is not a SQLite database", "not-a-journal")


def _check_empty(path: Path, readonly: bool) -> None:
    """A 0-byte file holds no events, unless a log beside it does: SQLite would delete that log."""
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise _broken(path, f"is empty but its log {wal.name} is not")
    if readonly:
        raise JournalError(f"{path}: holds no journal yet", "empty")


def _verify(db: sqlite3.Connection, path: Path) -> bool:
    """Checks that the file is a sound journal of our schema; True when it is a new, empty database.

    ``PRAGMA quick_check`` reads every page, which is also what a restart's
    replay does next, so it costs little more than warming the cache.
    """
    try:
        objects = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        app = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if not objects and app == 0 and version == 0:
            return True
        if app != APPLICATION_ID or not {"events", "link"} <= objects:
            raise _broken(path, "is a SQLite database but not a faro-pi journal", "not-a-journal")
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"{path}: is a journal of schema {version}, newer than this faro-pi reads "
                f"({SCHEMA_VERSION}); use a newer faro-pi; faro-pi never overwrites a journal",
                "newer-schema",
            )
        if version != SCHEMA_VERSION:
            raise _broken(path, f"has unknown journal schema {version}", "unknown-schema")
        _quick_check(db, path)
        if db.execute("SELECT count(*) FROM link").fetchone()[0] != 1:
            raise _broken(path, "has lost the shoe link's row")
    except _DAMAGE as exc:
        raise _unreadable(path, exc) from exc
    return False


def _quick_check(db: sqlite3.Connection, path: Path) -> None:
    """Runs ``PRAGMA quick_check`` and reports its first finding on one line.

    It finds damage to the file's structure (torn or overwritten pages), not a
    changed byte inside an event's text: SQLite keeps no checksums of its own.
    """
    cursor = db.execute("PRAGMA quick_check")
    findings: list[str] = []
    try:
        for (text,) in cursor:
            findings += (line for line in text.splitlines() if not line.startswith("***"))
    except _DAMAGE:
        if not findings:
            raise
    if findings != ["ok"]:
        more = f", {len(findings) - 1} more findings" if len(findings) > 1 else ""
        raise _broken(path, f"is corrupt (quick_check: {findings[0]}{more})")


def _prepare(db: sqlite3.Connection, path: Path, fresh: bool) -> None:
    """Sets the writer's durability and, on a new journal, writes the schema."""
    try:
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode != "wal":
            raise JournalError(
                f"{path}: this filesystem cannot hold a write-ahead log ({mode})", "no-wal"
            )
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA wal_autocheckpoint = 0")
        if fresh:
            db.executescript(_SCHEMA)
            _sync_folder(path.parent)
        _make_room(db)
    except (sqlite3.Error, OSError) as exc:
        raise JournalError(
            f"{path}: cannot prepare the journal for writing: {exc}", "cannot-prepare"
        ) from exc


def _only_writer(path: Path) -> int:
    """Takes the journal's writer lock, so a second daemon on the same file stops at once.

    An ``flock`` on a descriptor of its own: on Linux it is independent of
    SQLite's record locks, and it goes with the process, even under kill -9.
    """
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise JournalError(
            f"{path}: another faro-pi is writing this journal (is the service running?); "
            "stop it first, or read the journal with faro-pi export",
            "locked",
        ) from None
    return fd


def _make_room(db: sqlite3.Connection) -> None:
    """Writes :data:`LOG_ROOM` bytes through the log once, then folds it back.

    A commit that must grow the log file costs a metadata flush on top of its
    fsync; one that overwrites log space already on disk does not. SQLite
    starts the log again from its beginning after a checkpoint, so a log that
    has once been this long takes the appends that follow at the cost of the
    fsync alone. The pad itself is deleted at once.
    """
    db.execute("CREATE TABLE IF NOT EXISTS room (pad BLOB)")
    db.execute("INSERT INTO room (pad) VALUES (zeroblob(?))", (LOG_ROOM,))
    db.execute("DELETE FROM room")
    db.execute("PRAGMA wal_checkpoint(PASSIVE)")


def _make_folder(folder: Path) -> None:
    """Creates the journal's folder, syncing each new entry so a power cut keeps the path."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    try:
        for new in reversed(missing):
            new.mkdir(exist_ok=True)
            _sync_folder(new.parent)
    except OSError as exc:
        raise JournalError(
            f"{new}: cannot create the journal's folder: {exc.strerror}", "no-folder"
        ) from exc


def _sync_folder(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
