"""``faro-pi doctor`` on this machine: mock pins, a virtual reader on a pty, a temporary journal."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import pty
import socket
import threading
import time
import tty
from pathlib import Path

import pytest
from gpiozero import Button
from gpiozero.pins.mock import MockFactory

from faro_pi import cli, doctor
from faro_pi.game.events import Session
from faro_pi.service.journal import Journal
from faro_pi.virtual.reader import VirtualReader
from tests.conftest import running_table, until

CONFIG = """\
[reader]
port = "{folder}/reader"

[journal]
path = "journal/journal.sqlite3"

[gpio]
pin_factory = "mock"

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
    assert lines[-1] in (f"all {len(by_name)} checks passed",) or "checks failed" in lines[-1]
    return status, by_name


def with_reader(config: Path, reader: VirtualReader | None = None, **options):
    """Runs the doctor in a thread while a virtual reader speaks on this loop."""

    async def scenario():
        nonlocal reader
        reader = reader or VirtualReader(config.parent / "reader")
        reader.plug()
        try:
            return await asyncio.to_thread(check, config, **options), reader
        finally:
            reader.close()

    return asyncio.run(scenario())


def test_every_check_passes_with_mock_pins_a_virtual_reader_and_a_new_journal(config):
    (status, lines), reader = with_reader(config)
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


def test_a_reader_that_is_only_sending_heartbeats_passes_too(config):
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

    status, lines = asyncio.run(scenario())
    assert status == 0
    assert "fsp1 a heartbeat (last frame 0)" in lines["reader"]


def test_without_the_reader_the_reader_check_fails_and_says_what_to_do(config):
    started = time.monotonic()
    status, lines = check(config)
    assert status == 1
    assert lines["reader"].startswith(f"FAIL  reader: no {config.parent}/reader. Fix: plug")
    assert "99-faro-reader.rules" in lines["reader"]
    assert time.monotonic() - started < 5
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
        started = time.monotonic()
        status, lines = check(config, timeout=0.3)
        assert time.monotonic() - started < 3
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


def test_a_pin_in_use_fails_naming_its_key(config):
    factory = MockFactory()
    try:
        held = Button(27, pin_factory=factory)
        (status, lines), _ = with_reader(config, factory=factory)
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


def test_an_existing_journal_is_opened_read_only_and_counted(config):
    path = config.parent / "journal" / "journal.sqlite3"
    with Journal.open(path) as journal:
        journal.append(Session(("Ann", "Bob"), "Bob"))
    before = path.read_bytes()
    (status, lines), _ = with_reader(config)
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
    assert out.splitlines()[-1].endswith("checks failed")


def test_spi_must_be_off_because_the_case_keeper_drives_spi0s_pins_itself(config, tmp_path):
    from faro_pi.service.config import load_config

    table = load_config(config, environ={})
    real_pins = object()  # any factory but the mock one
    dev = tmp_path / "dev"
    dev.mkdir()
    check = doctor._spi(table, real_pins, dev=dev)
    assert check.ok is True
    assert check.detail == "SPI0 is off, so GPIO 8, 10, 11 are the chain's"
    (dev / "spidev0.0").touch()
    check = doctor._spi(table, real_pins, dev=dev)
    assert check.ok is False
    assert "GPIO 8 (CE0), 10 (MOSI), 11 (SCLK)" in check.detail
    assert check.fix == "sudo raspi-config nonint do_spi 1, then reboot"
    assert doctor._spi(table, MockFactory(), dev=dev).ok is None


def test_a_busy_spi0_pin_points_at_spi(config):
    factory = MockFactory()
    try:
        held = Button(8, pin_factory=factory)  # as the kernel holds CE0 when SPI is on
        (status, lines), _ = with_reader(config, factory=factory)
        held.close()
    finally:
        factory.close()
    assert status == 1
    assert lines["GPIO8"].startswith("FAIL  GPIO8: leds.latch cannot be opened")
    assert "the kernel holds it as SPI0 CE0: sudo raspi-config nonint do_spi 1" in lines["GPIO8"]


# -- beside a running daemon ------------------------------------------------------------


def beside_the_daemon(folder: Path, doctor_config: Path, *, until_alarm: str | None = None):
    """Runs the doctor on ``doctor_config`` while the daemon runs on ``folder``'s config."""

    async def scenario():
        reader = VirtualReader(folder / "reader", heartbeat=60)  # its hello, then silence
        async with running_table(folder, reader=reader) as (daemon, _, _):
            await reader.drained()
            if until_alarm:
                await until(daemon, lambda table: any(a.kind == until_alarm for a in table.alarms))
            lines = await asyncio.to_thread(check, doctor_config)
            return lines, reader.acks, daemon.has_alarm("lost")

    return asyncio.run(scenario())


def test_a_daemon_on_the_same_journal_keeps_its_pins_and_reader_and_the_rest_is_checked(config):
    (status, lines), acks, _ = beside_the_daemon(config.parent, config)
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


def test_the_writer_lock_is_found_without_proc_locks_and_not_after_the_daemon(config, tmp_path):
    from faro_pi.doctor.daemon import journal_writer

    path = config.parent / "journal" / "journal.sqlite3"
    nowhere = tmp_path / "no-proc-locks"

    async def scenario():
        async with running_table(config.parent):
            return journal_writer(path), journal_writer(path, locks=nowhere)

    assert asyncio.run(scenario()) == (os.getpid(), 0)  # 0: held, by a process not named
    assert journal_writer(path) is None and journal_writer(path, locks=nowhere) is None
    assert journal_writer(tmp_path / "no-journal") is None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_daemon_on_the_consoles_port_is_found_and_asked_about_the_reader(config, tmp_path):
    port = free_port()
    console = f"[console]\nenabled = true\nport = {port}\n"
    table = tmp_path / "table"
    table.mkdir()
    daemons = CONFIG.format(folder=table).replace("[console]\nenabled = false\n", console)
    (table / "config.toml").write_text(
        daemons.replace("[reader]\n", "[reader]\nheartbeat_timeout = 0.3\n")
    )
    # the doctor's config: another journal, the same console port
    config.write_text(config.read_text().replace("[console]\nenabled = false\n", console))

    (status, lines), _, lost = beside_the_daemon(table, config, until_alarm="lost")
    running = f"the daemon is running (its console answers at http://127.0.0.1:{port})"
    assert lost
    assert lines["pins"] == f"skip  pins: {running}: pins not opened; the daemon holds them"
    assert lines["reader"] == (
        f"FAIL  reader: {running}: reader not opened; the daemon reports it lost (the card "
        "reader is silent: check its cable and power). Fix: check the reader's cable and "
        "power; the alarm clears when it speaks again"
    )
    assert status == 1
