"""``unix:///run/faro-pi-camera/reader.sock``: the camera reader's line, which only the
camera reader can be.

A Unix socket in the camera service's runtime folder (``RuntimeDirectory=``, mode 0750,
the table's user's own), which no other user can reach; and on connecting, the socket's
listener is asked who it is (``SO_PEERCRED``): it must run as this process's own user,
the table's, or the line is refused as not the camera reader's. The camera's end
(:class:`faro_pi.camera.line.UnixLine`) asks the same of whoever connects. A loopback TCP
port (``socket://``) is open to every program on the machine: whichever binds it first
is the shoe.
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
from urllib.parse import urlsplit

from serial.serialutil import SerialException
from serial.urlhandler import protocol_socket

CONNECT = 5.0
"""Seconds a connection may take before the camera reader is taken for absent."""


def peer_uid(sock: socket.socket) -> int:
    """The user the process at the other end of a Unix socket runs as."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def own_uid() -> int:
    """The user the camera reader must run as: this process's own, the table's."""
    return os.geteuid()


def path_of(url: str) -> str:
    """The socket's path in a ``unix:///PATH`` URL."""
    parts = urlsplit(url)
    if parts.scheme != "unix" or parts.netloc or not parts.path.startswith("/"):
        raise SerialException(f"{url}: a camera reader's socket is unix:///PATH (an absolute path)")
    if "\0" in parts.path:
        raise SerialException(f"{url}: a path holds no NUL")
    return parts.path


class Serial(protocol_socket.Serial):
    """pySerial's socket handler on a Unix socket whose listener runs as this user."""

    def open(self) -> None:
        self.logger = None
        if self._port is None:
            raise SerialException("Port must be configured before it can be used.")
        if self.is_open:
            raise SerialException("Port is already open.")
        path = path_of(self.portstr)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.settimeout(CONNECT)
            sock.connect(path)
            uid = peer_uid(sock)
        except OSError as exc:
            sock.close()
            raise SerialException(f"could not open port {path}: {exc}") from exc
        if uid != own_uid():
            sock.close()
            raise SerialException(
                f"{path} is held by user {uid}, not {own_uid()} (the table's): not the "
                "camera reader, refused"
            )
        sock.setblocking(False)
        self._socket = sock
        self._reconfigure_port()
        self.is_open = True
        self.reset_input_buffer()
        self.reset_output_buffer()

    def close(self) -> None:
        """Closes at once: the daemon's loop must not wait (pySerial's socket handler
        sleeps 0.3 s after a close, for quick reconnects to a TCP server)."""
        if self.is_open and self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)
            self._socket.close()
            self._socket = None
        self.is_open = False

    def from_url(self, url: str) -> str:
        return path_of(url)
