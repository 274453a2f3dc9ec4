"""The shoe's buttons: what a press, a short press of undo and a hold say, on mock pins and
from the kernel's gpiochip events as a Pi reads them."""

from __future__ import annotations

import errno
import logging
import os
import struct
import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory

from faro_pi.config import ButtonsConfig
from faro_pi.devices import gpiochip
from faro_pi.devices.buttons import ShoeButtons
from tests.test_idle import wakes

HOLD = 0.05


class Heard:
    """What the buttons handed on, in order, from whichever thread."""

    def __init__(self):
        self.words: list[str] = []
        self.changed = threading.Condition()

    def __call__(self, word: str) -> None:
        with self.changed:
            self.words.append(word)
            self.changed.notify_all()

    def wait_for(self, count: int, timeout: float = 30.0) -> list[str]:
        with self.changed:
            self.changed.wait_for(lambda: len(self.words) >= count, timeout)
            return list(self.words)


@pytest.fixture
def shoe():
    factory = MockFactory()
    heard = Heard()
    config = ButtonsConfig(
        signal=17, undo=27, new_pack=22, bounce=0, undo_hold=HOLD, pair_hold=2 * HOLD
    )
    buttons = ShoeButtons(config, heard, factory)
    yield factory, heard
    buttons.close()
    factory.close()


def test_signal_and_new_pack_say_so_when_pressed(shoe):
    factory, heard = shoe
    for pin in (17, 22):
        factory.pin(pin).drive_low()
        factory.pin(pin).drive_high()
    assert heard.words == ["signal", "new_pack"]
    time.sleep(4 * HOLD)
    assert heard.words == ["signal", "new_pack"]  # released before its hold


def test_a_short_press_of_undo_is_undo_on_release(shoe):
    factory, heard = shoe
    factory.pin(27).drive_low()
    assert heard.words == []
    factory.pin(27).drive_high()
    assert heard.words == ["undo"]
    time.sleep(2 * HOLD)
    assert heard.words == ["undo"]  # the hold was called off


def test_undo_held_voids_while_still_down_and_its_release_says_nothing(shoe):
    factory, heard = shoe
    factory.pin(27).drive_low()
    assert heard.wait_for(1) == ["void"]
    time.sleep(2 * HOLD)
    factory.pin(27).drive_high()
    assert heard.words == ["void"]  # once, and no undo after it


def test_each_hold_voids_once(shoe):
    factory, heard = shoe
    for _ in range(2):
        factory.pin(27).drive_low()
        heard.wait_for(len(heard.words) + 1)
        factory.pin(27).drive_high()
    assert heard.words == ["void", "void"]


def test_new_pack_held_asks_for_the_pairing_code_after_its_press(shoe):
    factory, heard = shoe
    factory.pin(22).drive_low()
    assert heard.wait_for(2) == ["new_pack", "pair"]  # the press is a new pack as ever
    factory.pin(22).drive_high()
    factory.pin(22).drive_low()
    factory.pin(22).drive_high()  # a short press: a new pack, no code
    time.sleep(4 * HOLD)
    assert heard.words == ["new_pack", "pair", "new_pack"]


# -- on a Pi: the lines straight from the kernel ------------------------------------------


def test_the_line_request_is_the_kernels_struct():
    """Offsets and sizes from include/uapi/linux/gpio.h (the kernel's static asserts)."""
    assert gpiochip.GET_LINE == 0xC250B407
    request = gpiochip.line_request([17, 27, 22], 0.03)
    assert len(request) == 592 and gpiochip.FD_AT == 588
    assert struct.unpack_from("=3I", request, 0) == (17, 27, 22)  # offsets[64]
    assert request[256:288].rstrip(b"\0") == b"faro-pi"  # consumer[32]
    flags, attrs = struct.unpack_from("=QI", request, 288)  # config.flags, config.num_attrs
    assert flags == 0x134 and attrs == 1  # input, both edges, pull-up
    assert struct.unpack_from("=IIIxxxxQ", request, 320) == (3, 0, 30_000, 0b111)  # debounce
    assert struct.unpack_from("=I", request, 560) == (3,)  # num_lines
    assert struct.unpack_from("=i", request, 588) == (-1,)  # fd, for the kernel to fill
    assert struct.unpack_from("=I", gpiochip.line_request([5], 0), 296) == (0,)  # no debounce


