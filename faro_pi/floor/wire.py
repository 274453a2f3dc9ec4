"""What travels between a table and the floor: the topics, and a journal row as JSON.

Each table has four topics under ``PREFIX/TABLE/``:

- ``journal``: every row of the journal, in order, QoS 1, as one JSON object
  ``{"seq": N, "pack": P, "event": {...}, "refused": null or "...", "at": T,
  "frame": F or null, "hash": "..."}``, and ``"kept": "..."`` in a row a resume
  point follows: ``seq`` is the row's number in the journal (1, 2, 3... with no
  gaps), ``pack`` the pack the row belongs to, ``event`` the event exactly as
  journaled (the very bytes) and ``refused`` the rule's message for a reading
  the rules refused; ``at``, ``frame`` (the reader's frame), ``hash`` and
  ``kept`` are the rest of the row as the journal's hash chain seals it
  (:mod:`faro_pi.service.chain`), so the floor checks that each row continues
  the rows it has copied;
- ``status``: ``online INSTANCE`` (retained, sent on connecting) or ``offline
  INSTANCE`` (the last will, or sent on a clean stop), ``INSTANCE`` the start
  that says it (:mod:`faro_pi.floor.twin`);
- ``state``: the console's snapshot of the table, retained, at most twice a second;
  its ``version`` is the last journal row the table had sent when it was taken,
  its ``head`` the journal's last row and that row's hash (``{"seq", "hash"}``),
  which the floor holds against its copy, and its ``balances`` what the table
  says each player stands at, which the floor holds against its own replay;
- ``resend``: ``{"from": SEQ}`` from the floor, when it has missed rows.

Pure functions of bytes: the publisher, the floor and the tests all read them alike.
Whatever a table sends is checked here before the floor keeps any of it (a
table is trusted with its own record, never with the floor): a row is at most
:data:`ROW_MOST` bytes with at most :data:`NESTING_MOST` objects and lists, its
``seq`` a sane row number, its event one of the vocabulary's (every field of
its type, to a report's last figure); a state is at most :data:`STATE_MOST`
bytes. Anything else is a :exc:`ValueError` naming what is wrong, which the
floor logs, counts against the table and drops.
"""

from __future__ import annotations

from typing import Annotated, Any, NamedTuple

import msgspec

from faro_pi.config import TABLE_NAME
from faro_pi.exc import Refused
from faro_pi.game.codec import decode_event
from faro_pi.game.events import Event
from faro_pi.service.chain import Stored, seal

ROW_MOST = 64 * 1024
"""Bytes in a row's message at most: a session with every house rule is under 2 KiB."""

NESTING_MOST = 64
"""Objects and lists in a row's message at most (so no row nests deeper): an event has a few."""

STATE_MOST = 4 * 1024 * 1024
"""Bytes in a state's message at most: a table's snapshot, even with thousands of bets."""

MOST_ROWS = 10**9
"""The highest row number a table may name: a row a second for thirty years. A larger one
is no journal's, and would have the floor asking for rows that never come."""

Positive = Annotated[int, msgspec.Meta(ge=1)]
RowNumber = Annotated[int, msgspec.Meta(ge=1, le=MOST_ROWS)]
Frame = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]
Hash = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class Topics(NamedTuple):
    """One table's topics."""

    journal: str
    status: str
    state: str
    resend: str


def topics(prefix: str, table: str) -> Topics:
    base = f"{prefix}/{table}/"
    return Topics(base + "journal", base + "status", base + "state", base + "resend")


def subscriptions(prefix: str) -> list[str]:
    """What the floor subscribes to: every table's journal, status and state."""
    return [f"{prefix}/+/journal", f"{prefix}/+/status", f"{prefix}/+/state"]


def table_topic(prefix: str, topic: str) -> tuple[str, str] | None:
    """(table, kind) of ``PREFIX/TABLE/KIND``; None for a topic that is not a table's."""
    parts = topic.split("/")
    if len(parts) != 3 or parts[0] != prefix or not TABLE_NAME.fullmatch(parts[1]):
        return None
    if parts[2] not in Topics._fields:
        return None
    return parts[1], parts[2]


