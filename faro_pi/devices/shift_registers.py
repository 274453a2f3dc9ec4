"""How a frame's seven bytes reach the 74HC595 chain: the Pi's SPI0, or three GPIOs by hand.

Both do the same thing to the pins, SPI mode 0 with RCLK as the chip select:
RCLK falls, each of the 56 bits is set on SER before a rising edge of SRCLK,
and RCLK rises after the last one, which latches the whole frame at once.
:class:`SPIShiftRegisters` has the Pi's SPI peripheral do it in one transfer
(``leds.driver = "74hc595-spi"``); :class:`ShiftRegisters` toggles the pins
from Python, 170 writes a frame, for a board whose chain is not on SPI0's pins
(``leds.driver = "74hc595"``).
"""

from __future__ import annotations

import warnings

from gpiozero import CompositeDevice, Device, DigitalOutputDevice
from gpiozero.exc import SPISoftwareFallback

from faro_pi.board import CHAIN_DRIVERS, spi_clashes
from faro_pi.exc import FaroError

SPI_HZ = 500_000
"""SCLK's rate: well under the 1 MHz that 30 cm of ribbon to the chain carries cleanly;
a frame's 56 bits take 112 µs."""
SPI_ON = "sudo raspi-config nonint do_spi 0, then reboot"


class ShiftRegisters(CompositeDevice):
    """The chain on three GPIOs, bit-banged: SER, SRCLK and RCLK.

    RCLK idles high; :meth:`write` takes it low, shifts the bits (the data set,
    then a rising edge of SRCLK each) and raises it, which latches them.
    """

    def __init__(self, data: int, clock: int, latch: int, *, pin_factory=None):
        super().__init__(
            data=DigitalOutputDevice(data, pin_factory=pin_factory),
            clock=DigitalOutputDevice(clock, pin_factory=pin_factory),
            latch=DigitalOutputDevice(latch, initial_value=True, pin_factory=pin_factory),
            _order=("data", "clock", "latch"),
            pin_factory=pin_factory,
        )

    def write(self, data: bytes) -> None:
        """Shifts ``data`` in, most significant bit first, and latches it."""
        ser, srclk, rclk = self.data, self.clock, self.latch
        rclk.off()
        for byte in data:
            for bit in (7, 6, 5, 4, 3, 2, 1, 0):
                ser.value = byte >> bit & 1
                srclk.on()
                srclk.off()
        rclk.on()


class SPIShiftRegisters:
    """The chain on the Pi's SPI0: SER on MOSI (GPIO 10), SRCLK on SCLK (11), RCLK on CE0 (8).

    The pin factory's own SPI carries the bytes (gpiozero's ``spi()``): lgpio's
    opens ``/dev/spidev0.0`` on a Pi, the simulator's drives its virtual chain.
    A frame is one transfer in mode 0 at :data:`SPI_HZ`; CE0 rises at its end,
    and that is the latch. gpiozero falls back to bit-banging when SPI0 does not
    open; here that is an error with its fix, since the pins would then be the
    kernel's. On a factory with no SPI of its own (gpiozero's plain mock pins) the
    composition root drives the chain with :class:`ShiftRegisters` instead
    (:func:`faro_pi.devices.pins.opens_spi`).
    """

    def __init__(self, data: int, clock: int, latch: int, *, pin_factory=None):
        clashes = spi_clashes({"leds.data": data, "leds.clock": clock, "leds.latch": latch})
        if clashes:
            key, why = clashes[0]
            raise FaroError(f'{key}: {why} (or leds.driver = "74hc595" to bit-bang)')
        if pin_factory is None:
            Device.ensure_pin_factory()
            pin_factory = Device.pin_factory
        self._spi = _open(pin_factory, data, clock, latch)

    def write(self, data: bytes) -> None:
        """Sends ``data`` in one transfer; CE0 rising at its end latches it."""
        self._spi.write(data)

    def close(self) -> None:
        if self._spi is not None:
            self._spi.close()
            self._spi = None


def _open(factory, data: int, clock: int, latch: int):
    """The factory's SPI on the chain's pins, in mode 0 at :data:`SPI_HZ`; never bit-banged."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", SPISoftwareFallback)
        try:
            spi = factory.spi(clock_pin=clock, mosi_pin=data, miso_pin=None, select_pin=latch)
        except SPISoftwareFallback as exc:
            raise FaroError(
                f"leds: SPI0 did not open ({exc.__context__ or exc}): turn SPI on ({SPI_ON}) "
                'and put the service user in the group spi, or set leds.driver = "74hc595"'
            ) from exc
    try:
        if spi.clock_mode != 0:
            spi.clock_mode = 0
        if spi.rate != SPI_HZ:
            spi.rate = SPI_HZ
    except BaseException:
        spi.close()
        raise
    return spi


DRIVERS = {
    name: SPIShiftRegisters if on_spi else ShiftRegisters for name, on_spi in CHAIN_DRIVERS.items()
}
"""The chain's drivers by ``leds.driver``, from the board's word on which are SPI0's."""
