"""Talking to systemd: readiness, status lines and watchdog pings (sd_notify).

The protocol is one datagram per message on the socket named by
``NOTIFY_SOCKET``; it needs no library. Outside systemd every call is a no-op.
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Mapping


class Notifier:
    """Sends ``READY=1``, ``STATUS=...`` and ``WATCHDOG=1`` to the service manager."""

    def __init__(self, environ: Mapping[str, str] = os.environ):
        address = environ.get("NOTIFY_SOCKET", "")
        if address.startswith("@"):
            address = "\0" + address[1:]  # abstract namespace
        self._address = address or None
        self._socket: socket.socket | None = None
        usec = environ.get("WATCHDOG_USEC", "")
        pid = environ.get("WATCHDOG_PID", "")
        mine = not pid or pid == str(os.getpid())
        self.watchdog_interval = int(usec) / 2e6 if usec.isdigit() and mine else None
        """Seconds between watchdog pings (half of ``WatchdogSec``), or None."""

    @property
    def enabled(self) -> bool:
        return self._address is not None

    def notify(self, *lines: str) -> None:
        if self._address is None:
            return
        if self._socket is None:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        # Never wait on the manager: a full queue drops a status line, never a card.
        with contextlib.suppress(OSError):
            self._socket.sendto("\n".join(lines).encode(), socket.MSG_DONTWAIT, self._address)

    def ready(self, status: str) -> None:
        self.notify("READY=1", f"STATUS={status}")

    def status(self, status: str) -> None:
        self.notify(f"STATUS={status}")

    def watchdog(self) -> None:
        self.notify("WATCHDOG=1")

    def stopping(self) -> None:
        self.notify("STOPPING=1")

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None
