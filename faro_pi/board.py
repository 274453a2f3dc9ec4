"""The board's facts: which 74HC595 output lights which card, the Pi's pins and its buses.

A leaf: the config, the drivers, the virtual hardware, the doctor and the wiring
diagram all read the board from here, and it reads only the cards.

The case keeper is a grid of 52 LEDs, 13 columns (ranks A..K, the ace on the
dealer's left as on the layout) by 4 rows (suits S, H, D, C). Seven 74HC595
shift registers drive it, chained from the Pi: register 0 takes its serial
data from the Pi, and each register's QH' (pin 9) feeds the next one's SER
(pin 14). SRCLK, RCLK and OE are common to all seven.

Each register sits under two neighbouring columns and drives their eight
LEDs, Q0..Q3 the first column (S, H, D, C from the top) and Q4..Q7 the
second, which keeps the traces short; register 6 drives the king column
alone and its Q4..Q7 are spare.

:data:`CASE_KEEPER` is the one table; everything else here is read from it,
and so can the board's documentation and its wiring diagram: it stays plain
data.

A *frame* is what the LEDs show: an int whose bit ``card.index`` is set when
that card's LED is lit (the card is still in the box).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from faro_pi.game.cards import DECK, RANKS, SUITS

REGISTERS = 7
"""74HC595s in the chain."""
OUTPUTS = 8
"""Outputs per register, Q0..Q7."""
CHAIN = REGISTERS * OUTPUTS
"""Bits shifted per frame: 56, of which 52 light cards."""

# One line per column of the grid, ace to king; in each, the (register, Q)
# lighting its spades, hearts, diamonds and clubs LED.
# fmt: off
CASE_KEEPER: dict[str, tuple[tuple[int, int], ...]] = {
    #        S       H       D       C
    "A":  ((0, 0), (0, 1), (0, 2), (0, 3)),
    "2":  ((0, 4), (0, 5), (0, 6), (0, 7)),
    "3":  ((1, 0), (1, 1), (1, 2), (1, 3)),
    "4":  ((1, 4), (1, 5), (1, 6), (1, 7)),
    "5":  ((2, 0), (2, 1), (2, 2), (2, 3)),
    "6":  ((2, 4), (2, 5), (2, 6), (2, 7)),
    "7":  ((3, 0), (3, 1), (3, 2), (3, 3)),
    "8":  ((3, 4), (3, 5), (3, 6), (3, 7)),
    "9":  ((4, 0), (4, 1), (4, 2), (4, 3)),
    "10": ((4, 4), (4, 5), (4, 6), (4, 7)),
    "J":  ((5, 0), (5, 1), (5, 2), (5, 3)),
    "Q":  ((5, 4), (5, 5), (5, 6), (5, 7)),
    "K":  ((6, 0), (6, 1), (6, 2), (6, 3)),
}
# fmt: on

SPARE: tuple[tuple[int, int], ...] = ((6, 4), (6, 5), (6, 6), (6, 7))
"""Register outputs wired to no LED."""


class Role(NamedTuple):
    """What one of the Pi's pins does to the chain, and the config key that names it."""

    key: str
    """Field of :class:`~faro_pi.config.LedsConfig` (``leds.KEY`` in the file)."""
    signal: str
    """The 74HC595 input it drives (on every register)."""
    chip_pin: int
    """That input's pin on the 16-pin package."""
    spi: str | None
    """The SPI0 line it is when the pins are 10/11/8 (the defaults)."""
    pull_up: bool
    """Pulled up to 3.3 V on the board (10 kΩ), so it is high while the Pi boots."""
    meaning: str


ROLES: tuple[Role, ...] = (
    Role("data", "SER", 14, "MOSI", False, "the next bit, into register 0"),
    Role("clock", "SRCLK", 11, "SCLK", False, "shifts the chain one bit on its rising edge"),
    Role(
        "latch",
        "RCLK",
        12,
        "CE0",
        True,
        "copies the shift registers to the outputs on its rising edge (the end of a transfer)",
    ),
    Role(
        "enable",
        "OE",
        13,
        None,
        True,
        "active low: high blanks every LED; its duty cycle sets the brightness",
    ),
)
"""The Pi's pins on the chain. SRCLR (pin 10) is tied to 3.3 V, as is VCC: never cleared."""

SPI0_PINS: dict[int, str] = {7: "CE1", 8: "CE0", 9: "MISO", 10: "MOSI", 11: "SCLK"}
"""BCM pins SPI0 takes when it is on (``dtparam=spi=on``); the kernel holds CE0 and CE1 itself."""


HAT_EEPROM: dict[int, str] = {0: "ID_SD", 1: "ID_SC"}
"""BCM pins of the HAT ID EEPROM's I²C bus, by their name on the header."""

