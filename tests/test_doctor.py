"""``faro-pi doctor`` on this machine: mock pins, a virtual reader on a pty, a temporary journal."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import os
import pty
import re
import shutil
import subprocess
import sys
import threading
import tty
from pathlib import Path

import cv2
import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory

from faro_pi import cli, doctor
from faro_pi.camera.model import SHIPPED
from faro_pi.config import load_config
from faro_pi.doctor.buses import i2c_speed_check, pwm_check, spi_check
from faro_pi.doctor.camera import UPGRADE, model_check
from faro_pi.doctor.check import Check
from faro_pi.game.events import Session
from faro_pi.service.journal import Change, Journal
from faro_pi.virtual.reader import VirtualReader
from tests import old_opencv
from tests.conftest import running_table, until
from tests.ports import free_port
from tests.test_daemon_process import a_bet_raised_before_the_mark, rows_that_no_longer_apply
from tests.test_journal import a_forged_resume_point

CONFIG = """\
[reader]
port = "{folder}/reader"

[journal]
path = "journal/journal.sqlite3"

[gpio]
pin_factory = "mock"

[leds]
driver = "74hc595"

[display]
driver = "dummy"

[console]
enabled = false
"""

SHORT = 0.5
"""Seconds the tests give the reader: it sends its hello at once."""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(CONFIG.format(folder=tmp_path))
    return path


def check(config: Path, **options) -> tuple[int, dict[str, str]]:
    """Runs the doctor; returns its status and its lines by check name."""
    out = io.StringIO()
    options.setdefault("ntp", lambda: True)
    status = doctor.main(config, reader_timeout=options.pop("timeout", SHORT), out=out, **options)
    lines = out.getvalue().splitlines()
    by_name = {}
    for line in lines[:-1]:
        name = line[6:].split(":", 1)[0]
        by_name[name] = line
    tags = [line[:6] for line in lines[:-1]]
    counts = {tag: tags.count(tag) for tag in ("ok    ", "FAIL  ", "skip  ")}
    assert sum(counts.values()) == len(lines) - 1  # every line tagged
    assert lines[-1] == doctor.tally(counts["ok    "], counts["FAIL  "], counts["skip  "])
    return status, by_name


async def with_reader(config: Path, reader: VirtualReader | None = None, **options):
    """Runs the doctor in a thread while a virtual reader speaks on this loop."""
    reader = reader or VirtualReader(config.parent / "reader")
    reader.plug()
    try:
        return await asyncio.to_thread(check, config, **options), reader
    finally:
        reader.close()


async def test_every_check_passes_with_mock_pins_a_virtual_reader_and_a_new_journal(config):
    (status, lines), reader = await with_reader(config)
    assert status == 0, "\n".join(lines.values())
    assert lines["config"].startswith("ok    config:")
    assert lines["gpio"] == "ok    gpio: mock pin factory (configured)"
    # every pin of the default wiring: buttons, and the case keeper's chain
    for pin, key in (
        (17, "buttons.signal"),
        (27, "buttons.undo"),
        (22, "buttons.new_pack"),
        (10, "leds.data"),
        (11, "leds.clock"),
        (8, "leds.latch"),
        (18, "leds.enable"),
    ):
        assert lines[f"GPIO{pin}"] == f"ok    GPIO{pin}: {key} is free"
    assert lines["spi"] == "skip  spi: mock pins: no SPI0 to be in the way"
    assert lines["display"] == "skip  display: display.driver = dummy"
    assert lines["reader"].startswith("ok    reader:")
    assert "fsp1 a hello (virtual reader)" in lines["reader"]
    assert lines["journal"].startswith("ok    journal: no journal yet; faro-pi will create")
    assert lines["clock"].startswith("ok    clock:") and "synchronised by NTP" in lines["clock"]
    # The doctor only listens: the reader's hello is still waiting for the daemon.
    assert reader.acks == 0 and reader.sender.pending() == 1


async def test_a_reader_that_is_only_sending_heartbeats_passes_too(config):
    async def scenario():
        reader = VirtualReader(config.parent / "reader", heartbeat=0.05)
        reader.sender.acked(0)  # its hello was taken long ago
        reader.sender._sent_at = None
        reader.sender._queue.clear()
        reader.plug()
        try:
            return await asyncio.to_thread(check, config)
        finally:
            reader.close()

    status, lines = await scenario()
    assert status == 0
    assert "fsp1 a heartbeat (last frame 0)" in lines["reader"]


def returned(call, *args, within: float = 60.0, **kwargs):
    """``call(*args, **kwargs)`` on a thread of its own: its result, or a failure if it has not
    returned in ``within`` seconds. A hang detector that no busy machine trips, not a figure."""
    done = threading.Event()
    outcome: list = []

    def run() -> None:
        try:
            outcome.append((True, call(*args, **kwargs)))
        except BaseException as exc:
            outcome.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=run, name="returned", daemon=True).start()
    assert done.wait(within), f"{call.__name__} did not return in {within:g} s"
    [(ok, value)] = outcome
    if not ok:
        raise value
    return value


def test_without_the_reader_the_reader_check_fails_and_says_what_to_do(config):
    # A reader listened for would take the ten minutes given: the missing port is said at once.
    status, lines = returned(check, config, timeout=600)
    assert status == 1
    assert lines["reader"].startswith(f"FAIL  reader: no {config.parent}/reader. Fix: plug")
    assert "99-faro-reader.rules" in lines["reader"]
    others = [line for name, line in lines.items() if name != "reader"]
    assert not [line for line in others if line.startswith("FAIL")]


@contextlib.contextmanager
def bare_pty(path: Path):
    """A serial line at ``path`` with nothing but the test on the other end."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    path.symlink_to(os.ttyname(slave))
    try:
        yield master
    finally:
        path.unlink()
        os.close(master)
        os.close(slave)


