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

from rich.cells import cell_len
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table as Grid
from rich.text import Text

from faro_pi.game.cards import RANKS, SUIT_SYMBOLS, SUITS, rank_name
from faro_pi.service.logline import describe_card

FIT = (80, 24)
"""The terminal the live view fits: columns, rows (the OLED's panel, the case keeper beside
the table's facts, and the page's link)."""
FACTS = (36, 5)
"""Columns and lines of the table's facts, beside the case keeper."""

BRAILLE = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))
"""The dot of each pixel of a 2×4 braille cell, by row and column."""


def oled_text(image) -> list[str]:
    """A one-bit image as braille, each character 2×4 pixels (128×64: 64 by 16), so the
    OLED fits a terminal of 24 rows with room for the rest."""
    width, height = image.size
    pixels = image.convert("1").load()
    rows = []
    for y in range(0, height, 4):
        row = []
        for x in range(0, width, 2):
            dots = 0
            for dy, bits in enumerate(BRAILLE):
                for dx, bit in enumerate(bits):
                    if x + dx < width and y + dy < height and pixels[x + dx, y + dy]:
                        dots |= bit
            row.append(chr(0x2800 + dots))
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
        self._link: str | None = None

    def __enter__(self) -> LiveScreen:
        self.live.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self.live.__exit__(*exc)

    def link(self, url: str) -> None:
        """The page's address, shown on the view's last line."""
        self._link = url

    def update(self, table, sim) -> None:
        now = time.monotonic()
        fault = len(sim.record.faults) != self._faults
        if now - self._last < 0.1 and not table.pack.complete and not fault:
            return
        self._last, self._faults = now, len(sim.record.faults)
        self.live.update(self.render(table, sim), refresh=True)

    def render(self, table, sim):
        """The OLED, the case keeper, the table's facts and the latest faults, in 80×24."""
        done = len(sim.record.cards)
        progress = f"{done} of {self.total} cards" if self.total > 60 else None
        oled = Text("\n".join(oled_text(sim.oled.image())), style="bold cyan")
        shown = [Panel(oled, title="OLED", subtitle=progress, expand=False)]
        below = Grid.grid(padding=(0, 2))
        below.add_column(no_wrap=True)
        below.add_column(width=FACTS[0], no_wrap=True)
        below.add_row(_keeper(sim.chain.grid()), _facts(table, sim.record.faults))
        shown.append(below)
        if self._link is not None:
            shown.append(Text(f"page: {self._link}", no_wrap=True, overflow="fold"))
        return Group(*shown)


def _keeper(rows: list[str]) -> Text:
    keeper = Text()
    keeper.append("  " + "".join(f"{r:>3}" for r in RANKS), style="dim")
    for suit, row in zip(SUITS, rows, strict=True):
        style = "red" if suit in "HD" else "white"
        keeper.append(f"\n{SUIT_SYMBOLS[suit]} ", style=style)
        keeper.append("".join("  ●" if bit == "1" else "  ·" for bit in row), style=style)
    return keeper


def _facts(table, faults: list[dict]) -> Text:
    """At most FACTS lines: the pack, the last pair, the balances (cut to one line to leave
    one to the alarms and one to the latest fault), then alarms and faults."""
    pack = table.pack
    out, entries = len(pack.exposed), table.entries.value
    lines = [Text(f"pack {pack.number}: {out} out, {pack.left} left; {entries}")]
    if table.last_pair is not None:
        pair = table.last_pair
        split = " split" if pair.split else ""
        lines.append(
            Text(f"turn {pair.turn}: {_card(pair.loser)} loses, {_card(pair.winner)} wins{split}")
        )
    lines += _wrapped(
        [
            f"{name}{' (bank)' if name == table.banker else ''} {table.balances[name]:+d}"
            for name in table.seats
        ],
        max(1, min(2, FACTS[1] - len(lines) - bool(table.alarms) - bool(faults))),
    )
    room = FACTS[1] - len(lines)
    shown = max(room - 1, 0) if faults else room  # the latest fault keeps a line
    alarms = table.alarms[len(table.alarms) - shown :] if shown else []
    lines += [Text(f"alarm: {alarm.text}", style="bold red") for alarm in alarms]
    for fault in faults[-(FACTS[1] - len(lines)) :] if len(lines) < FACTS[1] else []:
        line = Text("! ", style="bold yellow")
        line.append(fault["fault"], style="bold yellow")
        line.append(f": {fault['text']}")
        lines.append(line)
    for line in lines:
        line.truncate(FACTS[0], overflow="ellipsis")
    return Text("\n").join(lines[: FACTS[1]])


def _wrapped(words: list[str], most: int) -> list[Text]:
    """Words joined into lines of the facts' width, at most ``most`` of them."""
    lines: list[str] = []
    for word in words:
        if lines and cell_len(lines[-1]) + 2 + cell_len(word) <= FACTS[0]:
            lines[-1] += "  " + word
        elif len(lines) < most:
            lines.append(word)
        else:
            lines[-1] += "  …"
            break
    return [Text(line) for line in lines]


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

    def link(self, url: str) -> None:
        print(f"the lookout's page: {url}", file=self.stream, flush=True)

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
