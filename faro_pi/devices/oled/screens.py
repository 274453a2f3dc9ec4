"""What the table's OLED shows: a snapshot of the table, and its picture.

:func:`view` runs on the daemon's loop after every event, so it only copies
the few things the screen needs into a frozen :class:`ScreenView`; an event
that changes nothing visible (a bet, say) gives an equal view and no redraw.
:func:`render` lays a view out as a 128×64 one-bit image, drawn with
:mod:`~faro_pi.devices.oled.glyphs`, and knows nothing of the device:
:mod:`faro_pi.devices.oled.display` carries the bytes.

The screen is read by people standing round the table, a metre away: the
ranks of the cards are 21 pixels tall, text is never smaller than 11-pixel
type (capitals 8 rows high), and each screen says one thing. Things keep
their place from one card to the next (the turn at the top left, the loser
and the winner in the middle, the settlements below), so a new card redraws
only the part that changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PIL import Image, ImageDraw

from faro_pi.devices.oled.glyphs import (
    DARK,
    HEIGHT,
    LIT,
    SHOE,
    WIDTH,
    bitmap,
    card_width,
    draw_card,
    fit,
    medium,
    plain,
    signed,
    small,
    text_width,
    wrap,
    write,
    write_right,
)
from faro_pi.game.cards import Card
from faro_pi.game.pack import Stage
from faro_pi.game.profile import PROFILES
from faro_pi.game.rules import Table

ROWS = 4
"""Balances on one page, below its title."""

ALARM_TITLES = {
    "refused": "REFUSED",
    "noread": "NO READ",
    "gap": "CARDS MISSING?",
    "lost": "READER LOST",
}


# -- the snapshot ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the balances."""

    name: str
    balance: int
    banker: bool = False
    leader: bool = False


@dataclass(frozen=True, slots=True)
class ScreenView:
    """Everything the screen shows, taken from the table; equal views draw the same."""

    screen: str
    """``"shuffle"`` (no card yet), ``"soda"``, ``"turn"``, ``"call"`` (the last
    three) or ``"hock"`` (the pack is complete)."""
    pack: int
    left: int
    entries: str
    """``"open"``, ``"locked"`` (the banker's signal) or ``"closed"``."""
    turn: int = 0
    soda: Card | None = None
    loser: Card | None = None
    winner: Card | None = None
    """None while the turn's winner is still in the shoe."""
    settled: tuple[tuple[str, int], ...] = ()
    """Each player's net on the turn, biggest first."""
    bank: int = 0
    three: tuple[Card, ...] = ()
    """The last three: still in the shoe (``call``), or as they came out (``hock``)."""
    calls: int = 0
    call_results: tuple[tuple[str, int], ...] = ()
    balances: tuple[Standing, ...] = ()
    banker: str | None = None
    alarm: tuple[str, str] | None = None
    """The latest alarm's kind and text; it takes the whole screen."""
    alarms: int = 0
    rules: str = ""
    """The house rules' profile (``"teaching"``, ``"house"``), named on the pack screen."""

    @property
    def split(self) -> bool:
        return self.winner is not None and self.loser.rank == self.winner.rank

    @property
    def balance_pages(self) -> int:
        if not any(s.balance for s in self.balances):
            return 0
        return math.ceil(len(self.balances) / ROWS)

    @property
    def pages(self) -> int:
        """How many pages the screen turns through (the first is the main one)."""
        if self.alarm is not None or (self.screen == "turn" and self.winner is None):
            return 1
        return (2 if self.screen == "call" else 1) + self.balance_pages


def view(table: Table) -> ScreenView:
    """The snapshot of ``table`` for the screen; cheap enough for every event."""
    pack = table.pack
    at = pack.stage
    entries = table.entries.value
    balances = _standings(table)
    alarm = None
    if table.alarms:
        latest = table.alarms[-1]
        alarm = (latest.kind, latest.text)
    common = dict(
        pack=pack.number,
        left=pack.left,
        entries=entries,
        balances=balances,
        banker=table.banker,
        alarm=alarm,
        alarms=len(table.alarms),
        soda=pack.soda,
    )
    if at is Stage.SHUFFLED:
        return ScreenView("shuffle", rules=_rules(table), **common)
    if at is Stage.SODA:
        return ScreenView("soda", **common)
    if at is Stage.HOCK:
        results = _nets(table.call_results, table.seats)
        return ScreenView(
            "hock",
            turn=pack.turn,
            three=tuple(pack.exposed[-3:]),
            call_results=results,
            bank=-sum(delta for _, delta in results),
            **common,
        )
    if at is Stage.LOSER:
        return ScreenView("turn", turn=pack.turn + 1, loser=pack.loser, **common)
    pair = table.last_pair
    turn = dict(
        turn=pair.turn,
        loser=pair.loser,
        winner=pair.winner,
        settled=_nets(pair.settlements, table.seats),
        bank=pair.banker_delta,
    )
    if at is Stage.LAST_THREE:
        three = tuple(sorted(pack.remaining(), key=lambda c: (c.rank, c.index)))
        return ScreenView("call", three=three, calls=len(table.calls), **turn, **common)
    return ScreenView("turn", **turn, **common)


