"""hardware/: the README's pin map, the wiring diagram and the card codes, against the code."""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from faro_pi import board
from faro_pi.config import load_config
from faro_pi.game.cards import DECK, RANKS, SUIT_SYMBOLS, SUITS
from hardware import card_codes
from hardware import draw_case_keeper as panel
from hardware import draw_shoe as shoe
from hardware import draw_wiring as wiring

ROOT = Path(__file__).parent.parent
HARDWARE = ROOT / "hardware"
README = HARDWARE / "README.md"
EXAMPLE = ROOT / "faro_pi" / "config.example.toml"
SVG = "{http://www.w3.org/2000/svg}"


def readme_pin_map() -> list[dict[str, str]]:
    """The rows of hardware/README.md's pin map, by column heading."""
    text = README.read_text()
    start = text.index("<!-- pin-map")
    end = text.index("<!-- end pin-map -->")
    lines = [line for line in text[start:end].splitlines()[1:] if line.startswith("|")]
    heads = [cell.strip() for cell in lines[0].strip("|").split("|")]
    rows = []
    for line in lines[2:]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows.append(dict(zip(heads, cells, strict=True)))
    return rows


def test_the_readmes_pin_map_is_the_configs_defaults():
    config = load_config(EXAMPLE, environ={})
    pins = config.pins()
    header = wiring.header()
    seen = {}
    for row in readme_pin_map():
        bcm = int(row["BCM"].removeprefix("GPIO"))
        assert header[int(row["Header pin"])] == f"GPIO{bcm}", row  # the header pin is that GPIO
        if row["Config key"] != "-":
            seen[row["Config key"].strip("`")] = bcm
        else:
            assert bcm in wiring.I2C_PINS.values(), row
    assert seen == pins
    # and the table is exactly what `python -m hardware.draw_wiring --table` prints
    text = README.read_text()
    assert wiring.markdown_table(config) in text


def test_the_readmes_led_figures_are_the_drawings():
    text = README.read_text()
    current = wiring.led_current_ma()
    assert f"≈ {current:.1f} mA" in text
    assert f"{wiring.LED_RESISTOR} Ω" in text
    assert f"52 × {current:.1f} mA ≈ {52 * current:.0f} mA" in text
    assert f"8 × {current:.1f} mA ≈ {8 * current:.1f} mA" in text
    assert 8 * current < 70 / 2 and current < 6  # the 74HC595's package and output limits


def test_the_wiring_diagram_is_drawn_from_the_code():
    committed = (HARDWARE / "wiring.svg").read_text(encoding="utf-8")
    assert wiring.render() == committed, "wiring.svg is out of date: python -m hardware.draw_wiring"


def test_the_wiring_diagram_shows_every_pin_and_every_cards_led():
    root = ET.fromstring((HARDWARE / "wiring.svg").read_bytes())
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    config = load_config(EXAMPLE, environ={})
    for key, bcm in config.pins().items():
        assert f"GPIO{bcm} {key.split('.')[1]}" in texts, key
    for card in DECK:
        register, q = board.PLACES[card.index]
        rank = card.code[:-1]
        assert f"{rank}{SUIT_SYMBOLS[card.suit]}  R{register} Q{q}" in texts
    for role in board.ROLES:
        assert any(text.startswith(role.signal) for text in texts), role.signal


@pytest.mark.parametrize("how", [["-m", "hardware.draw_wiring"], ["hardware/draw_wiring.py"]])
def test_the_wiring_script_runs_as_a_module_and_as_a_file(tmp_path, how):
    out = tmp_path / "wiring.svg"
    subprocess.run([sys.executable, *how, "--out", str(out)], cwd=ROOT, check=True)
    assert out.read_text(encoding="utf-8") == (HARDWARE / "wiring.svg").read_text()


# -- the card codes ------------------------------------------------------------------

