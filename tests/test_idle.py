"""An idle table sleeps: the buttons, the case keeper and the OLED wake nothing while nobody plays.

Counted where the waking happens: the timers scheduled on the event loop, and
the kernel's count of each thread's voluntary context switches (every time a
thread wakes, it sleeps again, and the kernel counts that), read from
``/proc/self/task``. A Pi Zero 2 W runs Python ten times slower than this
machine, so whatever wakes 20 times a second costs it real CPU.
"""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from pathlib import Path

import pytest

from faro_pi.config import ButtonsConfig, DisplayConfig, LedsConfig
from faro_pi.devices.buttons import ShoeButtons
from faro_pi.devices.case_keeper import CaseKeeper
from faro_pi.devices.oled.display import TableDisplay
from faro_pi.game.events import Session
from faro_pi.game.rules import Table
from faro_pi.virtual.chain import watched_factory
from faro_pi.virtual.oled import VirtualOled
from tests.conftest import COUNTING

TASKS = Path("/proc/self/task")
pytestmark = pytest.mark.skipif(not TASKS.is_dir(), reason="needs Linux's /proc/self/task")

LEDS = LedsConfig("74hc595-spi", 10, 11, 8, 18, 0.5)
BUTTONS = ButtonsConfig(17, 27, 22, 0.03, 1.5, 3.0)
DISPLAY = DisplayConfig(driver="ssd1306", i2c_port=1, i2c_address=0x3C, rotate=0)


def wakes(thread: threading.Thread) -> int:
    """How many times the kernel has put ``thread`` to sleep of its own accord."""
    status = (TASKS / str(thread.native_id) / "status").read_text()
    line = next(line for line in status.splitlines() if line.startswith("voluntary_ctxt"))
    return int(line.split(":")[1])


@dataclasses.dataclass
class Idle:
    threads: dict[str, int]
    """Wake-ups in the idle second, by thread name, of each thread the devices started."""
    timers: list
    """Timers the devices scheduled on the loop in the idle second."""


async def idle_second(leds: LedsConfig = LEDS) -> Idle:
    """The table's devices on simulated hardware, shown a new pack, then left alone 1 s."""
    loop = asyncio.get_running_loop()
    before = set(threading.enumerate())
    factory, _ = watched_factory(leds)
    buttons = ShoeButtons(BUTTONS, lambda word: None, factory)
    keeper = CaseKeeper(leds, factory)
    display = TableDisplay(DISPLAY, bus=VirtualOled())
    try:
        table = Table()
        table.apply(Session(("Ann", "Bob"), "Bob"))
        for output in (keeper, display):
            output.show(table)
            await output.settled()
        await asyncio.sleep(0.1)
        started = [t for t in threading.enumerate() if t not in before]
        counted = {t: wakes(t) for t in started}
        scheduled = len(loop.timers)
        await asyncio.sleep(1.0)
        devices = (keeper, display, buttons)
        timers = [
            callback
            for callback in loop.timers[scheduled:]
            if getattr(callback, "__self__", None) in devices
        ]
        return Idle({t.name: wakes(t) - n for t, n in counted.items() if t.is_alive()}, timers)
    finally:
        display.close()
        keeper.close()
        buttons.close()
        factory.close()


@pytest.fixture(scope="module")
def anyio_backend():
    return COUNTING


@pytest.mark.parametrize("driver", ["74hc595-spi", "74hc595"])
async def test_an_idle_table_wakes_no_thread_and_sets_no_timer(driver):
    idle = await idle_second(dataclasses.replace(LEDS, driver=driver))
    assert "oled" in idle.threads  # the display's worker is there, asleep
    assert {name: n for name, n in idle.threads.items() if n > 1} == {}
    assert idle.timers == []
