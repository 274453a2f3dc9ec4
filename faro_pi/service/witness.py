"""``faro-pi verify --against``: a journal held against a record of it kept elsewhere.

A journal cannot witness its own end: rows cut from it after the last start
(or lost with the WAL at a power cut) leave a chain that verifies to its new
last row, and a journal rewritten and rehashed from row 1 verifies too. A
record kept elsewhere can: the floor's copy of the table's rows (its SQLite
file, which keeps each row's hash, or ``faro-pi floor export TABLE``'s lines),
or a hash noted once, ``HASH@SEQ``, as ``faro-pi verify`` prints it.

:func:`compare` says where the journal and the record part: the first row
that is not the record's, or the rows the record has past the journal's end.
Rows the journal has past the record's end are newer than the record, not a
fault.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from itertools import zip_longest
from pathlib import Path
from typing import NamedTuple

from faro_pi.service.export import export_line
from faro_pi.service.journal import Entry, Journal

NOTED = re.compile(r"(?P<hash>[0-9a-f]{64})@(?P<seq>[0-9]+)")
"""A noted hash: the 64 hex digits ``faro-pi verify`` prints, ``@``, and the row's number."""

_SQLITE = b"SQLite format 3\x00"


class Witnessed(NamedTuple):
    """What the record says of the journal: agreed or not, and in words."""

    agrees: bool
    text: str


class _Row(NamedTuple):
    seq: int
    hash: bytes | None
    line: str


def compare(journal: Journal, record: str) -> Witnessed:
    """The journal against ``record``: ``HASH@SEQ``, a floor's copy or a floor export.

    Raises :exc:`ValueError` naming what is wrong with a record that can't be read.
    """
    noted = NOTED.fullmatch(record.strip().lower())
    if noted is not None:
        return _against_hash(journal, bytes.fromhex(noted["hash"]), int(noted["seq"]))
    return _against_rows(_journal_rows(journal), _record_rows(Path(record)))


def _against_hash(journal: Journal, noted: bytes, seq: int) -> Witnessed:
    found = next(journal.stored(after=seq - 1), None) if seq > 0 else None
    if found is None or found.id != seq:
        end = journal.count()
        return Witnessed(
            False,
            f"row {seq} was noted, but the journal ends at row {end}: "
            f"{_rows(end + 1, seq)} {'was' if end + 1 == seq else 'were'} lost",
        )
    if found.hash != noted:
        return Witnessed(
            False,
            f"row {seq}'s hash is {(found.hash or b'').hex()}, not the one noted: the journal "
            f"was changed, or replaced, from row {seq} or before",
        )
    return Witnessed(True, f"row {seq}'s hash is the one noted: rows 1 to {seq} are as they were")


def _against_rows(ours: Iterator[_Row], theirs: Iterator[_Row]) -> Witnessed:
    last = kept = 0
    for mine, copy in zip_longest(ours, theirs):
        if copy is None:
            break
        if mine is None:
            kept = copy.seq + sum(1 for _ in theirs)
            return Witnessed(
                False,
                f"the journal ends at row {last}, but the record has {_rows(last + 1, kept)}: "
                "the journal lost them (rows cut from its end, or the journal put back)",
            )
        same = mine.hash == copy.hash if None not in (mine.hash, copy.hash) else None
        if same is False or (same is None and mine.line != copy.line):
            return Witnessed(
                False,
                f"row {mine.seq} is not the record's row {copy.seq}: the journal was changed, "
                f"or replaced, from row {mine.seq} on",
            )
        last = kept = mine.seq
    if kept == 0:
        return Witnessed(True, "the record holds no rows: nothing to compare")
    return Witnessed(True, f"rows 1 to {kept} are the record's, row for row")


def _journal_rows(journal: Journal) -> Iterator[_Row]:
    for row in journal.stored():
        yield _Row(row.id, row.hash, export_line(journal.entry(row)))


def _record_rows(path: Path) -> Iterator[_Row]:
    try:
        with path.open("rb") as file:
            header = file.read(len(_SQLITE))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the record: {exc.strerror or exc}") from None
    if header == _SQLITE:
        return _copy_rows(path)
    return _export_rows(path)


def _copy_rows(path: Path) -> Iterator[_Row]:
    """A floor's copy (``PATH/TABLE.sqlite3`` in its store), its rows and their hashes."""
    try:
        db = sqlite3.connect(path.absolute().as_uri() + "?mode=ro", uri=True)
        cursor = db.execute("SELECT seq, event, refused, hash FROM rows ORDER BY seq")
    except sqlite3.Error as exc:
        raise ValueError(f"{path}: not a floor's copy of a table ({exc})") from None

    def rows() -> Iterator[_Row]:
        try:
            for seq, event, refused, hashed in cursor:
                try:
                    line = export_line(Entry(seq, 0.0, json.loads(event), refused))
                except (ValueError, KeyError, TypeError):  # not an event: kept as it is
                    line = event
                yield _Row(seq, hashed, line)
        finally:
            db.close()

    return rows()


def _export_rows(path: Path) -> Iterator[_Row]:
    """A floor export, as ``faro-pi floor export TABLE`` prints it: one row a line."""

    def rows() -> Iterator[_Row]:
        with path.open(encoding="utf-8", newline="") as lines:
            for seq, line in enumerate(lines, start=1):
                yield _Row(seq, None, line)

    return rows()


def _rows(first: int, last: int) -> str:
    return f"row {first}" if first == last else f"rows {first} to {last}"
