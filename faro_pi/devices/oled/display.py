"""Putting the screens on the OLED: off the loop, only what changed, never in the way.

:class:`TableDisplay` is the daemon's watcher for the small I²C display. On
the loop it only takes a :func:`~faro_pi.devices.oled.screens.view` of the table (cheap)
and leaves it in a one-place slot; one worker thread renders the latest view
and sends it, so the loop never waits on the bus (a whole SSD1306 frame is
about 23 ms at 400 kHz) and a view overtaken by a newer one is never drawn.

luma.oled's SSD1306 and SH1106 drivers send the whole frame every time (its
``diff_to_previous`` framebuffer serves only the colour and greyscale
chips), so :class:`SSD1306` and :class:`SH1106` here send only the columns
of each 8-row page that changed, in as few address windows as pays.

A display that is missing or fails (nothing answers at the address, the bus
errors, luma's ``DeviceNotFoundError``) is logged once and tried again with
backoff, while the table carries on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time

import luma.core.error
from luma.core.device import dummy
from luma.core.interface.serial import i2c
from luma.oled.device import sh1106, ssd1306
from PIL import Image

from faro_pi.devices.oled import screens
from faro_pi.game.rules import Table
from faro_pi.service.config import DisplayConfig

log = logging.getLogger("faro_pi.devices.oled.display")

RETRY = 10.0
"""Seconds before a missing or failed display is tried again; doubled each time it fails."""
RETRY_MAX = 120.0
FIRST_PAGE = 8.0
"""Seconds a change stays on the main page before the balances take their turn."""
PAGE = 4.0
"""Seconds on each further page."""

WIDTH, PAGES = 128, 8
COLUMN_WINDOW, PAGE_WINDOW, NOP = 0x21, 0x22, 0xE3
BLOCK = 32
"""Data bytes in one I²C write when the bus is handed to luma (smbus's block limit)."""


# -- what changed, in the controller's terms --------------------------------------


def frame_pages(image: Image.Image) -> bytes:
    """A 128×64 one-bit image as the controller stores it: 8 pages of 128 column bytes.

    Byte ``page * 128 + x`` holds column ``x`` of rows ``8 * page`` to
    ``8 * page + 7``, top row in bit 0.
    """
    # Turned a quarter clockwise, each image column becomes a row of 8 bytes,
    # one per page, bottom row first and most significant: the bits already in
    # the controller's order, the pages reversed.
    turned = image.transpose(Image.Transpose.ROTATE_270).tobytes()
    return b"".join(turned[PAGES - 1 - page :: PAGES] for page in range(PAGES))


def changed_runs(old: bytes | None, new: bytes, gap: int) -> list[tuple[int, int, int]]:
    """``(page, start, end)`` for each run of changed columns (``end`` exclusive).

    Runs closer than ``gap`` unchanged columns are joined: sending those few
    bytes again is cheaper than addressing a second window.
    """
    if old is None:
        return [(page, 0, WIDTH) for page in range(PAGES)]
    runs = []
    for page in range(PAGES):
        at = page * WIDTH
        a, b = old[at : at + WIDTH], new[at : at + WIDTH]
        if a == b:
            continue
        start = end = None
        for x in range(WIDTH):
            if a[x] != b[x]:
                if start is None:
                    start = x
                elif x - end > gap:
                    runs.append((page, start, end))
                    start = x
                end = x + 1
        runs.append((page, start, end))
    return runs


def window_cost(pages: int, columns: int) -> int:
    """Bytes on the wire to send one window: its address command, then its data in blocks."""
    data = pages * columns
    return 8 + data + 2 * -(-data // BLOCK)


def windows(runs: list[tuple[int, int, int]]) -> list[tuple[int, int, int, int]]:
    """``(first page, last page, start, end)`` windows covering the runs, joining
    a run to the window above it when one window costs less than two."""
    done, open_ = [], []
    for page, start, end in runs:
        best = None
        for w in open_:
            first, last, s, e = w
            if last != page - 1:
                continue
            s2, e2 = min(s, start), max(e, end)
            saving = (
                window_cost(last - first + 1, e - s)
                + window_cost(1, end - start)
                - window_cost(page - first + 1, e2 - s2)
            )
            if saving > 0 and (best is None or saving > best[0]):
                best = (saving, w, (first, page, s2, e2))
        if best is None:
            open_.append((page, page, start, end))
        else:
            open_[open_.index(best[1])] = best[2]
        done.extend(w for w in open_ if w[1] < page - 1)
        open_ = [w for w in open_ if w[1] >= page - 1]
    # the window holding the bottom-right corner goes last: it ends the frame
    return sorted(done + open_, key=lambda w: (w[1], w[3], w[0], w[2]))


class SSD1306(ssd1306):
    """luma's SSD1306 driver, sending only the changed windows of the frame.

    Each window is set with the column and page address commands (horizontal
    addressing wraps the data from one page to the next within it); a flush
    ends with a NOP so that a listener on the bus knows the frame is done.
    """

    gap = 6

    def __init__(self, serial_interface=None, **kwargs):
        self.sent: bytes | None = None
        """The frame the controller holds, as :func:`frame_pages`; None if unknown."""
        self._window: tuple[tuple[int, int], tuple[int, int]] | None = None
        super().__init__(serial_interface, **kwargs)

    def forget(self, sent: bytes | None = None) -> None:
        """The controller was reset or its state is unknown: say what it holds now."""
        self.sent, self._window = sent, None

    def display(self, image: Image.Image) -> None:
        pages = frame_pages(self.preprocess(image))
        runs = changed_runs(self.sent, pages, self.gap)
        self.sent = None  # until the flush is through
        for first, last, start, end in windows(runs):
            # A written window leaves the pointers at its own start, so a range
            # the controller already has needs no command.
            columns, rows = (start, end - 1), (first, last)
            command = []
            if self._window is None or columns != self._window[0]:
                command += [COLUMN_WINDOW, *columns]
            if self._window is None or rows != self._window[1]:
                command += [PAGE_WINDOW, *rows]
            self._window = None
            if command:
                self.command(*command)
            self.data(
                b"".join(pages[p * WIDTH + start : p * WIDTH + end] for p in range(first, last + 1))
            )
            self._window = (columns, rows)
        if runs:
            self.command(NOP)
        self.sent = pages


class SH1106(sh1106):
    """luma's SH1106 driver, sending only the changed columns of each page.

    The SH1106 has only page addressing: a window is one page, set with the
    page command and the column's low and high nibbles, 2 columns in (its
    memory is 132 columns wide, the glass 128).
    """

    gap = 7

    def __init__(self, serial_interface=None, **kwargs):
        self.sent: bytes | None = None
        super().__init__(serial_interface, **kwargs)

    def forget(self, sent: bytes | None = None) -> None:
        self.sent = sent

    def display(self, image: Image.Image) -> None:
        pages = frame_pages(self.preprocess(image))
        runs = changed_runs(self.sent, pages, self.gap)
        self.sent = None
        for page, start, end in runs:
            column = start + self._page_address_offset
            self.command(0xB0 | page, column & 0x0F, 0x10 | column >> 4)
            self.data(pages[page * WIDTH + start : page * WIDTH + end])
        if runs:
            self.command(NOP)
        self.sent = pages


DRIVERS = {"ssd1306": SSD1306, "sh1106": SH1106}


class Link:
    """The serial interface the driver is built on: it records, then carries bytes.

    luma's drivers send their start-up sequence from the constructor and
    register an exit hook for every instance, so building one for each try
    at a missing display would pile those up. The driver is built once, over
    this link, while it records; :meth:`connect` opens luma's ``i2c`` and
    plays the recording, which is also what a display that lost power needs.
    """

    def __init__(self, port: int, address: int, bus=None):
        self.port, self.address, self.bus = port, address, bus
        self.start_up: list[tuple[str, tuple]] = []
        """The driver's start-up sequence: ``("command", bytes)`` and ``("data", (bytes,))``."""
        self._recording = True
        self._serial = None

    @property
    def connected(self) -> bool:
        return self._serial is not None

    def command(self, *cmd: int) -> None:
        if self._recording:
            self.start_up.append(("command", cmd))
        else:
            self._open().command(*cmd)

    def data(self, data) -> None:
        if self._recording:
            self.start_up.append(("data", (bytes(data),)))
        else:
            self._open().data(data)

    def _open(self):
        if self._serial is None:
            raise luma.core.error.DeviceNotFoundError(
                f"display at 0x{self.address:02X} not connected"
            )
        return self._serial

    def connect(self) -> None:
        """Opens the bus and sends the driver's start-up sequence; raises if nobody answers."""
        self._recording = False
        serial = i2c(bus=self.bus, port=self.port, address=self.address)
        try:
            for kind, args in self.start_up:
                if kind == "command":
                    serial.command(*args)
                else:
                    serial.data(args[0])
        except BaseException:
            serial.cleanup()
            raise
        self._serial = serial

    def drop(self) -> None:
        """Forgets the bus (closing it if luma opened it); the next use must connect."""
        serial, self._serial = self._serial, None
        if serial is not None:
            with contextlib.suppress(OSError):
                serial.cleanup()

    def cleanup(self) -> None:
        """luma's name for letting go of the bus."""
        self.drop()


# -- the watcher ------------------------------------------------------------------


class TableDisplay:
    """The OLED by the shoe: the turn, its settlements, the call, the alarms.

    ``bus`` stands in for the I²C bus (any object with smbus2's
    ``write_i2c_block_data``, such as :class:`~faro_pi.virtual.oled.VirtualOled`);
    without it luma opens ``/dev/i2c-{i2c_port}``. ``retry`` is the first
    wait before a failed display is tried again.
    """

    def __init__(self, config: DisplayConfig, *, bus=None, retry: float = RETRY):
        self.config = config
        self.device = None
        self.link: Link | None = None
        self.frames = 0
        """Flushes done (one per change of what is shown)."""
        self.failing = False
        self._retry = retry
        self._delay = retry
        self._retry_at = 0.0
        self._view: screens.ScreenView | None = None
        self._page = 0
        self._timer: asyncio.TimerHandle | None = None
        self._wanted: tuple[screens.ScreenView, int] | None = None
        self._drawn: tuple[screens.ScreenView, int] | None = None
        self._closing = False
        self._changed = threading.Condition()
        self._worker: threading.Thread | None = None
        self._initial: bytes | None = None
        """The frame the driver's start-up sequence leaves in the controller (blank)."""
        rotate = config.rotate
        if rotate not in (0, 2):
            log.warning("display: the screens are landscape; rotate %d is drawn as 0", rotate)
            rotate = 0
        if config.driver == "none":
            return
        if config.driver == "dummy":
            self.device = dummy(width=128, height=64, rotate=rotate, mode="1")
        elif config.driver in DRIVERS:
            self.link = Link(config.i2c_port, config.i2c_address, bus)
            self.device = DRIVERS[config.driver](self.link, rotate=rotate)
            self._initial = self.device.sent
        else:
            raise ValueError(f"display driver is one of none, dummy, {', '.join(DRIVERS)}")
        self._worker = threading.Thread(target=self._run, name="oled", daemon=True)
        self._worker.start()

    @property
    def where(self) -> str:
        return (
            f"{self.config.driver} at 0x{self.config.i2c_address:02X} on i2c-{self.config.i2c_port}"
        )

    # -- on the loop --------------------------------------------------------------

    def show(self, table: Table, event=None) -> None:
        """The watcher: takes the table's view and hands it to the worker; never waits."""
        if self.device is None or self._closing:
            return
        view = screens.view(table)
        if view == self._view:
            return
        self._view, self._page = view, 0
        self._schedule()
        self._post()

    def _schedule(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._view.pages < 2 or self._closing:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop, no pages: the main page stays
        delay = FIRST_PAGE if self._page == 0 else PAGE
        self._timer = loop.call_later(delay, self._next_page)

    def _next_page(self) -> None:
        self._timer = None
        self._page = (self._page + 1) % self._view.pages
        self._schedule()
        self._post()

    def _post(self) -> None:
        with self._changed:
            self._wanted = (self._view, self._page)
            self._changed.notify_all()

    def close(self) -> None:
        """Stops the pages and the worker; the screen is blanked and switched off."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        if self._worker is not None:
            self._worker.join(timeout=5.0)
            self._worker = None

    def idle(self, timeout: float | None = None) -> bool:
        """Waits until the latest view is on the screen; False if ``timeout`` came first."""
        with self._changed:
            return self._changed.wait_for(
                lambda: self._wanted == self._drawn or self._worker is None, timeout
            )

    async def settled(self, timeout: float = 10.0) -> None:
        """On the loop: until the latest view is on the screen, or the display is failing."""
        if self._worker is None:
            return

        def wait() -> None:
            with self._changed:
                self._changed.wait_for(
                    lambda: self._wanted == self._drawn or self.failing or self._worker is None,
                    timeout,
                )

        await asyncio.to_thread(wait)

    # -- on the worker ------------------------------------------------------------

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._closing:
                    wait = self._retry_at - time.monotonic()
                    if wait <= 0 and self._wanted not in (None, self._drawn):
                        break
                    self._changed.wait(wait if wait > 0 else None)
                if self._closing:
                    break
                wanted = self._wanted
            self._draw(wanted)
        self._switch_off()

    def _draw(self, wanted: tuple[screens.ScreenView, int]) -> None:
        try:
            image = screens.render(*wanted)
        except Exception:  # a screen's fault must not stop the display
            log.exception("display: could not draw %r", wanted)
            self._done(wanted, drawn=False)
            return
        try:
            if self.link is not None and not self.link.connected:
                self.link.connect()
                self.device.forget(self._initial)
            self.device.display(image)
        except (OSError, luma.core.error.Error) as exc:
            self._failed(exc)
            return
        if self.failing:
            log.info("display %s is back", self.where)
            self._delay = self._retry
        self.frames += 1
        self._done(wanted)

    def _done(self, wanted: tuple[screens.ScreenView, int], drawn: bool = True) -> None:
        with self._changed:
            self._drawn = wanted
            if drawn:
                self.failing = False
            self._changed.notify_all()

    def _failed(self, exc: BaseException) -> None:
        if self.link is not None:
            self.link.drop()
        if not self.failing:
            log.warning("display %s: %s; trying again in %.0f s", self.where, exc, self._delay)
        else:
            self._delay = min(self._delay * 2, RETRY_MAX)
            log.debug("display %s: %s; next try in %.0f s", self.where, exc, self._delay)
        with self._changed:
            self.failing = True
            self._retry_at = time.monotonic() + self._delay
            self._changed.notify_all()

    def _switch_off(self) -> None:
        device = self.device
        try:
            if self.link is None or self.link.connected:
                device.cleanup()  # luma's: off, blank, bus closed
        except (OSError, luma.core.error.Error) as exc:
            log.debug("display: switching off: %s", exc)
        finally:
            device.persist = True  # luma's exit hook then leaves it alone
            if self.link is not None:
                self.link.drop()
