"""The pin factory, found by name among gpiozero's registered factories."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest
from gpiozero.pins.mock import MockFactory

from faro_pi.devices import pins
from faro_pi.devices.pins import GROUP, factory_name, pin_factory
from faro_pi.exc import FaroError


def test_no_name_lets_gpiozero_choose():
    assert pin_factory(None) is None


@pytest.mark.parametrize("name", ["mock", "MOCK"])
def test_a_registered_factory_loads_by_its_name_in_any_case(name):
    factory = pin_factory(name)
    try:
        assert isinstance(factory, MockFactory)
        assert factory_name(factory) == "mock"
    finally:
        factory.close()


def test_every_factory_gpiozero_registers_is_known_by_name():
    names = {point.name for point in pins.entry_points(group=GROUP)}
    assert {"lgpio", "rpigpio", "pigpio", "native", "mock"} <= names


def test_an_unknown_name_says_so():
    with pytest.raises(FaroError, match=r"^gpio.pin_factory = 'nonesuch': unknown pin factory$"):
        pin_factory("nonesuch")


def test_a_factory_that_cannot_load_says_why_in_one_line(monkeypatch):
    broken = EntryPoint(name="broken", value="faro_pi.no_such_module:Factory", group=GROUP)
    monkeypatch.setattr(pins, "entry_points", lambda group: [broken])
    with pytest.raises(FaroError) as caught:
        pin_factory("broken")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("gpio.pin_factory = 'broken' cannot load: No module named")
    assert message.endswith('(on a machine without GPIO use pin_factory = "mock")')


def test_an_unregistered_factory_is_named_by_its_class():
    assert factory_name(object()) == "object"
