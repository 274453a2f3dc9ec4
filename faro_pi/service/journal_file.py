"""The journal's file: what is checked before SQLite opens it, and how the writer readies it.

Each check says what it found and what to do: faro-pi reports a file it can't
read as a journal, and never deletes, truncates or recreates one. The writer
alone takes the file's lock, writes the schema of a new journal and syncs the
folders it creates, so a power cut keeps the path.

The writer checks an existing file through a read-only connection first, the
schema, the pages and the hash chain from its mark (:mod:`faro_pi.service.chain`),
and a start replays it there too (:func:`faro_pi.service.restore.start`); only
then is it opened for writing: a journal refused is left exactly as it was.
"""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from faro_pi.exc import JournalError
from faro_pi.service.chain import Break, Mark, since_mark
from faro_pi.service.journal_schema import (
    APPLICATION_ID,
    RESUME_POINTS,
    SCHEMA,
    SCHEMA_VERSION,
    SET_MARK,
    VERIFIED,
    cannot_upgrade,
    upgrade,
)

log = logging.getLogger("faro_pi")

LOG_ROOM = 1 << 20
"""Bytes of write-ahead log made ready at each writer's open (see :func:`_make_room`)."""

_SQLITE_MAGIC = b"SQLite format 3\x00"
_ADVICE = (
    "move it aside and restore a backup or start a new journal; faro-pi never overwrites a journal"
)


class Opened(NamedTuple):
    """A checked journal file, connected and, for the writer, locked and prepared."""

    db: sqlite3.Connection
    lock: int | None
    """The writer's lock (see :func:`_only_writer`), or None for a reader."""
    fresh: bool
    """True when the file held no journal yet (the writer has just written its schema)."""
    version: int
    """The schema its rows are in: older than :data:`SCHEMA_VERSION` (1: no hash chain, 2: no
    resume point sealed in a row) only for a reader of an older journal."""


Replay = Callable[[sqlite3.Connection, int, int | None], None]
"""Reads the checked journal as a start would: a read-only connection, its schema, and the row
after which the chain is checked already (None: none is)."""


def open_file(path: Path, readonly: bool, replay: Replay | None = None) -> Opened:
    """Checks the file at ``path`` and connects to it; the writer creates it if it is missing.

    The writer checks an existing file read-only before it opens it to write,
    the chain from the writer's mark included, and then ``replay`` reads it,
    still read-only: it changes nothing in a journal it refuses, or that
    ``replay`` refuses. A reader given ``replay`` is checked as a start is.
    """
    exists = _check_file(path, readonly)
    if readonly:
        db = _connect(path, True)
        try:
            version = _verify(db, path)
            if version == 0:
                raise JournalError(f"{path}: holds no journal yet", "empty")
            if replay is not None:
                replay(db, version, _check_chain(db, path, version)[1])
        except BaseException:
            db.close()
            raise
        return Opened(db, None, False, version)
    db = None if exists else _connect(path, False)  # SQLite creates the file
    lock = None
    try:
        lock = _only_writer(path)
        version, mark = _check_read_only(path, replay) if exists else (0, None)
        if db is None:
            db = _connect(path, False)
        _prepare(db, path, version, mark)
    except BaseException:
        if db is not None:
            db.close()
        if lock is not None:
            os.close(lock)
        raise
    return Opened(db, lock, version == 0, SCHEMA_VERSION)


def _check_read_only(path: Path, replay: Replay | None) -> tuple[int, Mark | None]:
    """The schema of the journal at ``path`` and the end of its checked chain, read-only.

    Schema 0 is a new journal, an older schema one to upgrade; a journal that can't be read,
    whose chain breaks, or that ``replay`` refuses, is refused.
    """
    db = _connect(path, True)
    try:
        version = _verify(db, path)
        mark, checked_after = _check_chain(db, path, version)
        if replay is not None and version:
            replay(db, version, checked_after)
    finally:
        db.close()
    return version, mark


def _check_chain(
    db: sqlite3.Connection, path: Path, version: int
) -> tuple[Mark | None, int | None]:
    """What the writer checks of the rows: from its mark to the end (schema 2 on), and that an
    older journal can be upgraded as it stands. Returns the end of the checked chain and the
    row it was checked after (None, None for schema 1)."""
    try:
        problem = cannot_upgrade(db, version) if version < SCHEMA_VERSION else None
        chain = since_mark(db, kept=version >= 3) if version >= 2 else None
    except DAMAGE as exc:
        raise unreadable(path, exc) from exc
    if problem is not None:
        raise broken(path, problem)
    if chain is None:
        return None, None
    if chain.broken is not None:
        raise chain_broken(path, chain.broken)
    return chain.last, chain.start.id


def chain_broken(path: Path, where: Break) -> JournalError:
    """The one line for a journal whose chain breaks, naming the row and what to do."""
    return JournalError(
        f"{path}: {where}; faro-pi will not add to this journal: export what verifies "
        "(faro-pi export --verified), then move the file aside, keep it, and start a new "
        "journal",
        "corrupt",
    )


def _check_file(path: Path, readonly: bool) -> bool:
    """What can be told before SQLite touches the file; a writer makes a missing file's folder.

    True when there is a file at ``path``.
    """
    size = _size(path)
    if size is None and readonly:
        raise JournalError(f"{path}: no journal there", "missing")
    if size == 0:
        _check_empty(path, readonly)
    elif size is not None:
        _check_header(path)
    else:
        _make_folder(path.parent)
    return size is not None