def test_a_silent_reader_fails_within_the_timeout(config):
    with bare_pty(config.parent / "reader"):
        status, lines = returned(check, config, timeout=0.3)
    assert status == 1
    assert "silent for 0.3 s" in lines["reader"]
    assert "hardware/firmware/main.py" in lines["reader"]


def test_bytes_that_are_no_frame_point_at_the_speed_and_the_protocol(config):
    done = threading.Event()

    def line_noise(master: int) -> None:  # what a wrong baud rate looks like
        while not done.wait(0.05):
            os.write(master, b"KD\r\n\xff\xfe garbage $C,1,KD*0000\r\n")

    with bare_pty(config.parent / "reader") as master:
        noise = threading.Thread(target=line_noise, args=(master,))
        noise.start()
        try:
            status, lines = check(config, timeout=0.3)
        finally:
            done.set()
            noise.join()
    assert status == 1
    assert "but no fsp1 frame" in lines["reader"]
    assert " crc" in lines["reader"] and " noise" in lines["reader"]
    assert "reader.baud (115200)" in lines["reader"] and '"plain"' in lines["reader"]


async def test_a_pin_in_use_fails_naming_its_key(config):
    factory = MockFactory()
    try:
        held = Button(27, pin_factory=factory)
        (status, lines), _ = await with_reader(config, factory=factory)
        held.close()
    finally:
        factory.close()
    assert status == 1
    assert lines["GPIO27"].startswith("FAIL  GPIO27: buttons.undo cannot be opened")
    assert "sudo systemctl stop faro-pi" in lines["GPIO27"]
    assert lines["GPIO17"] == "ok    GPIO17: buttons.signal is free"


def test_a_configuration_error_is_the_only_line_and_fails(config):
    config.write_text(config.read_text() + "\n[buttons]\nsignal = 99\n")
    status, lines = check(config)
    assert status == 1
    assert list(lines) == ["config"]
    assert "buttons.signal: 99 is not a BCM GPIO number" in lines["config"]


async def test_an_existing_journal_is_opened_read_only_and_counted(config):
    path = config.parent / "journal" / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append([Change(Session(("Ann", "Bob"), "Bob"))])
    before = path.read_bytes()
    (status, lines), _ = await with_reader(config)
    assert status == 0
    assert lines["journal"] == f"ok    journal: {path}: 1 events, writable"
    assert path.read_bytes() == before


def test_an_empty_journal_file_is_a_journal_of_no_events(config):
    path = config.parent / "journal" / "journal.sqlite3"
    path.parent.mkdir()
    path.touch()  # what a power cut between creating the file and writing its schema leaves
    _, lines = check(config)
    assert lines["journal"] == f"ok    journal: {path}: 0 events, writable"


