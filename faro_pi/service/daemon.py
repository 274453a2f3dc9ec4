"""The table daemon: one asyncio loop owns the table; everything else hands it events.

Every change follows one path: the rules engine applies the event (or
refuses it, changing nothing) with what it brings, :meth:`Daemon._commit`
journals all of it as one transaction of :class:`Change` rows, and then the
watchers (outputs, console) are told. An entry or an alarm
(:meth:`Daemon.submit`) is told at once; a reading (:meth:`Daemon.record_reading`)
on the next turn of the loop, once the shoe has acknowledged its frame. A
commit that fails puts the table back as it was before the event: the table
in memory is always the journal's. At the hock, a turn later, the pack's
deal-integrity report takes the same path. Input threads and callbacks never
touch the table; they call ``loop.call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections import deque
from collections.abc import Callable

import msgspec

from faro_pi.config import Config
from faro_pi.devices import Output
from faro_pi.exc import JournalError, Refused
from faro_pi.game import resume
from faro_pi.game.cards import CARD_BY_CODE
from faro_pi.game.codec import event_to_json
from faro_pi.game.events import (
    LOCK,
    SHUFFLE,
    Alarm,
    CardDrawn,
    Clear,
    Event,
    Integrity,
    Session,
    Void,
)
from faro_pi.game.profile import DEFAULT_PROFILE, PROFILES
from faro_pi.game.replay import pack_report, report_due
from faro_pi.game.rules import Table
from faro_pi.pictures import Folder
from faro_pi.service.journal import Change, Journal
from faro_pi.service.logline import describe_card, describe_void, short
from faro_pi.service.restore import Replayed, replayed

log = logging.getLogger("faro_pi")

QUIET = 1.0
PRUNE_EVERY = 50
"""Pictures kept between two prunings of the pictures' folder."""
"""Seconds without an event before the journal's log is folded back (off the card's path)."""

Watcher = Callable[[Table, Event], None]
"""Told of every applied event, on the loop, after it is journaled; must return quickly."""


