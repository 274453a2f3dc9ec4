"""The journal's tables, and the one upgrade an older journal gets from its writer.

Schema 2 is schema 1 with the hash chain: a ``hash`` column on ``events``
(see :mod:`faro_pi.service.chain` for what it covers) and the writer's mark in
``verified``. Schema 3 (this one) adds ``kept`` to ``events``: the hash of the
resume point kept after the row, which the row's own hash covers. An older
journal is read as it is; its writer upgrades it in place, once, by
:func:`upgrade`.
"""

from __future__ import annotations

import sqlite3

from faro_pi.service.chain import START, STORED, Mark, Stored, seal

SCHEMA_VERSION = 3
"""Kept in ``PRAGMA user_version``; a journal from a newer faro-pi is refused, not guessed at."""

APPLICATION_ID = 0x4641524F
"""``PRAGMA application_id`` ("FARO"): tells our journal from any other SQLite file."""

_NO_UPDATE = """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;"""
_NO_DELETE = """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;"""

_HASH = "hash BLOB CHECK (length(hash) = 32)"
_KEPT = "kept BLOB CHECK (kept IS NULL OR length(kept) = 32)"

SCHEMA = f"""
BEGIN;
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    event TEXT NOT NULL,
    refused TEXT,
    seq INTEGER CHECK (seq IS NULL OR typeof(seq) = 'integer'),
    {_HASH},
    {_KEPT}
);
{_NO_UPDATE}
{_NO_DELETE}
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
"""A new journal, written in one transaction."""

RESUME_POINTS = "CREATE TABLE IF NOT EXISTS resume (after INTEGER PRIMARY KEY, state BLOB)"
"""The table's state kept after a row, so a restart replays only what follows (derived data:
every one of them can be dropped, and the events alone say the same, only slower). The row
it follows seals its hash (``kept``); one that does not match is never loaded."""

VERIFIED = (
    "CREATE TABLE IF NOT EXISTS verified ("
    "one INTEGER PRIMARY KEY CHECK (one = 1), id INTEGER NOT NULL, hash BLOB NOT NULL)"
)
"""The writer's mark: the last row a check of the chain went through, and its hash. Made
again if it goes: without it, the next start checks every row."""

SET_MARK = "INSERT OR REPLACE INTO verified (one, id, hash) VALUES (1, ?, ?)"


def cannot_upgrade(db: sqlite3.Connection, version: int) -> str | None:
    """What keeps a journal of an older schema from being upgraded as it stands, or None.

    A file that bears traces of a later schema (the mark's table, a ``hash``
    or ``kept`` column) is a journal set back, whose upgrade would chain over
    whatever was changed in it. Schema 1's rows gone (the ids have a hole), or
    a time that is not a number: faro-pi writes neither, so the file was
    changed. Its writer refuses each.
    """
    columns = {column for _, column, *_ in db.execute("PRAGMA table_info(events)")}
    traces = []
    if version == 1 and db.execute(_MARK_TABLE).fetchone():
        traces.append("its verified table")
    if version == 1 and "hash" in columns:
        traces.append("a hash column in its events")
    if "kept" in columns:
        traces.append("a kept column in its events")
    if traces:
        return (
            f"says it is of schema {version} but bears the traces of a later schema "
            f"({', '.join(traces)}): a journal was set back, and faro-pi will not upgrade "
            "over what was changed"
        )
    if version != 1:
        return None
    rows, last, odd = db.execute(
        "SELECT count(*), coalesce(max(id), 0), count(*) FILTER (WHERE typeof(at) != 'real') "
        "FROM events"
    ).fetchone()
    if rows != last:
        return f"has {rows} rows numbered up to {last}: rows were removed"
    if odd:
        return f"has {odd} rows whose time is not a number"
    return None


_MARK_TABLE = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'verified'"


def upgrade(db: sqlite3.Connection, version: int) -> Mark | None:
    """Schema 1 or 2 to 3 in one transaction, over the rows as they stand; returns the new
    mark (None from schema 2: the rows hash as they did, and the mark stands).

    1. ``ALTER TABLE events ADD COLUMN kept BLOB CHECK (kept IS NULL OR length(kept) = 32)``:
       no row has a resume point sealed in it yet, so none hashes otherwise;
    2. from schema 1 only: ``ALTER TABLE events ADD COLUMN hash BLOB CHECK (length(hash) =
       32)``, the append-only trigger on UPDATE dropped, every row's hash written in order
       of id, and the triggers made again, word for word (both, should either have gone);
       then the mark set to the last row and its hash;
    3. ``PRAGMA user_version = 3``.

    A crash before the COMMIT leaves the journal exactly as it was, to be
    upgraded at the next start. The chain vouches for the rows from here on,
    not for what happened to them before; the resume points kept before are
    sealed in no row, so a start replays past them.
    """
    last = None
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(f"ALTER TABLE events ADD COLUMN {_KEPT}")
        if version == 1:
            last = _chain(db)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return last


def _chain(db: sqlite3.Connection) -> Mark:
    """Schema 1's rows chained as they stand, and the mark set to the last (see :func:`upgrade`)."""
    last = START
    db.execute(f"ALTER TABLE events ADD COLUMN {_HASH}")
    db.execute("DROP TRIGGER IF EXISTS events_no_update")
    select = STORED.format(hash="NULL", kept="NULL") + " LIMIT 4096"
    while batch := db.execute(select, (last.id,)).fetchall():
        hashes = []
        for row in map(Stored._make, batch):
            last = Mark(row.id, seal(last.hash, *row[:5]))
            hashes.append((last.hash, row.id))
        db.executemany("UPDATE events SET hash = ? WHERE id = ?", hashes)
    db.execute(_NO_UPDATE)
    db.execute("DROP TRIGGER IF EXISTS events_no_delete")
    db.execute(_NO_DELETE)
    db.execute(VERIFIED)
    db.execute(SET_MARK, last)
    return last
