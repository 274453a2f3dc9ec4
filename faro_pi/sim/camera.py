"""``faro-pi sim --camera DESIGN_DIR``: the pack dealt through a camera, not a barcode.

Each card of the scenario is laid on top in the virtual box
(:class:`faro_pi.virtual.camera.VirtualCamera`); the camera reader's own watcher
(:class:`faro_pi.camera.watch.Watch`) and recogniser read the frames, and what they
decide goes over the virtual reader's serial line, in fsp1, to the daemon: the path a
card takes from a real camera, less the glass. The still of each card or no-read goes
before its frame into the pictures' folder (:class:`faro_pi.camera.pictures.Stills`), as
the live reader's does, and so does the aiming view while the page asks for it: between
cards too (:meth:`CameraShoe.aim`), the box as it lies; and a deck the page asks to
teach is dealt through the box in its order, to the camera reader's own lesson
(:class:`faro_pi.camera.lesson.Lesson`). What it read is tallied against what was laid,
for the summary.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from pathlib import Path

from faro_pi.camera.lesson import Lesson
from faro_pi.camera.pictures import Stills
from faro_pi.camera.watch import Seen, Watch
from faro_pi.game.cards import DECK, Card, parse_card
from faro_pi.pictures import Folder
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

    def __init__(
        self,
        camera: VirtualCamera,
        watch: Watch,
        reader: VirtualReader,
        pictures: Path,
        views: int | None = None,
    ):
        self.camera, self.watch, self.reader = camera, watch, reader
        self.tally = Tally()
        self.stills = Stills(Folder(pictures), watch.recogniser)
        self.stills.start()
        self.lesson = Lesson(
            Folder(pictures), pictures.parent / "decks", watch.recogniser, self.stills, views
        )
        """A deck the page asks to teach (``views`` of each card, the reader's own count
        unless given), dealt through the box while the table waits."""
        self._box = asyncio.Lock()
        """One look at the box at a time: the card's, or the aiming view's."""

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
            async with self._box:
                seen = await asyncio.to_thread(self._look)
            if seen is None:
                if self.watch.last != card:  # not the card still on top: a miss
                    self.tally.missed += 1
                return
            self._still(seen)
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

    async def unread(self, code: str) -> None:
        """``code`` goes past unread (a scenario's no-read naming its card): the camera's
        still of it as it lay, and the cards it was likeliest to be, go with the no-read.
        The watcher is not shown it, so the card re-fed is read as a new view."""
        still = self.camera.still(parse_card(code))
        await asyncio.to_thread(self._still, Seen(None, still=still))
        self.reader.no_read()
        await self.reader.drained()

    def _still(self, seen: Seen) -> None:
        """The still of what the reader is about to send, before its frame."""
        self.stills.before(self.reader.sender.next_seq(), seen)

    async def empty(self) -> None:
        """The box is emptied for a new pack."""
        self.camera.lay(None)
        async with self._box:
            await asyncio.to_thread(self._look)

    async def aim(self, stopped: asyncio.Event) -> None:
        """The aiming view while the page asks for it, a still a second, until ``stopped``:
        between cards, the box as the last card left it (no frame of a card's is taken)."""
        while not stopped.is_set():
            async with self._box:
                await asyncio.to_thread(self.between_cards)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stopped.wait(), 1.0)

    def between_cards(self) -> None:
        """The box at rest, to the aiming view and to the lesson; a deck asked for is dealt
        through the box in its order (A to K of spades, hearts, diamonds, clubs) until the
        lesson is over, taught or cancelled."""
        frame = self.camera.resting()
        self.stills.frame(frame)
        watch = self.lesson.frame(frame, self.watch)
        for card in DECK if watch is None else ():
            self.camera.lay(card)
            for _ in range(4 * (LOOK + self.watch.hold)):  # until the card is taken
                watch = self.lesson.frame(self.camera.frame(), self.watch)
                if watch is not None or self.lesson.teacher.expected != card:
                    break
            if watch is not None:
                break
        if watch is not None:
            self.watch = watch  # the lesson's over: a deck taught is read with from now on

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
            frame = self.camera.frame()
            self.stills.frame(frame)
            seen = self.watch.see(frame)  # the virtual lamps never flicker
            if isinstance(seen, Seen) and (seen.card is not None or self.camera.at_rest):
                return seen
        return None