# Code 128 from the standard, as modules (1 bar, 0 space), kept apart from the
# generator's table of widths so that a slip in one cannot hide in the other.
# fmt: off
CODE128_MODULES = """
11011001100 11001101100 11001100110 10010011000 10010001100 10001001100 10011001000
10011000100 10001100100 11001001000 11001000100 11000100100 10110011100 10011011100
10011001110 10111001100 10011101100 10011100110 11001110010 11001011100 11001001110
11011100100 11001110100 11101101110 11101001100 11100101100 11100100110 11101100100
11100110100 11100110010 11011011000 11011000110 11000110110 10100011000 10001011000
10001000110 10110001000 10001101000 10001100010 11010001000 11000101000 11000100010
10110111000 10110001110 10001101110 10111011000 10111000110 10001110110 11101110110
11010001110 11000101110 11011101000 11011100010 11011101110 11101011000 11101000110
11100010110 11101101000 11101100010 11100011010 11101111010 11001000010 11110001010
10100110000 10100001100 10010110000 10010000110 10000101100 10000100110 10110010000
10110000100 10011010000 10011000010 10000110100 10000110010 11000010010 11001010000
11110111010 11000010100 10001111010 10100111100 10010111100 10010011110 10111100100
10011110100 10011110010 11110100100 11110010100 11110010010 11011011110 11011110110
11110110110 10101111000 10100011110 10001011110 10111101000 10111100010 11110101000
11110100010 10111011110 10111101110 11101011110 11110101110 11010000100 11010010000
11010011100 1100011101011
""".split()  # noqa: SIM905
# fmt: on
START_B, STOP = 104, 106


def decode_code128(modules: str) -> str:
    """The text of one Code 128 (set B) symbol given as modules, checking its check character."""
    lookup = {pattern: value for value, pattern in enumerate(CODE128_MODULES)}
    assert modules.endswith(CODE128_MODULES[STOP]), "no stop pattern"
    body = modules[: -len(CODE128_MODULES[STOP])]
    assert len(body) % 11 == 0, "not a whole number of symbols"
    values = [lookup[body[i : i + 11]] for i in range(0, len(body), 11)]
    assert values[0] == START_B, "not code set B"
    *data, check = values[1:]
    assert check == (START_B + sum(i * v for i, v in enumerate(data, start=1))) % 103, "check"
    return "".join(chr(v + 32) for v in data)


def barcodes(svg_text: str) -> dict[str, list[tuple[float, float]]]:
    """Each ``card-CODE`` group's bars as (x, width) in millimetres, left to right."""
    root = ET.fromstring(svg_text.encode())
    found = {}
    for group in root.iter(f"{SVG}g"):
        name = group.get("id", "")
        if name.startswith("card-"):
            bars = [(float(r.get("x")), float(r.get("width"))) for r in group.iter(f"{SVG}rect")]
            found[name.removeprefix("card-")] = sorted(bars)
    return found


def modules_of(bars: list[tuple[float, float]], module: float) -> str:
    """The bars and the gaps between them as a string of modules."""
    out = []
    for i, (x, width) in enumerate(bars):
        if i:
            gap = (x - (bars[i - 1][0] + bars[i - 1][1])) / module
            assert abs(gap - round(gap)) < 0.02 and round(gap) >= 1
            out.append("0" * round(gap))
        count = width / module
        assert abs(count - round(count)) < 0.02
        out.append("1" * round(count))
    return "".join(out)


def test_the_card_code_sheet_is_drawn_from_the_code():
    committed = (HARDWARE / "card-codes.svg").read_text(encoding="utf-8")
    assert card_codes.render() == committed, (
        "card-codes.svg is out of date: python -m hardware.card_codes"
    )


def test_every_card_has_a_barcode_that_decodes_to_its_code():
    found = barcodes((HARDWARE / "card-codes.svg").read_text(encoding="utf-8"))
    assert sorted(found) == sorted(card.code for card in DECK)
    module = card_codes.MODULE
    for code, bars in found.items():
        assert decode_code128(modules_of(bars, module)) == code


def test_each_barcode_has_its_quiet_zone_inside_its_label():
    found = barcodes((HARDWARE / "card-codes.svg").read_text(encoding="utf-8"))
    cell = (card_codes.PAGE_W - 2 * card_codes.MARGIN) / 4
    quiet = card_codes.QUIET * card_codes.MODULE
    for card in DECK:
        bars = found[card.code]
        left = card_codes.MARGIN + "SHDC".index(card.suit) * cell
        assert bars[0][0] - left >= quiet
        assert left + cell - (bars[-1][0] + bars[-1][1]) >= quiet