def test_a_damaged_journal_fails(config):
    path = config.parent / "journal" / "journal.sqlite3"
    path.parent.mkdir()
    path.write_bytes(b"not a database at all" * 10)
    status, lines = check(config)
    assert status == 1
    assert lines["journal"].startswith("FAIL  journal:")
    assert "is not a SQLite database" in lines["journal"]


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (a_bet_raised_before_the_mark, "row 2 does not match its hash"),
        (rows_that_no_longer_apply, "event 14 no longer applies"),
    ],
)
def test_a_journal_a_start_would_refuse_fails_as_the_start_would(config, damage, says):
    """The doctor checks what a start checks (the chain, the replay), and writes nothing."""
    path = config.parent / "journal" / "journal.sqlite3"
    path.parent.mkdir()
    damage(path)
    before = path.read_bytes()
    status, lines = check(config)
    assert status == 1
    assert lines["journal"].startswith("FAIL  journal:")
    assert says in lines["journal"]
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == ["journal.sqlite3"]


async def test_a_resume_point_changed_in_the_file_fails_though_a_start_passes_over_it(config):
    """The latest resume point's balances changed, no row touched: a start would pass over it,
    but someone wrote the file, and the doctor says so with the point's row and what to do."""
    path = config.parent / "journal" / "journal.sqlite3"
    after, _ = await a_forged_resume_point(config)
    before = path.read_bytes()
    status, lines = check(config)
    assert status == 1
    assert lines["journal"].startswith(
        f"FAIL  journal: {path}: the resume point after row {after} is not the state its row "
        "seals: it was changed after it was kept; it is not trusted"
    )
    assert f"Fix: faro-pi verify {path} checks every row" in lines["journal"]
    assert f"'DELETE FROM resume WHERE after = {after}'" in lines["journal"]
    assert path.read_bytes() == before


def test_a_clock_before_2024_or_without_ntp_fails(config):
    _, lines = check(config, clock=lambda: 0.0)
    assert lines["clock"].startswith("FAIL  clock: it is 1970-01-01 00:00 UTC")
    _, lines = check(config, ntp=lambda: False)
    assert "not synchronised by NTP" in lines["clock"]
    assert "timedatectl set-ntp true" in lines["clock"]
    _, lines = check(config, ntp=lambda: None)
    assert lines["clock"].startswith("ok    clock:") and "NTP state unknown" in lines["clock"]


def test_the_display_check_reports_a_missing_bus(config, monkeypatch):
    config.write_text(
        config.read_text().replace('driver = "dummy"', 'driver = "ssd1306"\ni2c_port = 99')
    )
    status, lines = check(config)
    assert status == 1
    assert lines["display"] == (
        "FAIL  display: no /dev/i2c-99: I²C is off. "
        "Fix: sudo raspi-config nonint do_i2c 0, then reboot"
    )


def test_the_command_line(config, capsys):
    status = cli.main(["doctor", "--config", str(config), "--timeout", "0.2"])
    out = capsys.readouterr().out
    assert status == 1
    assert "FAIL  reader: no " in out
    assert re.fullmatch(
        r"FAIL  \d+ checks? failed, \d+ passed(, \d+ skipped)?", out.splitlines()[-1]
    )


def test_the_tally_counts_skips_apart_from_passes():
    assert doctor.tally(9, 2, 5) == "FAIL  2 checks failed, 9 passed, 5 skipped"
    assert doctor.tally(9, 1, 0) == "FAIL  1 check failed, 9 passed"
    assert doctor.tally(9, 0, 5) == "ok    9 checks passed, none failed, 5 skipped"
    assert doctor.tally(1, 0, 0) == "ok    all 1 check passed"


def test_a_detail_of_several_lines_is_one_tagged_line():
    check = Check("reader", False, "no frame:\n  the port said\nnothing", "plug it\nin")
    assert check.line() == "FAIL  reader: no frame: the port said nothing. Fix: plug it in"


def test_spi_must_be_off_because_the_case_keeper_drives_spi0s_pins_itself(config, tmp_path):
    table = load_config(config, environ={})
    real_pins = object()  # any factory but the mock one
    dev = tmp_path / "dev"
    dev.mkdir()
    check = spi_check(table, real_pins, dev=dev)
    assert check.ok is True
    assert check.detail == "SPI0 is off, so GPIO 8, 10, 11 are the chain's"
    (dev / "spidev0.0").touch()
    check = spi_check(table, real_pins, dev=dev)
    assert check.ok is False
    assert "GPIO 8 (CE0), 10 (MOSI), 11 (SCLK)" in check.detail
    assert check.fix == "sudo raspi-config nonint do_spi 1, then reboot"
    assert spi_check(table, MockFactory(), dev=dev).ok is None


