"""``faro-pi sim``: the real daemon on simulated hardware.

Only the hardware is simulated: a virtual card reader speaking fsp1 on a
pseudo-terminal, gpiozero's mock pins for the buttons and the case keeper's
shift registers, and a fake I²C bus under the real luma.oled device. What the
simulator records comes from that hardware (the decoded pins, the decoded
I²C bytes), never from the daemon's insides.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import shlex
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path

from faro_pi.config import load_config
from faro_pi.console.client import console_url
from faro_pi.console.token import console_token, token_path
from faro_pi.exc import FaroError, Refused
from faro_pi.game.codec import event_from_json
from faro_pi.game.events import Alarm, CardDrawn
from faro_pi.game.profile import DEFAULT_PROFILE
from faro_pi.service.export import export_lines
from faro_pi.service.journal import Journal
from faro_pi.sim import faults
from faro_pi.sim import scenario as scenarios
from faro_pi.sim.folder import DEFAULT_PORT, OUTPUTS, prepare, refuse_foreign, seal
from faro_pi.sim.screen import screen_for
from faro_pi.table import serve
from faro_pi.virtual.chain import watched_factory
from faro_pi.virtual.oled import VirtualOled
from faro_pi.virtual.reader import VirtualReader

log = logging.getLogger("faro_pi.sim.run")

DEAL_PACE = 0.8
"""Seconds between two cards at ``--speed 1``: a calm dealer."""
ENTRY_PACE = 0.15
"""Seconds between two entries at ``--speed 1``."""


@dataclass
class Record:
    """What the simulated hardware showed, card by card, and what went wrong on the way."""

    cards: list[dict] = field(default_factory=list)
    refused: list[dict] = field(default_factory=list)
    """Entries and readings the rules refused: the scenario's step, the card read, why."""
    faults: list[dict] = field(default_factory=list)
    """Each fault as it happened (see :mod:`faro_pi.sim.faults`), with the scenario's step."""


class SimulatedTable:
    """The hardware around the daemon, and the scenario's hands on it."""

    def __init__(self, out: Path, speed: float, camera=None):
        self.out = out
        self.speed = speed
        self.factory, self.chain = watched_factory()
        self.oled = VirtualOled()
        self.reader = VirtualReader(out / "reader", hello="faro-pi sim")
        self.camera = None if camera is None else camera(self.reader, out / "pictures")
        """The camera reader over a virtual box, when the pack is dealt through it."""
        self.record = Record()
        self.at = 0
        """The scenario's step being played."""
        self.daemon = None
        self.press_heard = asyncio.Event()
        """Set each time a button press has reached the table."""
        self._aiming: asyncio.Task | None = None

    # -- pacing ---------------------------------------------------------------------

    async def pause(self, seconds: float) -> None:
        if self.speed > 0 and seconds > 0:
            await asyncio.sleep(seconds / self.speed)

    # -- the scenario's steps -----------------------------------------------------------

    async def step(self, number: int, obj: dict) -> None:
        kind = obj["type"]
        self.at = number
        fault = faults.at_the_shoe(obj)
        if fault is not None:
            self.fault(*fault)
        if kind == "card" and obj.get("source", "reader") == "reader":
            await self.pause(DEAL_PACE)
            await self.deal(obj["card"])
        elif kind == "noread":
            await self.pause(DEAL_PACE)
            await self.no_read(obj.get("card"))
        elif kind == "reader_reset":
            self.reader.restart()
            await self.reader.drained()
        elif kind == "garble":
            self.reader.garble(int(obj.get("bytes", 40)))
        elif kind == "unplug":
            seconds = obj.get("seconds", 1.0)
            await self.reader.unplug(seconds / self.speed if self.speed else min(seconds, 0.3))
        elif kind == "wait":
            await self.pause(obj.get("seconds", 1.0))
        elif kind == "press":
            await self.press(obj["button"], obj.get("hold", 0))
        else:
            await self.pause(ENTRY_PACE)
            try:
                self.daemon.enter(event_from_json(obj))
            except Refused as exc:
                self.record.refused.append({"step": number, "message": str(exc)})

    async def deal(self, code: str) -> None:
        """A card comes out of the shoe: read by the barcode reader, or the camera."""
        if self.camera is not None:
            await self.camera.deal(code)
        else:
            self.reader.card(code)
            await self.reader.drained()

    async def no_read(self, code: str | None) -> None:
        """A card goes past unread; the camera's still of it goes along where it is named."""
        if self.camera is not None and code is not None:
            await self.camera.unread(code)
        else:
            self.reader.no_read()
            await self.reader.drained()

    def aim_camera(self, stopped: asyncio.Event, served: bool) -> None:
        """The camera's aiming view for the page (when it is ``served``), until ``stopped``:
        a camera's table only."""
        if self.camera is not None and served:
            self._aiming = asyncio.create_task(self.camera.aim(stopped))

    async def press(self, button: str, hold: float) -> None:
        if self.camera is not None and button == "new_pack":
            await self.camera.empty()  # the box is emptied for the new pack
        config = self.daemon.config.buttons
        pin = self.factory.pin(getattr(config, button))
        heard = self.press_heard
        heard.clear()
        pin.drive_low()
        if button == "undo" and hold >= config.undo_hold:
            await heard.wait()  # the hold voided the card
            pin.drive_high()
            heard.clear()
            return
        if hold:
            await asyncio.sleep(hold)
        pin.drive_high()
        await heard.wait()

    def hear_presses(self, daemon) -> None:
        """Sets ``press_heard`` after the daemon has handled each button press."""
        handle = daemon.pressed

        def pressed(what: str) -> None:
            try:
                handle(what)
            finally:
                self.press_heard.set()

        daemon.pressed = pressed

    # -- recording ---------------------------------------------------------------------

    def fault(self, name: str, text: str) -> None:
        self.record.faults.append({"step": self.at, "fault": name, "text": text})

    def watch(self, table, event) -> None:
        fault = faults.at_the_table(event)
        if fault is not None:
            self.fault(*fault)
        if isinstance(event, Alarm) and event.kind == "refused" and event.card is not None:
            refused = {"step": self.at, "card": event.card.code, "message": event.text}
            self.record.refused.append(refused)
        if isinstance(event, CardDrawn):
            self.record.cards.append(
                {
                    "pack": table.pack.number,
                    "n": len(table.pack.exposed),
                    "card": event.card.code,
                    "leds": self.chain.grid(),
                    "oled_frame": self.oled.frames,
                }
            )


