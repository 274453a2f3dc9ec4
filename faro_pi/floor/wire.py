"""What travels between a table and the floor: the topics, and a journal row as JSON.

Each table has four topics under ``PREFIX/TABLE/``:

- ``journal``: every row of the journal, in order, QoS 1, as one JSON object
  ``{"seq": N, "pack": P, "event": {...}, "refused": null or "..."}``: ``seq``
  is the row's number in the journal (1, 2, 3... with no gaps), ``pack`` the
  pack the row belongs to, ``event`` the event exactly as journaled and
  ``refused`` the rule's message for a reading the rules refused;
- ``status``: ``online`` (retained, sent on connecting) or ``offline`` (the
  last will, or sent on a clean stop);
- ``state``: the console's snapshot of the table, retained, at most twice a second;
  its ``version`` is the last journal row the table had sent when it was taken;
- ``resend``: ``{"from": SEQ}`` from the floor, when it has missed rows.

Pure functions of bytes: the publisher, the floor and the tests all read them alike.
"""

from __future__ import annotations

from typing import Annotated, Any, NamedTuple

import msgspec

from faro_pi.config import TABLE_NAME

ONLINE, OFFLINE = b"online", b"offline"

Positive = Annotated[int, msgspec.Meta(ge=1)]


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


class Row(msgspec.Struct, frozen=True):
    """One journal row as the floor receives it: the event is kept as its own bytes."""

    seq: Positive
    pack: Positive
    event: msgspec.Raw
    refused: str | None = None


class _Sent(msgspec.Struct):
    """One journal row as the table sends it (the same fields, in the same order)."""

    seq: int
    pack: int
    event: dict[str, Any]
    refused: str | None


_encode = msgspec.json.Encoder().encode
_decode_row = msgspec.json.Decoder(Row).decode


class _Resend(msgspec.Struct):
    from_: Positive = msgspec.field(name="from")


_decode_resend = msgspec.json.Decoder(_Resend).decode


def encode_row(seq: int, pack: int, event: dict[str, Any], refused: str | None) -> bytes:
    """The row's message. The event's keys keep the journal's order, so the floor's
    copy exports the same bytes as the table's own journal."""
    return _encode(_Sent(seq, pack, event, refused))


def decode_row(payload: bytes) -> Row:
    """The row in a message; ValueError names what is wrong with one that is not a row."""
    try:
        row = _decode_row(payload)
    except msgspec.DecodeError as exc:
        raise ValueError(f"not a journal row: {exc}") from None
    if not bytes(row.event).startswith(b"{"):
        raise ValueError("not a journal row: its event is not a JSON object")
    return row


def encode_resend(seq: int) -> bytes:
    return _encode(_Resend(seq))


def decode_resend(payload: bytes) -> int:
    """The row a resend asks for; ValueError for anything but ``{"from": N}`` with N ≥ 1."""
    try:
        return _decode_resend(payload).from_
    except msgspec.DecodeError as exc:
        raise ValueError(f"not a resend request: {exc}") from None
