"""The pack being dealt, and where the deal stands: the one record every part reads.

The pack, by position of the card exposed (1-based):

* card 1 is the **soda**: it wins and loses nothing;
* cards 2k and 2k+1 are the **loser** and **winner** of pair (turn) k, k = 1..25;
* card 52 is the **hock**: no effect on predictions; it settles the calls.

:func:`stage` turns the number of cards exposed into a :class:`Stage`, and
:func:`entries` says whether the lookout may enter predictions now. Nothing
else in faro-pi does parity arithmetic on the count of cards.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from faro_pi.game.cards import DECK, Card

PACK_SIZE = 52
FINAL_WINNER = 51
"""Exposing card 51 closes entries for good and ends the predictions still standing."""
LAST_THREE = 49
"""With 49 cards exposed, three remain: the moment for calling the turn."""
TURNS = 25


class Stage(StrEnum):
    """Where the deal stands, from the number of cards exposed."""

    SHUFFLED = "shuffled"
    """Nothing exposed yet: the soda is next."""
    SODA = "soda"
    """Only the soda is out: the first pair is next."""
    LOSER = "loser"
    """A pair's loser is out; its winner is next."""
    SETTLED = "settled"
    """A pair has just been settled and another whole pair is to come."""
    LAST_THREE = "last-three"
    """24 pairs settled, three cards left: the turn may be called."""
    FINAL = "final"
    """The final pair is settled; only the hock is left in the shoe."""
    HOCK = "hock"
    """All 52 cards are out: the pack is complete."""


def stage(exposed: int) -> Stage:
    """The stage of a pack with ``exposed`` cards out."""
    if exposed == 0:
        return Stage.SHUFFLED
    if exposed == 1:
        return Stage.SODA
    if exposed == PACK_SIZE:
        return Stage.HOCK
    if exposed & 1 == 0:
        return Stage.LOSER
    if exposed == LAST_THREE:
        return Stage.LAST_THREE
    if exposed == FINAL_WINNER:
        return Stage.FINAL
    return Stage.SETTLED


PAIR_SETTLED = frozenset({Stage.SETTLED, Stage.LAST_THREE, Stage.FINAL})
"""The stages just after a pair's winner: the card exposed last settled a pair."""


STAGES: tuple[Stage, ...] = tuple(stage(n) for n in range(PACK_SIZE + 1))
"""The stage with n cards exposed, looked up rather than worked out on the engine's path."""


class Entries(StrEnum):
    """Whether predictions, removals, calls and a session may be entered now."""

    OPEN = "open"
    LOCKED = "locked"
    """The banker's signal: closed until this pair's winner is exposed."""
    CLOSED = "closed"
    """A loser is out (the winner is awaited), or the final pair has been dealt."""


_OPEN_AT = frozenset({Stage.SHUFFLED, Stage.SODA, Stage.SETTLED, Stage.LAST_THREE})


def entries(at: Stage, locked: bool) -> Entries:
    """Entries at stage ``at`` with the banker's lock as given (it stands until the winner)."""
    if locked:
        return Entries.LOCKED
    return Entries.OPEN if at in _OPEN_AT else Entries.CLOSED


OPEN_AT: tuple[bool, ...] = tuple(stage(n) in _OPEN_AT for n in range(PACK_SIZE + 1))
"""Whether entries may be open with n cards exposed (unless locked): the engine's quick look."""


def turn(exposed: int) -> int:
    """Pairs completed with ``exposed`` cards out (0 before the first winner, 25 at the end)."""
    return max(0, (exposed - 1) // 2)


@dataclass(slots=True)
class Pack:
    """The cards exposed so far from one shuffled pack, and the case count."""

    number: int = 1
    exposed: list[Card] = field(default_factory=list)
    counts: list[int] = field(default_factory=lambda: [0] + [4] * 13)
    """Case count by rank (index 1..13; index 0 unused)."""
    seen: set[Card] = field(default_factory=set)

    @property
    def stage(self) -> Stage:
        return stage(len(self.exposed))

    @property
    def soda(self) -> Card | None:
        return self.exposed[0] if self.exposed else None

    @property
    def hock(self) -> Card | None:
        return self.exposed[-1] if len(self.exposed) == PACK_SIZE else None

    @property
    def left(self) -> int:
        """Cards still in the shoe."""
        return PACK_SIZE - len(self.exposed)

    @property
    def complete(self) -> bool:
        return len(self.exposed) == PACK_SIZE

    @property
    def turn(self) -> int:
        """Pairs completed so far (0 before the first winner, 25 at the end)."""
        return turn(len(self.exposed))

    @property
    def loser(self) -> Card | None:
        """The loser of the pair under way, while its winner is awaited."""
        n = len(self.exposed)
        return self.exposed[-1] if stage(n) is Stage.LOSER else None

    def remaining(self) -> list[Card]:
        """The cards still in the shoe, in case-keeper order (their order is unknown)."""
        return [card for card in DECK if card not in self.seen]

    def copy(self) -> Pack:
        return Pack(self.number, list(self.exposed), list(self.counts), set(self.seen))
