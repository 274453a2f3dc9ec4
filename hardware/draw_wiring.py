"""The wiring diagram, drawn from the code: ``python -m hardware.draw_wiring`` writes wiring.svg.

Every pin in the picture comes from the daemon's own tables: the BCM pins are
the defaults of :mod:`faro_pi.config`, the shift-register signals and which
output lights which card are :mod:`faro_pi.board`'s, and the header's
physical pin numbers are gpiozero's data for the 40-pin header (the same on
the Raspberry Pi 4, 5 and Zero 2 W). Change any of them and the picture
changes; a test redraws it and compares it with the committed file.

``python -m hardware.draw_wiring --table`` prints the pin map of hardware/README.md.
The SVG is written by hand, with nothing but the standard library.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple
from xml.sax.saxutils import escape

from faro_pi import board as wiring
from faro_pi.config import Config, parse_config
from faro_pi.game.cards import RANKS, SUIT_SYMBOLS, SUITS

OUT = Path(__file__).with_name("wiring.svg")

PI4B = 0xC03111
"""A board revision whose 40-pin header gpiozero describes (all current Pis share it)."""

I2C_PINS = {signal: bcm for bcm, signal in wiring.I2C_BUS_1.items()}
"""I²C bus 1 (/dev/i2c-1) is fixed to these BCM pins."""

LED_RESISTOR = 390
"""Ohms in series with every LED (see hardware/README.md for the sum)."""
LED_VF = 2.0
"""Forward voltage of a red (620-630 nm) or a GaP yellow-green (565-575 nm) indicator LED at a
few mA. Not an InGaN "true green" (about 2.9 V): from 3.3 V through 390 Ω it gets ~0.5 mA."""
INGAN_VF = 2.9
"""Forward voltage of an InGaN green LED, for the README's sum of its resistor."""
SUPPLY = 3.3
OUTPUT_DROP = 0.15
"""Volts a 74HC595 output loses at about 3 mA on a 3.3 V supply."""
SERIES_RESISTOR = 47
"""Ohms at the Pi's end of SRCLK and RCLK (33-100 Ω): they damp the ringing of a fast edge on
30 cm of lead, which a clock or a latch would take for a second edge."""
PULL_UP = "10 kΩ"
BULK_CAPACITOR = "22 µF"
"""Where the chain's 3.3 V enters (10-47 µF): 52 LEDs switch about 150 mA at once."""
CLOCK_GROUND = 25
"""The header's GND pin beside SCLK (pin 23): its wire runs beside the clock to the chain."""
Q_PINS = (15, 1, 2, 3, 4, 5, 6, 7)
"""The 74HC595's package pins of Q0 to Q7 (QA to QH): Q0 is on the far side, pin 15."""
SRCLR_PIN = 10
"""The 74HC595's shift-register clear (active low): tied to 3.3 V, never cleared."""


def led_current_ma(vf: float = LED_VF, ohms: float = LED_RESISTOR) -> float:
    """The current through one lit LED, in mA."""
    return (SUPPLY - vf - OUTPUT_DROP) / ohms * 1000


BUTTONS = {
    "signal": "signal (banker's lock)",
    "undo": "undo (hold: void)",
    "new_pack": "new pack",
}
"""The buttons' config keys (``buttons.KEY``) and what the dealer calls them."""


# -- the pin table -----------------------------------------------------------------


def default_config() -> Config:
    """The configuration the example file gives: every default."""
    return parse_config('[reader]\nport = "/dev/faro-reader"\n')


def header() -> dict[int, str]:
    """Physical pin 1..40 → its name on the header: ``GPIO17``, ``3V3``, ``5V``, ``GND``."""
    from gpiozero.pins.pi import PiBoardInfo

    pins = PiBoardInfo.from_revision(PI4B).headers["J8"].pins
    return {number: pins[number].name for number in sorted(pins)}


def physical(bcm: int) -> int:
    """The header pin of GPIO ``bcm``."""
    for number, name in header().items():
        if name == f"GPIO{bcm}":
            return number
    raise ValueError(f"GPIO{bcm} is not on the 40-pin header")


class PinRow(NamedTuple):
    """One row of the pin map."""

    key: str
    """The config key naming the pin, or ``-`` for a fixed one."""
    bcm: int
    part: str
    signal: str


