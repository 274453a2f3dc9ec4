"""Seven 74HC595s in software, watching gpiozero's mock pins as the real chain watches wires.

The simulator and the tests hand the daemon a pin factory from
:func:`watched_factory`; its pins are :class:`WatchedPin`, gpiozero mock pins
that tell the :class:`VirtualChain` each time their level or their function
changes. The chain knows only what a register would: the bit on SER at each
rising edge of SRCLK, the rising edges of RCLK, and OE. From that it says what
the case keeper shows (:meth:`VirtualChain.grid`), whoever drove the pins.

Every pin of such a factory supports PWM (as a Pi's do under lgpio) and still
takes ``drive_low()``/``drive_high()``, so the shoe's buttons can be pressed on
the same factory. The factory has an SPI0 too (:class:`VirtualSPI`), which
drives SCLK, MOSI and CE0 as the Pi's peripheral does, so the chain decodes
``leds.driver = "74hc595-spi"`` from the same pins.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import NamedTuple

from gpiozero.pins import SPI
from gpiozero.pins.mock import MockFactory, MockPWMPin

from faro_pi.board import CHAIN, ROLES, grid, outputs_frame
from faro_pi.config import SCHEMA, LedsConfig

_FULL = (1 << CHAIN) - 1
HISTORY = 1024
"""Levels a watched pin keeps in ``states``: a mock pin keeps them all, and a chain's
clock changes 112 times a frame."""


class WatchedPin(MockPWMPin):
    """A mock pin (with PWM) that reports every change of level or function to its chain."""

    def __init__(self, factory, info):
        self.chain: VirtualChain | None = None
        super().__init__(factory, info)

    def _change_state(self, value):
        changed = super()._change_state(value)
        if changed:
            if len(self.states) > 2 * HISTORY:
                del self.states[:-HISTORY]
            if self.chain is not None:
                self.chain.changed(self)
        return changed

    def _set_frequency(self, value):
        if value is None and self._frequency is None:
            return  # never a PWM pin: there is no PWM to stop, and the level stays
        super()._set_frequency(value)

    def _set_function(self, value):
        before = self._function
        super()._set_function(value)
        if value != before and self.chain is not None:
            self.chain.changed(self)


class VirtualSPI(SPI):
    """SPI0 of the simulated Pi, in mode 0: CE0 low, each bit on MOSI before a rising
    edge of SCLK, most significant first, CE0 high after the last.

    What gpiozero's own SPI classes do on a Pi: the pins are reserved, and
    :meth:`transfer` is one call however long the data. Reading is not wired
    (the chain has no MISO): it reads zeros.
    """

    def __init__(self, clock_pin, mosi_pin, miso_pin, select_pin, *, pin_factory):
        self._pins = None
        super().__init__(pin_factory=pin_factory)
        reserved = [pin for pin in (clock_pin, mosi_pin, miso_pin, select_pin) if pin is not None]
        self.pin_factory.reserve_pins(self, *reserved)
        self._clock, self._mosi, self._select = (
            pin_factory.pin(number) for number in (clock_pin, mosi_pin, select_pin)
        )
        self._pins = (self._clock, self._mosi, self._select)
        for pin in self._pins:
            pin.function = "output"
        self._select.state = True
        self._clock.state = False
        self._mode = 0
        self._rate = 500_000
        self.transfers = 0
        """Transfers so far: one system call each on a Pi."""

    def close(self) -> None:
        if self._pins is not None:
            for pin in self._pins:
                pin.close()
            self._pins = None
            self.pin_factory.release_all(self)
        super().close()

    @property
    def closed(self) -> bool:
        return self._pins is None

    def transfer(self, data):
        self._check_open()
        clock, mosi, select = self._pins
        select.state = False
        for byte in data:
            for bit in (7, 6, 5, 4, 3, 2, 1, 0):
                mosi.state = byte >> bit & 1
                clock.state = True
                clock.state = False
        select.state = True
        self.transfers += 1
        return [0] * len(data)

    def _get_clock_mode(self):
        return self._mode

    def _set_clock_mode(self, value):
        if value != 0:
            raise ValueError("the virtual SPI0 does mode 0 only, as the chain wants")
        self._mode = value

    def _get_rate(self):
        return self._rate

    def _set_rate(self, value):
        self._rate = int(value)


class WatchedFactory(MockFactory):
    """gpiozero's mock factory with :class:`WatchedPin` pins and :class:`VirtualSPI` for SPI.

    gpiozero's own mock SPI cannot be opened on a factory handed to it (its software
    SPI asks for the default pin factory); a backend names its SPI class in
    ``_get_spi_class``, as gpiozero's lgpio and mock backends do.
    """

    def __init__(self):
        super().__init__(pin_class=WatchedPin)

    def _get_spi_class(self, shared, hardware):
        return VirtualSPI


class Latch(NamedTuple):
    """One rising edge of RCLK: what the outputs took, and how it got there."""

    frame: int
    """The cards lit, as a :mod:`~faro_pi.board` frame."""
    outputs: int
    """All 56 outputs, bit ``register * 8 + q`` (the spare ones included)."""
    bits: int
    """Rising edges of SRCLK since the previous latch: 56 for a whole frame."""
    at: float
    """``time.perf_counter()`` at the edge."""


class VirtualChain:
    """The case keeper's registers as the pins drive them; see :meth:`attach`."""

    def __init__(
        self,
        data: WatchedPin,
        clock: WatchedPin,
        latch: WatchedPin,
        enable: WatchedPin | None = None,
    ):
        self._data, self._clock, self._latch, self._enable = data, clock, latch, enable
        self._levels = {pin: bool(pin.state) for pin in (clock, latch)}
        self.shift = 0
        """The shift registers' contents, bit ``register * 8 + q``."""
        self.bits = 0
        """Rising edges of SRCLK since the last latch."""
        self.outputs: int | None = None
        """The storage registers' contents; None until the first latch (unknown at power-up)."""
        self.latched: list[Latch] = []
        """Every latch, in order."""
        self.when_latched: Callable[[Latch], None] | None = None
        """Called with each latch as it happens (the tests await frames with it)."""
        self.lit_unlatched = False
        """Set if OE ever let the LEDs light before the first latch (power-up garbage shown)."""
        for pin in (data, clock, latch, enable):
            if pin is not None:
                pin.chain = self
        self._check_blank()

    @classmethod
    def attach(cls, factory: MockFactory, data: int, clock: int, latch: int, enable: int | None):
        """Wires a chain to ``factory``'s pins (BCM numbers), before anything drives them.

        RCLK and OE are pulled up as on the board (see :data:`faro_pi.board.ROLES`),
        so until a driver claims them the chain neither latches nor lights.
        """
        pins = {"data": data, "clock": clock, "latch": latch, "enable": enable}
        watched = {}
        for role in ROLES:
            number = pins[role.key]
            if number is None:
                watched[role.key] = None
                continue
            pin = factory.pin(number, pin_class=WatchedPin)
            if not isinstance(pin, WatchedPin):
                raise ValueError(f"GPIO{number} is already a {type(pin).__name__}")
            if role.pull_up and pin.function == "input":
                pin.pull = "up"
            watched[role.key] = pin
        return cls(**watched)

    # -- what the pins did ---------------------------------------------------

    def changed(self, pin: WatchedPin) -> None:
        """A watched pin changed level or function."""
        if pin is self._clock:
            if self._rose(pin):
                self.shift = (self.shift << 1 | bool(self._data.state)) & _FULL
                self.bits += 1
        elif pin is self._latch:
            if self._rose(pin):
                latch = Latch(outputs_frame(self.shift), self.shift, self.bits, time.perf_counter())
                self.outputs = self.shift
                self.latched.append(latch)
                self.bits = 0
                if self.when_latched is not None:
                    self.when_latched(latch)
        elif pin is self._enable:
            self._check_blank()

    def _rose(self, pin: WatchedPin) -> bool:
        level = bool(pin.state)
        rose = level and not self._levels[pin]
        self._levels[pin] = level
        return rose

    def _check_blank(self) -> None:
        if self.outputs is None and self.brightness > 0:
            self.lit_unlatched = True

    # -- what the table sees ---------------------------------------------------

    @property
    def brightness(self) -> float:
        """OE's duty cycle low, 0 (blank) to 1; 1 when OE is tied low (no enable pin)."""
        if self._enable is None:
            return 1.0
        return 1.0 - float(self._enable.state)

    @property
    def latches(self) -> int:
        """Rising edges of RCLK so far."""
        return len(self.latched)

    @property
    def frame(self) -> int:
        """The cards lit now: the last latched frame, or none while OE blanks them."""
        if self.outputs is None or self.brightness == 0:
            return 0
        return outputs_frame(self.outputs)

    def grid(self) -> list[str]:
        """What the case keeper shows: rows S, H, D, C of columns A..K, ``1`` lit."""
        return grid(self.frame)


def _default_leds() -> LedsConfig:
    return LedsConfig(**{key: spec.default for key, spec in SCHEMA["leds"].keys.items()})


def watched_factory(config: LedsConfig | None = None) -> tuple[WatchedFactory, VirtualChain]:
    """A mock pin factory with a chain on ``config``'s pins (by default, the default pins)."""
    config = config or _default_leds()
    factory = WatchedFactory()
    chain = VirtualChain.attach(factory, config.data, config.clock, config.latch, config.enable)
    return factory, chain