A4 = (210.0, 297.0)
LETTER = (215.9, 279.4)
PRINTER_MARGIN = 6.0
"""Millimetres at each edge of the paper that a printer may leave blank."""


def drawn_boxes(root: ET.Element) -> list[tuple[str, float, float, float, float]]:
    """What the sheet draws besides its background, each as (what, left, top, right, bottom)
    in millimetres. A text's width is taken generously, 0.6 of its size a character."""
    boxes = []
    for line in root.iter(f"{SVG}line"):
        x1, y1, x2, y2 = (float(line.get(k)) for k in ("x1", "y1", "x2", "y2"))
        boxes.append(("cut line", min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2)))
    for group in root.iter(f"{SVG}g"):
        for rect in group.iter(f"{SVG}rect"):
            x, y, w, h = (float(rect.get(k)) for k in ("x", "y", "width", "height"))
            boxes.append((f"bar of {group.get('id')}", x, y, x + w, y + h))
    for text in root.iter(f"{SVG}text"):
        words = "".join(text.itertext())
        size = float(text.get("font-size"))
        width = 0.6 * size * len(words) + 2  # and the tspan's dx
        x, y = float(text.get("x")), float(text.get("y"))
        if text.get("text-anchor") == "middle":
            x -= width / 2
        boxes.append((repr(words), x, y - size, x + width, y + 0.3 * size))
    return boxes


def test_the_card_code_sheet_prints_at_full_size_on_a4_and_on_letter(tmp_path):
    """The sheet is no larger than the paper both sizes share, and nothing on it comes
    within a printer's margin of that paper's edges, so printing at 100 % (no scaling)
    on A4 or US Letter, top-left or centred, keeps every label whole and its bars to size."""
    out = tmp_path / "card-codes.svg"
    subprocess.run(
        [sys.executable, "-m", "hardware.card_codes", "--out", str(out)], cwd=ROOT, check=True
    )
    root = ET.fromstring(out.read_bytes())
    width = float(root.get("width").removesuffix("mm"))
    height = float(root.get("height").removesuffix("mm"))
    assert root.get("viewBox") == f"0 0 {width:g} {height:g}"  # one unit, one millimetre
    assert width <= min(A4[0], LETTER[0]) and height <= min(A4[1], LETTER[1])
    boxes = drawn_boxes(root)
    assert sum(what.startswith("bar of card-") for what, *_ in boxes) > 52 * 10
    assert sum(what == "cut line" for what, *_ in boxes) == 5 + 14
    for what, left, top, right, bottom in boxes:
        assert left >= PRINTER_MARGIN and top >= PRINTER_MARGIN, what
        assert right <= width - PRINTER_MARGIN and bottom <= height - PRINTER_MARGIN, what


def test_the_generators_table_is_the_standards():
    for value, modules in enumerate(CODE128_MODULES):
        widths = [len(run) for run in re.findall(r"1+|0+", modules)]
        assert "".join(map(str, widths)) == card_codes.PATTERNS[value]
    assert card_codes.widths("AS")[:6] == [2, 1, 1, 2, 1, 4]  # start B


# -- the parts a first build needs, in the list and in the drawing ------------------------


def drawing() -> tuple[ET.Element, list[str]]:
    root = ET.fromstring((HARDWARE / "wiring.svg").read_bytes())
    return root, ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def parts_list() -> str:
    text = README.read_text()
    return text[text.index("## Parts") : text.index("## The LEDs and their resistors")]