def pin_rows(config: Config) -> list[PinRow]:
    """Every GPIO the table uses, as hardware/README.md lists them."""
    pins = config.pins()
    rows = []
    for key, label in BUTTONS.items():
        if f"buttons.{key}" in pins:
            rows.append(PinRow(f"buttons.{key}", pins[f"buttons.{key}"], "button", label))
    for role in wiring.ROLES:
        key = f"leds.{role.key}"
        if key in pins:
            spi = f", SPI0 {role.spi}" if role.spi else ""
            signal = f"{role.signal} (pin {role.chip_pin}{spi})"
            rows.append(PinRow(key, pins[key], "74HC595 chain", signal))
    if config.display.driver != "none":
        for signal, bcm in I2C_PINS.items():
            rows.append(PinRow("-", bcm, "OLED", f"{signal} (I²C bus 1)"))
    return rows


def markdown_table(config: Config | None = None) -> str:
    """The pin map as a Markdown table (hardware/README.md's)."""
    config = config or default_config()
    lines = [
        "| Config key | BCM | Header pin | Goes to | Signal |",
        "| --- | --- | --- | --- | --- |",
    ]
    for row in pin_rows(config):
        key = f"`{row.key}`" if row.key != "-" else "-"
        lines.append(f"| {key} | GPIO{row.bcm} | {physical(row.bcm)} | {row.part} | {row.signal} |")
    return "\n".join(lines) + "\n"


# -- a little SVG ------------------------------------------------------------------

FONT = "DejaVu Sans, Helvetica, Arial, sans-serif"
COLOURS = {
    "3V3": "#d35400",
    "5V": "#c0392b",
    "GND": "#1b1b1b",
    "SDA": "#1f618d",
    "SCL": "#5dade2",
    "button": "#7d3c98",
    "SER": "#b7950b",
    "LED_RED": "#e74c3c",
    "LED_GREEN": "#9acd32",
    "SRCLK": "#1e8449",
    "RCLK": "#c2185b",
    "OE": "#6e2c00",
    "USB": "#566573",
    "UART": "#117a65",
}


class Svg:
    """Elements in the order they are drawn, written out as one SVG document."""

    def __init__(self, width: int, height: int):
        self.width, self.height = width, height
        self.parts: list[str] = []

    def add(self, element: str) -> None:
        self.parts.append(element)

    def line(self, points: Iterable[tuple[float, float]], colour: str, width: float = 2) -> None:
        coords = " ".join(f"{_n(x)},{_n(y)}" for x, y in points)
        self.add(
            f'<polyline points="{coords}" fill="none" stroke="{colour}" '
            f'stroke-width="{_n(width)}" stroke-linejoin="round"/>'
        )

    def rect(self, x, y, w, h, fill="none", stroke="#333", rx=0, width: float = 1.5) -> None:
        self.add(
            f'<rect x="{_n(x)}" y="{_n(y)}" width="{_n(w)}" height="{_n(h)}" rx="{_n(rx)}" '
            f'fill="{fill}" stroke="{stroke}" stroke-width="{_n(width)}"/>'
        )

    def circle(self, x, y, r, fill="#fff", stroke="#333", width: float = 1.2) -> None:
        self.add(
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(r)}" fill="{fill}" stroke="{stroke}" '
            f'stroke-width="{_n(width)}"/>'
        )

    def dot(self, x, y, colour) -> None:
        self.circle(x, y, 3.2, fill=colour, stroke=colour, width=0)

    def text(
        self,
        x,
        y,
        content: str,
        size: float = 11,
        anchor: str = "start",
        colour: str = "#222",
        weight: str = "normal",
        rotate: bool = False,
    ) -> None:
        turn = f' transform="rotate(-90 {_n(x)} {_n(y)})"' if rotate else ""
        self.add(
            f'<text x="{_n(x)}" y="{_n(y)}" font-size="{_n(size)}" text-anchor="{anchor}" '
            f'fill="{colour}" font-weight="{weight}"{turn}>{escape(content)}</text>'
        )

    def document(self) -> str:
        body = "\n".join(self.parts)
        return (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
            f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" '
            f'font-family="{FONT}">\n'
            f'<rect width="{self.width}" height="{self.height}" fill="#ffffff"/>\n'
            f"{body}\n</svg>\n"
        )


