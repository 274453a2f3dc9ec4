"""What ``faro-pi sim`` shows while it plays: the table live in a terminal, plain lines elsewhere.

Everything shown is read from the simulated hardware (the decoded OLED
frame, the decoded case keeper), from the table's public state and from the
faults the simulator has seen (:mod:`faro_pi.sim.faults`), on the event
loop's thread, at most a few times a second; a fault is shown at once.
"""

from __future__ import annotations

import contextlib
import time
from typing import TextIO

from rich.columns import Columns
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.progress_bar import ProgressBar
from rich.table import Table as Grid
from rich.text import Text

from faro_pi.game.cards import RANKS, SUIT_SYMBOLS, SUITS, rank_name
from faro_pi.service.logline import describe_card

FAULTS_SHOWN = 6
"""The live view's latest faults."""

QUADRANTS = " ▘▝▀▖▌▞▛▗▚▐▜▄▙▟█"
"""Block characters for 2×2 pixels: bit 1 top-left, 2 top-right, 4 bottom-left, 8 bottom-right."""


def oled_text(image) -> list[str]:
    """A one-bit image as text, each character a 2×2 block of pixels (128×64: 64 by 32)."""
    width, height = image.size
    pixels = image.convert("1").load()
    rows = []
    for y in range(0, height, 2):
        row = []
        for x in range(0, width, 2):
            bits = (
                (pixels[x, y] != 0)
                | (pixels[x + 1, y] != 0) << 1
                | (pixels[x, y + 1] != 0) << 2
                | (pixels[x + 1, y + 1] != 0) << 3
            )
            row.append(QUADRANTS[bits])
        rows.append("".join(row))
    return rows


def _card(card) -> str:
    return f"{rank_name(card.rank)}{SUIT_SYMBOLS[card.suit]}"


class LiveScreen:
    """A rich Live view, refreshed from the loop, never from a thread of its own."""

    def __init__(self, stream: TextIO, total: int):

        self.console = Console(file=stream)
        self.live = Live(console=self.console, auto_refresh=False, transient=False)
        self.total = total
        self._last = 0.0
        self._faults = 0

    def __enter__(self) -> LiveScreen:
        self.live.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.live.__exit__(*exc)

    def update(self, table, sim) -> None:
        now = time.monotonic()
        fault = len(sim.record.faults) != self._faults
        if now - self._last < 0.1 and not table.pack.complete and not fault:
            return
        self._last, self._faults = now, len(sim.record.faults)
        self.live.update(self._render(table, sim), refresh=True)

    def _render(self, table, sim):

        oled = Text("\n".join(oled_text(sim.oled.image())), style="bold cyan")
        rows = sim.chain.grid()
        keeper = Text()
        keeper.append("   " + " ".join(f"{r:>2}" for r in RANKS) + "\n", style="dim")
        for suit, row in zip(SUITS, rows, strict=True):
            style = "red" if suit in "HD" else "white"
            keeper.append(f" {SUIT_SYMBOLS[suit]} ", style=style)
            keeper.append(" ".join(" ●" if bit == "1" else " ·" for bit in row) + "\n", style=style)
        pack = table.pack
        facts = Grid.grid(padding=(0, 1))
        facts.add_row("pack", f"{pack.number}   {len(pack.exposed)} out, {pack.left} left")
        if table.last_pair is not None:
            pair = table.last_pair
            split = "  split" if pair.split else ""
            facts.add_row(
                f"turn {pair.turn}", f"{_card(pair.loser)} loses, {_card(pair.winner)} wins{split}"
            )
        facts.add_row("entries", str(table.entries))
        for name in table.seats:
            mark = " (bank)" if name == table.banker else ""
            facts.add_row(f"{name}{mark}", f"{table.balances[name]:+d}")
        for alarm in table.alarms:
            facts.add_row(Text("alarm", style="bold red"), alarm.text)
        panels = [
            Panel(oled, title="OLED", expand=False),
            Panel(keeper, title="case keeper", expand=False),
            Panel(facts, title="table", expand=False),
        ]
        if sim.record.faults:
            panels.append(Panel(_faults(sim.record.faults), title="faults", expand=False))
        body = Columns(panels)
        if self.total <= 60:
            return body
        bar = ProgressBar(total=self.total, completed=len(sim.record.cards), width=60)
        return Group(body, Text(f"{len(sim.record.cards)} of {self.total} cards"), bar)


def _faults(faults: list[dict]):
    """The latest faults, newest last, each with the scenario's step that brought it."""

    text = Text()
    for fault in faults[-FAULTS_SHOWN:]:
        text.append(f"{fault['step']:>4} ", style="dim")
        text.append(fault["fault"], style="bold yellow")
        text.append(f": {fault['text']}\n")
    text.rstrip()
    return text


class PlainScreen:
    """One line per card and one per fault, for logs and pipes."""

    def __init__(self, stream: TextIO):
        self.stream = stream
        self._cards = 0
        self._faults = 0

    def __enter__(self) -> PlainScreen:
        return self

    def __exit__(self, *exc) -> None:
        pass

    def update(self, table, sim) -> None:
        for fault in sim.record.faults[self._faults :]:
            print(f"! {fault['fault']}: {fault['text']}", file=self.stream, flush=True)
        self._faults = len(sim.record.faults)
        if len(sim.record.cards) == self._cards:
            return
        self._cards = len(sim.record.cards)
        print(describe_card(table), file=self.stream, flush=True)


@contextlib.contextmanager
def screen_for(stream: TextIO, steps: list[dict]):
    """A live screen on a terminal, plain lines otherwise."""
    cards = sum(1 for s in steps if s.get("type") == "card")
    if stream.isatty():
        with LiveScreen(stream, cards) as screen:
            yield screen
    else:
        with PlainScreen(stream) as screen:
            yield screen
