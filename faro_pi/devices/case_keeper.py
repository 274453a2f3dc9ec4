"""The case keeper: 52 LEDs, one per card, lit while the card is still in the box.

The steady picture is the case itself: a column's lit LEDs are its rank's
case count. On top of it, short signals draw the dealer's eye; every signal
works by inverting some LEDs for a few *phases* of :data:`TICK` seconds:

* the two cards of a pair just dealt flash three times (1.5 s);
* an alarm blinks the column of its card, or of the last card exposed when it
  names none (the whole grid before the soda), until it is cleared;
* with three cards left, they blink slowly while the turn is called;
* the hock sweeps the grid once, column by column.

What is shown is a pure function, :func:`frame_at`, of the steady frame, the
:class:`Signal` and the phase; :class:`CaseKeeper` only steps the phase on
the event loop's timers, waking only for a phase that shows something else,
and writes a frame to the shift registers when it differs from the one
showing. A frame is shifted in whole and then latched by one rising edge of
RCLK, so a half-shifted frame is never seen; the Pi's SPI0 or three GPIOs
carry it (:mod:`~faro_pi.devices.shift_registers`, ``leds.driver``).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from gpiozero import DigitalOutputDevice, PWMOutputDevice
from gpiozero.exc import GPIOZeroError, PinPWMUnsupported

from faro_pi.board import ALL_LIT, frame_bytes
from faro_pi.config import LedsConfig
from faro_pi.devices.pwm import KernelPWM, channel_for
from faro_pi.devices.shift_registers import DRIVERS, ShiftRegisters, SPIShiftRegisters
from faro_pi.exc import FaroError
from faro_pi.game.cards import RANKS, SUITS, Card
from faro_pi.game.events import CardDrawn, Event
from faro_pi.game.pack import PAIR_SETTLED, Stage
from faro_pi.game.rules import Table

log = logging.getLogger("faro_pi")

TICK = 0.125
"""Seconds per phase; every blink below is a whole number of phases."""
PWM_HZ = 400
"""OE's PWM frequency when dimmed: well above what the eye sees flicker."""

_COLUMNS = len(RANKS)


def column(rank: int) -> int:
    """The frame of one rank's column (its four LEDs)."""
    return sum(1 << (row * _COLUMNS + rank - 1) for row in range(len(SUITS)))


def cells(cards: list[Card] | tuple[Card, ...]) -> int:
    """The frame of these cards' LEDs."""
    return sum(1 << card.index for card in cards)


def steady_frame(table: Table) -> int:
    """The case: lit for every card of the current pack not yet exposed (all at a new pack)."""
    frame = ALL_LIT
    for card in table.pack.exposed:
        frame &= ~(1 << card.index)
    return frame


@dataclass(frozen=True, slots=True)
class Signal:
    """LEDs to invert over the steady frame, one mask per phase.

    ``once`` plays through once, from phase 0, for what just happened (a pair, the
    hock); ``loop`` then repeats until the next event, for what stands (an
    alarm, the last three). The steady frame alone shows once both are done.
    """

    once: tuple[int, ...] = ()
    loop: tuple[int, ...] = ()

    def mask(self, phase: int) -> int:
        if phase < len(self.once):
            return self.once[phase]
        if self.loop:
            return self.loop[(phase - len(self.once)) % len(self.loop)]
        return 0

    def running(self, phase: int) -> bool:
        """Whether to step on from ``phase`` (the last of ``once`` steps back to steady)."""
        return bool(self.loop) or phase < len(self.once)

    def next_change(self, phase: int) -> int | None:
        """The first phase after ``phase`` that inverts other LEDs; None if it rests on these.

        The phases between show the same, so nothing need wake up for them.
        """
        mask, later = self.mask(phase), phase
        for _ in range(len(self.once) + len(self.loop)):  # past ``once`` and round ``loop``
            if not self.running(later):
                return None
            later += 1
            if self.mask(later) != mask:
                return later
        return None


STILL = Signal()
"""No signal: the steady frame."""


def frame_at(steady: int, signal: Signal, phase: int) -> int:
    """What the LEDs show at ``phase`` of ``signal`` over ``steady``."""
    return steady ^ signal.mask(phase)


# Every signal starts from the steady case: the new state shows at once, and
# the flashes that follow draw the eye to it.


def pair_blink(loser: Card, winner: Card) -> tuple[int, ...]:
    """Three flashes of a pair's two cards: 2 phases as they are, 2 lit (1.5 s)."""
    both = cells((loser, winner))
    return (0, 0, both, both) * 3


def alarm_blink(where: int) -> tuple[int, ...]:
    """A fast blink, twice a second, for as long as the alarm stands."""
    return (0, 0, where, where)


def last_three_blink(where: int) -> tuple[int, ...]:
    """A slow blink, once a second, while the turn is called."""
    return (0,) * 4 + (where,) * 4


def sweep() -> tuple[int, ...]:
    """Each column in turn, ace to king, one phase each, after the steady case."""
    return (0, *(column(rank) for rank in range(1, _COLUMNS + 1)))


def alarm_cells(table: Table) -> int:
    """Where the standing alarms point: their cards' columns, else the last card's.

    An alarm that names no card (no read, a gap, a lost reader) is about
    where the dealing stands; before the soda, the whole grid says it.
    """
    where = 0
    for alarm in table.alarms:
        if alarm.card is not None:
            where |= column(alarm.card.rank)
        elif table.pack.exposed:
            where |= column(table.pack.exposed[-1].rank)
        else:
            where |= ALL_LIT
    return where


