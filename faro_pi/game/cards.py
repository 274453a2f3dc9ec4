"""Cards, ranks, suits and colours, and the codes that name them.

A card code is the rank then the suit: ``KD`` is the king of diamonds,
``10H`` (or ``TH``) the ten of hearts. Codes are case-insensitive. Each of
the 52 cards is one shared :class:`Card` object, so cards compare by identity
and parsing is a dictionary look-up.
"""

from __future__ import annotations

from typing import NamedTuple

from faro_pi.game.exc import Refused

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""Rank names in layout order; a rank is its index here plus one (A=1, K=13)."""

SUITS = ("S", "H", "D", "C")
"""Suits in case-keeper row order: spades, hearts, diamonds, clubs."""

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}

RED = frozenset({"H", "D"})
COLOURS = ("red", "black")


class Card(NamedTuple):
    rank: int
    """1 (ace) to 13 (king)."""
    suit: str
    """One of ``SUITS``."""

    @property
    def code(self) -> str:
        return RANKS[self.rank - 1] + self.suit

    @property
    def colour(self) -> str:
        return "red" if self.suit in RED else "black"

    @property
    def index(self) -> int:
        """Position 0..51 in the case keeper: row (suit) major, rank minor."""
        return SUITS.index(self.suit) * 13 + self.rank - 1

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"


DECK: tuple[Card, ...] = tuple(Card(rank, suit) for suit in SUITS for rank in range(1, 14))
"""All 52 cards, in case-keeper order (``DECK[card.index] is card``)."""

RANK_BY_CODE: dict[str, int] = {name: i + 1 for i, name in enumerate(RANKS)}
"""Each rank code in upper case (``"10"`` and ``"T"`` alike) and its rank."""
RANK_BY_CODE["T"] = 10
CARD_BY_CODE: dict[str, Card] = {
    name + card.suit: card for card in DECK for name, r in RANK_BY_CODE.items() if r == card.rank
}
"""Each card code in upper case and its card."""


def parse_card(code: object) -> Card:
    """The card named by ``code``; refuses anything that is not one of the 52 cards."""
    if isinstance(code, str):
        card = CARD_BY_CODE.get(code.strip().upper())
        if card is not None:
            return card
    raise Refused(
        "card-code",
        f"{code!r} is not a card: give the rank (A, 2-10 or T, J, Q, K) then the suit "
        "(S, H, D, C), e.g. KD or 10H",
    )


def parse_rank(name: object) -> int:
    """The rank 1..13 named by ``name`` (``"A"``, ``"10"``, ``"t"``...)."""
    if isinstance(name, str):
        rank = RANK_BY_CODE.get(name.strip().upper())
        if rank is not None:
            return rank
    raise Refused("rank", f"{name!r} is not a rank: use A, 2-10 (or T), J, Q or K")


def parse_colour(name: object) -> str:
    if isinstance(name, str) and name.strip().lower() in COLOURS:
        return name.strip().lower()
    raise Refused("colour", f"{name!r} is not a colour: use red or black")


def rank_name(rank: int) -> str:
    return RANKS[rank - 1]
