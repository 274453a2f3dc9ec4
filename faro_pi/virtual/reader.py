"""A card reader in software: a pseudo-terminal that speaks fsp1 like the shoe's firmware.

The simulator and the tests put it where the real reader's serial port would
be: the daemon opens ``path`` (a symlink to the pty, as udev gives the real
reader ``/dev/faro-reader``) and cannot tell the difference. The frames and
their retransmission come from :class:`faro_pi.shoe.fsp1_reader.Sender`, the same
code as the reader firmware's. Faults a real line has can be put in on purpose:
lost frames, lost acknowledgements, damaged bytes, noise, a pulled cable, a
reader that restarts.

The link goes through this process's own descriptor of the pty
(``/proc/PID/fd/N``), never ``/dev/pts/N``: pty numbers are handed out again
across the machine, and a link left behind by a reader whose process died (a
test run killed midway) would lead a daemon still retrying it to the next pty
given that number, another table's, where it would acknowledge frames that
table never applies.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import random
import tty
from pathlib import Path

from faro_pi.shoe.fsp1_reader import Sender


class VirtualReader:
    """The reader end of the shoe's serial line, run on the caller's event loop."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        hello: str = "virtual reader",
        heartbeat: float | None = 1.0,
        retry: float = 0.2,
        rng: random.Random | None = None,
    ):
        self.path = Path(path)
        self.hello, self.heartbeat, self.retry = hello, heartbeat, retry
        self.rng = rng or random.Random(0)
        self.lose_frames = 0.0
        """Chance that a frame is lost on the way to the host."""
        self.lose_acks = 0.0
        """Chance that an acknowledgement is lost on the way back."""
        self.damage = 0.0
        """Chance that one byte of a frame is changed on the way."""
        self.sender = self._new_sender()
        self.acks = 0
        self.sent = 0
        self._master: int | None = None
        self._slave: int | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._idle = asyncio.Event()

    # -- the line ------------------------------------------------------------

    def plug(self) -> None:
        """Opens a new pseudo-terminal and points ``path`` at it."""
        loop = asyncio.get_running_loop()
        self._master, self._slave = pty.openpty()
        tty.setraw(self._slave)  # no echo, no line editing: a plain serial line
        os.set_blocking(self._master, False)
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self.path.symlink_to(f"/proc/{os.getpid()}/fd/{self._slave}")  # see the module's notes
        loop.add_reader(self._master, self._readable)
        self._schedule()

    def unplug_now(self) -> None:
        """The cable is pulled: the port disappears from under the daemon."""
        if self._master is None:
            return
        loop = asyncio.get_running_loop()
        loop.remove_reader(self._master)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        os.close(self._master)
        os.close(self._slave)
        self._master = self._slave = None

    async def unplug(self, seconds: float) -> None:
        """Pulls the cable for ``seconds``, then plugs it back in."""
        self.unplug_now()
        await asyncio.sleep(seconds)
        self.plug()

    def close(self) -> None:
        self.unplug_now()

    # -- what the reader sends ---------------------------------------------------

    def card(self, code: str) -> int:
        """The reader reads a card; returns the frame's sequence number."""
        seq = self.sender.card(code)
        self._schedule()
        return seq

    def no_read(self) -> int:
        seq = self.sender.no_read()
        self._schedule()
        return seq

    def restart(self) -> None:
        """The reader resets: its queue is gone and it says hello again from 0."""
        self.sender = self._new_sender()
        self._schedule()

    def _new_sender(self) -> Sender:
        # Room for a whole pack: a script may queue every card at once.
        return Sender(self.hello, retry=self.retry, heartbeat=self.heartbeat, capacity=128)

    def garble(self, count: int) -> None:
        """Line noise: ``count`` random bytes, none of which starts a frame."""
        noise = bytes(self.rng.choice(range(256)) for _ in range(count)).replace(b"$", b"#")
        self._write(noise)

    def send_raw(self, data: bytes) -> None:
        """Bytes straight onto the line, outside the stop-and-wait (a forged or odd frame)."""
        self._write(data)

    async def drained(self) -> None:
        """Waits until every frame queued so far has been acknowledged."""
        while self.sender.pending():
            self._idle.clear()
            await self._idle.wait()

    # -- the machinery -------------------------------------------------------------

    def _write(self, data: bytes) -> None:
        if self._master is None:
            return
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._master, data)

    def _schedule(self) -> None:
        if self._master is None:
            return
        loop = asyncio.get_running_loop()
        if self._timer is not None:
            self._timer.cancel()
        due = self.sender.next_due(loop.time())
        self._timer = None if due is None else loop.call_at(due, self._send)

    def _send(self) -> None:
        self._timer = None
        data = self.sender.poll(asyncio.get_running_loop().time())
        if data is not None:
            self.sent += 1
            if self.rng.random() >= self.lose_frames:
                if self.rng.random() < self.damage:
                    at = self.rng.randrange(1, len(data) - 2)
                    data = data[:at] + bytes([data[at] ^ 0x04]) + data[at + 1 :]
                self._write(data)
        self._schedule()

    def _readable(self) -> None:
        try:
            data = os.read(self._master, 4096)
        except (BlockingIOError, OSError):
            return
        if self.rng.random() < self.lose_acks:
            return
        taken = self.sender.feed(data)
        if taken:
            self.acks += len(taken)
            if not self.sender.pending():
                self._idle.set()
            self._schedule()