def _n(value: float) -> str:
    """A coordinate, written the same way every time."""
    return f"{round(value, 2):g}"


# -- the drawing -------------------------------------------------------------------

WIDTH, HEIGHT = 1600, 1220
BOARD = (560, 96, 300, 540)
"""The Pi: x, y, width, height."""
ODD_X, EVEN_X = 690, 730
PIN_Y0, PITCH = 132, 22
CHIP_Y, CHIP_H, CHIP_W = 812, 110, 100
CHIP_X0, CHIP_STEP = 640, 128
LED_Y = 996


def pin_xy(number: int) -> tuple[int, int]:
    """Where header pin ``number`` is drawn."""
    row = (number - 1) // 2
    return (ODD_X if number % 2 else EVEN_X), PIN_Y0 + row * PITCH


def edge(number: int) -> tuple[int, int]:
    """Where a wire from header pin ``number`` leaves the board."""
    y = pin_xy(number)[1]
    return (BOARD[0] if number % 2 else BOARD[0] + BOARD[2]), y


def render(config: Config | None = None) -> str:
    """The wiring diagram of ``config`` (the defaults) as SVG text."""
    config = config or default_config()
    names = header()
    pins = config.pins()
    svg = Svg(WIDTH, HEIGHT)
    used: dict[int, str] = {}
    """Header pin → wire colour, for the pins something is connected to."""

    svg.text(30, 40, "faro-pi wiring", size=22, weight="bold")
    svg.text(
        30,
        62,
        "Drawn by hardware/draw_wiring.py from the defaults in faro_pi/config/__init__.py and the "
        "table in faro_pi/board.py. Pins are BCM GPIO numbers; circled numbers are "
        "header pins.",
        size=12,
        colour="#555",
    )

    # The OLED: its pins level with the header pins they go to.
    if config.display.driver != "none":
        oled = {
            "VCC": (1, COLOURS["3V3"]),
            "SDA": (physical(I2C_PINS["SDA"]), COLOURS["SDA"]),
            "SCL": (physical(I2C_PINS["SCL"]), COLOURS["SCL"]),
            "GND": (9, COLOURS["GND"]),
        }
        top = pin_xy(1)[1] - 26
        bottom = pin_xy(9)[1] + 16
        svg.rect(120, top, 200, bottom - top, fill="#0b1a2a", stroke="#0b1a2a", rx=6)
        svg.rect(138, top + 12, 120, bottom - top - 24, fill="#123a5c", stroke="#5dade2", rx=2)
        svg.text(198, top + 40, "OLED 128×64", size=12, anchor="middle", colour="#d6eaf8")
        svg.text(
            198,
            top + 56,
            f"{config.display.driver.upper()} · I²C",
            size=10,
            anchor="middle",
            colour="#d6eaf8",
        )
        svg.text(
            198,
            top + 70,
            f"address 0x{config.display.i2c_address:02X}",
            size=10,
            anchor="middle",
            colour="#d6eaf8",
        )
        for label, (number, colour) in oled.items():
            x, y = edge(number)
            svg.text(314, y + 4, label, size=10, anchor="end", colour="#fff")
            svg.line([(320, y), (x, y)], colour)
            used[number] = colour

    # The buttons: pin to switch to a ground rail that joins the OLED's GND.
    rail_x = 400
    ground_y = pin_xy(9)[1]
    button_ys = []
    for key, label in BUTTONS.items():
        number = physical(pins[f"buttons.{key}"])
        x, y = edge(number)
        button_ys.append(y)
        colour = COLOURS["button"]
        svg.line([(x, y), (470, y)], colour)
        _switch(svg, 430, 470, y)
        svg.line([(430, y), (rail_x, y)], COLOURS["GND"])
        svg.dot(rail_x, y, COLOURS["GND"])
        svg.text(rail_x - 8, y + 4, label, size=11, anchor="end")
        used[number] = colour
    svg.line([(rail_x, ground_y), (rail_x, max(button_ys))], COLOURS["GND"])
    svg.dot(rail_x, ground_y, COLOURS["GND"])
    used.setdefault(9, COLOURS["GND"])
    svg.text(
        rail_x - 8,
        max(button_ys) + 24,
        "each button: GPIO to GND, internal pull-up",
        size=10,
        anchor="end",
        colour="#555",
    )

    _chain(svg, config, pins, used)
    _reader(svg, used)
    _board(svg, names, used, pins)
    _legend(svg, config)
    return svg.document()


