"""A table daemon in a process of its own for the floor's tests and benchmark: ``faro-pi run``
with the floor's publisher, so a test can kill it with SIGKILL and start it again.

``python -m tests.floor_table CONFIG`` runs :func:`faro_pi.table.serve` and starts
the publisher once the daemon is ready (when ``serve`` starts it itself for a ``[floor]``
config, :meth:`Publisher.start` hands back that one).
"""

from __future__ import annotations

import asyncio
import logging
import sys

from faro_pi.config import load_config
from faro_pi.floor.publisher import Publisher
from faro_pi.table import serve


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
