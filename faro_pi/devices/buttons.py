"""The shoe's push buttons: signal (lock), undo, new pack.

This module only names what was pressed and hands that word to the table's
loop through ``hand``: ``signal``, ``new_pack``, ``undo`` (a short press),
``void`` (undo held down) or ``pair`` (new pack held down: the OLED shows the
console's pairing code; the press itself was ``new_pack`` as ever, which the
rules take only after the hock). Which backend drives the pins is the config's
``gpio.pin_factory``, found by :func:`faro_pi.devices.pins.pin_factory`.

Nothing here wakes up while no one touches a button. Handed a ``chip`` (on a
Pi: the composition root asks :func:`faro_pi.devices.pins.kernel_chip`), the
buttons are read straight from the kernel's ``/dev/gpiochipN``
(:mod:`~faro_pi.devices.gpiochip`), since lgpio's own edge watcher polls every
0.5 ms. Without one (the mock pins of the simulator and the tests) they are
gpiozero input devices on the factory, called back on each edge.
gpiozero's ``Button`` is not used: each one keeps a thread that wakes ten
times a second to look for a hold. The only timers are the ones that run
while undo or new pack is held down.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from gpiozero import DigitalInputDevice
from gpiozero.exc import BadPinFactory, GPIOZeroError

from faro_pi.config import ButtonsConfig
from faro_pi.devices.gpiochip import Chip, Edge, LineEvents
from faro_pi.exc import FaroError

log = logging.getLogger("faro_pi")


class ShoeButtons:
    """The three buttons of the shoe, pulled up, pressed to ground, debounced.

    A short press of undo acknowledges the alarms; holding it for
    ``undo_hold`` seconds voids the last card, so a brush of the hand cannot.
    Holding new pack for ``pair_hold`` seconds asks for the pairing code.
    """

    def __init__(
        self,
        config: ButtonsConfig,
        hand: Callable[[str], None],
        factory=None,
        *,
        chip: Chip | None = None,
    ):
        self._hand = hand
        self._roles = {config.signal: "signal", config.undo: "undo", config.new_pack: "new_pack"}
        self._hold_time = config.undo_hold
        self._pair_time = config.pair_hold
        self._lock = threading.Lock()
        self._hold: threading.Timer | None = None
        """Runs while undo is down, until it has been held for ``undo_hold``."""
        self._pair_hold: threading.Timer | None = None
        """Runs while new pack is down, until it has been held for ``pair_hold``."""
        self._held = False
        self._buttons = []
        self._lines: LineEvents | None = None
        try:
            if chip is None or not self._from_the_kernel(chip, config.bounce):
                self._from_gpiozero(factory, config.bounce)
        except BadPinFactory as exc:
            self.close()
            raise FaroError(
                f'no GPIO on this machine ({exc}): set gpio.pin_factory = "mock" '
                "in the config, or GPIOZERO_PIN_FACTORY=mock, to run without buttons"
            ) from exc
        except GPIOZeroError as exc:
            self.close()
            raise FaroError(f"buttons: {exc}") from exc

    def _from_the_kernel(self, chip: Chip, bounce: float) -> bool:
        """Reads the buttons from the Pi's gpiochip; False when it refuses the lines."""
        try:
            fd = chip.request(list(self._roles), bounce)
        except OSError as exc:
            log.warning(
                "buttons: %s: %s; read through the pin factory instead, which wakes more often",
                chip,
                exc.strerror or exc,
            )
            return False
        self._lines = LineEvents(fd, list(self._roles))
        self._lines.watch(self._edge)
        return True

    def _from_gpiozero(self, factory, bounce: float) -> None:
        for pin, role in self._roles.items():
            button = DigitalInputDevice(
                pin, pull_up=True, bounce_time=bounce or None, pin_factory=factory
            )
            self._buttons.append(button)
            button.when_activated = lambda role=role: self._pressed(role)
            button.when_deactivated = lambda role=role: self._released(role)

    # -- what a press says ---------------------------------------------------------------

    def _edge(self, edge: Edge) -> None:
        """A button's line went low (pressed, to ground) or high again (released)."""
        role = self._roles.get(edge.line)
        if role is None:
            return
        if edge.rising:
            self._released(role)
        else:
            self._pressed(role)

    def _pressed(self, role: str) -> None:
        if role == "new_pack":
            self._hand(role)
            timer = threading.Timer(self._pair_time, self._new_pack_held)
            timer.daemon = True
            with self._lock:
                if self._pair_hold is not None:
                    self._pair_hold.cancel()
                self._pair_hold = timer
            timer.start()
            return
        if role != "undo":
            self._hand(role)
            return
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

    def _new_pack_held(self) -> None:
        with self._lock:
            if self._pair_hold is not threading.current_thread():
                return  # released just as the time ran out
            self._pair_hold = None
        self._hand("pair")

    def _released(self, role: str) -> None:
        if role == "new_pack":
            with self._lock:
                if self._pair_hold is not None:
                    self._pair_hold.cancel()
                    self._pair_hold = None
            return
        if role != "undo":
            return
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
            if self._pair_hold is not None:
                self._pair_hold.cancel()
                self._pair_hold = None
        if self._lines is not None:
            self._lines.close()
            self._lines = None
        for button in self._buttons:
            button.close()
        self._buttons = []
