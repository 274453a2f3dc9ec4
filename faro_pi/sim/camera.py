"""``faro-pi sim --camera DESIGN_DIR``: the pack dealt through a camera, not a barcode.

Each card of the scenario is laid on top in the virtual box
(:class:`faro_pi.virtual.camera.VirtualCamera`); the camera reader's own watcher
(:class:`faro_pi.camera.watch.Watch`) and recogniser read the frames, and what they
decide goes over the virtual reader's serial line, in fsp1, to the daemon: the path a
card takes from a real camera, less the glass. What it read is tallied against what was
laid, for the summary.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from faro_pi.camera.watch import Seen, Watch
from faro_pi.game.cards import Card, parse_card
from faro_pi.virtual.camera import DRAWN, HAND, VirtualCamera
from faro_pi.virtual.reader import VirtualReader

LOOK = len(DRAWN) + HAND + 2
"""Frames shown for each card before it lies at rest: while it is drawn, and a hand."""


@dataclass
class Tally:
    right: int = 0
    wrong: list[dict] = field(default_factory=list)
    noreads: int = 0
    """No-reads sent: the dealer then lays the card straight once more, and it is read
    again (``relaid``)."""
    missed: int = 0
    """Cards laid that the reader sent nothing for."""
    relaid: int = 0
    confidence: dict[str, float] = field(default_factory=dict)
    """How sure the reader was of each card it sent, by the card sent."""

    def as_json(self) -> dict:
        return {
            "right": self.right,
            "wrong": self.wrong,
            "noreads": self.noreads,
            "missed": self.missed,
            "relaid": self.relaid,
            "confidence": self.confidence,
        }


class CameraShoe:
    """The camera reader over the virtual box, speaking through ``reader``."""

    def __init__(self, camera: VirtualCamera, watch: Watch, reader: VirtualReader):
        self.camera, self.watch, self.reader = camera, watch, reader
        self.tally = Tally()

    async def deal(self, code: str) -> None:
        """``code`` comes on top; whatever the reader makes of it goes to the daemon. At a
        no-read the dealer does as the table asks once: lays the card straight again, and
        the reader has a second look (the no-read alarm clears when the card comes)."""
        card = parse_card(code)
        self.camera.lay(card)
        for look in range(2):
            if look:  # the dealer's hand over the box, the card laid straight again
                self.camera.pass_hand()
                self.camera.lay(card)
            seen = await asyncio.to_thread(self._look)
            if seen is None:
                if self.watch.last != card:  # not the card still on top: a miss
                    self.tally.missed += 1
                return
            if seen.card is not None:
                self._count(card, seen.card)
                self.tally.confidence[seen.card.code] = round(seen.confidence, 4)
                self.reader.card(seen.card.code)
                await self.reader.drained()
                return
            self.tally.noreads += 1
            self.tally.relaid += look == 0
            self.reader.no_read()
            await self.reader.drained()

    async def empty(self) -> None:
        """The box is emptied for a new pack."""
        self.camera.lay(None)
        await asyncio.to_thread(self._look)

    def _count(self, laid: Card, read: Card) -> None:
        if read == laid:
            self.tally.right += 1
        else:
            self.tally.wrong.append({"laid": laid.code, "read": read.code})

    def _look(self) -> Seen | None:
        """What the reader makes of the card laid. A no-read said before the card is seen
        at rest is of the dealer's hand, held still over the box: the look goes on until
        the card lies there to be read, or it would end on the hand and leave the card's
        own frames to the next card's look."""
        for _ in range(LOOK + self.watch.hold):  # at rest until the vote is done
            seen = self.watch.see(self.camera.frame())  # the virtual lamps never flicker
            if isinstance(seen, Seen) and (seen.card is not None or self.camera.at_rest):
                return seen
        return None