def test_the_green_leds_are_gap_yellow_green_in_the_list_and_the_drawing():
    """An ordinary green LED today is InGaN at ~2.9 V: through 390 Ω from 3.3 V it would
    get ~0.6 mA. The list asks for GaP yellow-green, and the drawing shows that colour."""
    parts = parts_list()
    assert "yellow-green GaP (565–575 nm)" in parts and "red (620–630 nm)" in parts
    ingan = wiring.led_current_ma(wiring.INGAN_VF)
    assert ingan < 1 and wiring.led_current_ma() > 2.5
    text = README.read_text()
    assert f"≈ {ingan:.1f} mA" in text
    ohms = (wiring.SUPPLY - wiring.INGAN_VF - wiring.OUTPUT_DROP) / 3e-3
    assert f"≈ {ohms:.0f} Ω → 82 Ω" in text
    root, texts = drawing()
    leds = [c.get("fill") for c in root.iter(f"{SVG}circle") if c.get("r") == "4.5"]
    assert leds.count(wiring.COLOURS["LED_RED"]) == 26
    assert leds.count(wiring.COLOURS["LED_GREEN"]) == 26
    assert any("GaP yellow-green (565-575 nm)" in line for line in texts)


def test_the_signal_integrity_parts_are_in_the_list_the_budget_and_the_drawing():
    parts = parts_list()
    assert f"{wiring.SERIES_RESISTOR} Ω resistor (33–100 Ω)" in parts
    assert "in series with SRCLK and RCLK, at the Pi's end" in parts
    assert f"{wiring.BULK_CAPACITOR} capacitor" in parts and "(10–47 µF" in parts
    text = README.read_text()
    budget = text[text.index("## Power budget") : text.index("## Pin map")]
    assert wiring.BULK_CAPACITOR in budget and "switching together" in budget
    assert f"pin {wiring.CLOCK_GROUND}" in text and "beside the clock" in text
    root, texts = drawing()
    assert texts.count(f"{wiring.SERIES_RESISTOR} Ω") == 2  # SRCLK and RCLK
    assert wiring.BULK_CAPACITOR in texts
    assert f"{wiring.PULL_UP} pull-ups" in texts
    # the ground beside the clock: a wire from header pin 25, the pin next to SCLK's
    assert wiring.header()[wiring.CLOCK_GROUND] == "GND"
    assert wiring.physical(11) == wiring.CLOCK_GROUND - 2
    x, y = wiring.edge(wiring.CLOCK_GROUND)
    starts = [p.get("points").split()[0] for p in root.iter(f"{SVG}polyline")]
    assert f"{x},{y}" in starts


def test_the_drawing_numbers_every_registers_pins_and_shows_its_resistors():
    """Q0 is pin 15 and Q1-Q7 pins 1-7; SRCLR (pin 10) is tied to 3.3 V; each LED has
    its resistor, and RCLK and OE their pull-ups."""
    root, texts = drawing()
    for q, pin in enumerate((15, 1, 2, 3, 4, 5, 6, 7)):
        assert texts.count(f"Q{q} {pin}") == board.REGISTERS
    assert texts.count("SRCLR 10") == board.REGISTERS
    assert f"{wiring.LED_RESISTOR} Ω" in texts
    # a resistor (a small white box) on every LED's wire, and on the four other lines
    boxes = [
        r
        for r in root.iter(f"{SVG}rect")
        if r.get("fill") == "#fff" and {r.get("width"), r.get("height")} == {"6", "14"}
    ]
    assert len(boxes) == len(DECK) + 2 + 2  # LEDs, SRCLK and RCLK, two pull-ups


# -- the reader in the shoe ------------------------------------------------------------


def test_the_shoe_section_is_drawn_by_its_script(tmp_path):
    out = tmp_path / "shoe.svg"
    subprocess.run(
        [sys.executable, "-m", "hardware.draw_shoe", "--out", str(out)], cwd=ROOT, check=True
    )
    committed = (HARDWARE / "shoe.svg").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == committed, (
        "shoe.svg is out of date: python -m hardware.draw_shoe"
    )


def test_the_scanner_sees_the_widest_label_whole_where_the_drawing_puts_it():
    """At its distance, the field across the path holds the widest code with its quiet
    zones, and the field along it the bars; the README gives the drawing's figures."""
    widest = max((card.code for card in DECK), key=card_codes.barcode_width)
    assert card_codes.barcode_width(widest) == card_codes.barcode_width(shoe.WIDEST_CODE)
    assert shoe.field_width(shoe.FIELD_ACROSS) > card_codes.barcode_width(widest)
    assert shoe.field_width(shoe.FIELD_ALONG) > card_codes.BAR_HEIGHT
    text = README.read_text()
    reader = text[text.index("## The reader") : text.index("## The camera")]
    assert "![The barcode reader in the shoe, in section](shoe.svg)" in reader
    assert f"{shoe.SCAN_DISTANCE} mm" in reader
    assert f"{shoe.LABEL_FROM_EDGE} mm in from the short edge" in reader
    assert f"is {card_codes.barcode_width(widest):.0f} mm across" in reader
    assert f"sees {shoe.field_width(shoe.FIELD_ACROSS):.0f} mm at {shoe.SCAN_DISTANCE} mm" in reader
    assert f"path {shoe.field_width(shoe.FIELD_ALONG):.0f} mm" in reader


