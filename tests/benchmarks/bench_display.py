"""The OLED's cost: I²C bytes per card against a whole frame, and time per change.

Whole packs of a seeded demo game go through the display's drivers onto a
virtual bus that counts every byte on the wire (address bytes included).
A card's bytes are those of the flush its event causes; the other events
(the banker's lock, calls, a shuffle) are counted apart. The wire time is
what those bytes take on a 400 kHz bus (9 clocks a byte).

The CPU a card is the display's whole share of the work on the Pi (the view on
the loop, the render and the changed windows through luma's smbus2 on the
worker), the bus's own ioctl left out.

The watcher's time on the loop is timed with the bus answering, with the worker
held on the bus (a write that does not return until the packs are dealt) and
with the display failing (every write refused, tried again with backoff): the
loop must never wait on the display, so the three should be alike.

Run: ``.venv/bin/python -m tests.benchmarks.bench_display``
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import random
import statistics
import threading
import time
from unittest import mock

from luma.core.interface.serial import i2c
from luma.oled.device import sh1106, ssd1306

from faro_pi.config import DisplayConfig
from faro_pi.devices.oled.display import TableDisplay
from faro_pi.devices.oled.flush import SH1106, SSD1306
from faro_pi.devices.oled.screens import render, view
from faro_pi.game.demo import play
from faro_pi.game.events import CardDrawn
from faro_pi.game.rules import Table
from faro_pi.virtual.oled import VirtualOled
from tests.benchmarks.figures import percentile, report

PACKS = 20
HZ = 400_000


def handed(controller: str) -> tuple[VirtualOled, i2c]:
    """luma's i2c on a bus handed to it: data in 32-byte SMBus blocks."""
    bus = VirtualOled(controller)
    return bus, i2c(bus=bus)


def own(controller: str) -> tuple[VirtualOled, i2c]:
    """luma's i2c on the smbus2 it opens itself, as on the Pi: i2c_rdwr messages."""
    bus = VirtualOled(controller)
    with mock.patch("smbus2.SMBus", lambda port: bus):
        return bus, i2c(port=1, address=0x3C)


def full_frame(controller: str, link) -> int:
    """Bytes of one frame as luma's own driver sends it (always the whole screen)."""
    bus, serial = link(controller)
    device = {"ssd1306": ssd1306, "sh1106": sh1106}[controller](serial)
    table = Table()
    for event in play(random.Random(1), ("Ann", "Bob", "Cy"), packs=1):
        table.apply(event)
    before = bus.bytes_sent
    device.display(render(view(table)))
    return bus.bytes_sent - before


def run(controller: str, link, seats: tuple[str, ...]) -> dict:
    bus, serial = link(controller)
    device = {"ssd1306": SSD1306, "sh1106": SH1106}[controller](serial)
    table, shown = Table(), None
    cards, others, renders, flushes = [], [], [], []
    clock = time.perf_counter
    for event in play(random.Random(2026), seats, packs=PACKS):
        table.apply(event)
        wanted = view(table)
        sent = 0
        if wanted != shown:
            start = clock()
            image = render(wanted)
            middle = clock()
            before = bus.bytes_sent
            device.display(image)
            flushes.append(clock() - middle)
            renders.append(middle - start)
            sent = bus.bytes_sent - before
            shown = wanted
        (cards if isinstance(event, CardDrawn) else others).append(sent)
    return {"cards": cards, "others": others, "renders": renders, "flushes": flushes}


class NullBus:
    """smbus2's ``SMBus`` where the bytes go nowhere: what is left is the Pi's own work."""

    def write_i2c_block_data(self, address, register, data):
        pass

    def i2c_rdwr(self, *messages):
        pass

    def close(self):
        pass


def cpu_per_card(seats: tuple[str, ...]) -> list[float]:
    """CPU seconds per card of what the OLED does on the Pi: the view on the loop, then
    the render and the flush through luma's smbus2 (the bus's ioctl not counted)."""
    with mock.patch("smbus2.SMBus", lambda port: NullBus()):
        device = SSD1306(i2c(port=1, address=0x3C))
    table, shown, samples = Table(), None, []
    for event in play(random.Random(2026), seats, packs=PACKS):
        table.apply(event)
        start = time.thread_time()
        wanted = view(table)
        if wanted != shown:
            device.display(render(wanted))
            shown = wanted
        if isinstance(event, CardDrawn):
            samples.append(time.thread_time() - start)
    return samples


