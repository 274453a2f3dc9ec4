"""The case keeper on mock pins: from a card applied to its frame latched.

Prints, over whole packs, the time from ``table.apply`` of a card to the
rising edge of RCLK that shows it (as the virtual chain sees it on the mock
pins), and the cost of one frame written alone (56 bits and the latch), the
work of each blink step. Target: p99 under 5 ms.
"""

from __future__ import annotations

import asyncio
import random
import time

from faro_pi.devices.case_keeper import CaseKeeper
from faro_pi.devices.wiring import ALL_LIT
from faro_pi.game.cards import DECK
from faro_pi.game.events import CardDrawn, Shuffle
from faro_pi.game.rules import Table
from faro_pi.service.config import LedsConfig
from faro_pi.virtual.chain import watched_factory
from tests.benchmarks.figures import percentile, report

PACKS = 40
LEDS = LedsConfig(driver="74hc595", data=10, clock=11, latch=8, enable=18, brightness=0.8)


async def card_to_latch(packs: int) -> list[float]:
    factory, chain = watched_factory(LEDS)
    keeper = CaseKeeper(LEDS, factory)
    rng = random.Random(2026)
    table = Table()
    keeper.show(table)
    samples = []
    clock = time.perf_counter
    try:
        for _ in range(packs):
            pack = list(DECK)
            rng.shuffle(pack)
            for card in pack:
                event = CardDrawn(card)
                before = chain.latches
                start = clock()
                table.apply(event)
                keeper.show(table, event)
                assert chain.latches == before + 1, "a card must latch a new frame"
                samples.append(chain.latched[-1].at - start)
                await asyncio.sleep(0)  # let the loop run between cards, as at the table
            table.apply(Shuffle())
            keeper.show(table, Shuffle())
    finally:
        keeper.close()
        factory.close()
    return samples


async def one_frame(count: int) -> list[float]:
    factory, chain = watched_factory(LEDS)
    keeper = CaseKeeper(LEDS, factory)
    rng = random.Random(7)
    samples = []
    try:
        for _ in range(count):
            frame = rng.randrange(ALL_LIT + 1)
            start = time.perf_counter()
            keeper.latch(frame)
            samples.append(time.perf_counter() - start)
    finally:
        keeper.close()
        factory.close()
    assert chain.latches == count
    return samples


def main() -> None:
    asyncio.run(card_to_latch(2))  # warm-up
    samples = asyncio.run(card_to_latch(PACKS))
    print(f"\n{PACKS} packs on mock pins, decoded by the virtual chain")
    report("card applied to its frame latched", samples)
    report("one frame written (56 bits and the latch)", asyncio.run(one_frame(2000)))
    p99 = percentile(samples, 99)
    print(f"{'':<48} p99 {'under' if p99 < 0.005 else 'OVER'} the 5 ms target")


if __name__ == "__main__":
    main()