async def test_a_busy_spi0_pin_points_at_spi(config):
    factory = MockFactory()
    try:
        held = Button(8, pin_factory=factory)  # as the kernel holds CE0 when SPI is on
        (status, lines), _ = await with_reader(config, factory=factory)
        held.close()
    finally:
        factory.close()
    assert status == 1
    assert lines["GPIO8"].startswith("FAIL  GPIO8: leds.latch cannot be opened")
    assert "the kernel holds it as SPI0 CE0: sudo raspi-config nonint do_spi 1" in lines["GPIO8"]


# -- beside a running daemon ------------------------------------------------------------


async def beside_the_daemon(folder: Path, doctor_config: Path, *, until_alarm: str | None = None):
    """Runs the doctor on ``doctor_config`` while the daemon runs on ``folder``'s config."""
    reader = VirtualReader(folder / "reader", heartbeat=60)  # its hello, then silence
    async with running_table(folder, reader=reader) as (daemon, _, _):
        await reader.drained()
        if until_alarm:
            await until(daemon, lambda table: any(a.kind == until_alarm for a in table.alarms))
        lines = await asyncio.to_thread(check, doctor_config)
        return lines, reader.acks, daemon.has_alarm("lost")


async def test_a_daemon_on_the_same_journal_keeps_its_pins_and_reader_and_the_rest_is_checked(
    config,
):
    (status, lines), acks, _ = await beside_the_daemon(config.parent, config)
    running = f"the daemon is running (pid {os.getpid()})"
    assert lines["pins"] == f"skip  pins: {running}: pins not opened; the daemon holds them"
    assert not [name for name in lines if name.startswith("GPIO")]
    assert lines["reader"] == (
        f"skip  reader: {running}: reader not opened; "
        "journalctl -u faro-pi shows what the daemon hears from it"
    )
    path = config.parent / "journal" / "journal.sqlite3"
    assert lines["journal"].startswith(f"ok    journal: {path}: ")
    assert lines["journal"].endswith(" events, written by the running daemon")
    for name in ("config", "gpio", "spi", "display", "clock"):
        assert name in lines
    assert status == 0
    assert acks == 1  # the reader's hello went to the daemon, and only to it


async def test_the_writer_lock_is_found_without_proc_locks_and_not_after_the_daemon(
    config, tmp_path
):
    from faro_pi.doctor.daemon import journal_writer

    path = config.parent / "journal" / "journal.sqlite3"
    nowhere = tmp_path / "no-proc-locks"

    async def scenario():
        async with running_table(config.parent):
            return journal_writer(path), journal_writer(path, locks=nowhere)

    assert await scenario() == (os.getpid(), 0)  # 0: held, by a process not named
    assert journal_writer(path) is None and journal_writer(path, locks=nowhere) is None
    assert journal_writer(tmp_path / "no-journal") is None


async def test_a_daemon_on_the_consoles_port_is_found_and_asked_about_the_reader(config, tmp_path):
    port = free_port()
    console = f"[console]\nenabled = true\nport = {port}\n"
    table = tmp_path / "table"
    table.mkdir()
    daemons = CONFIG.format(folder=table).replace("[console]\nenabled = false\n", console)
    (table / "config.toml").write_text(
        daemons.replace("[reader]\n", "[reader]\nheartbeat_timeout = 2.0\n")
    )
    # the doctor's config: another journal, the same console port
    config.write_text(config.read_text().replace("[console]\nenabled = false\n", console))

    (status, lines), _, lost = await beside_the_daemon(table, config, until_alarm="lost")
    running = f"the daemon is running (its console answers at http://127.0.0.1:{port})"
    assert lost
    assert lines["pins"] == f"skip  pins: {running}: pins not opened; the daemon holds them"
    assert lines["reader"] == (
        f"FAIL  reader: {running}: reader not opened; the daemon reports it lost (the card "
        "reader is silent: check its cable and power). Fix: check the reader's cable and "
        "power; the alarm clears when it speaks again"
    )
    assert status == 1


# -- lgpio's folder, set before gpiozero is imported -------------------------------------

