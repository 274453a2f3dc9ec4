"""A fake I²C bus with an SSD1306 or SH1106 on it, for the simulator and the tests.

It stands where smbus2's ``SMBus`` would: luma's ``i2c(bus=...)`` writes
through :meth:`VirtualOled.write_i2c_block_data` (and smbus2's ``i2c_rdwr``
is understood too). Everything it knows comes from those bytes, decoded as
the controller would: a control byte (``0x00`` commands, ``0x40`` data, the
Co bit for single bytes), the addressing commands, display on/off,
inversion, contrast, remapping. It never looks at the daemon's state, so
what :meth:`image` returns is what the glass would show.

**Frames.** A flush is complete when the byte at the bottom-right corner of
the screen is written (a full frame, as luma's own devices send it), or at a
NOP command (``0xE3``) after data, which is how :mod:`faro_pi.devices.oled.flush` ends
a flush that changed only part of the screen. :attr:`frames` counts them,
and :attr:`pictures` keeps what the glass showed after each one that changed
it, with the time, for :meth:`save_gif`.
"""

from __future__ import annotations

import errno
import itertools
import time
from collections.abc import Callable
from pathlib import Path

from PIL import Image

WIDTH, HEIGHT = 128, 64
PAGES = HEIGHT // 8
NOP = 0xE3

# Commands that take argument bytes, by controller; any other byte is a
# command on its own (ranges like 0xB0-0xB7 carry their value in the byte).
ARGUMENTS = {
    "ssd1306": {
        0x20: 1,  # memory addressing mode
        0x21: 2,  # column window
        0x22: 2,  # page window
        0x26: 6,  # horizontal scroll set-up
        0x27: 6,
        0x29: 5,  # vertical and horizontal scroll set-up
        0x2A: 5,
        0x81: 1,  # contrast
        0x8D: 1,  # charge pump
        0xA3: 2,  # vertical scroll area
        0xA8: 1,  # multiplex ratio
        0xAD: 1,  # internal current reference (on some clones)
        0xD3: 1,  # display offset
        0xD5: 1,  # clock divide
        0xD6: 1,  # zoom
        0xD9: 1,  # pre-charge
        0xDA: 1,  # COM pins
        0xDB: 1,  # VCOMH level
    },
    "sh1106": {
        0x81: 1,
        0x8D: 1,  # not an SH1106 command, but luma sends it with its argument
        0xA8: 1,
        0xAD: 1,  # DC-DC control
        0xD3: 1,
        0xD5: 1,
        0xD9: 1,
        0xDA: 1,
        0xDB: 1,
    },
}

RAM_WIDTH = {"ssd1306": 128, "sh1106": 132}

SWITCHES = {
    0xA0: ("segment_remap", False),
    0xA1: ("segment_remap", True),
    0xA4: ("all_on", False),
    0xA5: ("all_on", True),
    0xA6: ("inverted", False),
    0xA7: ("inverted", True),
    0xAE: ("on", False),
    0xAF: ("on", True),
}
"""Commands that set one of the controller's switches, both controllers alike."""