I2C_BUS_1: dict[int, str] = {2: "SDA", 3: "SCL"}
"""BCM pins of I²C bus 1 (``/dev/i2c-1``, ``dtparam=i2c_arm=on``)."""

CHAIN_DRIVERS: dict[str, bool] = {"74hc595-spi": True, "74hc595": False}
"""The chain's drivers by ``leds.driver``, and whether each sends the frames through SPI0.
The one place that says so: the config's choices and checks, the drivers' registry and the
doctor read it; ``hardware/install.sh``, which cannot, goes by the ``-spi`` ending of the
name, and a test holds the two together."""


def spi_driver(driver: str) -> bool:
    """Whether ``leds.driver`` sends the frames through SPI0 (``"74hc595-spi"``)."""
    return CHAIN_DRIVERS.get(driver, False)


def spi_clashes(pins: Mapping[str, int]) -> list[tuple[str, str]]:
    """Why SPI0 cannot drive the chain on ``pins`` (``"leds.data"`` → BCM, as
    :meth:`~faro_pi.config.Config.pins` gives them): ``(key, reason)`` pairs.

    SER, SRCLK and RCLK must be SPI0's MOSI, SCLK and CE0, and no other key may
    use a pin of SPI0: with SPI on, the kernel holds all five.
    """
    wanted = {f"leds.{role.key}": role.spi for role in ROLES if role.spi is not None}
    by_line = {line: pin for pin, line in SPI0_PINS.items()}
    clashes = []
    for key, pin in pins.items():
        line = SPI0_PINS.get(pin)
        if key in wanted and line != wanted[key]:
            need = wanted[key]
            why = f"must be GPIO {by_line[need]} (SPI0 {need}) for the chain on SPI, not {pin}"
            clashes.append((key, why))
        elif key not in wanted and line is not None:
            why = f"GPIO {pin} is SPI0 {line}, which the kernel holds while SPI is on"
            clashes.append((key, why))
    return clashes


SHIFT_ORDER: tuple[tuple[int, int], ...] = tuple(
    (position // OUTPUTS, position % OUTPUTS) for position in reversed(range(CHAIN))
)
"""The outputs in the order their bits are shifted: the first lands farthest, on
register 6's Q7; the last stays in register 0's Q0. Bytes go most significant
bit first, so byte ``i`` of a frame is register ``6 - i``, bit ``q`` its Q``q``."""

PLACES: tuple[tuple[int, int], ...] = tuple(
    CASE_KEEPER[RANKS[card.rank - 1]][SUITS.index(card.suit)] for card in DECK
)
"""The (register, Q) of each card, by ``card.index``."""

ALL_LIT = (1 << len(DECK)) - 1
"""The frame of a full box: every card still to come."""

_BYTE_BITS = tuple((REGISTERS - 1 - register, 1 << q) for register, q in PLACES)
"""Per card, the byte of the transfer and the bit in it that carries its LED."""


def frame_of(lit: int | Sequence[bool]) -> int:
    """A frame from 52 booleans in ``card.index`` order, or an int frame as is."""
    if isinstance(lit, int):
        return lit & ALL_LIT
    if len(lit) != len(DECK):
        raise ValueError(f"a frame has {len(DECK)} LEDs, not {len(lit)}")
    return sum(1 << index for index, on in enumerate(lit) if on)


def frame_bytes(frame: int | Sequence[bool]) -> bytes:
    """The seven bytes to shift, in order, so that the latch shows ``frame``."""
    frame = frame_of(frame)
    data = bytearray(REGISTERS)
    for index, (byte, bit) in enumerate(_BYTE_BITS):
        if frame >> index & 1:
            data[byte] |= bit
    return bytes(data)


def bytes_frame(data: bytes | Sequence[int]) -> int:
    """The frame that seven shifted bytes light; the spare outputs are ignored."""
    if len(data) != REGISTERS:
        raise ValueError(f"a frame is {REGISTERS} bytes, not {len(data)}")
    frame = 0
    for index, (byte, bit) in enumerate(_BYTE_BITS):
        if data[byte] & bit:
            frame |= 1 << index
    return frame


def outputs_frame(outputs: int) -> int:
    """The frame lit by the chain's outputs, given as bit ``register * 8 + q``."""
    frame = 0
    for index, (register, q) in enumerate(PLACES):
        if outputs >> (register * OUTPUTS + q) & 1:
            frame |= 1 << index
    return frame


def grid(frame: int) -> list[str]:
    """The frame as the table sees it: rows S, H, D, C of columns A..K, ``1`` lit."""
    columns = len(RANKS)
    return [
        "".join("1" if frame >> (row * columns + column) & 1 else "0" for column in range(columns))
        for row in range(len(SUITS))
    ]