FIRST_GPIOZERO = """\
import importlib.abc, json, os, sys

class FirstGpiozero(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "gpiozero":
            print(json.dumps({"LG_WD": os.environ.get("LG_WD"), "cwd": os.getcwd()}))
            raise SystemExit(0)
        return None

sys.meta_path.insert(0, FirstGpiozero())
from faro_pi.cli import main
sys.exit(main(sys.argv[1:]))
"""
"""Runs ``faro-pi`` up to the moment something first imports gpiozero, and prints what
lgpio would find then."""


@pytest.mark.parametrize("command", ["run", "doctor", "sim"])
def test_every_command_that_loads_gpiozero_sets_lgpios_folder_first(config, tmp_path, command):
    """lgpio makes its notification pipe in $LG_WD, else the working folder: as the
    service's user in a cloned repository it could not, and gpiozero would quietly fall
    back to another pin library. Each command names a folder of its own first."""
    import json
    import subprocess
    import sys

    args = {
        "run": ["run", "--config", str(config)],
        "doctor": ["doctor", "--config", str(config)],
        "sim": ["sim", "--out", str(tmp_path / "sim-out"), "--speed", "0"],
    }[command]
    environ = {k: v for k, v in os.environ.items() if k not in ("LG_WD", "RUNTIME_DIRECTORY")}
    done = subprocess.run(
        [sys.executable, "-c", FIRST_GPIOZERO, *args],
        capture_output=True,
        text=True,
        env=environ,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    folder = Path(seen["LG_WD"] or "")
    assert seen["LG_WD"] and folder.is_absolute() and folder != Path(seen["cwd"])
    assert folder.name.startswith("faro-pi-lgpio-")
    assert not folder.exists()  # removed at the exit

    # under systemd: the service's RuntimeDirectory
    runtime = tmp_path / "run"
    runtime.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", FIRST_GPIOZERO, *args],
        capture_output=True,
        text=True,
        env={**environ, "RUNTIME_DIRECTORY": str(runtime)},
        cwd=tmp_path,
        timeout=60,
    )
    assert json.loads(done.stdout.splitlines()[-1])["LG_WD"] == str(runtime)
    assert runtime.is_dir()


# -- the case keeper on SPI0 ------------------------------------------------------------


def on_spi(table):
    """The table with the case keeper on SPI0 (``leds.driver = "74hc595-spi"``)."""
    return dataclasses.replace(table, leds=dataclasses.replace(table.leds, driver="74hc595-spi"))


def test_with_the_spi_driver_spi0_must_be_on(config, tmp_path):
    table = on_spi(load_config(config, environ={}))
    dev = tmp_path / "dev"
    dev.mkdir()
    check = spi_check(table, object(), dev=dev)
    assert check.line() == (
        f'FAIL  spi: SPI0 is off (no {dev}/spidev0.0), and leds.driver = "74hc595-spi" '
        "sends the frames through it. Fix: sudo raspi-config nonint do_spi 0, then reboot "
        '(sudo make install sets dtparam=spi=on); or leds.driver = "74hc595" to bit-bang'
    )
    (dev / "spidev0.0").touch()
    check = spi_check(table, object(), dev=dev)
    assert check.line() == (
        f"ok    spi: SPI0 is on ({dev}/spidev0.0): the case keeper's frames go through it"
    )


def test_with_the_spi_driver_the_chains_pins_are_left_to_spi0(config):
    """Claimed as a GPIO, SCLK or MOSI would be taken from SPI0 until the next boot."""
    table = on_spi(load_config(config, environ={}))
    factory = MockFactory()
    try:
        lines = {check.name: check.line() for check in doctor._pins(table, factory)}
    finally:
        factory.close()
    assert lines["GPIO10"] == "skip  GPIO10: leds.data is SPI0 MOSI, not opened: see spi"
    assert lines["GPIO11"] == "skip  GPIO11: leds.clock is SPI0 SCLK, not opened: see spi"
    assert lines["GPIO8"] == "skip  GPIO8: leds.latch is SPI0 CE0, not opened: see spi"
    assert lines["GPIO18"] == "ok    GPIO18: leds.enable is free"


# -- the display's bus at 400 kHz ---------------------------------------------------------


def i2c_bus(root: Path, port: int, hz: int | None) -> Path:
    """A /sys with I²C bus ``port`` whose device-tree node says ``hz``."""
    node = root / f"bus/i2c/devices/i2c-{port}/of_node"
    node.mkdir(parents=True)
    if hz is not None:
        (node / "clock-frequency").write_bytes(hz.to_bytes(4, "big"))
    return root


