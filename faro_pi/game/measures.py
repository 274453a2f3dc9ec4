"""What a pack's deal-integrity report holds: its measures, each in its range.

:mod:`faro_pi.game.integrity` works the figures out; this is their shape
alone, which the ``integrity`` event carries in the journal and on the wire to
the floor (:mod:`faro_pi.game.events`). Kept apart from the maths, so that
reading an event does not count the fair shuffle's tables; and typed to the
last number, so that a row whose report holds anything else (a key the report
has not, a count past the pack, a chance above one) is refused as it is read,
before any of it is kept. docs/integrity.md says what each measure is.
"""

from __future__ import annotations

from typing import Annotated

import msgspec
from msgspec import Meta

from faro_pi.game.pack import PACK_SIZE

Count = Annotated[int, Meta(ge=0, le=PACK_SIZE)]
"""A measure's figure, or the least one flagged: some of the pack's cards, runs or pairs."""
CardNumber = Annotated[int, Meta(ge=1, le=PACK_SIZE)]
"""A card's place in the pack, in dealing order: 1 is the soda, 52 the hock."""
Chance = Annotated[float, Meta(ge=0.0, le=1.0)]

MEASURES = 6
"""The measures of a report: the most lines it can flag, one for each."""
Findings = Annotated[tuple[str, ...], Meta(max_length=MEASURES)]
"""What a report flagged, a line each: what was seen, how rare, what to do."""


class Measure(msgspec.Struct, frozen=True):
    """One figure of a pack, and how often a fair shuffle reaches it."""

    value: Count
    tail: Chance
    """The chance that a fair shuffle gives ``value`` or more."""
    limit: Count | None
    """The least value flagged; None when no value is rare enough to flag."""
    exact: bool = True
    """False when ``tail`` is an upper bound rather than the chance itself."""
    at: CardNumber | None = None
    """Where the longest run starts: the number of its first card in the pack (1..52)."""

    @property
    def flagged(self) -> bool:
        return self.limit is not None and self.value >= self.limit


class IntegrityReport(msgspec.Struct, frozen=True):
    """What :func:`faro_pi.game.integrity.report` found in one pack; ``flagged`` says it to a
    person."""

    splits: Measure
    """Pairs (cards 2k and 2k+1) of one rank."""
    splits_or_fewer: Chance
    """The chance that a fair shuffle gives ``splits.value`` splits or fewer."""
    neighbours: Measure
    """Cards 1..51 followed by a card of their own rank."""
    same_rank_run: Measure
    """The longest run of cards of one rank (4 at most; never rare enough to flag)."""
    straight: Measure
    """The longest run of ranks going up by one, or down by one (A low, K high, no wrap)."""
    kept_order: Measure | None
    """The most cards in the previous pack's order, or in its reverse (None: no previous pack)."""
    kept_run: Measure | None
    """The longest run of cards dealt together as in the previous pack, either way round."""
    flagged: Findings

    def as_dict(self) -> dict:
        """The JSON object, as Python values: what the journal keeps of it."""
        return msgspec.json.decode(self.to_json())

    def to_json(self) -> str:
        return msgspec.json.encode(self).decode()


REPORT = {
    "splits": {"value": 0, "tail": 1.0, "limit": 7, "exact": True, "at": None},
    "splits_or_fewer": 0.22306742883844222,
    "neighbours": {"value": 2, "tail": 0.809753416135755, "limit": 10, "exact": True, "at": None},
    "same_rank_run": {
        "value": 2,
        "tail": 0.9545237176689056,
        "limit": None,
        "exact": True,
        "at": 17,
    },
    "straight": {"value": 2, "tail": 1.0, "limit": 6, "exact": False, "at": 16},
    "kept_order": None,
    "kept_run": None,
    "flagged": [],
}
"""The report of a fair first pack (no previous pack to hold it against), as the journal
keeps it: the ``integrity`` event's example."""
