"""The dealing shoe's card reader on its serial port.

Two parts, as in pySerial's threaded protocols: :class:`ReaderPort` keeps the
port open and moves bytes (it reads from the event loop without a thread or a
poll, and reopens the port after a pulled cable), and a protocol object
(:class:`Fsp1Shoe` or :class:`PlainShoe`) turns bytes into table events.
Framing itself lives in :mod:`faro_pi.shoe.fsp1`, so every part can be fed by hand.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import os
from collections.abc import Callable
from typing import Protocol

import serial

from faro_pi.exc import JournalError
from faro_pi.game.events import Alarm, CardDrawn, Clear
from faro_pi.shoe import urls
from faro_pi.shoe.fsp1 import (
    Action,
    CardFrame,
    Fault,
    FrameParser,
    Heartbeat,
    Hello,
    NoRead,
    PlainParser,
    Receiver,
    ack,
)

log = logging.getLogger("faro_pi.shoe.link")
urls.register()

BACKOFF_FIRST, BACKOFF_MAX = 0.1, 2.0
NOISE = 512
"""Bytes with no whole frame before the table hears of noise: a frame is under 80."""
UNSENT = 1024
"""Bytes kept for a port that takes no more: some 80 acknowledgements. Past that a new one
is dropped; the reader repeats its frame until one reaches it, so nothing is lost."""


class Owner(Protocol):
    """What the shoe needs of the table's owner (the daemon)."""

    def submit(self, event): ...

    def record_reading(self, event, seq: int | None = None, gap=None): ...

    def set_link_seq(self, seq: int) -> None: ...

    def has_alarm(self, kind: str) -> bool: ...


class ReaderPort:
    """Opens the serial port, reads it from the loop, and reopens it when it goes.

    ``received(data)`` is called on the loop with every chunk read;
    ``opened()`` each time the port (re)opens. A port that won't open is
    tried again after ``backoff`` seconds, doubling up to :data:`BACKOFF_MAX`.

    The port is held with an exclusive lock (``flock``), so a second faro-pi
    on the same reader (another journal's daemon, one left running by
    mistake) waits instead of reading the frames too: it would acknowledge
    some, and the reader would never send them again to the table that
    missed them.

    Writing never blocks the loop: a reader that stops reading its
    acknowledgements fills the line's buffer, and a blocking write would then
    stop the console, the buttons and this port's own reading with it. What
    the port cannot take now waits (at most :data:`UNSENT` bytes) until the
    loop says it is writable.
    """

    def __init__(
        self,
        url: str,
        baud: int,
        received: Callable[[bytes], None],
        opened: Callable[[], None] = lambda: None,
        refused: Callable[[str], None] = lambda why: None,
        backoff: float = BACKOFF_FIRST,
    ):
        self.url, self.baud = url, baud
        self._backoff = backoff
        self._received, self._opened, self._refused = received, opened, refused
        self._serial = None
        self._task: asyncio.Task | None = None
        self._gone = asyncio.Event()
        self._closing = False
        self._unsent = bytearray()
        self._stalled = False
        self.dropped = 0
        """Acknowledgements dropped because the port took no more (the reader resends)."""

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._keep_open(), name="reader")

    async def _keep_open(self) -> None:
        delay, complained = self._backoff, False
        loop = asyncio.get_running_loop()
        while not self._closing:
            try:
                port = serial.serial_for_url(
                    self.url, baudrate=self.baud, timeout=0, exclusive=True
                )
                fd = port.fileno()
            except (serial.SerialException, OSError, ValueError) as exc:
                if not complained:
                    log.warning("reader: cannot open %s: %s; retrying", self.url, exc)
                    complained = True
                    if _denied(exc):
                        self._refused(
                            f"the reader's port {self.url} may not be opened (permission "
                            "denied): restart the service after plugging it in, and check "
                            "the faro-pi user is in the dialout group"
                        )
                await asyncio.sleep(delay)
                delay = min(delay * 2, BACKOFF_MAX)
                continue
            self._serial, complained = port, False
            delay = self._backoff
            log.info("reader: %s open at %d baud", self.url, self.baud)
            self._gone.clear()
            os.set_blocking(fd, False)
            loop.add_reader(fd, self._readable)
            self._opened()
            await self._gone.wait()
            loop.remove_reader(fd)
            self._stop_writing(fd)
            with contextlib.suppress(serial.SerialException, OSError):
                port.close()
            self._serial = None

    def _readable(self) -> None:
        try:
            data = self._serial.read(4096)
            if not data:
                raise serial.SerialException("port closed (end of file)")
        except (serial.SerialException, OSError) as exc:
            self._lost(exc)
            return
        self._received(data)

    def write(self, data: bytes) -> None:
        """Sends ``data`` (one whole acknowledgement) now, later, or not at all; never waits."""
        if self._serial is None:
            return  # the reader repeats the frame; it will be acknowledged then
        if self._unsent:  # the port is full: keep whole acknowledgements, up to UNSENT
            if len(self._unsent) + len(data) > UNSENT:
                self._drop()
            else:
                self._unsent += data
            return
        fd = self._serial.fileno()
        sent = self._send(fd, data)
        if sent is not None and sent < len(data):
            self._unsent += data[sent:]
            asyncio.get_running_loop().add_writer(fd, self._writable)

    def _send(self, fd: int, data: bytes | bytearray) -> int | None:
        """Bytes the port took at once (0 when full); None when it went away."""
        try:
            return os.write(fd, data)
        except BlockingIOError:
            return 0
        except OSError as exc:
            self._lost(exc)
            return None

    def _writable(self) -> None:
        fd = self._serial.fileno()
        sent = self._send(fd, self._unsent)
        if sent is None:
            return
        del self._unsent[:sent]
        if not self._unsent:
            self._stop_writing(fd)
            if self._stalled:
                self._stalled = False
                log.info("reader: %s takes acknowledgements again", self.url)

    def _drop(self) -> None:
        if not self._stalled:
            self._stalled = True
            log.warning(
                "reader: %s takes no acknowledgements (is its end read?): dropping them; "
                "the reader repeats its frames",
                self.url,
            )
        self.dropped += 1

    def _stop_writing(self, fd: int) -> None:
        asyncio.get_running_loop().remove_writer(fd)
        self._unsent.clear()

    def _lost(self, exc: BaseException) -> None:
        if not self._gone.is_set():
            log.warning("reader: %s went away: %s; reopening", self.url, exc)
            self._gone.set()

    async def close(self) -> None:
        self._closing = True
        self._gone.set()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._serial is not None:
            asyncio.get_running_loop().remove_reader(self._serial.fileno())
            self._stop_writing(self._serial.fileno())
            self._serial.close()
            self._serial = None