def page_link(config) -> str:
    """The page's address with its token, made now if the table has none yet: opened, it
    logs the browser in."""
    token = console_token(config.console, token_path(config))
    return f"{console_url(config.console)}/?token={token}"


async def simulate(
    steps: list[dict],
    out: Path,
    speed: float = 1.0,
    screen=None,
    port: int | None = None,
    camera=None,
) -> dict:
    """Plays ``steps`` on the simulated table; returns the summary it also writes.

    With a console ``port`` the page is served, and the table stays up after the
    scenario, for the lookout's entries, until Ctrl-C or SIGTERM stops the daemon.
    ``camera`` makes a :class:`faro_pi.sim.camera.CameraShoe` on the virtual reader: the
    cards are then dealt through a virtual camera and the camera reader rather than the
    barcode reader.
    """
    config = load_config(prepare(out, port), environ={})
    if port is not None and screen is not None:
        screen.link(page_link(config))
    table = SimulatedTable(out, speed, camera)
    table.reader.plug()
    loop = asyncio.get_running_loop()
    ready: asyncio.Future = loop.create_future()
    server = asyncio.create_task(
        serve(
            config,
            environ={},
            factory=table.factory,
            display_bus=table.oled,
            started=ready.set_result,
        )
    )
    done, _ = await asyncio.wait({ready, server}, return_when=asyncio.FIRST_COMPLETED)
    if server in done:
        server.result()
        raise FaroError("the daemon stopped before it was ready")
    daemon = table.daemon = ready.result()
    table.hear_presses(daemon)
    daemon.watchers.append(table.watch)
    if screen is not None:
        daemon.watchers.append(lambda t, e: screen.update(t, table))

    async def play() -> None:
        await table.reader.drained()  # the hello
        for number, obj in enumerate(steps, start=1):
            await table.step(number, obj)
            if screen is not None:  # a fault at the shoe shows before the table answers it
                screen.update(daemon.table, table)
        await daemon.settled()

    player = asyncio.create_task(play())
    table.aim_camera(daemon.stopped, served=port is not None)
    try:
        # Ctrl-C or SIGTERM stops the daemon; the scenario stops with it.
        await asyncio.wait({player, server}, return_when=asyncio.FIRST_COMPLETED)
        if player.done():
            player.result()
            if port is not None:
                await server  # the lookout's table now, until Ctrl-C or SIGTERM
        else:
            player.cancel()
    finally:
        daemon.stopped.set()
        status = await server
        table.reader.close()
        table.factory.close()
    summary = {
        "balances": dict(daemon.table.balances),
        "leaders": daemon.table.leaders,
        "packs": daemon.table.pack.number,
        "cards": len(table.record.cards),
        "refused_entries": sorted(table.record.refused, key=lambda refused: refused["step"]),
        "faults": table.record.faults,
        "oled_frames": table.oled.frames,
        "i2c_bytes": table.oled.bytes_sent,
        "status": status,
    }
    if table.camera is not None:
        summary["camera"] = table.camera.tally.as_json()
    _write(out, table, summary)
    return summary


