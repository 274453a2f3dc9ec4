"""Which gpiozero pin factory drives the pins, looked up by name as gpiozero does, and
what it offers besides its pins: a gpiochip to read edges from, an SPI of its own.

gpiozero's backends (lgpio, rpigpio, pigpio, native, mock, and any a third
party installs) register themselves as entry points in the group
:data:`GROUP`; gpiozero finds ``GPIOZERO_PIN_FACTORY`` there. Looking names
up in the same group means every installed factory works by its own name,
and no list of backends here can fall behind gpiozero's.
"""

from __future__ import annotations

import warnings
from importlib.metadata import EntryPoint, entry_points

from gpiozero import Device
from gpiozero.exc import BadPinFactory, PinFactoryFallback
from gpiozero.pins.mock import MockFactory

from faro_pi.devices.gpiochip import Chip
from faro_pi.exc import FaroError

GROUP = "gpiozero_pin_factories"
"""The entry-point group in which gpiozero's pin factories are registered."""


def _entry_point(name: str) -> EntryPoint | None:
    """The factory registered as ``name``, else as its lower case (gpiozero's order)."""
    points = entry_points(group=GROUP)
    for wanted in (name, name.lower()):
        for point in points:
            if point.name == wanted:
                return point
    return None


def pin_factory(name: str | None):
    """The gpiozero pin factory called ``name``, or None to let gpiozero choose."""
    if name is None:
        return None
    point = _entry_point(name)
    if point is None:
        raise FaroError(f"gpio.pin_factory = {name!r}: unknown pin factory")
    try:
        return point.load()()
    except Exception as exc:
        raise FaroError(
            f"gpio.pin_factory = {name!r} cannot load: {exc} "
            '(on a machine without GPIO use pin_factory = "mock")'
        ) from exc


def chosen_factory(name: str | None):
    """The factory called ``name``, or gpiozero's own choice (lgpio first on a Pi) when
    there is none; a machine with no GPIO at all says how to run without it."""
    factory = pin_factory(name)
    if factory is not None:
        return factory
    try:
        with warnings.catch_warnings():
            # gpiozero warns once per backend it cannot load; the error below says it all.
            warnings.simplefilter("ignore", PinFactoryFallback)
            Device.ensure_pin_factory()
    except BadPinFactory as exc:
        raise FaroError(
            f'no GPIO on this machine ({exc}): set gpio.pin_factory = "mock" '
            "in the config, or GPIOZERO_PIN_FACTORY=mock, to run without buttons"
        ) from exc
    return Device.pin_factory


def kernel_chip(factory) -> Chip | None:
    """The gpiochip whose lines ``factory`` drives, where the kernel can report their edges
    itself: lgpio's chip, or chip 0 for RPi.GPIO; None for pins elsewhere (mock pins,
    pigpio's daemon), which are read through the factory."""
    name = factory_name(factory)
    if name == "lgpio":
        return Chip(factory.chip)
    if name == "rpigpio":
        return Chip(0)
    return None


def opens_spi(factory) -> bool:
    """Whether ``factory.spi()`` opens an SPI of the factory's own, as gpiozero's
    ``_get_spi_class`` gives it. gpiozero's plain mock pins do not (their software SPI
    asks the default factory for its pins), so a chain on them is driven in software;
    the simulator's mock pins (:mod:`faro_pi.virtual.chain`) answer with their own."""
    return not (
        isinstance(factory, MockFactory)
        and type(factory)._get_spi_class is MockFactory._get_spi_class
    )


def factory_name(factory) -> str:
    """The name ``factory``'s class is registered under (``"lgpio"``), else the class's name."""
    kind = type(factory)
    where = f"{kind.__module__}:{kind.__qualname__}"
    for point in entry_points(group=GROUP):
        if point.value == where:
            return point.name
    return kind.__name__