class Row(NamedTuple):
    """One journal row as the floor receives it: the event kept as its own bytes, and the
    event those bytes are (the copy keeps the bytes, the engine runs the event)."""

    seq: int
    pack: int
    event: bytes
    refused: str | None
    at: float
    frame: int | None
    hash: bytes
    decoded: Event
    kept: bytes | None = None
    """The hash of the resume point the table kept after this row, which the row's hash seals."""

    def follows(self, previous: bytes) -> bool:
        """Whether this row is sealed to a row whose hash is ``previous`` (and to nothing
        else): a row of another journal, or a changed one, is not."""
        refused = None if self.refused is None else self.refused.encode()
        try:
            made = seal(previous, self.seq, self.at, self.event, refused, self.frame, self.kept)
        except UnicodeEncodeError:
            return False
        return made == self.hash


class _Received(msgspec.Struct, frozen=True):
    seq: RowNumber
    pack: RowNumber
    event: msgspec.Raw
    refused: str | None
    at: float
    frame: Frame | None
    hash: Hash
    kept: Hash | None = None


class _Sent(msgspec.Struct, omit_defaults=True):
    """One journal row as the table sends it (the same fields, in the same order; ``kept``
    only in a row a resume point follows)."""

    seq: int
    pack: int
    event: msgspec.Raw
    refused: str | None
    at: float
    frame: int | None
    hash: str
    kept: str | None = None


_encode = msgspec.json.Encoder().encode
_decode_row = msgspec.json.Decoder(_Received).decode


class Head(msgspec.Struct):
    """The journal's last row when a state was taken, and its hash."""

    seq: Annotated[int, msgspec.Meta(ge=0, le=MOST_ROWS)]
    hash: Hash | None

    def digest(self) -> bytes | None:
        return None if self.hash is None else bytes.fromhex(self.hash)


class State(msgspec.Struct):
    """What the floor reads of a table's state (the rest is the console's)."""

    version: Annotated[int, msgspec.Meta(ge=0, le=MOST_ROWS)] = 0
    """The last row the table had sent: the floor has it, or will have it, or asks for it."""
    head: Head | None = None
    """The journal's last row: the rows after ``version`` are on their way."""
    balances: dict[str, int] | None = None
    """What the table says each player stands at, as its table stood when the state was taken."""


_decode_state = msgspec.json.Decoder(State).decode


class _Resend(msgspec.Struct):
    from_: Positive = msgspec.field(name="from")


_decode_resend = msgspec.json.Decoder(_Resend).decode


def encode_row(row: Stored, pack: int) -> bytes:
    """The message of a row as it lies in the journal: the event's very bytes, so that the
    floor's copy exports what the table's own journal exports, and the hash covers them."""
    refused = None if row.refused is None else row.refused.decode()
    kept = None if row.kept is None else row.kept.hex()
    return _encode(
        _Sent(row.id, pack, msgspec.Raw(row.event), refused, row.at, row.seq, row.hash.hex(), kept)
    )


def head(seq: int, hash: bytes | None) -> dict[str, Any]:
    """A state's ``head``: the journal's last row and its hash."""
    return {"seq": seq, "hash": None if hash is None else hash.hex()}


def decode_row(payload: bytes) -> Row:
    """The row in a message; ValueError names what is wrong with one that is not a row."""
    if len(payload) > ROW_MOST:
        raise ValueError(f"not a journal row: {len(payload)} bytes, more than {ROW_MOST}")
    if payload.count(b"{") + payload.count(b"[") > NESTING_MOST:
        raise ValueError(f"not a journal row: more than {NESTING_MOST} objects and lists")
    try:
        row = _decode_row(payload)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise ValueError(f"not a journal row: {exc}") from None
    event = bytes(row.event)
    try:
        decoded = decode_event(event)
    except (Refused, ValueError) as exc:
        raise ValueError(f"row {row.seq} is not an event: {exc}") from None
    hashed = bytes.fromhex(row.hash)
    kept = None if row.kept is None else bytes.fromhex(row.kept)
    return Row(row.seq, row.pack, event, row.refused, row.at, row.frame, hashed, decoded, kept)


def decode_state(payload: bytes) -> State:
    """What the floor reads of a state; ValueError for one that is too big or not a state."""
    if len(payload) > STATE_MOST:
        raise ValueError(f"not a state: {len(payload)} bytes, more than {STATE_MOST}")
    try:
        return _decode_state(payload)
    except (msgspec.DecodeError, RecursionError) as exc:
        raise ValueError(f"not a state: {exc}") from None


def encode_resend(seq: int) -> bytes:
    return _encode(_Resend(seq))


def decode_resend(payload: bytes) -> int:
    """The row a resend asks for; ValueError for anything but ``{"from": N}`` with N ≥ 1."""
    try:
        return _decode_resend(payload).from_
    except msgspec.DecodeError as exc:
        raise ValueError(f"not a resend request: {exc}") from None
