"""The camera reader's end of the fsp1 line: the same frames, in the same way, as the Pico.

The frames, their numbers, resending every 200 ms until acknowledged, heartbeats and
``N`` frames all come from :class:`faro_pi.shoe.fsp1_reader.Sender`, the code the
Pico's firmware runs; :class:`Link` only moves its bytes, as the firmware's loop does.
The line is one of two, chosen by the config's ``reader.port`` (the daemon's own key, so
both ends name one place):

- ``unix:///run/faro-pi-camera/reader.sock``: the camera on the table's own Pi. The
  reader listens on a Unix socket in its service's runtime folder, which only the
  table's user reaches, and the daemon connects to it through the table's own pySerial
  handler (:mod:`faro_pi.shoe.urls.protocol_unix`), as it would open a serial port;
  each end asks who the other runs as (``SO_PEERCRED``) and turns away anyone but the
  table's user, so no other program can pose as the camera or take its cards. Either
  may restart without the other. The first connection holds the line; another is
  closed at once, as the daemon's exclusive lock on a serial port keeps a second out.
- ``socket://127.0.0.1:PORT``: the same on a loopback TCP port, which any program on
  the machine can reach or bind first: for the simulator and tests, never a table.
- a device path (``/dev/ttyGS0``): the camera on a board of its own at the shoe (a Zero
  2 W with USB gadget serial), cabled to the table's Pi like the Pico; it is opened
  again whenever it goes (the cable pulled).

A frame queued while no one is connected waits in the queue and goes once someone is:
nothing is lost for a restart of the daemon.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import select
import socket
import threading
from typing import Protocol
from urllib.parse import urlsplit

import serial
from serial.serialutil import SerialException

from faro_pi.shoe.fsp1_reader import CAPACITY, Sender
from faro_pi.shoe.urls.protocol_unix import own_uid, path_of, peer_uid

log = logging.getLogger("faro_pi.camera.line")

REOPEN = 1.0
"""Seconds between tries to open a serial line that is not there."""


class Line(Protocol):
    """Bytes to and from the daemon."""

    def waiting_on(self) -> list[int]:
        """The descriptors to wait on for the host's bytes (none while closed)."""

    def readable(self) -> bytes | None:
        """Called when one of them is readable: the host's bytes, or None."""

    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class SocketLine:
    """A loopback TCP port the daemon connects to (``reader.port = "socket://..."``)."""

    def __init__(self, host: str, port: int):
        self._server = socket.create_server((host, port), reuse_port=False)
        self._server.setblocking(False)
        self.address = self._server.getsockname()[:2]
        self.where = f"{self.address[0]}:{self.address[1]}"
        """Where the line listens, for the log."""
        self._peer: socket.socket | None = None

    def waiting_on(self) -> list[int]:
        """Every descriptor to wait on: the server, for a newcomer, and the connection."""
        fds = [self._server.fileno()]
        if self._peer is not None:
            fds.append(self._peer.fileno())
        return fds

    def readable(self) -> bytes | None:
        self._accept()
        if self._peer is None:
            return None
        try:
            data = self._peer.recv(4096)
        except BlockingIOError:
            return None
        except OSError:
            data = b""
        if not data:
            log.info("camera: the daemon went away; listening on %s", self.where)
            self._drop()
            return None
        return data

    def _accept(self) -> None:
        """Takes every connection waiting: the first allowed holds the line."""
        while True:
            try:
                peer, _ = self._server.accept()
            except BlockingIOError:
                return
            if not self._allowed(peer) or self._peer is not None:
                peer.close()  # or the line is held: a second daemon waits, as at a serial port
                continue
            peer.setblocking(False)
            self._peer = peer
            log.info("camera: the daemon connected on %s", self.where)

    def _allowed(self, peer: socket.socket) -> bool:
        """Whether ``peer`` may hold the line: on a loopback port, anyone."""
        return True

    def write(self, data: bytes) -> None:
        if self._peer is None:
            return
        try:
            self._peer.sendall(data)
        except (BlockingIOError, OSError):
            self._drop()

    def _drop(self) -> None:
        if self._peer is not None:
            with contextlib.suppress(OSError):
                self._peer.close()
        self._peer = None

    def close(self) -> None:
        self._drop()
        self._server.close()


class LineBusy(OSError):
    """The line's socket is held by a reader already listening there: wait, and try again."""


class UnixLine(SocketLine):
    """A Unix socket the daemon connects to (``reader.port = "unix:///PATH"``), in the
    camera service's runtime folder, which only the table's user can reach. Whoever
    connects must run as this process's own user (``SO_PEERCRED``), the daemon's: anyone
    else is turned away, so no other program can take the camera's cards and acknowledge
    them. A socket file no one listens on (left by a reader that was killed) is taken
    over; one a reader listens on is :class:`LineBusy`."""

    def __init__(self, path: str):
        self.path = self.where = path
        if os.path.exists(path):
            probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                probe.connect(path)
            except ConnectionRefusedError:
                os.unlink(path)  # left by a reader that is gone
            except OSError:
                pass
            else:
                raise LineBusy(errno.EADDRINUSE, f"{path}: another camera reader listens there")
            finally:
                probe.close()
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(path)
        os.chmod(path, 0o600)
        self._server.listen(4)
        self._server.setblocking(False)
        self._peer = None

    def _allowed(self, peer: socket.socket) -> bool:
        """Only a process of this user, the daemon's."""
        uid = peer_uid(peer)
        if uid != own_uid():
            log.warning("camera: refused a connection from user %d: only the daemon", uid)
        return uid == own_uid()

    def close(self) -> None:
        super().close()
        with contextlib.suppress(OSError):
            os.unlink(self.path)