def _switch(svg: Svg, x1: float, x2: float, y: float) -> None:
    """A push button between (x1, y) and (x2, y)."""
    svg.circle(x1 + 4, y, 3, fill="#fff", stroke="#333")
    svg.circle(x2 - 4, y, 3, fill="#fff", stroke="#333")
    svg.line([(x1 + 2, y - 7), (x2 - 2, y - 7)], "#333", 2)
    svg.line([((x1 + x2) / 2, y - 7), ((x1 + x2) / 2, y - 12)], "#333", 2)


def _board(svg: Svg, names: dict[int, str], used: dict[int, str], pins: dict[str, int]) -> None:
    x, y, w, h = BOARD
    svg.rect(x, y, w, h, fill="#1e8449", stroke="#145a32", rx=14, width=2)
    svg.text(
        x + w / 2,
        y + h - 30,
        "Raspberry Pi 4, 5 or Zero 2 W",
        size=13,
        anchor="middle",
        colour="#fff",
        weight="bold",
    )
    svg.text(
        x + w / 2,
        y + h - 14,
        "40-pin header (J8), seen from above",
        size=10,
        anchor="middle",
        colour="#d5f5e3",
    )
    svg.rect(
        ODD_X - 12,
        PIN_Y0 - 12,
        EVEN_X - ODD_X + 24,
        19 * PITCH + 24,
        fill="#111",
        stroke="#000",
        rx=3,
    )
    keys = {f"GPIO{bcm}": key for key, bcm in pins.items()}
    for number, name in names.items():
        px, py = pin_xy(number)
        odd = number % 2 == 1
        colour = used.get(number)
        if colour is not None:
            svg.line([(px, py), edge(number)], colour)
        fill = colour or "#bdc3c7"
        svg.circle(px, py, 7.5, fill=fill, stroke="#f4f6f6" if colour else "#7f8c8d")
        svg.text(
            px,
            py + 3.5,
            str(number),
            size=8,
            anchor="middle",
            colour="#fff" if colour else "#333",
            weight="bold",
        )
        label = name
        if name in keys:
            label = f"{name} {keys[name].split('.')[1]}"
        elif name == "GPIO2":
            label = "GPIO2 SDA"
        elif name == "GPIO3":
            label = "GPIO3 SCL"
        lx = px - 14 if odd else px + 14
        svg.text(
            lx,
            py - 3 if colour else py + 4,
            label,
            size=9,
            anchor="end" if odd else "start",
            colour="#fff" if colour else "#a9dfbf",
        )
    # the USB port the reader plugs into
    svg.rect(760, y - 14, 60, 22, fill="#aab7b8", stroke="#566573", rx=2)
    svg.text(790, y + 2, "USB", size=10, anchor="middle", weight="bold")


def _resistor(svg: Svg, x: float, y: float, vertical: bool = False) -> None:
    """A resistor, a small box on the wire through (x, y)."""
    w, h = (6, 14) if vertical else (14, 6)
    svg.rect(x - w / 2, y - h / 2, w, h, fill="#fff", stroke="#333", width=1.3)


def _ground(svg: Svg, x: float, y: float) -> None:
    """A ground symbol hanging from (x, y)."""
    for i, half in enumerate((7, 4.5, 2)):
        svg.line([(x - half, y + 3 * i), (x + half, y + 3 * i)], COLOURS["GND"], 1.4)


def _chain(svg: Svg, config: Config, pins: dict[str, int], used: dict[int, str]) -> None:
    """The seven 74HC595s, their buses from the Pi, and the LEDs on their outputs."""
    bus_y = _buses(svg, pins, used)
    drops = [
        s for s in ("SRCLK", "RCLK", "OE", "SRCLR", "3V3", "GND") if s in bus_y or s == "SRCLR"
    ]
    for register in range(wiring.REGISTERS):
        _register(svg, register, drops, bus_y)
    _pull_ups(svg, bus_y)
    # the bulk capacitor where the chain's 3.3 V enters
    x, y = CHIP_X0 - 44, bus_y["3V3"]
    svg.line([(x, y), (x, y + 18)], COLOURS["3V3"], 1.6)
    svg.dot(x, y, COLOURS["3V3"])
    svg.line([(x - 7, y + 18), (x + 7, y + 18)], "#333", 1.8)
    svg.line([(x - 7, y + 23), (x + 7, y + 23)], "#333", 1.8)
    svg.line([(x, y + 23), (x, y + 34)], COLOURS["GND"], 1.6)
    _ground(svg, x, y + 34)
    svg.text(x - 10, y + 24, f"{BULK_CAPACITOR}", size=9, anchor="end", weight="bold")


