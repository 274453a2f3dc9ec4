"""The table daemon: one asyncio loop owns the table; everything else hands it events.

Every change follows one path, :meth:`Daemon.submit`: the rules engine
applies the event (or refuses it, changing nothing), the journal commits it,
then the watchers (outputs, console) are told. Input threads and callbacks
never touch the table; they call ``loop.call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections import deque
from collections.abc import Callable

from faro_pi.config import Config
from faro_pi.devices import Output
from faro_pi.exc import JournalError, Refused
from faro_pi.game import integrity
from faro_pi.game.codec import event_to_json
from faro_pi.game.events import (
    LOCK,
    SHUFFLE,
    Alarm,
    CardDrawn,
    Clear,
    Close,
    Event,
    Integrity,
    Session,
    Shuffle,
    Void,
)
from faro_pi.game.profile import DEFAULT_PROFILE, PROFILES
from faro_pi.game.rules import Table
from faro_pi.service.journal import Journal
from faro_pi.service.logline import describe_card, describe_void, short
from faro_pi.service.restore import keep_resume_point, restore

log = logging.getLogger("faro_pi")

RESUME_AFTER = (Shuffle, Close)
"""After these a restart is kept a resume point: a new pack, a night closed."""

QUIET = 1.0
"""Seconds without an event before the journal's log is folded back (off the card's path)."""

Watcher = Callable[[Table, Event], None]
"""Told of every applied event, on the loop, after it is journaled; must return quickly."""


class Daemon:
    """The one owner of the table state, its journal and its watchers."""

    def __init__(self, config: Config, journal: Journal, table: Table | None = None):
        self.config = config
        self.journal = journal
        self.table = table if table is not None else restore(journal)
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

    # -- the one path of change -------------------------------------------------

    def submit(self, event: Event) -> Refused | None:
        """Apply, journal, publish. Returns the refusal, or None once the event is durable."""
        try:
            self.table.apply(event)
        except Refused as exc:
            log.warning("refused %s: %s", short(event), exc)
            return exc
        cleared = self._card_clears(event)
        if cleared is None:
            self._journal(event)
        else:
            try:
                self.journal.append_all([(event, None, None), (cleared, None, None)])
            except JournalError as exc:
                self.fail(exc)
                raise
            self._when_quiet()
        self._untold.extend((event,) if cleared is None else (event, cleared))
        self._tell()
        return None

    def _card_clears(self, event: Event) -> Clear | None:
        """A card applied clears a standing no-read alarm: the card re-fed has come."""
        if not isinstance(event, CardDrawn) or not self.has_alarm("noread"):
            return None
        cleared = Clear("noread")
        self.table.apply(cleared)
        return cleared

    def record_reading(
        self, event: Event, seq: int | None = None, gap: Alarm | None = None
    ) -> Refused | None:
        """A reading from the shoe: applied and committed with the reader's frame number.

        Returns as soon as the commit does, so the shoe acknowledges the frame
        at once; the log line and the watchers follow on the next turn of the
        loop. A reading the rules refuse is journaled all the same, marked
        refused, so it is acknowledged once and never read again, and it
        raises a ``refused`` alarm. ``gap`` is the alarm of readings that never
        arrived before this one; a card clears a standing no-read alarm.
        Whatever a reading brings is one transaction with it: after a crash,
        the resent frame finds all of it or none.
        """
        rows, told, refusal = [], [], None
        if gap is not None:
            self.table.apply(gap)  # an alarm is never refused
            rows.append((gap, None, None))
            told.append(gap)
        try:
            self.table.apply(event)
            rows.append((event, None, seq))
            told.append(event)
            if (cleared := self._card_clears(event)) is not None:
                rows.append((cleared, None, None))
                told.append(cleared)
        except Refused as exc:
            card = event.card if isinstance(event, CardDrawn) else None
            alarm = Alarm("refused", exc.message, card)
            self.table.apply(alarm)
            rows += [(event, str(exc), seq), (alarm, None, None)]
            told.append(alarm)
            refusal = exc
            log.warning("refused %s: %s", short(event), exc)
        try:
            if len(rows) == 1:
                self.journal.append(event_to_json(event), link_seq=seq)
            else:
                self.journal.append_all(rows)
        except JournalError as failed:
            self.fail(failed)
            raise
        self._when_quiet()
        self._untold.extend(told)
        asyncio.get_running_loop().call_soon(self._tell)
        return refusal

    def _check_deal(self, number: int) -> None:
        """Journals the integrity report of the pack just completed, and an alarm if flagged.

        Off the card's path (the hock is acknowledged first); both rows or neither."""
        pack = self.table.pack
        if pack.number != number or not pack.complete:
            return  # voided, or shuffled, before the report came round
        found = integrity.report(pack.exposed, self.table.state.previous or None)
        event = Integrity(number, found.flagged, found.as_dict())
        self.table.apply(event)
        rows = [(event, None, None)]
        if found.flagged:
            alarm = Alarm("integrity", "pack " + str(number) + ": " + "; ".join(found.flagged))
            self.table.apply(alarm)
            rows.append((alarm, None, None))
            log.warning("%s", alarm.text)
        try:
            self.journal.append_all(rows)
        except JournalError as exc:
            self.fail(exc)
            return
        self._untold.extend(event for event, _, _ in rows)
        self._tell()

    def _tell(self) -> None:
        """Logs and publishes every applied event not yet told, in the order applied."""
        while self._untold:
            event = self._untold.popleft()
            if isinstance(event, CardDrawn):
                log.info(describe_card(self.table))
                if self.table.pack.complete:
                    loop = asyncio.get_running_loop()
                    loop.call_soon(self._check_deal, self.table.pack.number)
            elif isinstance(event, Void):
                log.info(describe_void(self.table))
            else:
                log.info("%s", short(event))
            for watcher in list(self.watchers):
                try:
                    watcher(self.table, event)
                except Exception:  # an output's fault must not stop the table
                    log.exception("a watcher failed on %s", short(event))

    def _journal(self, event: Event, refused: str | None = None, link_seq=None) -> None:
        try:
            row = self.journal.append(event_to_json(event), refused=refused, link_seq=link_seq)
        except JournalError as exc:
            # The table in memory is now ahead of the disk: stop, and let the
            # restart rebuild it from what was really committed.
            self.fail(exc)
            raise
        if refused is None and type(event) in RESUME_AFTER:
            keep_resume_point(self.journal, self.table, row)
        self._when_quiet()

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
        if isinstance(event, Alarm | Integrity):
            raise Refused("alarm", f"a {event_to_json(event)['type']} is the table's, not entered")
        if isinstance(event, CardDrawn):
            event = CardDrawn(event.card, "hand")
        elif isinstance(event, Session):
            event = self._seated(event)
        refusal = self.submit(event)
        if refusal is not None:
            raise refusal
        return event

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
