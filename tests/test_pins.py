"""The pin factory, found by name among gpiozero's registered factories; SPI0's pins."""

from __future__ import annotations

from importlib.metadata import EntryPoint

import pytest
from gpiozero.pins.mock import MockFactory

from faro_pi.board import spi_clashes
from faro_pi.config import SCHEMA
from faro_pi.devices import pins
from faro_pi.devices.gpiochip import Chip
from faro_pi.devices.pins import (
    GROUP,
    chosen_factory,
    factory_name,
    kernel_chip,
    opens_spi,
    pin_factory,
)
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


# -- SPI0's pins, when the case keeper's chain is on SPI ---------------------------------

CHAIN_ON_SPI0 = {"leds.data": 10, "leds.clock": 11, "leds.latch": 8, "leds.enable": 18}


def test_the_default_pins_are_spi0s():
    assert spi_clashes({**CHAIN_ON_SPI0, "buttons.signal": 17}) == []
    defaults = {key: spec.default for key, spec in SCHEMA["leds"].keys.items()}
    assert (defaults["data"], defaults["clock"], defaults["latch"]) == (10, 11, 8)


def test_the_chains_pins_must_be_mosi_sclk_and_ce0():
    clashes = spi_clashes({**CHAIN_ON_SPI0, "leds.clock": 21, "leds.latch": 7})
    assert clashes == [
        ("leds.clock", "must be GPIO 11 (SPI0 SCLK) for the chain on SPI, not 21"),
        ("leds.latch", "must be GPIO 8 (SPI0 CE0) for the chain on SPI, not 7"),
    ]


@pytest.mark.parametrize(("pin", "line"), [(9, "MISO"), (7, "CE1")])
def test_no_other_key_may_take_a_pin_the_kernel_holds_for_spi0(pin, line):
    clashes = spi_clashes({**CHAIN_ON_SPI0, "buttons.undo": pin})
    assert clashes == [
        ("buttons.undo", f"GPIO {pin} is SPI0 {line}, which the kernel holds while SPI is on")
    ]


# -- what the factory offers besides its pins ---------------------------------------------


def test_mock_pins_have_no_gpiochip_and_no_spi_of_their_own():
    factory = chosen_factory("mock")
    try:
        assert kernel_chip(factory) is None
        assert not opens_spi(factory)
    finally:
        factory.close()


def test_a_gpiochip_is_named_by_its_device():
    assert str(Chip(4)) == "/dev/gpiochip4"
