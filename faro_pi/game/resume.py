"""A table's whole state as bytes, so that a restart need not replay a year of nights.

The daemon keeps one, a resume point, beside the journal's rows at each new pack,
its hash sealed in the row it follows; a restart loads the latest so sealed and
replays only the rows after it. Everything the
engine would have after replaying every row is here: the state, the state at
the pack's start and the pack's events (for a void), and the session's earlier
pairs and packs. A resume point of another format, or one that does not decode,
is ignored: the rows themselves are the record, and replaying them is always
right, only slower.
"""

from __future__ import annotations

from typing import Any

import msgspec

from faro_pi.game.codec import event_from_json, event_to_json, stored
from faro_pi.game.rules import Table
from faro_pi.game.state import PackRecord, Pair, TableState

FORMAT = 5
"""Bumped whenever what is kept changes, so an old resume point is never misread."""


class _Kept(msgspec.Struct, array_like=True):
    format: int
    state: TableState
    start: TableState
    log: list[dict[str, Any]]
    history: list[Pair]
    packs: list[PackRecord]


_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder(_Kept, dec_hook=stored).decode


def save(table: Table) -> bytes:
    """The table as bytes that :func:`load` turns back into an equal table."""
    kept = _Kept(
        FORMAT,
        table.state,
        table.pack_start,
        [event_to_json(e) for e in table.pack_log],
        table.history,
        table.packs,
    )
    return _encode(kept)


def load(data: bytes) -> Table | None:
    """The table kept in ``data``; None if it is of another format or does not decode."""
    try:
        kept = _decode(data)
        if kept.format != FORMAT:
            return None
        log = [event_from_json(obj) for obj in kept.log]
    except (msgspec.MsgspecError, ValueError, TypeError):
        return None
    table = Table(kept.state)
    table.pack_start = kept.start
    table.pack_log = log
    table.history = kept.history
    table.packs = kept.packs
    return table