def _write(out: Path, table: SimulatedTable, summary: dict) -> None:
    """The outputs beside the daemon's journal; ``events.jsonl`` is that journal, exported."""
    with (
        Journal.open(out / "journal.sqlite3", readonly=True) as journal,
        open(out / "events.jsonl", "w", encoding="utf-8") as lines,
    ):
        lines.writelines(export_lines(journal))
    with open(out / "table.jsonl", "w", encoding="utf-8") as lines:
        for row in table.record.cards:
            lines.write(json.dumps(row) + "\n")
    table.oled.save_gif(out / "oled.gif")
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    seal(out)


def this_command(started: str | None = None) -> str:
    """How to run this faro-pi again from the current folder, for a command it prints:
    ``faro-pi`` where PATH finds this very one (installed), else the path it was started
    by (``.venv/bin/faro-pi`` after ``make sim``, which is on no PATH)."""
    started = sys.argv[0] if started is None else started
    if Path(started).name != "faro-pi":  # python -m faro_pi, or a test's own runner
        return f"{shlex.quote(sys.executable)} -m faro_pi"
    found = shutil.which("faro-pi")
    if found and Path(found).resolve() == Path(started).resolve():
        return "faro-pi"
    return shlex.quote(started)


DEMO = {"seed": 7, "packs": 1, "faults": False, "profile": DEFAULT_PROFILE}
"""What the demo is played with when ``sim`` is not told: a scenario says all of it itself."""


def main(args: argparse.Namespace) -> int:
    given = [name for name in DEMO if getattr(args, name) is not None]
    if args.scenario and given:
        print(
            f"faro-pi sim: --{given[0]} is the demo's, and a scenario plays as it is written: "
            'its session event names the profile ({"type": "session", "profile": "house", ...})',
            file=sys.stderr,
        )
        return 2
    demo = {name: getattr(args, name) if name in given else DEMO[name] for name in DEMO}
    try:
        if args.scenario:
            steps = scenarios.load(args.scenario)
        else:
            steps = scenarios.demo(
                demo["seed"], packs=demo["packs"], faults=demo["faults"], profile=demo["profile"]
            )
    except (FaroError, OSError) as exc:
        print(f"faro-pi sim: {exc}", file=sys.stderr)
        return 2
    out = Path(args.out)
    try:
        refuse_foreign(out)
        camera = _camera(args)
    except ImportError as exc:
        print(f"faro-pi sim: --camera needs faro-pi[camera]: {exc}", file=sys.stderr)
        return 2
    except (FaroError, OSError, ValueError) as exc:
        print(f"faro-pi sim: {exc}", file=sys.stderr)
        return 2
    if args.port is not None and not args.console:
        print("faro-pi sim: --port is the page's: give --console too", file=sys.stderr)
        return 2
    port = (args.port or DEFAULT_PORT) if args.console else None
    if camera is not None:  # the camera's still of a card unread goes with its no-read
        steps = scenarios.unread_named(steps)
    with screen_for(sys.stdout, steps) as screen:
        summary = asyncio.run(simulate(steps, out, args.speed, screen, port, camera))
    balances = "  ".join(f"{name} {amount:+d}" for name, amount in summary["balances"].items())
    print(f"balances: {balances}   leaders: {', '.join(summary['leaders'])}")
    if "camera" in summary:
        read = summary["camera"]
        print(
            f"camera: {read['right']} read right, {len(read['wrong'])} wrong, "
            f"{read['noreads']} no-reads, {read['missed']} not sent"
        )
    print(f"wrote {', '.join(str(out / name) for name in OUTPUTS[:5])}")
    print(f"replay it: {this_command()} replay {shlex.quote(str(out / 'events.jsonl'))}")
    return summary["status"]


def _camera(args: argparse.Namespace):
    """What makes the camera's shoe for ``--camera DESIGN_DIR``, or None."""
    if not getattr(args, "camera", None):
        return None
    # numpy and OpenCV are the camera's extra: only a camera's simulation needs them
    import numpy as np

    from faro_pi.camera.recognise import Recogniser
    from faro_pi.camera.watch import Watch
    from faro_pi.sim.camera import CameraShoe
    from faro_pi.virtual.camera import VirtualCamera, load_design

    camera = VirtualCamera(
        load_design(args.camera),
        np.random.default_rng(DEMO["seed"] if args.seed is None else args.seed),
    )
    watch = Watch(Recogniser.load())
    return lambda reader, pictures: CameraShoe(camera, watch, reader, pictures)