def _connect(path: Path, readonly: bool) -> sqlite3.Connection:
    """A connection in autocommit mode; a reader's cannot create or change the file.

    SQLite says only "unable to open database file"; opening the file as it
    would tells why (permission denied, a read-only file system...).
    """
    try:
        if readonly:
            target = path.absolute().as_uri() + "?mode=ro"
            return sqlite3.connect(target, uri=True, isolation_level=None, check_same_thread=False)
        return sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as exc:
        why, existed = str(exc), path.exists()
        try:
            os.close(os.open(path, os.O_RDONLY if readonly else os.O_RDWR | os.O_CREAT, 0o640))
        except OSError as refused:
            why = refused.strerror
        else:
            if not existed:  # SQLite failed for a reason of its own: leave no file behind
                path.unlink(missing_ok=True)
        if existed or readonly:
            message = f"{path}: cannot open the journal: {why}"
        else:
            message = f"{path}: cannot create the journal in {path.parent}: {why}"
        raise JournalError(message, "cannot-open") from exc


def broken(path: Path, what: str, reason: str = "corrupt") -> JournalError:
    return JournalError(f"{path}: {what}; {_ADVICE}", reason)


DAMAGE = (sqlite3.DatabaseError, MemoryError, UnicodeDecodeError)
"""What SQLite raises on a damaged file: mostly "malformed", but a wild length
in a damaged page can make it give up for want of memory (SQLITE_NOMEM), and
an error message quoting a damaged schema's text is not always UTF-8."""


def unreadable(path: Path, exc: BaseException) -> JournalError:
    if isinstance(exc, MemoryError):
        return broken(path, "cannot be read (SQLite ran out of memory, as a damaged page makes it)")
    if isinstance(exc, UnicodeDecodeError):
        return broken(path, "cannot be read (its schema is damaged: it is not even text)")
    return broken(path, f"cannot be read ({exc})")


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
    except ValueError:  # a NUL in the path: no file can have that name
        raise JournalError(
            f"{str(path)!r}: cannot be a journal's path (it holds a NUL character)", "cannot-open"
        ) from None
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
        raise broken(path, "is not a SQLite database", "not-a-journal")


def _check_empty(path: Path, readonly: bool) -> None:
    """A 0-byte file holds no events, unless a log beside it does: SQLite would delete that log."""
    wal = path.with_name(path.name + "-wal")
    if wal.exists() and wal.stat().st_size > 0:
        raise broken(path, f"is empty but its log {wal.name} is not")
    if readonly:
        raise JournalError(f"{path}: holds no journal yet", "empty")


def _verify(db: sqlite3.Connection, path: Path) -> int:
    """Checks that the file is a sound journal of a schema we read, and returns the schema.

    0 is a new, empty database.

    ``PRAGMA quick_check`` reads every page, which is also what a restart's
    replay does next, so it costs little more than warming the cache.
    """
    try:
        objects = {name for (name,) in db.execute("SELECT name FROM sqlite_master")}
        app = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if not objects and app == 0 and version == 0:
            return 0
        if app != APPLICATION_ID or not {"events", "link"} <= objects:
            raise broken(path, "is a SQLite database but not a faro-pi journal", "not-a-journal")
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"{path}: is a journal of schema {version}, newer than this faro-pi reads "
                f"({SCHEMA_VERSION}); use a newer faro-pi; faro-pi never overwrites a journal",
                "newer-schema",
            )
        if not 1 <= version <= SCHEMA_VERSION:
            raise broken(path, f"has unknown journal schema {version}", "unknown-schema")
        _quick_check(db, path)
        if db.execute("SELECT count(*) FROM link").fetchone()[0] != 1:
            raise broken(path, "has lost the shoe link's row")
    except DAMAGE as exc:
        raise unreadable(path, exc) from exc
    return version


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
    except DAMAGE:
        if not findings:
            raise
    if findings != ["ok"]:
        more = f", {len(findings) - 1} more findings" if len(findings) > 1 else ""
        raise broken(path, f"is corrupt (quick_check: {findings[0]}{more})")


def _prepare(db: sqlite3.Connection, path: Path, version: int, mark: Mark | None) -> None:
    """Sets the writer's durability, writes a new journal's schema or upgrades an older one,
    and moves the mark to the end of the chain just checked (see :mod:`.chain`)."""
    try:
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode != "wal":
            raise JournalError(
                f"{path}: this filesystem cannot hold a write-ahead log ({mode})", "no-wal"
            )
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA wal_autocheckpoint = 0")
        if version == 0:
            db.executescript(SCHEMA)
            _sync_folder(path.parent)
        elif version == 1:
            rows = db.execute("SELECT count(*) FROM events").fetchone()[0]
            log.warning(
                "%s: upgrading a journal of schema 1 (%d rows, no hash chain) to schema %d: "
                "every row is chained as it stands now; the chain vouches for the rows from "
                "here on, not for what happened to them before",
                path,
                rows,
                SCHEMA_VERSION,
            )
            mark = upgrade(db, version)
            log.warning("%s: upgraded: %d rows chained, the last is row %d", path, rows, mark.id)
        elif version < SCHEMA_VERSION:
            upgrade(db, version)
            log.info(
                "%s: upgraded from schema %d to %d: each resume point is sealed in the row it "
                "follows from now on; those kept before are replayed past, never loaded",
                path,
                version,
                SCHEMA_VERSION,
            )
        db.execute(RESUME_POINTS)
        db.execute(VERIFIED)
        if mark is not None:
            db.execute(SET_MARK, mark)
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
