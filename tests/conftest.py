"""Running the real daemon against a virtual reader and mock pins."""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import socket
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from faro_pi.config import load_config
from faro_pi.game.cards import DECK
from faro_pi.service.daemon import Daemon
from faro_pi.table import serve
from faro_pi.virtual.reader import VirtualReader

CONFIG = """\
[reader]
port = "{port}"
protocol = "{protocol}"
heartbeat_timeout = {heartbeat_timeout}

[journal]
path = "journal.sqlite3"

[gpio]
pin_factory = "mock"

[buttons]
undo_hold = 0.3

[leds]
driver = "none"

[display]
driver = "none"

[console]
enabled = false
"""

# Every property test's settings: the examples are made and run on a machine shared with
# the other workers (`make test` runs one a core), so how long one takes says nothing of the
# code under test. No deadline on an example, and no health check on slow generation; a
# test's own @settings changes only what it names (max_examples, mostly).
settings.register_profile("faro", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("faro")


@pytest.fixture
def table_dir(tmp_path: Path) -> Path:
    """A folder with a config whose reader port is ``reader`` (a symlink the tests make)."""
    write_config(tmp_path)
    return tmp_path


def write_config(folder: Path, protocol: str = "fsp1", heartbeat_timeout: float = 3.5) -> Path:
    path = folder / "config.toml"
    path.write_text(
        CONFIG.format(
            port=folder / "reader", protocol=protocol, heartbeat_timeout=heartbeat_timeout
        )
    )
    return path


@pytest.fixture(scope="session")
def anyio_backend():
    """Every ``async def test_`` runs on asyncio (anyio's plugin would try trio too)."""
    return "asyncio"


class CountingLoop(asyncio.SelectorEventLoop):
    """An event loop that keeps the callback of every timer scheduled on it."""

    def __init__(self):
        super().__init__()
        self.timers: list = []

    def call_at(self, when, callback, *args, context=None):
        self.timers.append(callback)
        return super().call_at(when, callback, *args, context=context)


COUNTING = ("asyncio", {"loop_factory": CountingLoop})
"""The backend of a test that counts the timers set on its loop: parametrize
``anyio_backend`` with it, and read ``asyncio.get_running_loop().timers``."""


async def until(watched, predicate, timeout: float = 10.0) -> None:
    """Waits for ``predicate`` to hold, woken by every change ``watched`` tells (no polling).

    ``watched`` is a daemon, and ``predicate`` is given its table; or anything that calls
    its ``watchers`` on each change, from any thread, or a tuple of them, and ``predicate``
    is given nothing.
    """
    loop = asyncio.get_running_loop()
    changed = asyncio.Event()
    sources = watched if isinstance(watched, tuple) else (watched,)

    def watcher(*_):
        loop.call_soon_threadsafe(changed.set)

    def holds():
        return predicate(watched.table) if isinstance(watched, Daemon) else predicate()

    for source in sources:
        source.watchers.append(watcher)
    try:
        async with asyncio.timeout(timeout):
            while not holds():
                changed.clear()
                await changed.wait()
    finally:
        for source in sources:
            source.watchers.remove(watcher)


@contextlib.asynccontextmanager
async def daemon_on(config, factory=None):
    """The daemon in this process on ``config``, pins on ``factory`` (a fresh MockFactory
    by default); stopped when the block ends, which it must end with status 0."""
    from gpiozero.pins.mock import MockFactory

    factory = factory or MockFactory()
    ready: asyncio.Future = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve(config, environ={}, factory=factory, started=ready.set_result))
    done, _ = await asyncio.wait({ready, task}, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        task.result()  # raises what stopped it
    daemon = ready.result()
    try:
        yield daemon
    finally:
        daemon.stopped.set()
        status = await task
        factory.close()
        assert status == 0


@contextlib.asynccontextmanager
async def running_table(folder: Path, *, reader: VirtualReader | None = None, factory=None):
    """The daemon in this process on ``folder``'s config, with its virtual reader plugged in.

    Yields (daemon, reader, factory); the test presses mock pins on ``factory``.
    """
    from gpiozero.pins.mock import MockFactory

    config = load_config(folder / "config.toml", environ={})
    factory = factory or MockFactory()
    reader = reader or VirtualReader(folder / "reader", retry=0.05)
    reader.plug()
    try:
        async with daemon_on(config, factory) as daemon:
            yield daemon, reader, factory
    finally:
        reader.close()


def shuffled(seed: int) -> list[str]:
    """The 52 card codes in the order ``seed`` shuffles them."""
    codes = [card.code for card in DECK]
    random.Random(seed).shuffle(codes)
    return codes


class NotifySocket:
    """Plays systemd's side of sd_notify, to await READY=1 without sleeping."""

    def __init__(self, folder: Path):
        self.path = str(folder / "notify.sock")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)

    def environ(self, **more) -> dict:
        return {**os.environ, "NOTIFY_SOCKET": self.path, **more}

    def wait_for(self, line: str, timeout: float = 10.0) -> list[str]:
        """Every message until one holding ``line``."""
        self.sock.settimeout(timeout)
        seen = []
        while True:
            message = self.sock.recv(4096).decode()
            seen.append(message)
            if line in message.splitlines():
                return seen

    async def awaited(self, line: str, timeout: float = 10.0) -> list[str]:
        """:meth:`wait_for` on the running loop, which goes on running meanwhile."""
        loop = asyncio.get_running_loop()
        self.sock.setblocking(False)
        seen = []
        async with asyncio.timeout(timeout):
            while True:
                message = (await loop.sock_recv(self.sock, 4096)).decode()
                seen.append(message)
                if line in message.splitlines():
                    return seen

    def close(self):
        self.sock.close()
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)
