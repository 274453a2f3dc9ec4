"""The doctor's look at the Pi's buses: SPI0 as ``leds.driver`` needs it, I²C's speed,
and the PWM that dims the case keeper.

Both are set in the boot config (``/boot/firmware/config.txt``), which ``make install``
writes (hardware/install.sh): ``dtparam=spi=on`` for an SPI driver of the case keeper,
``dtparam=i2c_arm_baudrate=400000`` for the display. What counts is what the running
kernel has, so each check looks there first (``/dev``, the device tree in ``/sys``) and
at the boot config only to tell a missing setting from a missing reboot.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from faro_pi.board import SPI0_PINS, spi_driver
from faro_pi.config import Config
from faro_pi.devices.case_keeper import PWM_HZ
from faro_pi.devices.pins import factory_name
from faro_pi.devices.pwm import OVERLAY_FUNCTION, PWM_ROOT, channel_for, overlay
from faro_pi.doctor.check import Check, verdicts

SPI_ON = "sudo raspi-config nonint do_spi 0, then reboot (sudo make install sets dtparam=spi=on)"
SPI_OFF = "sudo raspi-config nonint do_spi 1, then reboot"

I2C_HZ = 400_000
"""The display's bus speed: a whole OLED frame takes about 95 ms at the Pi's default
100 kHz, a quarter of that at 400 kHz."""

BOOT_CONFIGS = (Path("/boot/firmware/config.txt"), Path("/boot/config.txt"))
"""Where Raspberry Pi OS keeps the firmware's config: Bookworm on, then older."""

SYS = Path("/sys")


def spi_check(config: Config, factory, dev: Path = Path("/dev")) -> Check:
    """SPI0 must be on for an SPI driver, and off when the bit-banged driver's pins are
    SPI0's (the kernel would hold them)."""
    _, _, skipped = verdicts("spi")
    driver = config.leds.driver
    if driver == "none":
        return skipped("no case keeper (leds.driver = none)")
    if factory is not None and factory_name(factory) == "mock":
        return skipped("mock pins: no SPI0 to be in the way")
    if spi_driver(driver):
        return _spi_on(driver, dev / "spidev0.0")
    return _spi_off(config, dev)


def _spi_on(driver: str, device: Path) -> Check:
    passed, failed, _ = verdicts("spi")
    if not device.exists():
        return failed(
            f'SPI0 is off (no {device}), and leds.driver = "{driver}" sends the frames through it',
            f'{SPI_ON}; or leds.driver = "{driver.removesuffix("-spi")}" to bit-bang',
        )
    if not os.access(device, os.R_OK | os.W_OK):
        return failed(
            f"{device}: permission denied",
            "run as a member of group spi (sudo -u faro-pi ...; the service has it)",
        )
    return passed(f"SPI0 is on ({device}): the case keeper's frames go through it")


def _spi_off(config: Config, dev: Path) -> Check:
    passed, failed, skipped = verdicts("spi")
    chain = {pin for key, pin in config.pins().items() if key.startswith("leds.")}
    shared = sorted(chain & set(SPI0_PINS))
    if not shared:
        return skipped("the case keeper's pins are clear of SPI0")
    devices = sorted(dev.glob("spidev0.*"))
    if devices:
        return failed(
            f"SPI0 is on ({devices[0]}) and takes GPIO "
            + ", ".join(f"{pin} ({SPI0_PINS[pin]})" for pin in shared)
            + ", which the case keeper drives itself",
            SPI_OFF,
        )
    return passed("SPI0 is off, so GPIO " + ", ".join(map(str, shared)) + " are the chain's")


def i2c_speed_check(
    config: Config, sys_root: Path = SYS, boot_configs: tuple[Path, ...] = BOOT_CONFIGS
) -> Check:
    """The display's bus runs at :data:`I2C_HZ`, as the running kernel's device tree says."""
    passed, failed, skipped = verdicts("i2c")
    display = config.display
    if display.driver in ("none", "dummy"):
        return skipped(f"display.driver = {display.driver}")
    bus = f"I²C bus {display.i2c_port}"
    adapter = sys_root / "bus/i2c/devices" / f"i2c-{display.i2c_port}"
    if not adapter.exists():
        return skipped(f"no {bus} to time (the display check says why)")
    hz = _clock_frequency(adapter / "of_node/clock-frequency")
    if hz is None:
        return skipped(f"{bus}: the kernel does not say how fast it runs")
    if hz >= I2C_HZ:
        return passed(f"{bus} runs at {hz // 1000} kHz")
    detail = f"{bus} runs at {hz // 1000} kHz: a whole frame of the display takes ~95 ms"
    if display.i2c_port != 1:
        return failed(detail, f"set its clock-frequency to {I2C_HZ} in its overlay, then reboot")
    boot, said = _boot_baudrate(boot_configs)
    if said is not None and said >= I2C_HZ:
        return failed(detail, f"reboot: {boot} already says i2c_arm_baudrate={said}")
    where = boot or BOOT_CONFIGS[0]
    return failed(
        detail,
        f"add dtparam=i2c_arm_baudrate={I2C_HZ} to {where} (sudo make install does), then reboot",
    )


def _clock_frequency(path: Path) -> int | None:
    """A device-tree ``clock-frequency``: one big-endian 32-bit cell; None if absent."""
    try:
        cell = path.read_bytes()
    except OSError:
        return None
    return int.from_bytes(cell[:4], "big") if len(cell) >= 4 else None


def _boot_baudrate(boot_configs: tuple[Path, ...]) -> tuple[Path | None, int | None]:
    """The boot config found, and the ``i2c_arm_baudrate`` a dtparam line of it sets."""
    for path in boot_configs:
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        found = re.findall(r"(?m)^\s*dtparam=(?:[^#\n]*,)?i2c_arm_baudrate=(\d+)", text)
        return path, (int(found[-1]) if found else None)
    return None, None


def pwm_check(config: Config, factory, pwm_root: Path = PWM_ROOT) -> Check:
    """How OE is dimmed: by the kernel's PWM (nothing wakes) on a pin that has it, else by
    software PWM, 2 × PWM_HZ wake-ups a second; a PWM pin without the overlay fails."""
    passed, failed, skipped = verdicts("pwm")
    leds = config.leds
    if leds.driver == "none" or leds.enable is None:
        return skipped("no case keeper's OE to dim (leds.driver = none or leds.enable = false)")
    if factory is not None and factory_name(factory) == "mock":
        return skipped("mock pins: OE is simulated")
    pin = leds.enable
    channel = channel_for(pin, pwm_root)
    if channel is not None:
        return passed(f"leds.enable GPIO{pin} is the kernel's PWM ({channel}): nothing wakes")
    software = f"software PWM, {2 * PWM_HZ} wake-ups a second"
    if pin not in OVERLAY_FUNCTION:
        if leds.brightness >= 1:
            return passed(f"leds.enable GPIO{pin} at full brightness: on and off only")
        return passed(
            f"leds.enable GPIO{pin} has no hardware PWM: dimmed by {software}"
            " (GPIO 12, 13, 18 and 19 dim in hardware)"
        )
    fix = f"add {overlay(pin)} to {BOOT_CONFIGS[0]} (sudo make install does), then reboot"
    if leds.brightness >= 1:
        return passed(
            f"leds.enable GPIO{pin} at full brightness; dimmed it would be {software}: {fix}"
        )
    return failed(f"leds.enable GPIO{pin} has no kernel PWM (the pwm overlay): {software}", fix)