def test_the_displays_bus_must_run_at_400_khz(config, tmp_path):
    table = load_config(config, environ={})
    oled = dataclasses.replace(table, display=dataclasses.replace(table.display, driver="ssd1306"))
    boot = tmp_path / "config.txt"
    boot.write_text("dtparam=audio=on\n#dtparam=i2c_arm_baudrate=400000\n")

    slow = i2c_bus(tmp_path / "slow", 1, 100_000)
    check = i2c_speed_check(oled, sys_root=slow, boot_configs=(tmp_path / "none.txt", boot))
    assert check.line() == (
        "FAIL  i2c: I²C bus 1 runs at 100 kHz: a whole frame of the display takes ~95 ms. "
        f"Fix: add dtparam=i2c_arm_baudrate=400000 to {boot} (sudo make install does), "
        "then reboot"
    )
    boot.write_text("dtparam=i2c_arm=on,i2c_arm_baudrate=400000\n")  # set, not yet booted
    check = i2c_speed_check(oled, sys_root=slow, boot_configs=(boot,))
    assert check.fix == f"reboot: {boot} already says i2c_arm_baudrate=400000"

    fast = i2c_bus(tmp_path / "fast", 1, 400_000)
    assert i2c_speed_check(oled, sys_root=fast).line() == "ok    i2c: I²C bus 1 runs at 400 kHz"
    assert i2c_speed_check(oled, sys_root=tmp_path / "no-bus").ok is None
    assert i2c_speed_check(oled, sys_root=i2c_bus(tmp_path / "usb", 1, None)).ok is None
    assert i2c_speed_check(table, sys_root=slow).line() == "skip  i2c: display.driver = dummy"


# -- which pin factory really loaded -----------------------------------------------------


def test_gpiozero_falling_back_from_lgpio_fails_and_names_the_reason(config, monkeypatch):
    """As the service's user in a cloned repository lgpio can't make its pipe, and
    gpiozero quietly takes RPi.GPIO (a Pi 4) instead: the doctor says so, and fails."""
    import warnings

    from gpiozero import Device
    from gpiozero.exc import PinFactoryFallback

    rpigpio = type("RPiGPIOFactory", (MockFactory,), {"__module__": "gpiozero.pins.rpigpio"})
    reason = "Falling back from lgpio: [Errno 13] Permission denied: '.lgd-nfy0'"

    def what_gpiozero_does():
        warnings.warn(PinFactoryFallback(reason), stacklevel=1)
        return rpigpio()

    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(what_gpiozero_does))
    monkeypatch.setattr(Device, "pin_factory", None)
    table = load_config(config, environ={})
    chosen = dataclasses.replace(table, gpio=dataclasses.replace(table.gpio, pin_factory=None))
    check, factory = doctor._pin_factory(chosen)
    try:
        assert check.line().startswith("FAIL  gpio: rpigpio pin factory, Raspberry Pi ")
        assert f", chosen by gpiozero only after: {reason}. Fix: lgpio is the service's" in (
            check.line()
        )
    finally:
        factory.close()
        Device.pin_factory = None

    def lgpio_missing():
        missing = "Falling back from lgpio: No module named 'lgpio'"
        warnings.warn(PinFactoryFallback(missing), stacklevel=1)
        return rpigpio()

    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(lgpio_missing))
    check, factory = doctor._pin_factory(chosen)
    factory.close()
    Device.pin_factory = None
    assert check.fix.startswith("sudo apt install python3-lgpio")


def test_the_pin_factory_gpiozero_chose_without_falling_back_is_named(config, monkeypatch):
    from gpiozero import Device

    lgpio = type("LGPIOFactory", (MockFactory,), {"__module__": "gpiozero.pins.lgpio"})
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(lgpio))
    monkeypatch.setattr(Device, "pin_factory", None)
    table = load_config(config, environ={})
    chosen = dataclasses.replace(table, gpio=dataclasses.replace(table.gpio, pin_factory=None))
    check, factory = doctor._pin_factory(chosen)
    factory.close()
    Device.pin_factory = None
    assert check.line().startswith("ok    gpio: lgpio pin factory (chosen by gpiozero")


class Board(MockFactory):
    """Mock pins that the doctor takes for a real board's (only the mock's are skipped)."""


