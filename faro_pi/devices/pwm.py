"""The case keeper's output enable (OE) on the Pi's hardware PWM, through the kernel's sysfs.

Dimmed by software (lgpio's PWM) OE costs the Pi 800 wake-ups a second at 400 Hz. GPIO 12,
13, 18 (OE's default) and 19 are also the Pi's PWM outputs: with the ``pwm`` overlay in
the boot config (``dtoverlay=pwm,pin=18,func=2``, which ``make install`` sets, as it does
I²C and SPI) the kernel has the pin as a PWM channel under ``/sys/class/pwm``, and the
PWM hardware dims it with nothing waking. Software PWM stays for a pin without (the
doctor says which is used).

The channel is written through sysfs: ``period`` and ``duty_cycle`` in nanoseconds,
``enable``. OE is active low: the line is high (the LEDs blank) for ``duty_cycle`` of
each period, so a brightness ``b`` is a duty cycle of ``(1 - b)`` periods. On close the
channel is left enabled and high: disabled (or unexported), the controller holds the line
low and every LED would light.
"""

from __future__ import annotations

import contextlib
import errno
import time
from dataclasses import dataclass
from pathlib import Path

from faro_pi.exc import FaroError

PWM_ROOT = Path("/sys/class/pwm")

CHANNELS = {
    "brcm,bcm2835-pwm": {12: 0, 18: 0, 13: 1, 19: 1},  # every Pi before the 5
    "raspberrypi,rp1-pwm": {12: 0, 13: 1, 18: 2, 19: 3},  # the Pi 5's RP1
}
"""Each PWM controller's channel for a header pin, by the device tree's ``compatible``."""

OVERLAY_FUNCTION = {12: 4, 13: 4, 18: 2, 19: 2}
"""The ``func`` of ``dtoverlay=pwm`` that routes each pin to PWM (ALT0 or ALT5)."""

READY_WITHIN = 2.0
"""Seconds a newly exported channel has to become writable: udev gives its files to the
group gpio a moment after the export."""


def overlay(pin: int) -> str:
    """The boot config's line that gives ``pin`` to the kernel's PWM."""
    return f"dtoverlay=pwm,pin={pin},func={OVERLAY_FUNCTION[pin]}"


@dataclass(frozen=True, slots=True)
class Channel:
    """One PWM output of the kernel: a chip under ``/sys/class/pwm`` and its number."""

    chip: Path
    number: int

    @property
    def path(self) -> Path:
        return self.chip / f"pwm{self.number}"

    def __str__(self) -> str:
        return f"{self.chip.name} channel {self.number}"


def channel_for(pin: int, root: Path = PWM_ROOT) -> Channel | None:
    """The kernel's PWM channel on ``pin``, or None (not a PWM pin, or no overlay: the
    kernel then has no PWM chip)."""
    for chip in sorted(root.glob("pwmchip*")):
        try:
            compatible = (chip / "device" / "of_node" / "compatible").read_bytes()
            count = int((chip / "npwm").read_text())
        except (OSError, ValueError):
            continue
        for name in compatible.decode(errors="replace").split("\0"):
            number = CHANNELS.get(name, {}).get(pin)
            if number is not None and number < count:
                return Channel(chip, number)
    return None


class KernelPWM:
    """OE on a kernel PWM channel, blank until :attr:`value` is set: the shape of gpiozero's
    ``PWMOutputDevice(active_high=False)`` that :class:`~faro_pi.devices.case_keeper.
    CaseKeeper` uses (``value``, ``off``, ``close``)."""

    def __init__(self, channel: Channel, hz: float, *, ready_within: float = READY_WITHIN):
        self.channel = channel
        self.period = round(1e9 / hz)
        self._value = 0.0
        try:
            if not channel.path.is_dir():
                _write(channel.chip / "export", channel.number)
            self._ready(ready_within)
            # The kernel refuses a duty cycle longer than the period: the order of the two
            # writes depends on the period the channel had.
            if int((channel.path / "period").read_text()) >= self.period:
                self._set("duty_cycle", self.period)
                self._set("period", self.period)
            else:
                self._set("period", self.period)
                self._set("duty_cycle", self.period)
            self._set("enable", 1)
        except OSError as exc:
            raise FaroError(
                f"leds.enable: the kernel's PWM ({channel}): {exc.strerror or exc}"
                f" ({exc.filename or channel.path}): the service's user needs the group gpio"
            ) from exc

    def _ready(self, within: float) -> None:
        """Until the exported channel's files are there and writable (udev's doing)."""
        deadline = time.monotonic() + within
        while True:
            try:
                _write(self.channel.path / "enable", 0 if self._enabled() is None else 1)
                return
            except OSError as exc:
                if exc.errno not in (errno.ENOENT, errno.EACCES) or time.monotonic() > deadline:
                    raise
            time.sleep(0.01)  # udev changes the files' group on its own time

    def _enabled(self) -> int | None:
        try:
            return int((self.channel.path / "enable").read_text()) or None
        except (OSError, ValueError):
            return None

    def _set(self, name: str, number: int) -> None:
        _write(self.channel.path / name, number)

    @property
    def value(self) -> float:
        """The LEDs' brightness, 0 (blank) to 1: the share of each period OE is low."""
        return self._value

    @value.setter
    def value(self, value: float) -> None:
        value = min(1.0, max(0.0, value))
        self._set("duty_cycle", round((1 - value) * self.period))
        self._value = value

    def off(self) -> None:
        self.value = 0.0

    def close(self) -> None:
        """Blanks the LEDs and leaves the channel so: enabled, the line high."""
        with contextlib.suppress(OSError):  # nothing more to do: the channel is the kernel's
            self.off()


def _write(path: Path, number: int) -> None:
    with open(path, "w") as file:
        file.write(f"{number}\n")
