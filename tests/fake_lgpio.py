"""gpiozero's lgpio backend, run here over a stand-in for the ``lgpio`` C module.

gpiozero's ``LGPIOFactory``, ``LGPIOPin`` and ``LGPIOHardwareSPI`` are the Python
that runs on the Pi. :func:`pi_factory` loads them over :class:`Lgpio`, which
answers as lgpio would and counts every call, so a test or a benchmark sees
what the Pi's lgpio would be asked, frame by frame: how many calls into the
pin library, and the bytes that went to ``/dev/spidev0.0``. What the C calls
themselves cost on a Pi is not measured here.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import types
from collections import Counter

ZERO_2_W = 0x902120
"""The revision code a Raspberry Pi Zero 2 W reports."""


class Lgpio(types.ModuleType):
    """The part of lgpio's Python API gpiozero 2.0 calls, with every call counted."""

    SET_PULL_NONE, SET_PULL_UP, SET_PULL_DOWN = 0x80, 0x20, 0x40
    RISING_EDGE, FALLING_EDGE, BOTH_EDGES = 1, 2, 3
    IS_OUT = 1 << 1
    """``gpio_get_mode``'s bit for an output (gpiozero's ``GPIO_IS_OUT``)."""

    class error(Exception):
        pass

    def __init__(self):
        super().__init__("lgpio")
        self.calls: Counter[str] = Counter()
        self.modes: dict[int, int] = {}
        self.levels: dict[int, int] = {}
        self.spi_opened: list[tuple[int, int, int, int]] = []
        """``(port, device, baud, flags)`` of each ``spi_open``."""
        self.sent: list[tuple[float, bytes]] = []
        """``(time.perf_counter(), bytes)`` of each SPI write, as it was called."""
        self.raised: dict[int, float] = {}
        """By GPIO, ``time.perf_counter()`` when it was last written high."""

    def _count(self, name: str) -> None:
        self.calls[name] += 1

    def gpiochip_open(self, chip):
        self._count("gpiochip_open")
        return 1

    def gpiochip_close(self, handle):
        self._count("gpiochip_close")

    def gpio_claim_input(self, handle, gpio, flags=0):
        self._count("gpio_claim_input")
        self.modes[gpio] = flags

    def gpio_claim_output(self, handle, gpio, level=0, flags=0):
        self._count("gpio_claim_output")
        self.modes[gpio] = flags | self.IS_OUT
        self.levels[gpio] = level

    def gpio_claim_alert(self, handle, gpio, edges, flags=0, notify_handle=None):
        self._count("gpio_claim_alert")
        self.modes[gpio] = flags

    def gpio_free(self, handle, gpio):
        self._count("gpio_free")

    def gpio_get_mode(self, handle, gpio):
        self._count("gpio_get_mode")
        return self.modes.get(gpio, 0)

    def gpio_read(self, handle, gpio):
        self._count("gpio_read")
        return self.levels.get(gpio, 0)

    def gpio_write(self, handle, gpio, level):
        self._count("gpio_write")
        self.levels[gpio] = int(level)
        if level:
            self.raised[gpio] = time.perf_counter()

    def gpio_set_debounce_micros(self, handle, gpio, micros):
        self._count("gpio_set_debounce_micros")

    def tx_pwm(self, handle, gpio, frequency, duty, offset=0, cycles=0):
        self._count("tx_pwm")

    def callback(self, handle, gpio, edge, func=None):
        self._count("callback")
        return types.SimpleNamespace(cancel=lambda: None)

    def spi_open(self, port, device, baud, flags=0):
        self._count("spi_open")
        self.spi_opened.append((port, device, baud, flags))
        return len(self.spi_opened)

    def spi_close(self, handle):
        self._count("spi_close")

    def spi_write(self, handle, data):
        self._count("spi_write")
        self.sent.append((time.perf_counter(), bytes(data)))
        return len(data)

    def spi_xfer(self, handle, data):
        self._count("spi_xfer")
        self.sent.append((time.perf_counter(), bytes(data)))
        return len(data), bytearray(len(data))


def lgpio_backend(lgpio: Lgpio) -> types.ModuleType:
    """A fresh copy of ``gpiozero.pins.lgpio`` whose ``import lgpio`` found ``lgpio``."""
    spec = importlib.util.find_spec("gpiozero.pins.lgpio")
    backend = importlib.util.module_from_spec(spec)
    before = sys.modules.get("lgpio")
    sys.modules["lgpio"] = lgpio
    try:
        spec.loader.exec_module(backend)
    finally:
        if before is None:
            del sys.modules["lgpio"]
        else:
            sys.modules["lgpio"] = before
    return backend


def pi_factory(lgpio: Lgpio, revision: int = ZERO_2_W):
    """gpiozero's ``LGPIOFactory`` as on a Pi of ``revision``, calling ``lgpio``.

    The revision is the one thing read from the machine (``/proc/device-tree``);
    gpiozero's mock factory takes it as an argument in the same way.
    """
    backend = lgpio_backend(lgpio)

    class Pi(backend.LGPIOFactory):
        def _get_revision(self):
            return revision

    return Pi(chip=0)