class HeldBus(VirtualOled):
    """A bus whose writes do not return until ``gate`` is set: the worker is stuck on it."""

    def __init__(self):
        super().__init__()
        self.gate = threading.Event()

    def write_i2c_block_data(self, address, register, data):
        self.gate.wait()
        super().write_i2c_block_data(address, register, data)


class RefusingBus(VirtualOled):
    """A bus on which nobody answers: every write fails as an unplugged display's does."""

    def write_i2c_block_data(self, address, register, data):
        raise OSError(errno.EREMOTEIO, os.strerror(errno.EREMOTEIO))


def watcher_cost(seats: tuple[str, ...], bus: VirtualOled | None = None) -> list[float]:
    """Seconds the daemon's loop spends in the watcher per event, worker running on ``bus``
    (a :class:`VirtualOled` that answers, by default)."""
    bus = bus or VirtualOled()
    oled = TableDisplay(DisplayConfig("ssd1306", 1, 0x3C, 0), bus=bus)
    table, samples = Table(), []
    try:
        for event in play(random.Random(2026), seats, packs=PACKS):
            table.apply(event)
            start = time.perf_counter()
            oled.show(table, event)
            samples.append(time.perf_counter() - start)
        if isinstance(bus, HeldBus):
            bus.gate.set()
        asyncio.run(oled.settled())
    finally:
        oled.close()
    return samples


def failing_watcher_cost(seats: tuple[str, ...]) -> list[float]:
    """:func:`watcher_cost` on a :class:`RefusingBus`, the display's warning kept off the
    figures."""
    logger = logging.getLogger(TableDisplay.__module__)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        return watcher_cost(seats, RefusingBus())
    finally:
        logger.setLevel(level)


def main() -> None:
    for seats in (("Ann", "Bob", "Cy", "Dee", "Eve"), tuple(f"P{i}" for i in range(10))):
        print(f"\n{PACKS} packs of a demo game at {len(seats)} seats")
        timed = None
        for controller, link, how in (
            ("ssd1306", own, "luma's smbus2, i2c_rdwr (as on the Pi)"),
            ("ssd1306", handed, "bus handed to luma, 32-byte blocks"),
            ("sh1106", own, "luma's smbus2, i2c_rdwr (as on the Pi)"),
        ):
            full = full_frame(controller, link)
            figures = run(controller, link, seats)
            timed = timed or figures
            cards, others = figures["cards"], figures["others"]
            ratios = [sent / full for sent in cards]
            print(f"  {controller}, {how}: a whole frame is {full} bytes")
            print(
                f"    per card: mean {statistics.mean(cards):6.1f} B = "
                f"{statistics.mean(ratios):5.1%} of a frame   "
                f"median {statistics.median(cards):5.0f} B   p99 {percentile(cards, 99):5.0f} B   "
                f"max {max(cards)} B"
            )
            total = (sum(cards) + sum(others)) / len(cards)
            print(
                f"    with the other events (locks, calls, shuffles): {total:6.1f} B a card = "
                f"{total / full:5.1%} of a frame"
            )
            wire = [sent * 9 / HZ for sent in cards]
            report("    wire time of a card at 400 kHz", wire, "ms", 1e3)
        report("  render a change", timed["renders"], "ms", 1e3)
        report("  flush it to the virtual SSD1306 (its decoding too)", timed["flushes"], "ms", 1e3)
        report("  the watcher on the loop, per event", watcher_cost(seats))
        report("  ... the worker held on the bus", watcher_cost(seats, HeldBus()))
        report("  ... the display failing, tried again", failing_watcher_cost(seats))
        report("  CPU a card: view, render, flush (luma's smbus2)", cpu_per_card(seats))


if __name__ == "__main__":
    main()
