"""``faro-pi doctor``: checks a machine for everything the table needs.

One line per check, ``ok``, ``FAIL`` (with the fix) or ``skip`` (not
configured): the config parses; the gpiozero pin factory loads, and which one
(gpiozero falling back from lgpio, the service's, fails); every configured pin
is free; SPI0 is on for the case keeper's SPI driver, and off when the
bit-banged one drives SPI0's pins, and how OE is dimmed, by the kernel's PWM or
by software (:mod:`faro_pi.doctor.buses`); the OLED
answers on I²C, and its bus runs at 400 kHz; the reader's port opens and an
fsp1 frame arrives; the camera reader's camera gives a frame and the card in the
box is well lit (:mod:`faro_pi.doctor.camera`); the journal's folder is writable;
the clock is sane. On a board of its own at the shoe (a camera, and
``reader.port`` the USB gadget's) only the gadget's port, the camera, the light
and the clock are its own. A running daemon holds the pins and the reader's
port: found on the same journal or the console's port, it is left alone, and
the doctor says so and checks around it (:mod:`faro_pi.doctor.daemon`). To
check the pins and the reader too, run it as the service's user with the
service stopped::

    sudo systemctl stop faro-pi
    sudo -u faro-pi /opt/faro-pi/bin/faro-pi doctor --config /etc/faro-pi/config.toml

Nothing here writes anything: the reader's frames are not acknowledged (the
reader keeps them for the daemon), the journal is opened read-only, and each
pin is opened as a floating input and closed again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import subprocess
import sys
import time
import warnings
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import TextIO

from gpiozero import Device, InputDevice

from faro_pi.board import ROLES, SPI0_PINS, spi_driver
from faro_pi.config import Config, load_config
from faro_pi.devices.pins import factory_name, pin_factory
from faro_pi.devices.pwm import PWM_ROOT, channel_for
from faro_pi.doctor.buses import SPI_OFF, i2c_speed_check, pwm_check, spi_check
from faro_pi.doctor.camera import at_the_shoe, camera_checks, gadget_check
from faro_pi.doctor.check import SERVICE_STOPPED, Check, one_line, verdicts
from faro_pi.doctor.daemon import pins_beside, reader_beside, running_daemon
from faro_pi.doctor.reader import check_reader
from faro_pi.exc import ConfigError, JournalError
from faro_pi.service import restore

READER_TIMEOUT = 5.0
"""Seconds to wait for the reader's first frame (it sends a heartbeat every second)."""

STATE_DIRECTORY = Path("/var/lib/faro-pi")
"""The service's StateDirectory: systemd makes it when the service starts."""


