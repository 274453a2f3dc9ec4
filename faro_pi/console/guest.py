"""uvicorn's server as a guest on the daemon's loop.

uvicorn expects to own its process. ``Server.serve`` takes SIGINT and SIGTERM
for itself and, on its way out, puts back the handlers it found over any the
daemon has set since; its ``main_loop`` wakes ten times a second to refresh
the Date header and see whether it should stop. On the table the signals are
the daemon's, which closes the console on its way out, and a Pi has better
things to do than wake for nothing. uvicorn has no setting for either, so
:class:`GuestServer` overrides the two hooks ``Server.serve`` calls. They were
read in uvicorn's source, whose versions ``pyproject.toml`` pins; a test in
``tests/test_console.py`` fails if either override stops taking effect.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator

import uvicorn


class GuestServer(uvicorn.Server):
    """A uvicorn server that leaves the signals alone and sleeps until :meth:`stop`."""

    def __init__(self, config: uvicorn.Config):
        super().__init__(config)
        self._stopping = asyncio.Event()

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    async def main_loop(self) -> None:
        await self._stopping.wait()

    def stop(self) -> None:
        """Ends :meth:`serve`: no new connections, a second's grace for the open ones."""
        self.should_exit = True
        self._stopping.set()