# -- the case keeper's panel -------------------------------------------------------------


def test_the_panel_is_drawn_by_its_script(tmp_path):
    out = tmp_path / "case-keeper.svg"
    subprocess.run(
        [sys.executable, "-m", "hardware.draw_case_keeper", "--out", str(out)],
        cwd=ROOT,
        check=True,
    )
    committed = (HARDWARE / "case-keeper.svg").read_text(encoding="utf-8")
    assert out.read_text(encoding="utf-8") == committed, (
        "case-keeper.svg is out of date: python -m hardware.draw_case_keeper"
    )


def test_the_panel_puts_each_cards_led_where_the_board_says():
    """Ranks A..K left to right at one pitch, suits S, H, D, C top to bottom at another,
    and each register drawn under the columns whose LEDs the board's table gives it."""
    root = ET.fromstring((HARDWARE / "case-keeper.svg").read_bytes())
    leds = {
        c.get("id").removeprefix("led-"): (float(c.get("cx")), float(c.get("cy")))
        for c in root.iter(f"{SVG}circle")
        if c.get("id", "").startswith("led-")
    }
    assert sorted(leds) == sorted(card.code for card in DECK)
    for card in DECK:
        x, y = leds[card.code]
        column, row = card.rank - 1, SUITS.index(card.suit)
        ace_x, spade_y = leds["AS"]
        assert x == pytest.approx(ace_x + column * panel.COLUMN_PITCH * panel.SCALE)
        assert y == pytest.approx(spade_y + row * panel.ROW_PITCH * panel.SCALE)
    texts = ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]
    for register in range(board.REGISTERS):
        ranks = [r for r in RANKS if any(p[0] == register for p in board.CASE_KEEPER[r])]
        assert texts[texts.index(f"R{register}") + 1] == " ".join(ranks)
    text = README.read_text()
    section = text[text.index("## The case keeper's panel") : text.index("## The reader")]
    assert "![The case keeper's panel, and the registers behind it](case-keeper.svg)" in section
    assert f"Columns {panel.COLUMN_PITCH} mm apart and rows {panel.ROW_PITCH} mm" in section
    assert f"{panel.PANEL[0]:.0f} × {panel.PANEL[1]:.0f} mm" in section
    assert f"{panel.HOLE} mm for 5 mm LEDs" in section


# -- the README itself ------------------------------------------------------------------


def code_blocks(path: Path) -> list[tuple[str, list[str]]]:
    """Each fenced block of a Markdown file: its language (``""`` if none) and its lines."""
    blocks: list[tuple[str, list[str]]] = []
    inside: list[str] | None = None
    for line in path.read_text().splitlines():
        if line.strip().startswith("```"):
            if inside is None:
                inside = []
                blocks.append((line.strip().removeprefix("```"), inside))
            else:
                inside = None
        elif inside is not None:
            inside.append(line)
    return blocks


def test_the_readmes_doctor_output_is_only_what_the_doctor_prints():
    """Prose about the doctor goes outside the block that shows its output."""
    shown = [lines for _, lines in code_blocks(README) if re.match(r" *(ok|skip|FAIL) ", lines[0])]
    assert len(shown) >= 2
    for lines in shown:
        for line in lines:
            assert re.fullmatch(r" *((ok|skip|FAIL) +\S.*|\.\.\.)", line), line


def test_every_script_the_readme_names_is_there():
    text = README.read_text()
    named = re.findall(r"`([\w/]+\.py)`", text)
    assert named
    for name in named:
        assert (HARDWARE / name).is_file() or (ROOT / name).is_file(), name
