"""Starting the table: the daemon, its journal, and the edges around it, until SIGTERM.

The composition root: the one module that knows every part of a table and puts them
together, so it sits above all of them (beside ``cli.py``) and nothing below imports it.
:func:`serve` opens the journal and restores the table, builds the reader's
link, the buttons, the outputs, the console and the floor's publisher as the
configuration asks, tells systemd it is ready, and closes them all, in
reverse order, when it is told to stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Callable, Mapping

from faro_pi.config import Config
from faro_pi.console.login import PAIRING
from faro_pi.devices.buttons import ShoeButtons
from faro_pi.devices.case_keeper import CaseKeeper
from faro_pi.devices.pins import chosen_factory, kernel_chip, opens_spi
from faro_pi.devices.pwm import PWM_ROOT
from faro_pi.devices.shift_registers import ShiftRegisters
from faro_pi.exc import FaroError
from faro_pi.pictures import Folder
from faro_pi.service.daemon import Daemon
from faro_pi.service.restore import start
from faro_pi.service.systemd import Notifier
from faro_pi.shoe.link import Fsp1Shoe, PlainShoe, ReaderPort

log = logging.getLogger("faro_pi")


async def serve(
    config: Config,
    *,
    environ: Mapping[str, str] = os.environ,
    factory=None,
    display_bus=None,
    started: Callable[[Daemon], None] | None = None,
) -> int:
    """Runs the table until SIGTERM/SIGINT (or ``daemon.stopped``); returns the exit status.

    ``factory`` overrides the configured gpiozero pin factory and
    ``display_bus`` the OLED's I²C bus: the simulator and the tests hand in
    mock pins and a fake bus, and everything else is the daemon as it runs at
    the table. ``started`` is called once the daemon is ready.
    """
    loop = asyncio.get_running_loop()
    notifier = Notifier(environ)
    async with contextlib.AsyncExitStack() as closing:
        closing.callback(notifier.close)
        journal, replayed = start(config.journal.path)
        closing.callback(journal.close)
        daemon = Daemon(config, journal, replayed)
        daemon.pictures = Folder(config.camera.pictures)
        closing.callback(daemon.quieten)
        log.info("journal %s: %d events, %s", journal.path, journal.count(), daemon.status())
        port = _shoe(config, daemon, closing)
        # the kernel's PWM for the case keeper's OE on the Pi's own pins, never simulated ones
        real_pins = factory is None and config.gpio.pin_factory != "mock"
        if factory is None:
            factory = chosen_factory(config.gpio.pin_factory)
        buttons = ShoeButtons(
            config.buttons,
            lambda what: loop.call_soon_threadsafe(daemon.pressed, what),
            factory,
            chip=kernel_chip(factory),
        )
        closing.callback(buttons.close)
        for output in _outputs(config, factory, display_bus, real_pins):
            closing.callback(output.close)
            daemon.outputs.append(output)
            daemon.watchers.append(output.show)
            output.show(daemon.table, None)
        console = await _lookout_and_floor(config, daemon, closing)
        _pairing(daemon, console)
        port.start()
        closing.push_async_callback(port.close)
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, daemon.stopped.set)
            closing.callback(loop.remove_signal_handler, signum)
        if notifier.watchdog_interval:
            watchdog = loop.create_task(_watchdog(notifier), name="watchdog")
            closing.callback(watchdog.cancel)
        status = daemon.status()
        notifier.ready(status)
        if notifier.enabled:  # outside systemd, no status line to build on every event
            daemon.watchers.append(lambda table, event: notifier.status(daemon.status()))
        log.info("ready: %s", status)
        if started is not None:
            started(daemon)
        await daemon.stopped.wait()
        notifier.stopping()
        log.info("stopping")
    return 1 if daemon.failure else 0


def _shoe(config: Config, daemon: Daemon, closing: contextlib.AsyncExitStack):
    """The reader's link for the configured protocol, on its port (not yet opened)."""
    if config.reader.protocol == "fsp1":
        shoe = Fsp1Shoe(daemon, daemon.journal.link_seq, config.reader.heartbeat_timeout)
    else:
        shoe = PlainShoe(daemon)
    port = ReaderPort(config.reader.port, config.reader.baud, shoe.received, refused=shoe.refused)
    shoe.attach(port)
    closing.callback(shoe.close)
    return port


async def _lookout_and_floor(config: Config, daemon: Daemon, closing: contextlib.AsyncExitStack):
    """The lookout's console and the floor's publisher, each when the configuration asks;
    returns the console, or None."""
    console = None
    if config.console.enabled:
        try:
            from faro_pi.console.server import open_console  # Starlette, uvicorn: ~0.1 s
        except ImportError as exc:  # the table deals without its console
            log.warning("console: not served: %s (reinstall faro-pi with its dependencies)", exc)
            console = None
        else:
            console = await open_console(daemon, config)
        if console is not None:
            closing.push_async_callback(console.close)
            daemon.watchers.append(console.changed)
    if config.floor.broker is not None:
        from faro_pi.floor.publisher import Publisher  # aiomqtt and paho, only on a floor

        closing.push_async_callback(Publisher.start(daemon, config).close)
    return console


def _pairing(daemon: Daemon, console) -> None:
    """New pack held down shows the console's pairing link on the OLED, until it is used."""
    display = next((o for o in daemon.outputs if hasattr(o, "pair")), None)  # the OLED
    if console is None or display is None:
        return
    console.login.paired = display.unpair

    def pair() -> None:
        display.pair(console.pair(), PAIRING)
        log.info("pair: the OLED shows a pairing code for %.0f s, good once", PAIRING)

    daemon.pairing = pair


def _outputs(config: Config, factory, display_bus, real_pins: bool = False) -> list:
    """The table's outputs that the configuration asks for; each is a watcher with close()."""
    outputs = []
    if config.leds.driver != "none":
        # the same edges on the pins, where the factory has no SPI to send them through
        chain = None if opens_spi(factory) else ShiftRegisters
        outputs.append(
            CaseKeeper(config.leds, factory, chain=chain, pwm_root=PWM_ROOT if real_pins else None)
        )
    if config.display.driver != "none":
        from faro_pi.devices.oled.display import TableDisplay  # luma and PIL: ~0.2 s

        outputs.append(TableDisplay(config.display, bus=display_bus))
    return outputs


async def _watchdog(notifier: Notifier) -> None:
    """Pings from the loop itself, so a stuck loop stops the pings and systemd restarts it."""
    while True:
        notifier.watchdog()
        await asyncio.sleep(notifier.watchdog_interval)


def run(config: Config) -> int:
    try:
        return asyncio.run(serve(config))
    except (FaroError, OSError) as exc:
        log.error("%s", exc)
        return 1
