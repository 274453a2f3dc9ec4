"""The reader's serial port under a reader that sends and never reads: the loop must go on.

The port is a real pseudo-terminal, as :mod:`faro_pi.virtual.reader` makes
one; its other end, the reader's, is written to and never read, so every
acknowledgement the table sends stays in the line's buffer until it is full.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import threading
import tty

from faro_pi.game.cards import parse_card
from faro_pi.shoe.fsp1 import CardFrame, Hello, ack
from faro_pi.shoe.link import Fsp1Shoe, ReaderPort
from tests.test_shoe import Owner

REPEATS = 6000
"""Repeats of one frame, each acknowledged again: some 70 KB of acknowledgements, past what
a pty's buffer holds (the attack froze the daemon after about 3,000)."""


async def send_all(fd: int, data: bytes) -> None:
    """Writes all of ``data`` to a non-blocking descriptor, waiting on the loop when it is full."""
    loop = asyncio.get_running_loop()
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(fd, view) :]
        except BlockingIOError:
            writable = loop.create_future()
            loop.add_writer(fd, writable.set_result, None)
            try:
                await writable
            finally:
                loop.remove_writer(fd)


class Watchdog:
    """Reads the reader's end after ``deadline`` seconds, so a blocked write ends the test
    with a failure instead of hanging it; ``fired`` says it had to."""

    def __init__(self, fd: int, deadline: float):
        self.fd, self.fired = fd, False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(deadline,), daemon=True)
        self._thread.start()

    def _run(self, deadline: float) -> None:
        if self._stop.wait(deadline):
            return
        self.fired = True
        while not self._stop.is_set():
            with contextlib.suppress(BlockingIOError, OSError):
                os.read(self.fd, 65536)
            self._stop.wait(0.01)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def test_a_reader_that_never_reads_its_acks_cannot_freeze_the_loop(tmp_path):
    master, slave = pty.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    path = tmp_path / "reader"
    path.symlink_to(f"/proc/{os.getpid()}/fd/{slave}")

    async def scenario() -> tuple[Owner, ReaderPort, int]:
        owner = Owner()
        shoe = Fsp1Shoe(owner, None, 60.0)
        opened = asyncio.Event()
        port = ReaderPort(str(path), 115200, shoe.received, opened.set)
        shoe.attach(port)
        port.start()
        await asyncio.wait_for(opened.wait(), 5)
        ticks = 0

        def tick() -> None:  # the rest of the table: the console, the buttons, the timers
            nonlocal ticks
            ticks += 1
            asyncio.get_running_loop().call_soon(tick)

        tick()
        card = CardFrame(1, parse_card("KD")).to_bytes()
        await send_all(master, Hello(0, "test").to_bytes() + card)
        for _ in range(REPEATS // 100):
            await send_all(master, card * 100)
        await send_all(master, CardFrame(2, parse_card("QS")).to_bytes())
        while len(owner.readings) < 2:  # the port is still read: the second card comes in
            await asyncio.sleep(0)
        await port.close()
        shoe.close()
        return owner, port, ticks

    watchdog = Watchdog(master, deadline=30)
    try:
        owner, port, ticks = asyncio.run(scenario())
    finally:
        watchdog.stop()
        os.close(master)
        os.close(slave)
    assert not watchdog.fired, "the loop blocked writing acknowledgements nobody read"
    assert [seq for _, seq in owner.readings] == [1, 2]
    assert port.dropped > 0  # past what the port holds, acknowledgements were dropped
    assert ticks > 1  # the rest of the loop ran all along


def test_what_waited_goes_out_in_whole_acknowledgements_once_the_reader_reads(tmp_path):
    master, slave = pty.openpty()
    tty.setraw(slave)
    os.set_blocking(master, False)
    path = tmp_path / "reader"
    path.symlink_to(f"/proc/{os.getpid()}/fd/{slave}")

    async def read_until(wanted: bytes, resend: bytes) -> bytes:
        """Reads as the reader does, sending its frame again until it is acknowledged."""
        loop, got = asyncio.get_running_loop(), bytearray()
        while not got.endswith(wanted):
            await send_all(master, resend)
            readable = loop.create_future()
            loop.add_reader(master, readable.set_result, None)
            try:
                await readable
            finally:
                loop.remove_reader(master)
            with contextlib.suppress(BlockingIOError):
                got += os.read(master, 65536)
        return bytes(got)

    async def scenario() -> bytes:
        owner = Owner()
        shoe = Fsp1Shoe(owner, None, 60.0)
        opened = asyncio.Event()
        port = ReaderPort(str(path), 115200, shoe.received, opened.set)
        shoe.attach(port)
        port.start()
        await asyncio.wait_for(opened.wait(), 5)
        card = CardFrame(1, parse_card("KD")).to_bytes()
        await send_all(master, Hello(0, "test").to_bytes() + card)
        while port.dropped == 0:  # until the line is full and acknowledgements are dropped
            await send_all(master, card * 100)
        second = CardFrame(2, parse_card("QS")).to_bytes()
        await send_all(master, second)
        while len(owner.readings) < 2:
            await asyncio.sleep(0)
        heard = await read_until(ack(2), second)  # the reader reads again
        await port.close()
        shoe.close()
        return heard

    try:
        heard = asyncio.run(scenario())
    finally:
        os.close(master)
        os.close(slave)
    whole = {ack(0), ack(1), ack(2)}
    lines = [line + b"\r\n" for line in heard.split(b"\r\n")[:-1]]
    assert set(lines) <= whole, [line for line in lines if line not in whole][:3]
    assert lines[-1] == ack(2)
