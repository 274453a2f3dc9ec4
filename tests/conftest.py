"""Running the real daemon against a virtual reader and mock pins."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from pathlib import Path

import pytest

from faro_pi.config import load_config
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


async def until(daemon: Daemon, predicate, timeout: float = 10.0) -> None:
    """Waits for the table to satisfy ``predicate``, woken by every change (no polling)."""
    changed = asyncio.Event()

    def watcher(table, event):
        changed.set()

    daemon.watchers.append(watcher)
    try:
        async with asyncio.timeout(timeout):
            while not predicate(daemon.table):
                changed.clear()
                await changed.wait()
    finally:
        daemon.watchers.remove(watcher)


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
    ready: asyncio.Future = asyncio.get_running_loop().create_future()
    task = asyncio.create_task(serve(config, environ={}, factory=factory, started=ready.set_result))
    done, _ = await asyncio.wait({ready, task}, return_when=asyncio.FIRST_COMPLETED)
    if task in done:
        task.result()  # raises what stopped it
    daemon = ready.result()
    try:
        yield daemon, reader, factory
    finally:
        daemon.stopped.set()
        status = await task
        reader.close()
        factory.close()
        assert status == 0


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

    def close(self):
        self.sock.close()
