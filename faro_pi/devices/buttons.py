"""The shoe's push buttons: signal (lock), undo, new pack, read through gpiozero.

gpiozero calls back from its own threads; this module only names what was
pressed and hands that word to the table's loop through ``hand``: ``signal``,
``new_pack``, ``undo`` (a short press) or ``void`` (undo held down). Which
backend drives the pins is gpiozero's business: a real Pi's lgpio or
RPi.GPIO, or the mock factory in the simulator and the tests, named in the
config and found by :func:`faro_pi.devices.pins.pin_factory`.

Nothing here wakes up while no one touches a button: a press and a release
are edges the pin library calls back on, and the only timer is the one that
runs while undo is held down. (gpiozero's ``Button`` would not do: each one
keeps a thread that wakes ten times a second to look for a hold.)
"""

from __future__ import annotations

import threading
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
        from gpiozero import DigitalInputDevice
        from gpiozero.exc import BadPinFactory, GPIOZeroError, PinFactoryFallback

        def button(pin: int) -> DigitalInputDevice:
            """Pulled up, pressed to ground: active low."""
            made = DigitalInputDevice(
                pin, pull_up=True, bounce_time=config.bounce or None, pin_factory=factory
            )
            self._buttons.append(made)
            return made

        self._hand = hand
        self._hold_time = config.undo_hold
        self._lock = threading.Lock()
        self._hold: threading.Timer | None = None
        """Runs while undo is down, until it has been held for ``undo_hold``."""
        self._held = False
        self._buttons = []
        try:
            with warnings.catch_warnings():
                # gpiozero warns once per backend it cannot load; one line below says it all.
                warnings.simplefilter("ignore", PinFactoryFallback)
                signal = button(config.signal)
            undo = button(config.undo)
            new_pack = button(config.new_pack)
        except BadPinFactory as exc:
            self.close()
            raise FaroError(
                f'no GPIO on this machine ({exc}): set gpio.pin_factory = "mock" '
                "in the config, or GPIOZERO_PIN_FACTORY=mock, to run without buttons"
            ) from exc
        except GPIOZeroError as exc:
            self.close()
            raise FaroError(f"buttons: {exc}") from exc
        signal.when_activated = lambda: hand("signal")
        new_pack.when_activated = lambda: hand("new_pack")
        undo.when_activated = self._undo_pressed
        undo.when_deactivated = self._undo_released

    def _undo_pressed(self) -> None:
        timer = threading.Timer(self._hold_time, self._undo_held)
        timer.daemon = True
        with self._lock:
            self._stop_hold()
            self._held = False
            self._hold = timer
        timer.start()

    def _undo_held(self) -> None:
        with self._lock:
            if self._hold is not threading.current_thread():
                return  # released (or pressed again) just as the time ran out
            self._hold = None
            self._held = True
        self._hand("void")

    def _undo_released(self) -> None:
        with self._lock:
            self._stop_hold()
            held = self._held
        if not held:
            self._hand("undo")

    def _stop_hold(self) -> None:
        if self._hold is not None:
            self._hold.cancel()
            self._hold = None

    def close(self) -> None:
        with self._lock:
            self._stop_hold()
        for button in self._buttons:
            button.close()
        self._buttons = []