def test_oe_on_the_kernels_pwm_is_left_to_it_and_said_to_wake_nothing(config, tmp_path):
    from tests.test_pwm import fake_chip

    table = load_config(config, environ={})
    fake_chip(tmp_path / "pwm", "brcm,bcm2835-pwm")
    check = pwm_check(table, Board(), pwm_root=tmp_path / "pwm")
    assert check.line() == (
        "ok    pwm: leds.enable GPIO18 is the kernel's PWM (pwmchip0 channel 0): nothing wakes"
    )
    factory = Board()
    try:
        lines = {c.name: c.line() for c in doctor._pins(table, factory, tmp_path / "pwm")}
    finally:
        factory.close()
    # Opened as a GPIO it would be taken from the PWM until the next boot.
    assert lines["GPIO18"] == (
        "skip  GPIO18: leds.enable is the kernel's PWM (pwmchip0 channel 0), not opened: see pwm"
    )


def test_dimming_by_software_is_said_and_fails_where_the_pin_has_hardware_pwm(config, tmp_path):
    table = load_config(config, environ={})
    none = tmp_path / "no-pwm"
    dim = dataclasses.replace(table, leds=dataclasses.replace(table.leds, brightness=0.5))
    check = pwm_check(dim, Board(), pwm_root=none)
    assert check.line() == (
        "FAIL  pwm: leds.enable GPIO18 has no kernel PWM (the pwm overlay): software PWM, "
        "800 wake-ups a second. Fix: add dtoverlay=pwm,pin=18,func=2 to "
        "/boot/firmware/config.txt (sudo make install does), then reboot"
    )
    assert pwm_check(table, Board(), pwm_root=none).ok is True  # full brightness: no PWM
    elsewhere = dataclasses.replace(dim, leds=dataclasses.replace(dim.leds, enable=5))
    assert pwm_check(elsewhere, Board(), pwm_root=none).line() == (
        "ok    pwm: leds.enable GPIO5 has no hardware PWM: dimmed by software PWM, "
        "800 wake-ups a second (GPIO 12, 13, 18 and 19 dim in hardware)"
    )
    assert pwm_check(dim, MockFactory(), pwm_root=none).ok is None


SHOE = '[reader]\nport = "/dev/ttyGS0"\n[camera]\nsource = "usb"\ndevice = 63\n'
"""A board at the shoe with a camera: the doctor checks the camera reader and little else."""


def test_with_a_camera_the_doctor_loads_the_model_and_reads_a_card_it_draws(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(SHOE)
    _, lines = check(config)
    assert lines["model"] == (
        f"ok    model: the model loads on OpenCV {cv2.__version__} and reads a drawn card"
    )


def test_a_damaged_model_file_is_one_failed_line_naming_it_and_the_fix(tmp_path):
    for name in ("model.json", "pips.onnx"):
        shutil.copy(SHIPPED.parent / name, tmp_path / name)
    (tmp_path / "model.onnx").write_bytes(b"half a model")
    line = model_check(tmp_path / "model.json").line()
    assert line.startswith(f"FAIL  model: {tmp_path / 'model.onnx'}: OpenCV {cv2.__version__} ")
    assert "cannot load the camera's model (" in line and "Failed to parse ONNX model" in line
    assert line.endswith(". Fix: " + UPGRADE)


@pytest.mark.parametrize("model", ["as shipped", "as torch wrote it"])
def test_the_doctor_on_bookworms_opencv_says_whether_the_model_loads_there(model, tmp_path):
    """``faro-pi doctor`` run whole on OpenCV 4.6.0 (Raspberry Pi OS Bookworm's), on a
    copy of faro-pi whose model is the shipped one, or the one torch wrote before it was
    folded, which 4.6 cannot load: that is one line with its fix, never a traceback."""
    env = old_opencv.copied(tmp_path, torch_wrote_it=model == "as torch wrote it")
    net = tmp_path / "faro_pi" / "camera" / "model.onnx"
    config = tmp_path / "config.toml"
    config.write_text(SHOE)
    ran = subprocess.run(
        [sys.executable, "-m", "faro_pi", "doctor", "--config", str(config)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert "Traceback" not in ran.stderr, ran.stderr[-3000:]
    [line] = [line for line in ran.stdout.splitlines() if line[6:].startswith("model:")]
    if model == "as shipped":
        assert line == "ok    model: the model loads on OpenCV 4.6.0 and reads a drawn card"
    else:
        assert line.startswith(f"FAIL  model: {net}: OpenCV 4.6.0 cannot load the camera's model")
        assert "Identity" in line and line.endswith(". Fix: " + UPGRADE)