def timedatectl_synchronised() -> bool | None:
    """Whether systemd says the clock is NTP-synchronised; None if it cannot tell."""
    if shutil.which("timedatectl") is None:
        return None
    try:
        done = subprocess.run(
            ["timedatectl", "show", "--property=NTPSynchronized", "--value"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    answer = done.stdout.strip() if done.returncode == 0 else ""
    return {"yes": True, "no": False}.get(answer)


def run_checks(
    config_path: str | os.PathLike[str],
    *,
    reader_timeout: float = READER_TIMEOUT,
    environ: Mapping[str, str] = os.environ,
    factory=None,
    clock: Callable[[], float] = time.time,
    ntp: Callable[[], bool | None] = timedatectl_synchronised,
) -> Iterator[Check]:
    """Every check in order, each as soon as it is done.

    ``factory`` replaces the configured gpiozero pin factory (it is not
    closed here); ``clock`` and ``ntp`` replace the wall clock and
    timedatectl's answer.
    """
    try:
        config = load_config(config_path, environ=environ)
    except ConfigError as exc:
        yield Check(
            "config", False, str(exc), "correct it (faro_pi/config.example.toml shows every key)"
        )
        return
    yield Check("config", True, f"{os.fspath(config_path)} is valid")
    if at_the_shoe(config):
        yield Check(
            "board",
            None,
            f"at the shoe: the camera reader alone, sending to {config.reader.port}; the "
            "table's Pi has the pins, the display, the reader's link and the journal",
        )
        yield gadget_check(config)
        yield from camera_checks(config)
        yield _clock(clock, ntp)
        return

    running = running_daemon(config)
    own_factory = factory is None
    check, factory = _pin_factory(config, factory)
    yield check
    try:
        if running is not None:
            yield pins_beside(running)
        elif factory is not None:
            yield from _pins(config, factory)
        else:
            yield Check("pins", None, "not checked: no pin factory")
        yield spi_check(config, factory)
        yield pwm_check(config, factory)
        yield _display(config)
        yield i2c_speed_check(config)
        yield reader_beside(running) if running else check_reader(config, reader_timeout)
        yield from camera_checks(config)
        yield _journal(config, written=running is not None)
        yield _clock(clock, ntp)
        from faro_pi.doctor.broker import broker_check  # aiomqtt and paho: a floor's only

        yield broker_check(config)
    finally:
        if own_factory and factory is not None:
            with contextlib.suppress(Exception):
                factory.close()


def main(
    config_path: str | os.PathLike[str],
    reader_timeout: float = READER_TIMEOUT,
    out: TextIO | None = None,
    **options,
) -> int:
    """Prints each check as it completes, then a tally tagged like them; 0 when none
    failed, 1 otherwise."""
    out = out or sys.stdout
    counts = {True: 0, False: 0, None: 0}
    for check in run_checks(config_path, reader_timeout=reader_timeout, **options):
        counts[check.ok] += 1
        print(check.line(), file=out, flush=True)
    print(tally(counts[True], counts[False], counts[None]), file=out)
    return 1 if counts[False] else 0


def tally(passed: int, failed: int, skipped: int) -> str:
    """The doctor's last line: a skipped check (not configured, or not to be checked here)
    is counted apart, never as passed."""

    def checks(count: int) -> str:
        return f"{count} check{'' if count == 1 else 's'}"

    if failed:
        line = f"FAIL  {checks(failed)} failed, {passed} passed"
    elif skipped:
        line = f"ok    {checks(passed)} passed, none failed"
    else:
        return f"ok    all {checks(passed)} passed"
    return f"{line}, {skipped} skipped" if skipped else line


# -- the checks ------------------------------------------------------------------


def _pin_factory(config: Config, given=None) -> tuple[Check, object]:
    """The pin factory the daemon would get, and which one it is.

    Left to choose, gpiozero tries lgpio first and falls back, with nothing but a
    warning, to RPi.GPIO (a Pi 4's, not a Pi 5's) and on: a fall back is a failure here,
    with lgpio's reason, since the service runs on lgpio.
    """
    name = config.gpio.pin_factory
    if given is not None:
        return Check("gpio", True, f"{factory_name(given)} pins (given)"), given
    fix = (
        "on a Raspberry Pi install lgpio (sudo apt install python3-lgpio; make install "
        'does); on a machine without GPIO set gpio.pin_factory = "mock"'
    )
    caught: list[warnings.WarningMessage] = []
    try:
        if name is not None:
            factory = pin_factory(name)
        else:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                Device.ensure_pin_factory()
            factory = Device.pin_factory
    except Exception as exc:
        tried = "; ".join(str(w.message) for w in caught)
        detail = f"no pin factory loads ({exc}{'; ' + tried if tried else ''})"
        return Check("gpio", False, one_line(detail), fix), None
    label = factory_name(factory)
    board = ""
    if label != "mock":
        with contextlib.suppress(Exception):
            board = f", Raspberry Pi {factory.board_info.model}"
    if name is not None:
        return Check("gpio", True, f"{label} pin factory (configured{board})"), factory
    fell_back = [str(w.message) for w in caught if "Falling back from" in str(w.message)]
    if fell_back:
        detail = f"{label} pin factory{board}, chosen by gpiozero only after: " + "; ".join(
            fell_back
        )
        return Check("gpio", False, one_line(detail), _fallback_fix(fell_back[0])), factory
    return Check("gpio", True, f"{label} pin factory (chosen by gpiozero{board})"), factory


def _fallback_fix(reason: str) -> str:
    """What to do when gpiozero passed over lgpio, the service's pin library."""
    if "No module named" in reason:
        return "sudo apt install python3-lgpio (make install does), then run the doctor again"
    return (
        "lgpio is the service's pin library: run faro-pi by its command, which gives lgpio "
        "a folder of its own (LG_WD), or see the reason above; on a machine without GPIO "
        'set gpio.pin_factory = "mock"'
    )


def _pins(config: Config, factory, pwm_root: Path = PWM_ROOT) -> Iterator[Check]:
    on_spi = spi_driver(config.leds.driver)
    spi_keys = {f"leds.{role.key}": role.spi for role in ROLES if role.spi is not None}
    enable = config.leds.enable
    real = factory_name(factory) != "mock" and enable is not None
    pwm = channel_for(enable, pwm_root) if real else None
    for key, pin in config.pins().items():
        name = f"GPIO{pin}"
        if on_spi and key in spi_keys:
            # Opened as a GPIO it would be taken from SPI0, until the next boot.
            yield Check(name, None, f"{key} is SPI0 {spi_keys[key]}, not opened: see spi")
            continue
        if pwm is not None and key == "leds.enable":  # likewise from the PWM
            yield Check(name, None, f"{key} is the kernel's PWM ({pwm}), not opened: see pwm")
            continue
        try:
            device = InputDevice(pin, pull_up=None, active_state=True, pin_factory=factory)
        except Exception as exc:
            role = SPI0_PINS.get(pin)
            spi = f"with SPI on, the kernel holds it as SPI0 {role}: {SPI_OFF}; " if role else ""
            yield Check(
                name,
                False,
                f"{key} cannot be opened ({one_line(str(exc)) or type(exc).__name__})",
                f"{spi}{SERVICE_STOPPED}; otherwise another program or a kernel overlay "
                f"in config.txt holds the pin: free it, or choose another pin for {key} "
                "(and wire it there)",
            )
            continue
        device.close()
        yield Check(name, True, f"{key} is free")


def _display(config: Config) -> Check:
    passed, failed, skipped = verdicts("display")
    display = config.display
    if display.driver in ("none", "dummy"):
        return skipped(f"display.driver = {display.driver}")
    where = f"0x{display.i2c_address:02X} on /dev/i2c-{display.i2c_port}"
    try:
        from smbus2 import SMBus  # here, so that a missing smbus2 is a line of the report
    except ImportError as exc:
        return failed(f"smbus2 is missing ({exc})", "reinstall faro-pi")
    try:
        with SMBus(display.i2c_port) as bus:
            # An SMBus "quick write": the address and nothing else, as
            # i2cdetect probes this range. The controller only has to ACK its
            # address, so the display's contents are left alone.
            bus.write_quick(display.i2c_address)
    except FileNotFoundError:
        return failed(
            f"no /dev/i2c-{display.i2c_port}: I²C is off",
            "sudo raspi-config nonint do_i2c 0, then reboot",
        )
    except PermissionError:
        return failed(
            f"/dev/i2c-{display.i2c_port}: permission denied",
            "run as a member of group i2c (sudo -u faro-pi ...; the service has it)",
        )
    except OSError as exc:
        if exc.errno in (errno.EREMOTEIO, errno.ENXIO, errno.EIO, errno.ETIMEDOUT):
            return failed(
                f"nothing answers at {where}",
                "check the OLED's wiring (SDA to GPIO2/pin 3, SCL to GPIO3/pin 5, VCC to "
                "3.3 V/pin 1, GND to pin 9) and its address (0x3C or 0x3D, set on the "
                f"module); `i2cdetect -y {display.i2c_port}` lists what answers",
            )
        return failed(f"{where}: {exc}", "check the I²C bus")
    return passed(f"{display.driver} answers at {where}")


def _journal(config: Config, written: bool = False) -> Check:
    """The journal reads, and this user could write it; ``written``: a running daemon does."""
    passed, failed, _ = verdicts("journal")
    path = config.journal.path
    folder = path.parent
    if path.exists():
        return _journal_file(path, written)
    if folder.is_dir():
        if os.access(folder, os.W_OK | os.X_OK):
            return passed(f"no journal yet; {folder} is writable")
        return failed(
            f"no journal yet, and {folder} is not writable by this user",
            f"sudo chown faro-pi:faro-pi {folder}",
        )
    if folder == STATE_DIRECTORY:
        return passed(f"no {folder} yet: systemd makes it when the service starts (StateDirectory)")
    ancestor = folder
    while not ancestor.exists():
        ancestor = ancestor.parent
    if os.access(ancestor, os.W_OK | os.X_OK):
        return passed(f"no journal yet; faro-pi will create {folder}")
    return failed(
        f"{folder} does not exist and {ancestor} is not writable by this user",
        f"sudo install -d -o faro-pi -g faro-pi -m 0750 {folder}",
    )


def _journal_file(path: Path, written: bool) -> Check:
    """Checked as a start checks it (the chain from the mark, every row replayed), read-only;
    a resume point changed or put in since it was kept fails, though a start passes over it."""
    passed, failed, _ = verdicts("journal")
    if written and not os.access(path, os.R_OK):
        return passed(f"{path}: written by the running daemon (closed to this login)")
    try:
        journal, replayed = restore.check(path)
        with journal:
            events = f"{journal.count()} events"
    except JournalError as exc:
        if exc.reason != "empty":
            return failed(one_line(str(exc)), "see the message")
        replayed, events = None, "0 events"
    passed_over = replayed.passed if replayed is not None else ()
    forged = [point.row for point in passed_over if point.fault]
    if forged:
        return failed(
            replayed.distrust(path),
            f"faro-pi verify {path} checks every row; then drop the point (sqlite3 {path} "
            f"'DELETE FROM resume WHERE after = {forged[0]}'), and ask who wrote the file",
        )
    if passed_over:
        events += f" (a start passes over {len(passed_over)} resume points an older faro-pi kept)"
    if written:
        return passed(f"{path}: {events}, written by the running daemon")
    if not os.access(path, os.W_OK) or not os.access(path.parent, os.W_OK | os.X_OK):
        return failed(
            f"{path} ({events}) is not writable by this user",
            f"run as the service's user (sudo -u faro-pi ...), or: sudo chown -R "
            f"faro-pi:faro-pi {path.parent}",
        )
    return passed(f"{path}: {events}, writable")


def _clock(clock: Callable[[], float], ntp: Callable[[], bool | None]) -> Check:
    passed, failed, _ = verdicts("clock")
    now = time.gmtime(clock())
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", now)
    if now.tm_year < 2024:
        return failed(
            f"it is {stamp}, which is not right",
            "connect the Pi to a network so it can set its clock (a Pi has no "
            "battery-backed clock unless one is fitted), or set it: sudo date -s ...",
        )
    synced = ntp()
    if synced is False:
        return failed(
            f"{stamp}, not synchronised by NTP",
            "give the Pi a network with time servers and: sudo timedatectl set-ntp true",
        )
    how = "synchronised by NTP" if synced else "NTP state unknown (no timedatectl answer)"
    return passed(f"{stamp}, {how}")
