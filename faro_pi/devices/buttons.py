"""The shoe's push buttons: signal (lock), undo, new pack, read through gpiozero.

gpiozero calls back from its own threads; this module only names what was
pressed and hands that word to the table's loop through ``hand``: ``signal``,
``new_pack``, ``undo`` (a short press) or ``void`` (undo held down). Which
backend drives the pins is gpiozero's business: a real Pi's lgpio or
RPi.GPIO, or the mock factory in the simulator and the tests, named in the
config and found by :func:`faro_pi.devices.pins.pin_factory`.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

from faro_pi.exc import FaroError
from faro_pi.service.config import ButtonsConfig


class ShoeButtons:
    """The three buttons of the shoe, pulled up, pressed to ground, debounced.

    A short press of undo acknowledges the alarms; holding it for
    ``undo_hold`` seconds voids the last card, so a brush of the hand cannot.
    """

    def __init__(self, config: ButtonsConfig, hand: Callable[[str], None], factory=None):
        from gpiozero import Button
        from gpiozero.exc import BadPinFactory, GPIOZeroError, PinFactoryFallback

        bounce = config.bounce or None
        self._hand = hand
        self._held = False
        self._buttons = []
        try:
            with warnings.catch_warnings():
                # gpiozero warns once per backend it cannot load; one line below says it all.
                warnings.simplefilter("ignore", PinFactoryFallback)
                signal = Button(config.signal, bounce_time=bounce, pin_factory=factory)
            self._buttons.append(signal)
            undo = Button(
                config.undo, bounce_time=bounce, hold_time=config.undo_hold, pin_factory=factory
            )
            self._buttons.append(undo)
            new_pack = Button(config.new_pack, bounce_time=bounce, pin_factory=factory)
            self._buttons.append(new_pack)
        except BadPinFactory as exc:
            self.close()
            raise FaroError(
                f'no GPIO on this machine ({exc}): set gpio.pin_factory = "mock" '
                "in the config, or GPIOZERO_PIN_FACTORY=mock, to run without buttons"
            ) from exc
        except GPIOZeroError as exc:
            self.close()
            raise FaroError(f"buttons: {exc}") from exc
        signal.when_pressed = lambda: hand("signal")
        new_pack.when_pressed = lambda: hand("new_pack")
        undo.when_pressed = self._undo_pressed
        undo.when_held = self._undo_held
        undo.when_released = self._undo_released

    def _undo_pressed(self) -> None:
        self._held = False

    def _undo_held(self) -> None:
        self._held = True
        self._hand("void")

    def _undo_released(self) -> None:
        if not self._held:
            self._hand("undo")

    def close(self) -> None:
        for button in self._buttons:
            button.close()
        self._buttons = []