def _pull_ups(svg: Svg, bus_y: dict[str, int]) -> None:
    """RCLK and OE pulled up to 3.3 V, past the last register: dark while the Pi boots."""
    last = CHIP_X0 + (wiring.REGISTERS - 1) * CHIP_STEP + CHIP_W
    pulled = [role.signal for role in wiring.ROLES if role.pull_up and role.signal in bus_y]
    for i, name in enumerate(pulled):
        x = last + 22 + 18 * i
        top, bottom = bus_y[name], bus_y["3V3"]
        svg.line([(x, top), (x, bottom)], "#333", 1.3)
        svg.dot(x, top, COLOURS[name])
        svg.dot(x, bottom, COLOURS["3V3"])
        _resistor(svg, x, (top + bottom) / 2, vertical=True)
    if pulled:
        x = last + 22 + 18 * len(pulled) - 10
        svg.text(x, bus_y["3V3"] + 16, f"{PULL_UP} pull-ups", size=9, anchor="end")


def _chain_lines(pins: dict[str, int]) -> list[tuple[str, int, str]]:
    """(name, header pin, colour) of every line from the Pi to the chain."""
    roles = {role.key: role for role in wiring.ROLES}
    lines = []
    for key in ("data", "clock", "latch", "enable"):
        if f"leds.{key}" in pins:
            role = roles[key]
            lines.append((role.signal, physical(pins[f"leds.{key}"]), COLOURS[role.signal]))
    lines.append(("3V3", 17, COLOURS["3V3"]))
    lines.append(("GND", 39, COLOURS["GND"]))
    if "leds.clock" in pins:  # a second ground, laid beside the clock
        lines.append(("GND", CLOCK_GROUND, COLOURS["GND"]))
    return lines


def _buses(svg: Svg, pins: dict[str, int], used: dict[int, str]) -> dict[str, int]:
    """The lines from the Pi's header to the chain's buses; returns each bus's height."""
    signals = _chain_lines(pins)
    # Route each line down a channel beside the board to its bus, nested so
    # that no two cross: on each side, the lower a wire leaves the header,
    # the nearer the board its channel and the higher its bus.
    left = sorted((s for s in signals if s[1] % 2), key=lambda s: -pin_xy(s[1])[1])
    right = sorted((s for s in signals if not s[1] % 2), key=lambda s: -pin_xy(s[1])[1])
    bus_y: dict[str, int] = {}
    y = 664
    for name, _, _ in [*reversed(right), *left]:
        if name not in bus_y:
            bus_y[name] = y
            y += 16
    last = CHIP_X0 + (wiring.REGISTERS - 1) * CHIP_STEP + CHIP_W
    # Right of the board, the channels run down a gap between two registers,
    # clear of the chips' own drops, and far enough out for a resistor.
    gaps = (CHIP_X0 + r * CHIP_STEP + CHIP_W + 8 for r in range(wiring.REGISTERS))
    right_gap = next(x for x in gaps if x > BOARD[0] + BOARD[2] + 40)
    for side, group in ((-1, left), (1, right)):
        for i, (name, number, colour) in enumerate(group):
            x0, y0 = edge(number)
            channel = x0 - 16 - 14 * i if side < 0 else right_gap + 12 * i
            end = CHIP_X0 - 20 if name == "SER" else last + 60
            start = min(channel, CHIP_X0 - 20) if name != "SER" else channel
            svg.line([(x0, y0), (channel, y0), (channel, bus_y[name])], colour)
            svg.line([(start, bus_y[name]), (end, bus_y[name])], colour)
            if channel != start:
                svg.dot(channel, bus_y[name], colour)
            used[number] = colour
            if name in ("SRCLK", "RCLK"):  # the series resistor, at the Pi's end
                rx = x0 + 22 * side
                _resistor(svg, rx, y0)
                svg.text(rx, y0 - 6, f"{SERIES_RESISTOR} Ω", size=8, anchor="middle")
            if number != CLOCK_GROUND:
                svg.text(
                    edge(1)[0] - 12, bus_y[name] - 3, name, size=9, colour=colour, weight="bold"
                )
    return bus_y


