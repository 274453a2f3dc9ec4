"""A table daemon in a process of its own for the floor's tests and benchmark: ``faro-pi run``
with the floor's publisher, so a test can kill it with SIGKILL and start it again.

``python -m tests.floor_table CONFIG`` runs :func:`faro_pi.table.serve` and starts
the publisher once the daemon is ready (when ``serve`` starts it itself for a ``[floor]``
config, :meth:`Publisher.start` hands back that one).

:func:`row_messages` makes a journal's rows as the publisher sends them, without a journal,
for tests and the benchmark that play a table on the wire.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from collections.abc import Iterable

from faro_pi.config import load_config
from faro_pi.floor.publisher import Publisher
from faro_pi.floor.wire import encode_row
from faro_pi.game.codec import TAGS, event_to_json
from faro_pi.game.events import Event
from faro_pi.service.chain import GENESIS, Stored, seal
from faro_pi.table import serve


def row_messages(events: Iterable[Event | dict], at: float = 1_764_000_000.0) -> list[bytes]:
    """The messages of a journal holding ``events`` from row 1, each row sealed to the one
    before it as the journal seals it, one second apart from ``at``. An event given as a
    JSON object is sent as it is, as a table that is not faro-pi's could send it."""
    messages, pack, last = [], 1, GENESIS
    for seq, event in enumerate(events, start=1):
        obj = event if isinstance(event, dict) else event_to_json(event)
        text = json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()
        when = at + seq
        last = seal(last, seq, when, text, None, None)
        if TAGS[obj["type"]].new_pack:
            pack += 1
        messages.append(encode_row(Stored(seq, when, text, None, None, last, None), pack))
    return messages


async def run(path: str) -> int:
    config = load_config(path, environ={})
    publishers: list[Publisher] = []

    def started(daemon) -> None:
        if config.floor.broker is not None:
            publishers.append(Publisher.start(daemon, config))

    status = await serve(config, started=started)
    for publisher in publishers:
        await publisher.close()
    return status


def main() -> int:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    logging.getLogger("faro_pi").addHandler(handler)
    logging.getLogger("faro_pi").setLevel(logging.INFO)
    return asyncio.run(run(sys.argv[1]))


if __name__ == "__main__":
    sys.exit(main())
