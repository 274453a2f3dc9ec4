"""The case keeper: what a frame costs on the Pi's path, SPI beside bit-banged, and at rest.

**On the Pi's path**: gpiozero's own lgpio backend (``LGPIOFactory``, its pins
and its hardware SPI), the code that runs on the Pi, over a stand-in for the
lgpio C module that counts every call (:mod:`tests.fake_lgpio`). Per frame:
the calls into the pin library, and the CPU time of :meth:`CaseKeeper.latch`
(the stand-in's own bookkeeping included, the C calls' cost not). Per card:
the CPU of ``show`` and the time from ``table.apply`` to the call that
latches (the SPI write, whose CE0 rises 112 µs later at 500 kHz; or the
latch pin's last write). Goals here: ≤ 0.5 ms of CPU a frame, p99 card to
latch ≤ 5 ms; a Pi Zero 2 W is about ten times slower.

**In the simulator**: the same from a card to the rising edge of RCLK as the
virtual chain decodes it from the mock pins.

**At rest**: the buttons, the case keeper and the OLED on simulated hardware,
left alone: CPU as a share of one core, and wake-ups a second of every thread.

Run: ``.venv/bin/python -m tests.benchmarks.bench_case_keeper``
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import time
from pathlib import Path

from faro_pi.board import ALL_LIT
from faro_pi.config import ButtonsConfig, DisplayConfig, LedsConfig
from faro_pi.devices.buttons import ShoeButtons
from faro_pi.devices.case_keeper import CaseKeeper
from faro_pi.devices.oled.display import TableDisplay
from faro_pi.game.cards import DECK
from faro_pi.game.events import CardDrawn, Session, Shuffle
from faro_pi.game.rules import Table
from faro_pi.virtual.chain import watched_factory
from faro_pi.virtual.oled import VirtualOled
from tests.benchmarks.figures import percentile, report
from tests.fake_lgpio import Lgpio, pi_factory

PACKS = 40
FRAMES = 2000
IDLE = 5.0
"""Seconds the table is left alone."""
SPI = LedsConfig(driver="74hc595-spi", data=10, clock=11, latch=8, enable=18, brightness=1.0)
BIT_BANGED = dataclasses.replace(SPI, driver="74hc595")
DRIVERS = {"SPI": SPI, "bit-banged": BIT_BANGED}


def deals(packs: int, seed: int = 2026):
    """Every card of ``packs`` shuffled packs, with a shuffle between packs (None)."""
    rng = random.Random(seed)
    for _ in range(packs):
        pack = list(DECK)
        rng.shuffle(pack)
        yield from pack
        yield None


# -- on the Pi's path --------------------------------------------------------------


async def pi_frames(leds: LedsConfig, count: int) -> tuple[list[float], float]:
    """CPU seconds of each of ``count`` random frames latched; lgpio calls per frame."""
    lgpio = Lgpio()
    factory = pi_factory(lgpio)
    keeper = CaseKeeper(leds, factory)
    rng = random.Random(7)
    samples = []
    try:
        keeper.show(Table())
        lgpio.calls.clear()
        for _ in range(count):
            frame = rng.randrange(ALL_LIT + 1)
            start = time.thread_time()
            keeper.latch(frame)
            samples.append(time.thread_time() - start)
        calls = sum(lgpio.calls.values()) / count
    finally:
        keeper.close()
        factory.close()
    return samples, calls


async def pi_cards(leds: LedsConfig, packs: int) -> tuple[list[float], list[float]]:
    """Per card: CPU seconds of ``show``, and seconds from ``apply`` to the latching call."""
    lgpio = Lgpio()
    factory = pi_factory(lgpio)
    keeper = CaseKeeper(leds, factory)
    table = Table()
    keeper.show(table)
    cpu, to_latch = [], []
    try:
        for card in deals(packs):
            event = CardDrawn(card) if card is not None else Shuffle()
            start = time.perf_counter()
            table.apply(event)
            cpu_start = time.thread_time()
            keeper.show(table, event)
            cpu_end = time.thread_time()
            if card is not None:
                cpu.append(cpu_end - cpu_start)
                latched = lgpio.sent[-1][0] if leds is SPI else lgpio.raised[leds.latch]
                to_latch.append(latched - start)
            await asyncio.sleep(0)  # the loop runs between cards, as at the table
    finally:
        keeper.close()
        factory.close()
    return cpu, to_latch


# -- in the simulator ------------------------------------------------------------------


async def card_to_latch(leds: LedsConfig, packs: int) -> list[float]:
    """Seconds from ``apply`` to the rising edge of RCLK, decoded from the mock pins."""
    factory, chain = watched_factory(leds)
    keeper = CaseKeeper(leds, factory)
    table = Table()
    keeper.show(table)
    samples = []
    try:
        for card in deals(packs):
            event = CardDrawn(card) if card is not None else Shuffle()
            before = chain.latches
            start = time.perf_counter()
            table.apply(event)
            keeper.show(table, event)
            if card is not None:
                assert chain.latches == before + 1, "a card must latch a new frame"
                samples.append(chain.latched[-1].at - start)
            await asyncio.sleep(0)
    finally:
        keeper.close()
        factory.close()
    return samples


# -- at rest -----------------------------------------------------------------------------


def switches() -> int:
    """Voluntary context switches of every thread of this process: its wake-ups."""
    total = 0
    for status in Path("/proc/self/task").glob("*/status"):
        for line in status.read_text().splitlines():
            if line.startswith("voluntary_ctxt"):
                total += int(line.split(":")[1])
    return total


async def at_rest(seconds: float) -> tuple[float, float]:
    """Share of a core and wake-ups a second of the idle devices (the whole process)."""
    factory, _ = watched_factory(SPI)
    buttons = ShoeButtons(ButtonsConfig(17, 27, 22, 0.03, 1.5, 3.0), lambda word: None, factory)
    keeper = CaseKeeper(SPI, factory)
    display = TableDisplay(DisplayConfig("ssd1306", 1, 0x3C, 0), bus=VirtualOled())
    try:
        table = Table()
        table.apply(Session(("Ann", "Bob"), "Bob"))
        for output in (keeper, display):
            output.show(table)
            await output.settled()
        await asyncio.sleep(0.2)
        cpu, woke, wall = time.process_time(), switches(), time.perf_counter()
        await asyncio.sleep(seconds)
        wall = time.perf_counter() - wall
        return (time.process_time() - cpu) / wall, (switches() - woke) / wall
    finally:
        display.close()
        keeper.close()
        buttons.close()
        factory.close()


def main() -> None:
    print("\nthe case keeper on the Pi's path: gpiozero's lgpio backend, lgpio calls counted")
    for name, leds in DRIVERS.items():
        asyncio.run(pi_frames(leds, 200))  # warm-up
        frames, calls = asyncio.run(pi_frames(leds, FRAMES))
        cpu, to_latch = asyncio.run(pi_cards(leds, PACKS))
        print(f"  {name}: {calls:.0f} lgpio calls a frame")
        report(f"  {name}: CPU a frame (latch)", frames)
        report(f"  {name}: CPU a card (show)", cpu)
        report(f"  {name}: card applied to the latching call", to_latch)
        worst = percentile(frames, 99)
        print(f"{'':<48} CPU p99 {'within' if worst <= 0.0005 else 'OVER'} 0.5 ms a frame")
    print(f"\n{PACKS} packs in the simulator: card to RCLK's rising edge on the mock pins")
    for name, leds in DRIVERS.items():
        asyncio.run(card_to_latch(leds, 2))  # warm-up
        samples = asyncio.run(card_to_latch(leds, PACKS))
        report(f"  {name}: card applied to its frame latched", samples)
        p99 = percentile(samples, 99)
        print(f"{'':<48} p99 {'under' if p99 < 0.005 else 'OVER'} the 5 ms target")
    share, wakes = asyncio.run(at_rest(IDLE))
    print(f"\nat rest for {IDLE:g} s (buttons, case keeper on SPI, OLED; simulated hardware):")
    print(f"  {share * 100:.3f} % of a core, {wakes:.1f} wake-ups a second (every thread)")


if __name__ == "__main__":
    main()