CHIP_PINS = {"SRCLK": 11, "RCLK": 12, "OE": 13, "SRCLR": SRCLR_PIN, "3V3": 16, "GND": 8}
"""The 74HC595's pin of each line dropped from a bus."""


def _register(svg: Svg, register: int, drops: list[str], bus_y: dict[str, int]) -> None:
    """One 74HC595: its drops from the buses, its capacitor, its serial link and its LEDs."""
    x = CHIP_X0 + register * CHIP_STEP
    svg.rect(x, CHIP_Y, CHIP_W, CHIP_H, fill="#212f3d", stroke="#17202a", rx=4)
    svg.text(
        x + CHIP_W / 2,
        CHIP_Y + CHIP_H - 22,
        "74HC595",
        size=11,
        anchor="middle",
        colour="#fff",
        weight="bold",
    )
    svg.text(
        x + CHIP_W / 2,
        CHIP_Y + CHIP_H - 9,
        f"register {register}",
        size=9,
        anchor="middle",
        colour="#d5d8dc",
    )
    for j, name in enumerate(drops):
        dx = x + 12 + j * 15
        bus = "3V3" if name == "SRCLR" else name
        colour = COLOURS[bus]
        svg.line([(dx, bus_y[bus]), (dx, CHIP_Y)], colour, 1.6)
        svg.dot(dx, bus_y[bus], colour)
        label = "VCC" if name == "3V3" else name
        svg.text(
            dx + 3.5,
            CHIP_Y + 6,
            f"{label} {CHIP_PINS[name]}",
            size=8,
            colour="#fff",
            anchor="end",
            rotate=True,
        )
    # 100 nF across VCC and GND, at the chip
    vcc_x = x + 12 + drops.index("3V3") * 15
    gnd_x = x + 12 + drops.index("GND") * 15
    cap_y = CHIP_Y - 16
    mid = (vcc_x + gnd_x) / 2
    svg.line([(vcc_x, cap_y), (mid - 2.5, cap_y)], "#333", 1.2)
    svg.line([(mid + 2.5, cap_y), (gnd_x, cap_y)], "#333", 1.2)
    svg.line([(mid - 2.5, cap_y - 5), (mid - 2.5, cap_y + 5)], "#333", 1.6)
    svg.line([(mid + 2.5, cap_y - 5), (mid + 2.5, cap_y + 5)], "#333", 1.6)
    # serial data in on the left (SER, pin 14), out on the right (QH', pin 9)
    ser_y = CHIP_Y + 64
    svg.text(x + 4, ser_y + 3, "SER 14", size=8, colour="#fff")
    svg.text(x + CHIP_W - 4, ser_y + 3, "QH' 9", size=8, colour="#fff", anchor="end")
    if register == 0:
        svg.line([(CHIP_X0 - 20, bus_y["SER"]), (CHIP_X0 - 20, ser_y), (x, ser_y)], COLOURS["SER"])
        svg.text(x - 4, CHIP_Y + CHIP_H + 47, f"{LED_RESISTOR} Ω", size=8, anchor="end")
    else:
        prev = x - CHIP_STEP + CHIP_W
        svg.line([(prev, ser_y), (x, ser_y)], COLOURS["SER"])
    _outputs(svg, x, register)