def signal_for(table: Table, event: Event | None) -> Signal:
    """The signal after ``event`` (None: the table as it stands, at start)."""
    exposed, at = table.pack.exposed, table.pack.stage
    once: tuple[int, ...] = ()
    if isinstance(event, CardDrawn):
        if at is Stage.HOCK:
            once = sweep()
        elif at in PAIR_SETTLED:
            once = pair_blink(exposed[-2], exposed[-1])
    loop: tuple[int, ...] = ()
    if table.alarms:
        loop = alarm_blink(alarm_cells(table))
    elif at is Stage.LAST_THREE:
        loop = last_three_blink(cells(table.pack.remaining()))
    return Signal(once, loop)


class CaseKeeper:
    """The LEDs of the case: an :class:`~faro_pi.devices.Output`, told of every applied event.

    OE is held high (blank) from the start until the first frame is latched,
    then set to ``config.brightness`` (PWM when dimmed). ``tick`` is the
    length of a signal's phase in seconds. ``chain`` drives the 74HC595s in place
    of the driver ``leds.driver`` names: the composition root hands
    :class:`ShiftRegisters` where the pin factory has no SPI of its own.
    ``pwm_root`` is the kernel's PWM in sysfs (:mod:`~faro_pi.devices.pwm`): OE on
    a pin that has a channel there is the PWM hardware's, dimmed with nothing
    waking; None (simulated pins) leaves OE to ``factory``. ``clock`` schedules the
    phases (its ``call_later``): the running loop, unless a test hands in a clock of
    its own.
    """

    def __init__(
        self,
        config: LedsConfig,
        factory=None,
        *,
        tick: float = TICK,
        chain: type[ShiftRegisters | SPIShiftRegisters] | None = None,
        pwm_root=None,
        clock=None,
    ):
        if config.driver not in DRIVERS:
            raise FaroError(f"leds.driver = {config.driver!r}: no case keeper to drive")
        self.brightness = config.brightness
        self.tick = tick
        self._clock = clock
        self.shown: int | None = None
        """The frame latched last; None before the first."""
        self.steady = ALL_LIT
        self.signal = STILL
        self.phase = 0
        self._timer: asyncio.TimerHandle | None = None
        self._still = asyncio.Event()
        self._still.set()
        self._enable: DigitalOutputDevice | PWMOutputDevice | KernelPWM | None = None
        self._chain: ShiftRegisters | SPIShiftRegisters | None = None
        try:
            if config.enable is not None:
                channel = None if pwm_root is None else channel_for(config.enable, pwm_root)
                if channel is not None:
                    self._enable = KernelPWM(channel, PWM_HZ)
                else:
                    self._enable = self._output_enable(config.enable, factory)
            self._chain = (chain or DRIVERS[config.driver])(
                config.data, config.clock, config.latch, pin_factory=factory
            )
        except GPIOZeroError as exc:
            self.close()
            raise FaroError(f"leds: {exc}") from exc
        except FaroError:
            self.close()
            raise

    def _output_enable(self, pin: int, factory) -> DigitalOutputDevice | PWMOutputDevice:
        """OE, high (blank) for now: PWM if dimmed and the pin can, else on/off."""
        if self.brightness < 1:  # software PWM: 2 × PWM_HZ wake-ups a second
            try:
                return PWMOutputDevice(
                    pin, active_high=False, initial_value=0, frequency=PWM_HZ, pin_factory=factory
                )
            except PinPWMUnsupported:
                log.warning("leds.enable: GPIO%d has no PWM to dim with: full brightness", pin)
                self.brightness = 1.0 if self.brightness > 0 else 0.0
        return DigitalOutputDevice(pin, active_high=False, initial_value=False, pin_factory=factory)

    def show(self, table: Table, event: Event | None = None) -> None:
        """Shows the table after ``event``; with no event, as it stands (at start).

        Called on the loop; returns after at most one 56-bit transfer.
        """
        if self._chain is None:
            return
        if event is not None and not event.changes_case and self.shown is not None:
            return
        self.steady = steady_frame(table)
        self.signal = signal_for(table, event)
        self.phase = 0
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._show()

    @property
    def blinking(self) -> bool:
        """Whether a signal is still stepping (a timer is pending)."""
        return self._timer is not None

    def _step(self, phase: int) -> None:
        self._timer = None
        self.phase = phase
        self._show()

    def _show(self) -> None:
        """Latches the phase's frame; the loop wakes again only when the LEDs must change."""
        self.latch(frame_at(self.steady, self.signal, self.phase))
        later = self.signal.next_change(self.phase)
        if later is None:
            self._still.set()
            return
        delay = (later - self.phase) * self.tick
        clock = self._clock or asyncio.get_running_loop()
        self._timer = clock.call_later(delay, self._step, later)
        self._still.clear()

    async def still(self) -> None:
        """Waits until no signal is stepping: the steady case is what shows."""
        await self._still.wait()

    async def settled(self) -> None:
        """Returns at once: :meth:`show` has latched the new state before it returned.

        The signal drawn over it may blink for as long as an alarm stands, so
        this does not wait for :meth:`still`.
        """

    def latch(self, frame: int) -> None:
        """Writes ``frame`` unless it is already showing; the first one also lights the LEDs."""
        if frame == self.shown:
            return
        self._chain.write(frame_bytes(frame))
        first = self.shown is None
        self.shown = frame
        if first and self._enable is not None:
            self._enable.value = self.brightness

    def close(self) -> None:
        """Stops the signals and releases the pins; OE's pull-up blanks the LEDs."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._still.set()
        if self._enable is not None:
            self._enable.off()
            self._enable.close()
            self._enable = None
        if self._chain is not None:
            self._chain.close()
            self._chain = None
