"""The journal's tables, and the one upgrade an older journal gets from its writer.

Schema 2 (this one) is schema 1 with the hash chain: a ``hash`` column on
``events`` (see :mod:`faro_pi.service.chain` for what it covers) and the
writer's mark in ``verified``. A schema-1 journal is read as it is; its
writer upgrades it in place, once, by :func:`upgrade`.
"""

from __future__ import annotations

import sqlite3

from faro_pi.service.chain import START, STORED, Mark, Stored, seal

SCHEMA_VERSION = 2
"""Kept in ``PRAGMA user_version``; a journal from a newer faro-pi is refused, not guessed at."""

APPLICATION_ID = 0x4641524F
"""``PRAGMA application_id`` ("FARO"): tells our journal from any other SQLite file."""

_NO_UPDATE = """CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;"""
_NO_DELETE = """CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;"""

_HASH = "hash BLOB CHECK (length(hash) = 32)"

SCHEMA = f"""
BEGIN;
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    event TEXT NOT NULL,
    refused TEXT,
    seq INTEGER CHECK (seq IS NULL OR typeof(seq) = 'integer'),
    {_HASH}
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
every one of them can be dropped, and the events alone say the same, only slower)."""

VERIFIED = (
    "CREATE TABLE IF NOT EXISTS verified ("
    "one INTEGER PRIMARY KEY CHECK (one = 1), id INTEGER NOT NULL, hash BLOB NOT NULL)"
)
"""The writer's mark: the last row a check of the chain went through, and its hash. Made
again if it goes: without it, the next start checks every row."""

SET_MARK = "INSERT OR REPLACE INTO verified (one, id, hash) VALUES (1, ?, ?)"


def cannot_upgrade(db: sqlite3.Connection) -> str | None:
    """What keeps a schema-1 journal's rows from being chained as they stand, or None.

    Rows gone (the ids have a hole), or a time that is not a number: faro-pi
    writes neither, so the file was changed, and its writer refuses it. So is
    a file that bears traces of schema 2 (the mark's table, a ``hash``
    column): a chained journal set back to schema 1, whose upgrade would
    chain over whatever was changed in it.
    """
    traces = ["its verified table"] if db.execute(_MARK_TABLE).fetchone() else []
    if any(column == "hash" for _, column, *_ in db.execute("PRAGMA table_info(events)")):
        traces.append("a hash column in its events")
    if traces:
        return (
            f"says it is of schema 1 but bears the traces of schema 2 ({', '.join(traces)}): "
            "a chained journal was set back, and faro-pi will not chain over what was changed"
        )
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


def upgrade(db: sqlite3.Connection) -> Mark:
    """Schema 1 to 2 in one transaction, over the rows as they stand; returns the new mark.

    1. ``ALTER TABLE events ADD COLUMN hash BLOB CHECK (length(hash) = 32)``;
    2. the append-only trigger on UPDATE is dropped, every row's hash written
       in order of id, and the triggers made again, word for word (both, should
       either have gone);
    3. the mark is set to the last row and its hash;
    4. ``PRAGMA user_version = 2``.

    A crash before the COMMIT leaves schema 1 exactly as it was, to be
    upgraded at the next start. The chain vouches for the rows from here on,
    not for what happened to them before.
    """
    last = START
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(f"ALTER TABLE events ADD COLUMN {_HASH}")
        db.execute("DROP TRIGGER IF EXISTS events_no_update")
        select = STORED.format(hash="NULL") + " LIMIT 4096"
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
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return last