def _outputs(svg: Svg, x: float, register: int) -> None:
    """Q0..Q7 of one register, with their pins, through their resistors to their LEDs,
    each labelled with its card."""
    cards = {}
    for rank, places in wiring.CASE_KEEPER.items():
        for suit, place in zip(SUITS, places, strict=True):
            cards[place] = (rank, suit)
    for q in range(wiring.OUTPUTS):
        qx = x + 8 + q * 12 + (4 if q >= 4 else 0)
        # the output's name and pin under the chip, and its wire from there down
        svg.text(
            qx + 2.5, CHIP_Y + CHIP_H + 3, f"Q{q} {Q_PINS[q]}", size=7.5, anchor="end", rotate=True
        )
        svg.line([(qx, CHIP_Y + CHIP_H + 31), (qx, LED_Y - 6)], "#555", 1.2)
        card = cards.get((register, q))
        if card is None:
            svg.circle(qx, LED_Y, 4.5, fill="#fff", stroke="#aaa")
            svg.text(qx + 3, LED_Y + 10, "spare", size=8, anchor="end", colour="#999", rotate=True)
            continue
        _resistor(svg, qx, CHIP_Y + CHIP_H + 44, vertical=True)
        rank, suit = card
        red = suit in ("H", "D")
        led = COLOURS["LED_RED"] if red else COLOURS["LED_GREEN"]
        svg.circle(qx, LED_Y, 4.5, fill=led, stroke="#333")
        svg.text(
            qx + 3.5,
            LED_Y + 10,
            f"{rank}{SUIT_SYMBOLS[suit]}",
            size=9,
            anchor="end",
            colour="#c0392b" if red else "#1b1b1b",
            rotate=True,
        )


def _reader(svg: Svg, used: dict[int, str]) -> None:
    """The Pico on the Pi's USB, and the scanner module and no-read button on the Pico."""
    px, py, pw, ph = 1060, 170, 150, 290
    svg.line(
        [(790, BOARD[1] - 14), (790, 76), (px + pw / 2, 76), (px + pw / 2, py)], COLOURS["USB"], 5
    )
    svg.text(px + pw / 2 + 12, 112, "USB: the Pico's power,", size=10, colour=COLOURS["USB"])
    svg.text(px + pw / 2 + 12, 125, "and fsp1 as /dev/faro-reader", size=10, colour=COLOURS["USB"])
    svg.rect(px, py, pw, ph, fill="#1e8449", stroke="#145a32", rx=8, width=2)
    svg.rect(px + pw / 2 - 14, py - 8, 28, 14, fill="#aab7b8", stroke="#566573", rx=2)
    svg.text(
        px + pw / 2,
        py + 40,
        "Raspberry Pi Pico",
        size=12,
        anchor="middle",
        colour="#fff",
        weight="bold",
    )
    svg.text(px + pw / 2, py + 56, "MicroPython", size=10, anchor="middle", colour="#d5f5e3")
    svg.text(px + pw / 2, py + 70, "firmware/main.py", size=10, anchor="middle", colour="#d5f5e3")
    svg.text(px + pw / 2, py + 84, "+ fsp1_reader.py", size=10, anchor="middle", colour="#d5f5e3")
    pico_pins = [
        ("GP4 (pin 6) UART1 TX", 230 + 60, COLOURS["UART"], "RX"),
        ("GP5 (pin 7) UART1 RX", 230 + 82, COLOURS["UART"], "TX"),
        ("VBUS (pin 40) 5 V", 230 + 104, COLOURS["5V"], "VCC"),
        ("GND (pin 38)", 230 + 126, COLOURS["GND"], "GND"),
    ]
    sx, sy, sw = 1340, 222, 180
    svg.rect(sx, sy, sw, 150, fill="#fdfefe", stroke="#333", rx=6)
    svg.text(
        sx + sw / 2, sy + 20, "barcode scanner module", size=11.5, anchor="middle", weight="bold"
    )
    svg.text(sx + sw / 2, sy + 35, "serial mode, 9600 8N1,", size=9.5, anchor="middle")
    svg.text(sx + sw / 2, sy + 48, "CR or LF after each code", size=9.5, anchor="middle")
    for label, y, colour, theirs in pico_pins:
        svg.text(px + pw - 6, y + 3.5, label, size=8.5, anchor="end", colour="#fff")
        svg.line([(px + pw, y), (sx, y)], colour)
        svg.text(sx + 6, y + 3.5, theirs, size=9, colour="#333")
    by = py + ph - 40
    svg.text(px + pw - 6, by + 3.5, "GP15 (pin 20)", size=8.5, anchor="end", colour="#fff")
    svg.line([(px + pw, by), (px + pw + 30, by)], COLOURS["button"])
    _switch(svg, px + pw + 30, px + pw + 70, by)
    svg.line([(px + pw + 70, by), (px + pw + 90, by), (px + pw + 90, by + 16)], COLOURS["GND"])
    svg.text(px + pw + 96, by + 19, "GND (pin 18)", size=9, colour="#333")
    svg.text(px + pw + 50, by - 16, "no-read button", size=10, anchor="middle")