def kernel_edge(line: int, rising: bool, stamp: int = 0) -> bytes:
    """A ``gpio_v2_line_event`` as the kernel writes it."""
    return struct.pack("=QIIII24x", stamp, 1 if rising else 2, line, 0, 0)


def test_edges_are_read_from_the_kernels_events():
    data = kernel_edge(17, False, 5) + kernel_edge(17, True, 9)
    assert list(gpiochip.edges(data)) == [
        gpiochip.Edge(17, False, 5),
        gpiochip.Edge(17, True, 9),
    ]


class PipeChip(gpiochip.Chip):
    """A Pi's gpiochip whose lines' descriptor is a pipe the test writes the kernel's events to."""

    def __new__(cls, request):
        chip = super().__new__(cls, 0)
        chip._request = request
        return chip

    def request(self, lines, debounce):
        return self._request(self.number, lines, debounce)


@pytest.fixture
def kernel_shoe():
    """The buttons on a Pi, the kernel's line descriptor played by a pipe."""
    read, write = os.pipe()
    asked = []

    def request_lines(chip, lines, debounce):
        asked.append((chip, tuple(lines), debounce))
        return read

    factory = MockFactory()
    heard = Heard()
    config = ButtonsConfig(
        signal=17, undo=27, new_pack=22, bounce=0.03, undo_hold=HOLD, pair_hold=3.0
    )
    shoe = ShoeButtons(config, heard, factory, chip=PipeChip(request_lines))
    yield shoe, (lambda *events: os.write(write, b"".join(events))), heard, asked
    shoe.close()
    os.close(write)
    factory.close()


def test_on_a_pi_the_buttons_are_the_kernels_edges(kernel_shoe):
    shoe, kernel, heard, asked = kernel_shoe
    assert asked == [(0, (17, 27, 22), 0.03)]
    assert shoe._buttons == []  # no gpiozero device: lgpio watches nothing
    kernel(kernel_edge(17, False), kernel_edge(17, True))
    assert heard.wait_for(1) == ["signal"]
    kernel(kernel_edge(27, False), kernel_edge(27, True), kernel_edge(22, False))
    assert heard.wait_for(3) == ["signal", "undo", "new_pack"]
    kernel(kernel_edge(27, False))
    assert heard.wait_for(4) == ["signal", "undo", "new_pack", "void"]
    kernel(kernel_edge(27, True))
    time.sleep(2 * HOLD)
    assert heard.words[4:] == []


def sleeps_through(thread: threading.Thread, quiet: float = 0.5, within: float = 30.0) -> bool:
    """Whether ``thread`` wakes not once in ``quiet`` seconds, tried for ``within`` seconds: a
    thread still on its way into its wait on a busy machine is given the time to get there,
    while one that keeps waking never passes."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        before = wakes(thread)
        time.sleep(quiet)
        if wakes(thread) == before:
            return True
    return False


def woken(thread: threading.Thread, since: int, within: float = 30.0) -> bool:
    """Whether ``thread`` has woken (and slept again, which is when the kernel counts it)
    since its count was ``since``; False if ``within`` seconds pass first."""
    deadline = time.monotonic() + within
    while wakes(thread) == since:
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def test_on_a_pi_the_edge_reader_sleeps_until_an_edge(kernel_shoe):
    shoe, kernel, heard, _ = kernel_shoe
    reader = next(t for t in threading.enumerate() if t.name == "gpiochip")
    assert sleeps_through(reader)
    before = wakes(reader)
    kernel(kernel_edge(22, False))
    assert heard.wait_for(1) == ["new_pack"]
    assert woken(reader, before)  # back asleep in poll: counted
    shoe.close()
    assert not reader.is_alive()


def test_a_chip_that_refuses_the_lines_leaves_them_to_gpiozero(caplog):
    def busy(chip, lines, debounce):
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))

    factory = MockFactory()
    heard = Heard()
    config = ButtonsConfig(
        signal=17, undo=27, new_pack=22, bounce=0, undo_hold=HOLD, pair_hold=2 * HOLD
    )
    with caplog.at_level(logging.WARNING, logger="faro_pi"):
        shoe = ShoeButtons(config, heard, factory, chip=PipeChip(busy))
    try:
        assert (
            "/dev/gpiochip0: Device or resource busy; read through the pin factory" in caplog.text
        )
        factory.pin(17).drive_low()
        assert heard.words == ["signal"]
    finally:
        shoe.close()
        factory.close()
