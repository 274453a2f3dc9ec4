"""The shoe's buttons on mock pins: what a press, a short press of undo and a hold say."""

from __future__ import annotations

import threading
import time

import pytest
from gpiozero.pins.mock import MockFactory

from faro_pi.devices.buttons import ShoeButtons
from faro_pi.service.config import ButtonsConfig

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

    def wait_for(self, count: int, timeout: float = 5.0) -> list[str]:
        with self.changed:
            self.changed.wait_for(lambda: len(self.words) >= count, timeout)
            return list(self.words)


@pytest.fixture
def shoe():
    factory = MockFactory()
    heard = Heard()
    config = ButtonsConfig(signal=17, undo=27, new_pack=22, bounce=0, undo_hold=HOLD)
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