def _legend(svg: Svg, config: Config) -> None:
    x, y = 40, 500
    pulled = " and ".join(role.signal for role in wiring.ROLES if role.pull_up)
    lines = [
        f"Each LED: output Q → {LED_RESISTOR} Ω → LED → GND, about {led_current_ma():.1f} mA:",
        "red (620-630 nm) for ♥ ♦, GaP yellow-green (565-575 nm) for ♠ ♣,",
        f"both about {LED_VF:.1f} V. Not InGaN green ({INGAN_VF} V): it would get "
        f"{led_current_ma(INGAN_VF):.1f} mA.",
        "Q0 is pin 15, Q1 to Q7 pins 1 to 7. Each 74HC595: VCC (16) and",
        "SRCLR (10) to 3.3 V, GND (8) to GND, 100 nF across VCC and GND",
        f"at the chip; {BULK_CAPACITOR} where the chain's 3.3 V enters (52 LEDs",
        "switch about 150 mA at once).",
        f"{pulled}: {PULL_UP} pull-ups to 3.3 V, so the LEDs stay dark",
        "while the Pi boots. Register 0's SER (14) takes the Pi's",
        "data; each QH' (9) feeds the next register's SER (14).",
        f"SRCLK and RCLK: {SERIES_RESISTOR} Ω in series at the Pi's end; the ground",
        f"from pin {CLOCK_GROUND} runs beside the clock. Leads 30 cm at most.",
        "The chain is on SPI0 (MOSI, SCLK, CE0): with leds.driver",
        '"74hc595-spi" SPI sends each frame, so SPI is on; the',
        'bit-banged "74hc595" drives the pins itself and needs SPI off.',
        "The OLED module carries its own I²C pull-ups.",
    ]
    svg.rect(x - 14, y - 22, 450, 18 * len(lines) + 30, fill="#fbfcfc", stroke="#ccd1d1", rx=6)
    svg.text(x, y - 4, "Notes", size=12, weight="bold")
    for i, line in enumerate(lines):
        svg.text(x, y + 16 + 18 * i, line, size=10.5)
    # the case keeper as the table sees it
    gy = 1092
    svg.text(
        40,
        gy - 26,
        "The case keeper: each card's LED, by register and output",
        size=13,
        weight="bold",
    )
    cell = (WIDTH - 120) / len(RANKS)
    for column, rank in enumerate(RANKS):
        cx = 100 + column * cell
        svg.text(cx + cell / 2, gy - 6, rank, size=12, anchor="middle", weight="bold")
        for row, suit in enumerate(SUITS):
            register, q = wiring.CASE_KEEPER[rank][row]
            red = suit in ("H", "D")
            svg.rect(
                cx + 2,
                gy + row * 24,
                cell - 4,
                20,
                fill="#fdedec" if red else "#eafaf1",
                stroke="#d5d8dc",
                rx=3,
                width=1,
            )
            svg.text(
                cx + cell / 2,
                gy + row * 24 + 14,
                f"{rank}{SUIT_SYMBOLS[suit]}  R{register} Q{q}",
                size=10,
                anchor="middle",
                colour="#c0392b" if red else "#1b1b1b",
            )
    for row, suit in enumerate(SUITS):
        svg.text(
            90,
            gy + row * 24 + 14,
            SUIT_SYMBOLS[suit],
            size=13,
            anchor="end",
            colour="#c0392b" if suit in ("H", "D") else "#1b1b1b",
        )


def drawn(render: Callable[[], str], out: Path, doc: str, argv: list[str] | None) -> int:
    """A drawing script's command line: ``render()`` written to ``--out`` (``out`` unless
    told), for the other drawings of this folder."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", type=Path, default=out, help=f"where to write (default {out})")
    args = parser.parse_args(argv)
    args.out.write_text(render(), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", action="store_true", help="print the pin map as Markdown")
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write (default {OUT})")
    args = parser.parse_args(argv)
    if args.table:
        sys.stdout.write(markdown_table())
        return 0
    args.out.write_text(render(), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