class SerialLine:
    """A serial device to the table's Pi (USB gadget serial on the camera's own board)."""

    def __init__(self, path: str, baud: int, clock):
        self.path, self.baud, self._clock = path, baud, clock
        self._port: serial.Serial | None = None
        self._tried: float | None = None

    def _open(self) -> None:
        now = self._clock()
        if self._port is not None or (self._tried is not None and now - self._tried < REOPEN):
            return
        self._tried = now
        try:
            self._port = serial.Serial(self.path, self.baud, timeout=0, exclusive=True)
        except (serial.SerialException, OSError) as exc:
            log.warning("camera: cannot open %s: %s; retrying", self.path, exc)
            return
        log.info("camera: %s open at %d baud", self.path, self.baud)

    def waiting_on(self) -> list[int]:
        self._open()
        return [] if self._port is None else [self._port.fileno()]

    def readable(self) -> bytes | None:
        if self._port is None:
            return None
        try:
            return self._port.read(4096) or None
        except (serial.SerialException, OSError) as exc:
            self._lost(exc)
            return None

    def write(self, data: bytes) -> None:
        self._open()
        if self._port is None:
            return
        try:
            self._port.write(data)
        except (serial.SerialException, OSError) as exc:
            self._lost(exc)

    def _lost(self, exc: BaseException) -> None:
        log.warning("camera: %s went away: %s; reopening", self.path, exc)
        with contextlib.suppress(serial.SerialException, OSError):
            self._port.close()
        self._port = None

    def close(self) -> None:
        if self._port is not None:
            self._port.close()
            self._port = None


def open_line(url: str, baud: int, clock) -> SocketLine | SerialLine:
    """The line ``reader.port`` names: a ``unix:///PATH`` or ``socket://HOST:PORT`` to
    listen on, or a device. A socket another reader listens on is :class:`LineBusy`."""
    if url.startswith("unix:"):
        try:
            return UnixLine(path_of(url))
        except SerialException as exc:
            raise ValueError(str(exc)) from None
    if url.startswith("socket://"):
        parts = urlsplit(url)
        if not parts.hostname or parts.port is None:
            raise ValueError(f"{url}: a camera's socket is socket://127.0.0.1:PORT")
        try:
            return SocketLine(parts.hostname, parts.port)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise LineBusy(exc.errno, f"{url}: another program listens there") from exc
            raise OSError(exc.errno, f"{url}: cannot listen there ({exc.strerror})") from exc
    return SerialLine(url, baud, clock)


class Link:
    """The reader's half of fsp1 on a :class:`Line`: queue cards, move bytes on time.

    :meth:`card` and :meth:`no_read` may be called from any thread; :meth:`serve` runs in
    one, until ``stop`` is set, doing what the firmware's loop does: the host's bytes to
    the :class:`Sender`, the sender's frames to the host when due, and a wait until the
    next is due or the host speaks.
    """

    def __init__(self, line: Line, hello: str, clock, heartbeat: float = 1.0, retry: float = 0.2):
        self.line, self._clock = line, clock
        # room for a whole pack: the queue only grows while the daemon is away
        self.sender = Sender(hello, retry=retry, heartbeat=heartbeat, capacity=max(CAPACITY, 64))
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)

    def card(self, code: str) -> int:
        with self._lock:
            seq = self.sender.card(code)
        self._wake()
        return seq

    def no_read(self) -> int:
        with self._lock:
            seq = self.sender.no_read()
        self._wake()
        return seq

    def next_seq(self) -> int:
        """The number the next card or no-read will carry: its still goes before it."""
        with self._lock:
            return self.sender.next_seq()

    def fault(self, text: str | None) -> None:
        """The reader cannot read cards, ``text`` says why; None when it can again."""
        with self._lock:
            self.sender.fault(text)
        self._wake()

    def pending(self) -> int:
        with self._lock:
            return self.sender.pending()

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError):
            os.write(self._wake_w, b"!")

    def step(self, timeout: float | None) -> None:
        """Waits up to ``timeout`` (or until the next frame is due), then does what is due."""
        with self._lock:
            due = self.sender.next_due(self._clock())
        now = self._clock()
        wait = timeout if due is None else max(0.0, due - now)
        if timeout is not None:
            wait = min(wait, timeout)
        ready, _, _ = select.select([self._wake_r, *self.line.waiting_on()], [], [], wait)
        if self._wake_r in ready:
            with contextlib.suppress(BlockingIOError):
                os.read(self._wake_r, 64)
        if any(fd != self._wake_r for fd in ready):
            data = self.line.readable()
            if data:
                with self._lock:
                    self.sender.feed(data)
        with self._lock:
            out = self.sender.poll(self._clock())
        if out is not None:
            self.line.write(out)

    def serve(self, stop: threading.Event, tick: float = 0.5) -> None:
        while not stop.is_set():
            self.step(tick)

    def close(self) -> None:
        self.line.close()
        os.close(self._wake_r)
        os.close(self._wake_w)