class Daemon:
    """The one owner of the table state, its journal and its watchers."""

    def __init__(self, config: Config, journal: Journal, restored: Replayed | None = None):
        self.config = config
        self.journal = journal
        restored = restored if restored is not None else replayed(journal)
        self.table = restored.table
        self._point_due = restored.point_due
        """The start replayed many rows: the next commit keeps a resume point, whatever it is."""
        self.watchers: list[Watcher] = []
        self.stopped = asyncio.Event()
        self.failure: BaseException | None = None
        self._quiet: asyncio.TimerHandle | None = None
        self.outputs: list[Output] = []
        """The case keeper and the display, in the order they are told of changes."""
        self.draw: Callable[[tuple[str, ...]], str] = random.SystemRandom().choice
        """Draws the first banker when a session names none (the shell's only randomness)."""
        self._untold: deque[Event] = deque()
        """Applied events whose log line and watchers are still to come, oldest first."""
        self.pairing: Callable[[], None] | None = None
        """What new pack held down asks for (the console's pairing code on the OLED): set
        by the composition root when there are both."""
        self.pictures: Folder | None = None
        """The camera's pictures (:mod:`faro_pi.pictures`): each reading's still is kept
        and named in its row. Set by the composition root."""
        self._pictures_kept = 0

    # -- the one path of change -------------------------------------------------

    def submit(self, event: Event) -> Refused | None:
        """Apply, journal, tell. Returns the refusal, or None once the event is durable."""
        before = self.table.snapshot()
        try:
            changes = self._apply(event)
        except Refused as exc:
            log.warning("refused %s: %s", short(event), exc)
            return exc
        self._commit(changes, before, at_once=True)
        return None

    def record_reading(
        self, event: Event, seq: int | None = None, gap: Alarm | None = None
    ) -> Refused | None:
        """A reading from the shoe: applied and committed with the reader's frame number.

        Returns as soon as the commit does, so the shoe acknowledges the frame
        at once; the log line and the watchers follow on the next turn of the
        loop. A reading the rules refuse is journaled all the same, marked
        refused, so it is acknowledged once and never read again, and it
        raises a ``refused`` alarm. ``gap`` is the alarm of readings that never
        arrived before this one. Whatever a reading brings is one transaction
        with it: after a crash, the resent frame finds all of it or none.
        """
        before = self.table.snapshot()
        changes, refusal = [], None
        event = self._pictured(event, seq)
        if gap is not None:
            changes += self._apply(gap)  # an alarm is never refused
        try:
            changes += self._apply(event, seq)
        except Refused as exc:
            card = event.card if isinstance(event, CardDrawn) else None
            alarm = Alarm("refused", exc.message, card)
            self.table.apply(alarm)
            changes += [Change(event, str(exc), seq), Change(alarm)]
            refusal = exc
            log.warning("refused %s: %s", short(event), exc)
        self._commit(changes, before, at_once=False)
        if self.pictures is not None and seq is not None:
            self.pictures.settled(seq)
        return refusal

    def _pictured(self, event: Event, seq: int | None) -> Event:
        """The reading with the camera's still of frame ``seq`` named in it (and a no-read's
        likeliest cards), when the reader left one; as it came when not, or when the still
        cannot be kept (said in the log: a picture is never worth a card)."""
        if self.pictures is None or seq is None or not isinstance(event, CardDrawn | Alarm):
            return event
        try:
            kept = self.pictures.keep(seq)
            if kept is not None and self._pictures_kept % PRUNE_EVERY == 0:
                self.pictures.prune()
        except OSError as exc:
            log.warning("pictures: frame %d's still is not kept: %s", seq, exc)
            return event
        if kept is None:
            return event
        self._pictures_kept += 1
        if isinstance(event, CardDrawn):
            return msgspec.structs.replace(event, picture=kept.picture)
        likely = tuple(CARD_BY_CODE[code] for code in kept.likely if code in CARD_BY_CODE)
        return msgspec.structs.replace(event, picture=kept.picture, likely=likely or None)

    def _apply(self, event: Event, seq: int | None = None) -> list[Change]:
        """Applies ``event`` and what it brings: a card clears a standing no-read alarm (the card
        re-fed has come). Raises :class:`Refused`, and then nothing has changed."""
        self.table.apply(event)
        if not isinstance(event, CardDrawn) or not self.has_alarm("noread"):
            return [Change(event, link_seq=seq)]
        cleared = Clear("noread")
        self.table.apply(cleared)
        return [Change(event, link_seq=seq), Change(cleared)]

    def _commit(self, changes: list[Change], before: tuple, at_once: bool) -> None:
        """Journals ``changes``, already applied to the table, which was ``before`` them.

        On any failure the table goes back to ``before``, so the table in
        memory is always the journal's: an event the journal cannot encode is
        not journaled and the table carries on without it; any other failure
        stops the daemon, and the restart rebuilds the table from what was
        committed. Either way :exc:`JournalError` is raised, and the caller
        acknowledges nothing. After an event whose ``resume_point`` says so (a
        shuffle, a close), or after a start that replayed many rows, the table
        is kept as a resume point in the same transaction, sealed in the last
        row. Once committed, the applied events are told, ``at_once`` or on the
        next turn of the loop (after the shoe's acknowledgement); and at the
        hock, on the turn after, the pack's deal-integrity report is made.
        """
        applied = [change.event for change in changes if change.refused is None]
        keep = self._point_due or any(event.resume_point for event in applied)
        try:
            self.journal.append(changes, resume_point=resume.save(self.table) if keep else None)
        except Exception as exc:
            self.table.restore(before)
            failure = (
                exc
                if isinstance(exc, JournalError)
                else JournalError(
                    f"{self.journal.path}: cannot append, the event is not journalled: {exc!r}",
                    "cannot-write",
                )
            )
            if failure.reason == "cannot-encode":
                log.warning("%s", failure)
            else:
                self.fail(failure)
            if failure is exc:
                raise
            raise failure from exc
        self._when_quiet()
        self._point_due = False
        self._untold.extend(applied)
        loop = asyncio.get_running_loop()
        if at_once:
            self._tell()
        else:
            loop.call_soon(self._tell)
        if any(report_due(self.table, event) for event in applied):
            loop.call_soon(self._report_deal, self.table.pack.number)

    def _report_deal(self, number: int) -> None:
        """Journals the integrity report of the pack just completed, and an alarm if flagged.

        A step after the hock's commit, off the card's path; both rows or neither."""
        pack = self.table.pack
        if pack.number != number or not pack.complete:
            return  # voided, or shuffled, before the report came round
        before = self.table.snapshot()
        found = pack_report(self.table)
        changes = self._apply(Integrity(number, found.flagged, found))
        if found.flagged:
            alarm = Alarm("integrity", "pack " + str(number) + ": " + "; ".join(found.flagged))
            changes += self._apply(alarm)
            log.warning("%s", alarm.text)
        with contextlib.suppress(JournalError):  # said; the table is as it was
            self._commit(changes, before, at_once=True)

    def _tell(self) -> None:
        """Logs and tells the watchers every applied event not yet told, in the order applied."""
        while self._untold:
            event = self._untold.popleft()
            if isinstance(event, CardDrawn):
                log.info(describe_card(self.table))
            elif isinstance(event, Void):
                log.info(describe_void(self.table))
            else:
                log.info("%s", short(event))
            for watcher in list(self.watchers):
                try:
                    watcher(self.table, event)
                except Exception:  # an output's fault must not stop the table
                    log.exception("a watcher failed on %s", short(event))

    def _when_quiet(self) -> None:
        """Folds the journal's log back once the table has been still for a moment."""
        if self._quiet is not None:
            self._quiet.cancel()
        self._quiet = asyncio.get_running_loop().call_later(QUIET, self._checkpoint)

    def quieten(self) -> None:
        """Cancels the pending checkpoint; the journal's close folds the log back anyway."""
        if self._quiet is not None:
            self._quiet.cancel()
            self._quiet = None

    async def settled(self) -> None:
        """Waits until every output has shown the latest state (the display draws in a thread)."""
        for output in self.outputs:
            await output.settled()

    def _checkpoint(self) -> None:
        self._quiet = None
        try:
            self.journal.checkpoint()
        except JournalError as exc:
            log.warning("%s", exc)

    def set_link_seq(self, seq: int) -> None:
        """A reader's hello: the link's resume point moves with no event (nothing to apply)."""
        try:
            self.journal.set_link_seq(seq)
        except JournalError as exc:
            self.fail(exc)
            raise

    def has_alarm(self, kind: str) -> bool:
        return any(a.kind == kind for a in self.table.alarms)

    def fail(self, exc: BaseException) -> None:
        log.error("%s", exc)
        self.failure = exc
        self.stopped.set()

    # -- the lookout's entries ----------------------------------------------------

    def enter(self, event: Event) -> Event:
        """An entry from the lookout (the console, the simulator, the command line).

        It goes down the same path as the shoe's events. Returns the event as
        journaled; raises :class:`Refused` for an illegal one, and then
        nothing has changed. A card entered here is marked as entered by
        hand; a session without a banker gets one drawn at random.
        """
        if not event.entered:  # the shoe's alarms, the daemon's reports
            raise Refused("alarm", f"a {event_to_json(event)['type']} is the table's, not entered")
        if isinstance(event, CardDrawn):
            event = CardDrawn(event.card, "hand", self._settling(event.picture))
        elif isinstance(event, Session):
            event = self._seated(event)
        refusal = self.submit(event)
        if refusal is not None:
            raise refusal
        return event

    def _settling(self, picture: str | None) -> str | None:
        """The still of the standing no-read a card entered by hand names, to be journaled
        with it; refused when no standing no-read has it: the no-read was settled (its card
        came, or was entered) since the lookout picked the card, which would come twice."""
        if picture is None or any(
            a.kind == "noread" and a.picture == picture for a in self.table.alarms
        ):
            return picture
        raise Refused(
            "picture",
            "that no-read is settled already (its card came, or was entered): "
            "look at the cards out before entering one",
        )

    def _seated(self, session: Session) -> Session:
        """The session as journaled: a banker drawn if none is named, and every house rule.

        A session that names neither a profile nor options takes the configured
        ones; either way the journal holds the profile and all its options, so it
        replays the same whatever the configuration says later.
        """
        banker = session.banker
        if banker is None and session.seats:
            banker = self.draw(session.seats)
        profile, options = session.profile, session.options
        if profile is None and options is None:
            profile, options = self.config.rules.profile, self.config.rules.options()
        profile = profile or DEFAULT_PROFILE
        options = options or PROFILES[profile]
        limit = session.limit or self.config.rules.table_limit
        return Session(session.seats, banker, profile, options, limit)

    # -- the shoe's buttons -----------------------------------------------------

    def pressed(self, what: str) -> None:
        """A button, already debounced: called on the loop."""
        table = self.table
        if what == "signal":
            self.submit(LOCK)
        elif what == "new_pack":
            self.submit(SHUFFLE)
        elif what == "void":
            last = table.pack.exposed[-1] if table.pack.exposed else None
            self.submit(Void(last))
        elif what == "pair":
            if self.pairing is not None:
                self.pairing()
            else:
                log.info("pair: no console and display to pair a phone with")
        elif what == "undo":
            if table.alarms:
                self.submit(Clear())
            else:
                log.info(
                    "undo: hold it for %.1f s to void the last card", self.config.buttons.undo_hold
                )

    def status(self) -> str:
        table = self.table
        pack = table.pack
        out = len(pack.exposed)
        text = f"pack {pack.number}, {out} card{'' if out == 1 else 's'} out, turn {pack.turn}"
        if table.alarms:
            text += f"; alarm: {table.alarms[-1].text}"
        return text