class VirtualOled:
    """A 128×64 OLED controller at ``address``, fed only by I²C writes.

    ``offset`` is where the glass's first column sits in an SH1106's
    132-column memory (2 on the usual 1.3" modules). Set :attr:`plugged` to
    False to have every write fail as a real bus does when nobody answers.
    """

    def __init__(
        self, controller: str = "ssd1306", address: int = 0x3C, offset: int = 2, keep: int = 10_000
    ):
        if controller not in ARGUMENTS:
            raise ValueError(f"controller is one of {', '.join(ARGUMENTS)}, not {controller!r}")
        self.controller = controller
        self.address = address
        self.offset = offset if controller == "sh1106" else 0
        self.plugged = True
        self.ram_width = RAM_WIDTH[controller]
        self.ram = bytearray(self.ram_width * PAGES)
        self.bytes_sent = 0
        """Bytes on the wire, counting each transaction's address byte."""
        self.transactions = 0
        self.frames = 0
        self.pictures: list[tuple[float, Image.Image]] = []
        """``(time.monotonic(), picture)`` per frame that changed the glass, the last ``keep``."""
        self.keep = keep
        self.watchers: list[Callable[[], None]] = []
        """Told, on the drawing thread, of each frame that changed the glass."""
        self.on = False
        self.contrast = 0x7F
        self.inverted = False
        self.all_on = False
        self.segment_remap = False
        self.com_reversed = False
        self.start_line = 0
        self.mode = 2  # page addressing after reset
        self.column = 0
        self.page = 0
        self.columns = (0, self.ram_width - 1)
        self.pages = (0, PAGES - 1)
        self._command: list[int] = []
        self._wanted = 0
        self._drawn = False
        """Data written since the last frame was counted."""

    # -- the bus, as smbus2 offers it --------------------------------------

    def write_i2c_block_data(self, address: int, register: int, data) -> None:
        self._transaction(address, bytes([register, *data]))

    def i2c_rdwr(self, *messages) -> None:
        for message in messages:
            self._transaction(message.addr, bytes(message))

    def close(self) -> None:
        """Nothing to release; here because luma closes a bus it opened."""

    # -- decoding --------------------------------------------------------------

    def _transaction(self, address: int, payload: bytes) -> None:
        if not self.plugged or address != self.address:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        self.transactions += 1
        self.bytes_sent += 1 + len(payload)
        i = 0
        while i < len(payload):
            control = payload[i]
            single = control & 0x80
            data = control & 0x40
            body = payload[i + 1 : i + 2] if single else payload[i + 1 :]
            for byte in body:
                if data:
                    self._data(byte)
                else:
                    self._command_byte(byte)
            i += 1 + len(body)

    def _command_byte(self, byte: int) -> None:
        if not self._command:
            self._command = [byte]
            self._wanted = ARGUMENTS[self.controller].get(byte, 0)
        else:
            self._command.append(byte)
        if len(self._command) > self._wanted:
            command, self._command = self._command, []
            self._execute(command[0], command[1:])

    def _execute(self, op: int, args: list[int]) -> None:
        if op <= 0x1F or 0xB0 <= op <= 0xB7:
            self._point(op)
        elif op in (0x20, 0x21, 0x22):
            if self.controller == "ssd1306":  # the SH1106 has page addressing only
                self._window(op, args)
        elif op in SWITCHES:
            name, value = SWITCHES[op]
            setattr(self, name, value)
        elif 0x40 <= op <= 0x7F:
            self.start_line = op & 0x3F
        elif op == 0x81:
            self.contrast = args[0]
        elif 0xC0 <= op <= 0xCF:
            self.com_reversed = bool(op & 0x08)
        elif op == NOP:
            self._frame()

    def _point(self, op: int) -> None:
        """Page addressing: the column's low or high nibble, or the page."""
        if op <= 0x0F:
            self.column = (self.column & 0xF0) | op
        elif op <= 0x1F:
            self.column = (self.column & 0x0F) | (op & 0x0F) << 4
        else:
            self.page = op & 0x07

    def _window(self, op: int, args: list[int]) -> None:
        """The SSD1306's addressing mode, column window and page window."""
        if op == 0x20:
            self.mode = args[0] & 0x03
        elif op == 0x21:
            self.columns = (args[0] & 0x7F, args[1] & 0x7F)
            self.column = self.columns[0]
        else:
            self.pages = (args[0] & 0x07, args[1] & 0x07)
            self.page = self.pages[0]

    def _data(self, byte: int) -> None:
        if self.column < self.ram_width:
            self.ram[self.page * self.ram_width + self.column] = byte
        last = self.page == PAGES - 1 and self.column == self.offset + WIDTH - 1
        if self.controller == "sh1106" or self.mode == 2:
            self.column += 1
            if self.controller == "ssd1306" and self.column >= self.ram_width:
                self.column = 0
        elif self.mode == 0:
            self.column += 1
            if self.column > self.columns[1]:
                self.column = self.columns[0]
                self.page = self.pages[0] if self.page >= self.pages[1] else self.page + 1
        else:
            self.page += 1
            if self.page > self.pages[1]:
                self.page = self.pages[0]
                self.column = self.columns[0] if self.column >= self.columns[1] else self.column + 1
        self._drawn = True
        if last:
            self._frame()

    def _frame(self) -> None:
        if not self._drawn:
            return
        self.frames += 1
        self._drawn = False
        picture = self.image()
        if not self.pictures or self.pictures[-1][1] != picture:
            self.pictures.append((time.monotonic(), picture))
            del self.pictures[: -self.keep]
            for watcher in list(self.watchers):
                watcher()

    def save_gif(self, path: str | Path, scale: int = 2) -> None:
        """The pictures as an animated GIF, ``scale`` times larger, each for as long as it
        was on the glass (the last for two seconds).

        Each frame goes to the GIF writer in mode "L": Pillow before 10 (Debian Bookworm's
        9.4) has no palette for a mode "1" frame and fails on it.
        """
        shots = self.pictures or [(time.monotonic(), self.image())]
        frames = [
            picture.resize((WIDTH * scale, HEIGHT * scale), Image.Resampling.NEAREST).convert("L")
            for _, picture in shots
        ]
        times = [at for at, _ in shots]
        durations = [max(20, round((b - a) * 1000)) for a, b in itertools.pairwise(times)] + [2000]
        frames[0].save(path, save_all=True, append_images=frames[1:], duration=durations, loop=0)

    # -- what the glass shows --------------------------------------------------

    def image(self) -> Image.Image:
        """The 128×64 picture on the glass, as a module mounted the usual way shows it.

        luma's devices remap the segments (``0xA1``) and scan COM in reverse
        (``0xC8``); those give memory's first byte at the top left. Without
        them the picture is mirrored, as it would be on the glass.
        """
        if not self.on:
            return Image.new("1", (WIDTH, HEIGHT))
        if self.all_on:
            return Image.new("1", (WIDTH, HEIGHT), 255)
        # Each page's bytes are the columns of 8 rows, least significant bit on
        # top: as a 1-bit image 8 wide and one row a column, turned, it is the page.
        stripe = Image.new("1", (8, self.ram_width * PAGES))
        stripe.frombytes(bytes(_REVERSED[b] for b in self.ram))
        image = Image.new("1", (WIDTH, HEIGHT))
        for page in range(PAGES):
            top = page * self.ram_width + self.offset
            columns = stripe.crop((0, top, 8, top + WIDTH))
            image.paste(columns.transpose(Image.Transpose.TRANSPOSE), (0, page * 8))
        if self.start_line:
            rolled = Image.new("1", (WIDTH, HEIGHT))
            rolled.paste(image.crop((0, self.start_line, WIDTH, HEIGHT)), (0, 0))
            rolled.paste(image.crop((0, 0, WIDTH, self.start_line)), (0, HEIGHT - self.start_line))
            image = rolled
        if not self.segment_remap:
            image = image.transpose(Image.Transpose.FLIP_LEFT_RIGHT)
        if not self.com_reversed:
            image = image.transpose(Image.Transpose.FLIP_TOP_BOTTOM)
        if self.inverted:
            image = image.point(lambda v: 255 - v)
        return image


_REVERSED = bytes(int(f"{b:08b}"[::-1], 2) for b in range(256))
"""Each byte with its bits in the other order: a page's bit 0 is its top row."""
