"""OE on the Pi's hardware PWM through the kernel's sysfs, on a sysfs tree of files in tmp.

The tree is what the kernel shows with ``dtoverlay=pwm``: ``pwmchipN`` with its device
tree's ``compatible`` and ``npwm``, and an ``export`` that makes ``pwmN`` (here a FIFO
that a thread answers as the kernel would)."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import threading
from pathlib import Path

import pytest

from faro_pi.devices.case_keeper import PWM_HZ, CaseKeeper
from faro_pi.devices.pwm import Channel, KernelPWM, channel_for, overlay
from faro_pi.exc import FaroError
from faro_pi.game.rules import Table
from faro_pi.virtual.chain import watched_factory
from tests.test_case_keeper import LEDS

PERIOD = round(1e9 / PWM_HZ)


def fake_chip(root: Path, compatible: str, channels: int = 2, number: int = 0) -> Path:
    chip = root / f"pwmchip{number}"
    (chip / "device" / "of_node").mkdir(parents=True)
    (chip / "device" / "of_node" / "compatible").write_bytes(compatible.encode() + b"\0")
    (chip / "npwm").write_text(f"{channels}\n")
    return chip


def exported(chip: Path, channel: int) -> Path:
    """The channel's files as a fresh export leaves them: all zero, disabled; they appear
    at once, with the folder, as the kernel's do."""
    path, making = chip / f"pwm{channel}", chip / f".pwm{channel}"
    making.mkdir()
    for name in ("period", "duty_cycle", "enable"):
        (making / name).write_text("0\n")
    making.rename(path)
    return path


@contextlib.contextmanager
def exporting(chip: Path):
    """``export`` as the kernel answers it: writing N makes ``pwmN``."""
    os.mkfifo(chip / "export")
    made: list[int] = []

    def kernel():
        with open(chip / "export") as export:
            number = int(export.read())
        exported(chip, number)
        made.append(number)

    thread = threading.Thread(target=kernel)
    thread.start()
    try:
        yield made
    finally:
        with contextlib.suppress(OSError):  # never exported: let the thread go (ENXIO: it went)
            fd = os.open(chip / "export", os.O_WRONLY | os.O_NONBLOCK)
            os.write(fd, b"99\n")
            os.close(fd)
        thread.join()


def read(path: Path, name: str) -> int:
    return int((path / name).read_text())


def test_the_channel_of_a_pin_is_found_by_the_controllers_compatible(tmp_path):
    pi4 = fake_chip(tmp_path / "pi4", "brcm,bcm2711-pwm\0brcm,bcm2835-pwm")
    assert channel_for(18, tmp_path / "pi4") == Channel(pi4, 0)
    assert channel_for(19, tmp_path / "pi4") == Channel(pi4, 1)
    assert channel_for(17, tmp_path / "pi4") is None  # no PWM on that pin
    pi5 = fake_chip(tmp_path / "pi5", "raspberrypi,rp1-pwm", channels=4, number=2)
    assert channel_for(18, tmp_path / "pi5") == Channel(pi5, 2)
    fake_chip(tmp_path / "other", "vendor,some-pwm")
    assert channel_for(18, tmp_path / "other") is None  # not the Pi's header PWM
    assert channel_for(18, tmp_path / "none") is None  # no overlay: no chip
    assert overlay(18) == "dtoverlay=pwm,pin=18,func=2"
    assert overlay(12) == "dtoverlay=pwm,pin=12,func=4"


def test_oe_is_exported_and_blank_then_dims_and_stays_blank_once_closed(tmp_path):
    chip = fake_chip(tmp_path, "brcm,bcm2835-pwm")
    with exporting(chip) as made:
        pwm = KernelPWM(Channel(chip, 0), PWM_HZ)
    assert made == [0]
    channel = chip / "pwm0"
    # Blank until told otherwise: OE is active low, high for the whole period.
    assert (read(channel, "period"), read(channel, "duty_cycle")) == (PERIOD, PERIOD)
    assert read(channel, "enable") == 1
    pwm.value = 0.25
    assert read(channel, "duty_cycle") == round(0.75 * PERIOD)
    pwm.value = 1
    assert read(channel, "duty_cycle") == 0  # always low: full brightness
    pwm.close()
    # Left enabled and high: a disabled channel's line is low, and every LED would light.
    assert (read(channel, "duty_cycle"), read(channel, "enable")) == (PERIOD, 1)


def test_a_channel_left_by_the_last_run_is_taken_as_it_is(tmp_path):
    chip = fake_chip(tmp_path, "brcm,bcm2835-pwm")
    channel = exported(chip, 0)
    (channel / "period").write_text("10000000\n")
    (channel / "duty_cycle").write_text("10000000\n")
    (channel / "enable").write_text("1\n")
    (chip / "export").write_text("")  # writing to it again would be EBUSY
    KernelPWM(Channel(chip, 0), PWM_HZ)
    assert (chip / "export").read_text() == ""
    assert (read(channel, "period"), read(channel, "duty_cycle")) == (PERIOD, PERIOD)


def test_the_case_keeper_dims_through_the_kernel_and_leaves_the_pin_alone(tmp_path):
    chip = fake_chip(tmp_path, "brcm,bcm2835-pwm")
    exported(chip, 0)
    dim = dataclasses.replace(LEDS, brightness=0.5)
    factory, _ = watched_factory(dim)
    keeper = CaseKeeper(dim, factory, tick=60.0, pwm_root=tmp_path)
    try:
        assert read(chip / "pwm0", "duty_cycle") == PERIOD  # blank before the first frame

        async def show():
            keeper.show(Table())
            await keeper.settled()

        asyncio.run(show())
        assert read(chip / "pwm0", "duty_cycle") == round(0.5 * PERIOD)
        # GPIO 18 is the PWM's: gpiozero never opens it (it would take it from the PWM).
        assert 18 not in factory.pins
    finally:
        keeper.close()
        factory.close()
    assert read(chip / "pwm0", "duty_cycle") == PERIOD


def test_without_the_kernels_pwm_the_pin_is_dimmed_by_software(tmp_path):
    dim = dataclasses.replace(LEDS, brightness=0.5)
    factory, _ = watched_factory(dim)
    keeper = CaseKeeper(dim, factory, tick=60.0, pwm_root=tmp_path)  # no pwmchip
    try:
        assert factory.pin(18).frequency == PWM_HZ
    finally:
        keeper.close()
        factory.close()


def test_a_channel_the_service_may_not_write_is_named_with_the_fix(tmp_path):
    chip = fake_chip(tmp_path, "brcm,bcm2835-pwm")
    (chip / "export").mkdir()  # cannot be written, as a file closed to this user
    with pytest.raises(FaroError, match=r"leds.enable: the kernel's PWM \(pwmchip0 channel 0\)"):
        KernelPWM(Channel(chip, 0), PWM_HZ)
