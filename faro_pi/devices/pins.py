"""Which gpiozero pin factory drives the pins, looked up by name as gpiozero does.

gpiozero's backends (lgpio, rpigpio, pigpio, native, mock, and any a third
party installs) register themselves as entry points in the group
:data:`GROUP`; gpiozero finds ``GPIOZERO_PIN_FACTORY`` there. Looking names
up in the same group means every installed factory works by its own name,
and no list of backends here can fall behind gpiozero's.
"""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

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


def factory_name(factory) -> str:
    """The name ``factory``'s class is registered under (``"lgpio"``), else the class's name."""
    kind = type(factory)
    where = f"{kind.__module__}:{kind.__qualname__}"
    for point in entry_points(group=GROUP):
        if point.value == where:
            return point.name
    return kind.__name__