def _rules(table: Table) -> str:
    """The profile's name; marked when the session changed some of its options."""
    profile = table.state.profile
    changed = PROFILES.get(profile) != table.options
    return profile.upper() + ("*" if changed else "")


def _nets(settlements, seats: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """Each player's net, biggest move first (seat order among equals)."""
    nets: dict[str, int] = {}
    for s in settlements:
        nets[s.player] = nets.get(s.player, 0) + s.delta
    order = {name: i for i, name in enumerate(seats)}
    return tuple(sorted(nets.items(), key=lambda kv: (-abs(kv[1]), order.get(kv[0], 0))))


def _standings(table: Table) -> tuple[Standing, ...]:
    if not table.seats:
        return ()
    leaders = set(table.leaders)
    seats = sorted(table.seats, key=lambda s: -table.balances[s])  # stable: seat order on ties
    return tuple(
        Standing(
            s, table.balances[s], s == table.banker, s in leaders and len(leaders) < len(seats)
        )
        for s in seats
    )


# -- the picture ----------------------------------------------------------------


def render(view: ScreenView, page: int = 0) -> Image.Image:
    """The 128×64 one-bit picture of ``view``'s page ``page`` (taken modulo the pages)."""
    image = Image.new("1", (WIDTH, HEIGHT))
    draw = ImageDraw.Draw(image)
    if view.alarm is not None:
        _alarm(draw, view)
        return image
    page %= view.pages
    if page == 0:
        {
            "shuffle": _shuffle,
            "soda": _soda,
            "turn": _turn,
            "call": _call,
            "hock": _hock,
        }[view.screen](image, draw, view)
        return image
    if view.screen == "call":
        if page == 1:
            _turn(image, draw, view)
            return image
        page -= 1
    title = "STANDINGS" if view.screen in ("hock", "shuffle") else "BALANCES"
    _balances(draw, view, page - 1, title)
    return image


# Where things go. The controller stores the screen as eight pages of 8 rows,
# and only changed columns of a page are sent, so the lines that change from
# card to card sit each in one page: an 11-pixel capital is exactly 8 rows.
TOP = 8
"""Baseline of the header, capitals on page 0 (rows 0-7)."""
CARDS = 36
"""Baseline of the big cards, on pages 2-4 (rows 16-39)."""
LINE = 48
"""Baseline of the settlements, capitals on page 5 (rows 40-47)."""
FOOT = 64
"""Baseline of the bank's net, capitals on page 7 (rows 56-63): no descenders there."""
LINES = (48, 62)
"""Baselines of two lines of a message below the cards."""
ROWS_AT = (23, 36, 49, 62)
"""Baselines of the four lines below a title (balances, alarm text)."""
LOSER_X, WINNER_X = 2, 72


def _badge(draw, x: float, y: int, word: str) -> float:
    """A word in a white box, seen from across the table; returns where the box ends."""
    width = text_width(word)
    draw.rectangle((x, y - 10, x + width + 3, y + 1), fill=LIT)
    write(draw, x + 2, y, word, fill=DARK)
    return x + width + 4


def _bar(draw, title: str) -> None:
    """A title in a white bar across the top: this screen wants someone to act."""
    draw.rectangle((0, 0, WIDTH - 1, 13), fill=LIT)
    write(draw, 2, 11, title, medium(), fill=DARK)


def _header(image: Image.Image, draw, title: str, view: ScreenView, left: bool = True) -> None:
    """The title, the cards left in the shoe, and whether entries are open."""
    write(draw, 0, TOP, title)
    if left:
        x = write_right(draw, TOP, str(view.left), end=74)
        image.paste(LIT, (round(x) - 10, 0), bitmap(SHOE))
    write_right(draw, TOP, view.entries.upper())


def _turn(image: Image.Image, draw, view: ScreenView) -> None:
    _header(image, draw, f"TURN {view.turn}", view)
    draw_card(image, LOSER_X, CARDS, view.loser)
    if view.winner is None:
        # where the winner will come: an empty card
        draw.rounded_rectangle((WINNER_X, CARDS - 20, WINNER_X + 15, CARDS), radius=3, outline=LIT)
        return
    draw_card(image, WINNER_X, CARDS, view.winner)
    badge = None
    if view.split:
        # the same rank twice: an equals sign between the cards, and the word below
        draw.rectangle((61, CARDS - 12, 66, CARDS - 11), fill=LIT)
        draw.rectangle((61, CARDS - 7, 66, CARDS - 6), fill=LIT)
        badge = "SPLIT"
    _settlements(draw, view.settled, view.bank, badge, "nothing settled")


def _settlements(draw, nets, bank: int, badge: str | None, nothing: str) -> None:
    """Who won or lost how much on one line, biggest first; below, the bank's net."""
    x = 0.0 if badge is None else _badge(draw, 0, LINE, badge) + 5
    if not nets:
        write(draw, x, LINE, nothing)
        return
    shown = 0
    for name, delta in nets:
        item = f"{fit(name, 56)} {signed(delta)}"
        if x + text_width(item) > WIDTH:
            break
        x = write(draw, x, LINE, item) + 9
        shown += 1
    if shown < len(nets):
        write(draw, 0, FOOT, f"{len(nets) - shown} more")
    write_right(draw, FOOT, f"bank {signed(bank)}")


def _shuffle(image: Image.Image, draw, view: ScreenView) -> None:
    _header(image, draw, f"PACK {view.pack}", view, left=False)
    write(draw, 0, CARDS - 6, "deal the soda", medium())
    if view.rules:
        x = _badge(draw, 0, LINES[0], view.rules)
        write(draw, x + 4, LINES[0], "rules")
    if view.banker is not None:
        write(draw, 0, LINES[1], f"{fit(view.banker, 90)} banks")


def _soda(image: Image.Image, draw, view: ScreenView) -> None:
    _header(image, draw, "SODA", view)
    draw_card(image, LOSER_X, CARDS, view.soda)
    write(draw, 0, LINES[0], f"pack {view.pack}")
    if view.banker is not None:
        write(draw, 0, LINES[1], f"{fit(view.banker, 90)} banks")


def _three(image: Image.Image, cards: tuple[Card, ...]) -> list[int]:
    """Three cards across the screen, evenly spaced; returns their left edges."""
    widths = [card_width(c, index=True) for c in cards]
    gap = (WIDTH - sum(widths)) / (len(cards) + 1)
    xs, x = [], gap
    for card, width in zip(cards, widths, strict=True):
        xs.append(round(x))
        draw_card(image, round(x), CARDS, card, index=True)
        x += width + gap
    return xs


def _call(image: Image.Image, draw, view: ScreenView) -> None:
    _bar(draw, "CALL THE TURN")
    _three(image, view.three)
    y1, y2 = LINES
    kinds = len({c.rank for c in view.three})
    if kinds == 1:
        _badge(draw, 0, y1, "THREE OF A KIND")
        write(draw, 0, y2, "colours, 2 to 1")
    elif kinds == 2:
        x = _badge(draw, 0, y1, "CAT-HOP")
        write(draw, x + 5, y1, "pays 2 to 1")
    else:
        write(draw, 0, y1, "pays 4 to 1")
    if kinds > 1 and view.entries != "open":
        write(draw, 0, y2, view.entries)
    write_right(draw, y2, f"{view.calls} call{'' if view.calls == 1 else 's'}")


def _hock(image: Image.Image, draw, view: ScreenView) -> None:
    write(draw, 0, TOP, f"PACK {view.pack} DONE")
    write_right(draw, TOP, "hock")
    xs = _three(image, view.three)
    # the hock, the card that stayed in the box, in black on white
    hock = view.three[2]
    draw.rectangle((xs[2] - 3, 12, min(xs[2] + card_width(hock, True) + 2, WIDTH - 1), 38), LIT)
    draw_card(image, xs[2], CARDS, hock, index=True, ink=DARK)
    _settlements(draw, view.call_results, view.bank, "CALLS", "none")


def _balances(draw, view: ScreenView, page: int, title: str) -> None:
    write(draw, 0, 11, title, medium())
    if view.balance_pages > 1:
        write_right(draw, 11, f"{page + 1}/{view.balance_pages}")
    for y, standing in zip(ROWS_AT, view.balances[page * ROWS : (page + 1) * ROWS], strict=False):
        if standing.leader:
            draw.polygon(((0, y - 8), (4, y - 4), (0, y)), fill=LIT)
        write(draw, 7, y, fit(standing.name, 60))
        if standing.banker:
            write(draw, 70, y, "bank")
        write_right(draw, y, signed(standing.balance))


def _alarm(draw, view: ScreenView) -> None:
    kind, text = view.alarm
    _bar(draw, ALARM_TITLES.get(kind, kind.upper()))
    if view.alarms > 1:
        write_right(draw, 11, f"+{view.alarms - 1}", fill=DARK, end=WIDTH - 2)
    for y, line in zip(ROWS_AT, wrap(plain(text), small(), WIDTH, len(ROWS_AT)), strict=False):
        write(draw, 0, y, line)