def _denied(exc: BaseException) -> bool:
    """Whether opening the port failed for want of permission: pySerial's SerialException
    carries the errno of the ``open`` it wraps, and the OSError itself is its context."""
    while exc is not None:
        if getattr(exc, "errno", None) in (errno.EPERM, errno.EACCES):
            return True
        exc = exc.__cause__ if exc.__suppress_context__ else exc.__context__
    return False


class Fsp1Shoe:
    """The fsp1 protocol: frames with CRCs, stop-and-wait, acknowledged after the journal.

    Each new frame is journaled with its sequence number in the same
    transaction, then acknowledged, so a restart neither loses nor repeats a
    card. Silence longer than ``lost_after`` seconds raises a ``lost`` alarm.
    """

    def __init__(self, table: Owner, last_seq: int | None, lost_after: float):
        self.table = table
        self.parser = FrameParser()
        self.receiver = Receiver(last_seq)
        self.port: ReaderPort | None = None
        self.lost_after = lost_after
        self._silence: asyncio.TimerHandle | None = None
        self.heard = False
        self.noise = 0
        """Bytes since the last whole frame that made none."""
        self.fault: str | None = None
        """What the reader said it cannot do, while it says so (``F`` frames)."""
        self._unheard_said: int | None = None
        """The heartbeat's number a gap was last raised for: once, not every second."""

    def attach(self, port: ReaderPort) -> None:
        self.port = port
        self._listen()

    def _listen(self) -> None:
        if self._silence is not None:
            self._silence.cancel()
        loop = asyncio.get_running_loop()
        self._silence = loop.call_later(self.lost_after, self._silent)

    def _silent(self) -> None:
        self._silence = None
        log.warning("reader: silent for %.1f s: reader lost", self.lost_after)
        self.heard = False
        if not self.table.has_alarm("lost"):
            self.table.submit(Alarm("lost", "the card reader is silent: check its cable and power"))

    def received(self, data: bytes) -> None:
        """Bytes from the port: only whole frames are a sign of life; noise is counted."""
        try:
            frames = self.parser.feed(data)
            if not frames:
                self._noise(len(data))
                return
            self._alive()
            for frame in frames:
                log.debug("reader: %s", frame)
                self._faulty(frame.text if isinstance(frame, Fault) else None)
                if isinstance(frame, CardFrame | NoRead | Hello):
                    self._frame(frame)
                elif isinstance(frame, Heartbeat | Fault):
                    self._last_sent(frame.seq)
        except JournalError:
            return  # the daemon has said why in one line and is stopping; nothing is acknowledged

    def _alive(self) -> None:
        self._listen()
        self.noise = 0
        if self.table.has_alarm("noise"):
            self.table.submit(Clear("noise"))
        if not self.heard:
            self.heard = True
            if self.table.has_alarm("lost"):
                log.info("reader: heard again")
                self.table.submit(Clear("lost"))

    def _last_sent(self, seq: int) -> None:
        """A heartbeat names the reader's last frame sent: past the journal's last, frames
        went somewhere else (acknowledged by another host while the daemon was away) or
        were lost, and the table must check its cards."""
        unheard = self.receiver.unheard(seq)
        if not unheard or seq == self._unheard_said:
            return
        self._unheard_said = seq
        last = self.receiver.last
        log.warning("reader: says it sent frame %d, the journal's last is %s", seq, last)
        self.table.submit(
            Alarm(
                "gap",
                f"the reader sent {unheard} reading(s) after frame {last} that never reached "
                "the journal: check the cards against the case keeper",
            )
        )

    def _faulty(self, why: str | None) -> None:
        """The reader says it cannot read cards (``why``), or no longer does (None): the
        table hears it as it hears a reader gone silent, in the reader's words."""
        if why == self.fault:
            return
        self.fault = why
        if why is None:
            log.info("reader: reading again")
            if self.table.has_alarm("lost"):
                self.table.submit(Clear("lost"))
            return
        log.warning("reader: cannot read: %s", why)
        self.table.submit(Alarm("lost", f"the card reader cannot read: {why}"))

    def _noise(self, count: int) -> None:
        """Bytes that made no frame: past NOISE of them with no frame, the table is told."""
        before, self.noise = self.noise, self.noise + count
        if before < NOISE <= self.noise:
            log.warning("reader: %d bytes and no frame: noise on the line", self.noise)
            self.table.submit(
                Alarm("noise", "noise on the reader's line: check the baud rate and the cable")
            )

    def refused(self, why: str) -> None:
        """The port cannot be opened for want of permission: a person must act."""
        self.table.submit(Alarm("lost", why))

    def _frame(self, frame: CardFrame | NoRead | Hello) -> None:
        def acknowledge() -> None:
            self.receiver.committed(frame)
            self.port.write(ack(frame.seq))

        decision = self.receiver.decide(frame)
        action = decision.action
        if action is Action.REPEAT:
            log.debug("reader: frame %d repeated; acknowledged again", frame.seq)
            acknowledge()
        elif action is Action.STALE:
            acknowledge()
            log.warning(
                "reader: frame %d is behind the journal (last %s); not applied",
                frame.seq,
                self.receiver.last,
            )
            self.table.submit(
                Alarm(
                    "gap",
                    f"the reader's frame {frame.seq} is behind the journal: "
                    "restart the reader so that it says hello",
                )
            )
        elif action is Action.HELLO:
            self.table.set_link_seq(0)
            acknowledge()
            log.info("reader: hello %r", frame.text)
        else:
            gap = None
            if decision.missed:
                log.warning("reader: %d frame(s) missing before %d", decision.missed, frame.seq)
                gap = Alarm(
                    "gap",
                    f"{decision.missed} reading(s) never arrived: check the cards "
                    "against the case keeper",
                )
            if isinstance(frame, CardFrame):
                reading = CardDrawn(frame.card, "reader")
            else:
                reading = Alarm("noread", "a card passed unread: re-feed it or enter it by hand")
            self.table.record_reading(reading, frame.seq, gap)
            acknowledge()

    def close(self) -> None:
        if self._silence is not None:
            self._silence.cancel()
            self._silence = None


class PlainShoe:
    """A barcode scanner in serial mode: a card code a line, no acknowledgements."""

    def __init__(self, table: Owner):
        self.table = table
        self.parser = PlainParser()
        self.port: ReaderPort | None = None

    def attach(self, port: ReaderPort) -> None:
        self.port = port

    def received(self, data: bytes) -> None:
        now = asyncio.get_running_loop().time()
        try:
            for card in self.parser.feed(data, now):
                self.table.record_reading(CardDrawn(card, "scanner"))
        except JournalError:
            return  # the daemon has said why in one line and is stopping

    def refused(self, why: str) -> None:
        self.table.submit(Alarm("lost", why))

    def close(self) -> None:
        pass
