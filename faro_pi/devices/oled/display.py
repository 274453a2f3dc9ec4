"""Putting the screens on the OLED: off the loop, only what changed, never in the way.

:class:`TableDisplay` is the daemon's :class:`~faro_pi.devices.Output` for the
small I²C display. On the loop it only takes a
:func:`~faro_pi.devices.oled.screens.view` of the table (cheap) and leaves it
in a one-place slot; one worker thread renders the latest view and sends it
through the drivers of :mod:`~faro_pi.devices.oled.flush` (only the changed
columns), so the loop never waits on the bus (a whole SSD1306 frame is about
23 ms at 400 kHz) and a view overtaken by a newer one is never drawn.

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

from faro_pi.config import DisplayConfig
from faro_pi.devices.oled import pairing, screens
from faro_pi.devices.oled.flush import DRIVERS
from faro_pi.game.rules import Table

log = logging.getLogger("faro_pi.devices.oled.display")

RETRY = 10.0
"""Seconds before a missing or failed display is tried again; doubled each time it fails."""
RETRY_MAX = 120.0
FIRST_PAGE = 8.0
"""Seconds a change stays on the main page before the balances take their turn."""
PAGE = 4.0
"""Seconds on each further page."""


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
    wait before a failed display is tried again, ``retry_max`` the longest; ``pages`` the
    seconds on the main page and on each further one.
    """

    def __init__(
        self,
        config: DisplayConfig,
        *,
        bus=None,
        retry: float = RETRY,
        retry_max: float = RETRY_MAX,
        pages: tuple[float, float] = (FIRST_PAGE, PAGE),
    ):
        self.config = config
        self.device = None
        self.link: Link | None = None
        self.frames = 0
        """Flushes done (one per change of what is shown)."""
        self.failing = False
        self._retry = retry
        self._retry_max = retry_max
        self._pages = pages
        self._delay = retry
        self._retry_at = 0.0
        self._view: screens.ScreenView | None = None
        self._page = 0
        self._timer: asyncio.TimerHandle | None = None
        self._wanted: tuple[screens.ScreenView, int] | None = None
        self._drawn: tuple[screens.ScreenView, int] | None = None
        self._closing = False
        self._pairing: pairing.PairingView | None = None
        """The pairing screen, shown over the table's until :meth:`unpair`."""
        self._pairing_ends: asyncio.TimerHandle | None = None
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
        delay = self._pages[0] if self._page == 0 else self._pages[1]
        self._timer = loop.call_later(delay, self._next_page)

    def _next_page(self) -> None:
        self._timer = None
        self._page = (self._page + 1) % self._view.pages
        self._schedule()
        self._post()

    def _post(self) -> None:
        with self._changed:
            self._wanted = (self._pairing, 0) if self._pairing else (self._view, self._page)
            self._changed.notify_all()

    def pair(self, link: str, seconds: float) -> None:
        """Shows ``link`` as a QR code for ``seconds`` at most (or until :meth:`unpair`)."""
        if self.device is None or self._closing:
            return
        if self._pairing_ends is not None:
            self._pairing_ends.cancel()
        self._pairing = pairing.PairingView(link)
        self._pairing_ends = asyncio.get_running_loop().call_later(seconds, self.unpair)
        self._post()

    def unpair(self) -> None:
        """Back to the table's screen: the link is used or out of time."""
        if self._pairing_ends is not None:
            self._pairing_ends.cancel()
            self._pairing_ends = None
        if self._pairing is not None:
            self._pairing = None
            if self._view is not None:
                self._post()

    def close(self) -> None:
        """Stops the pages and the worker; the screen is blanked and switched off."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._pairing_ends is not None:
            self._pairing_ends.cancel()
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        if self._worker is not None:
            self._worker.join(timeout=5.0)
            self._worker = None

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
        draw = pairing.render if isinstance(wanted[0], pairing.PairingView) else screens.render
        try:
            image = draw(*wanted)
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
            self._delay = min(self._delay * 2, self._retry_max)
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
