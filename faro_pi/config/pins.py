"""The Pi's pins a config may not give a key: the board's own, the display's bus, SPI0's.

Each rule depends on more than one key, so they are checked once the whole file is read
(:func:`pin_problem`, from :func:`faro_pi.config.parse_config`), each refusal one
line naming the key, the pin and whose it is:

- GPIO 0 and 1 always: they are the bus of the HAT ID EEPROM, which the firmware reads at
  boot (``i2c-0``); a HAT's EEPROM answers there, and nothing else belongs on them.
- GPIO 2 and 3 while a display is on I²C bus 1 (``display.i2c_port = 1``, the default):
  they are its SDA and SCL, with the module's pull-ups on them.
- SPI0's pins, 7 to 11, while ``leds.driver`` is an SPI driver: the kernel holds all five
  with SPI on, and the chain must be on MOSI, SCLK and CE0
  (:func:`faro_pi.board.spi_clashes`).
"""

from __future__ import annotations

from collections.abc import Mapping

from faro_pi.board import HAT_EEPROM, I2C_BUS_1, spi_clashes, spi_driver

NO_BUS = ("none", "dummy")
"""``display.driver`` values that draw on no I²C bus."""


def pin_problem(
    pins: Mapping[str, int], *, leds_driver: str, display_driver: str, i2c_port: int
) -> tuple[str, str] | None:
    """The first key whose pin the board, the display's bus or SPI0 holds, and why;
    None when every pin is free for its key.

    ``pins`` are the config's (``"leds.data"`` → BCM), the rest the keys of the same
    names: plain values, so the sections' module reads this one and not the other way.
    """
    on_bus_1 = display_driver not in NO_BUS and i2c_port == 1
    for key, pin in pins.items():
        if pin in HAT_EEPROM:
            return key, (
                f"GPIO {pin} is {HAT_EEPROM[pin]}, the HAT ID EEPROM's bus, which the firmware "
                "reads at boot: choose another pin"
            )
        if on_bus_1 and pin in I2C_BUS_1:
            return key, (
                f"GPIO {pin} is {I2C_BUS_1[pin]} of I²C bus 1, the display's "
                f'(display.driver = "{display_driver}"): choose another pin'
            )
    clashes = spi_clashes(pins) if spi_driver(leds_driver) else []
    if clashes:
        key, why = clashes[0]
        return key, f'{why} (leds.driver = "{leds_driver}")'
    return None
