"""The floor's side of the broker: every table's rows into its copy, and gaps asked for.

The pit boss subscribes to every table's ``journal``, ``status`` and ``state``
under the prefix, with a session the broker keeps while the floor is away
(a fixed client id, not a clean session), so rows sent meanwhile wait for it.
Messages are taken in batches, as many as have arrived: each table's new
rows go into its copy in one transaction and then through its engine
(:mod:`faro_pi.floor.pit`), and the page is told which tables changed. A
message the floor refuses, or anything failing with one table's rows, is an
alarm on that table's line alone: the other tables are taken as ever.

A copy takes only the next row, and only one that continues its chain
(:mod:`faro_pi.floor.store`). When the floor learns that a table has rows it
lacks, from a row past the next one or from the ``head`` of the table's state,
it asks the table for them again (``PREFIX/TABLE/resend``), at once the first
time, then only while nothing comes for :data:`RETRY` seconds: a long resend
in progress is not restarted. Each state says anew where the table's journal
ends (an old one, kept by the broker, is corrected by the next), a table that
is offline is not asked, and one whose rows do not continue the copy is not
asked again until it starts again.

A live state (not one the broker kept) is also the table's word on where its
journal ends, and the copy holds it against its own rows
(:meth:`faro_pi.floor.pit.TableView.ended`): that is how rows lost at the
table's end, which its journal cannot see, become an alarm on the page.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass

import aiomqtt

from faro_pi.floor.broker import Backoff, Outage
from faro_pi.floor.config import FloorSettings
from faro_pi.floor.pit import TableView
from faro_pi.floor.store import Copy, copy_path, tables
from faro_pi.floor.twin import decode_status
from faro_pi.floor.wire import (
    Row,
    decode_row,
    decode_state,
    encode_resend,
    subscriptions,
    table_topic,
    topics,
)

log = logging.getLogger("faro_pi")

RETRY = 3.0
"""Seconds without a row from a table that lacks rows before it is asked again."""

AUDIT_EVERY = 1.0
"""Seconds between looks at every table for rows it is known to lack."""

BATCH = 2000
"""Messages taken in one go at most, so the page is told at least that often."""


@dataclass
class Gap:
    """What the floor knows a table has, and when it last asked for the rest."""

    known: int = 0
    """The highest row the table is known to have."""
    asked_at: float | None = None
    grew_at: float = 0.0
    paused: bool = False
    """The table's rows do not continue the copy: not asked again until it starts again."""


class PitBoss:
    """Keeps a copy of every table heard on the broker, and tells the page of changes."""

    def __init__(self, settings: FloorSettings):
        self.settings = settings
        self.folder = settings.store.path
        self.prefix = settings.broker.prefix
        self.views: dict[str, TableView] = {}
        self.gaps: dict[str, Gap] = {}
        self.watchers: list[Callable[[set[str]], None]] = []
        """Told the names of the tables that changed, after each batch."""
        self.client: aiomqtt.Client | None = None
        self.connected = asyncio.Event()
        self._told_bad: set[str] = set()

    def open(self) -> None:
        """Opens every copy in the store and runs it through its engine."""
        self.folder.mkdir(parents=True, exist_ok=True)
        for name in tables(self.folder):
            try:
                self.view(name)
            except Exception as exc:  # a copy that cannot be opened: the others still are
                log.error("floor: %s: its copy is left out: %s", name, exc)
        log.info("floor: %d tables' copies in %s", len(self.views), self.folder)

    def view(self, name: str) -> TableView:
        """The table's view, opening (or starting) its copy the first time."""
        view = self.views.get(name)
        if view is None:
            view = TableView(name, Copy(copy_path(self.folder, name)))
            view.restore()
            self.views[name] = view
            self.gaps[name] = Gap(known=view.copy.head, grew_at=time.monotonic())
        return view

    def close(self) -> None:
        for view in self.views.values():
            view.copy.close()

    # -- the connection -------------------------------------------------------------

    async def run(self) -> None:
        """Listens to the broker for as long as the floor runs, reconnecting as needed."""
        endpoint = self.settings.endpoint()
        backoff, outage = Backoff(), Outage("floor", endpoint.url)
        while True:
            try:
                client = endpoint.client(self.settings.broker.client_id, clean_session=False)
                async with client:
                    outage.connected()
                    backoff.reset()
                    await self._session(client)
                delay = backoff.delay()
            except (aiomqtt.MqttError, OSError) as exc:
                delay = backoff.delay()
                outage.failed(exc, delay)
            await asyncio.sleep(delay)

    async def _session(self, client: aiomqtt.Client) -> None:
        await client.subscribe([(topic, 1) for topic in subscriptions(self.prefix)])
        self.client = client
        self.connected.set()
        audits = asyncio.create_task(self._audits(), name="floor audits")
        try:
            messages = client.messages
            while True:
                batch = [await anext(messages)]
                while len(messages) and len(batch) < BATCH:
                    batch.append(await anext(messages))
                self.take(batch)
        finally:
            self.connected.clear()
            self.client = None
            audits.cancel()

    async def _audits(self) -> None:
        while True:
            await asyncio.sleep(AUDIT_EVERY)
            now = time.monotonic()
            for name in list(self.views):
                self._audit(name, now)

    # -- what arrives ----------------------------------------------------------------

    def take(self, batch: list[aiomqtt.Message]) -> None:
        """Keeps a batch of messages: rows into copies, statuses, states' versions."""
        now, wall = time.monotonic(), time.time()
        rows: dict[str, list[Row]] = {}
        heard: set[str] = set()
        changed: set[str] = set()
        for message in batch:
            where = table_topic(self.prefix, message.topic.value)
            if where is None:
                continue
            name, kind = where
            heard.add(name)
            try:
                if self._message(name, kind, message, rows, wall):
                    changed.add(name)
            except Exception as exc:  # a table's message must never stop the floor
                self._bad(name, kind, exc)
        changed |= self._keep(rows, now, wall)
        for name in heard:
            if name in self.views:
                self._audit(name, now)
        if changed:
            for watcher in list(self.watchers):
                watcher(changed)

    def _message(
        self, name: str, kind: str, message: aiomqtt.Message, rows: dict[str, list[Row]], wall
    ) -> bool:
        """One message of a table's; True when the page must hear of it at once."""
        payload = message.payload if isinstance(message.payload, bytes) else b""
        if kind == "journal":
            return self._row(name, payload, rows)
        elif kind == "status":
            self._status(name, payload, wall, live=not message.retain)
            return True
        elif kind == "state":
            return self._state(name, payload, live=not message.retain)
        return False

    def _row(self, name: str, payload: bytes, rows: dict[str, list[Row]]) -> bool:
        """Adds the row in ``payload`` to the table's; True if it was refused."""
        try:
            rows.setdefault(name, []).append(decode_row(payload))
        except ValueError as exc:
            self._refused(name, "journal", exc)
            return True
        return False

    def _keep(self, rows: dict[str, list[Row]], now: float, wall: float) -> set[str]:
        """Each table's new rows into its copy, then through its engine; the tables that grew.
        Whatever fails with one table's rows is that table's alone: the others are kept."""
        grew = set()
        for name, arrived in rows.items():
            try:
                if arrived and self._keep_rows(name, arrived, now, wall):
                    grew.add(name)
            except Exception as exc:
                view = self.views.get(name)
                if view is None:  # its copy cannot be opened
                    self._bad(name, "journal", exc)
                else:
                    view.not_kept(exc)
                    grew.add(name)
        return grew

    def _keep_rows(self, name: str, arrived: list[Row], now: float, wall: float) -> bool:
        """A table's new rows into its copy, then through its engine; True if its line changed."""
        view = self.view(name)
        gap = self.gaps[name]
        gap.known = max(gap.known, max(row.seq for row in arrived))
        added = view.copy.add(arrived, wall)
        changes = view.changes
        view.compared(added)
        if added.breaks is not None:
            gap.paused = True
        elif added.taken:
            gap.paused = False
        if added.taken:
            view.apply(added.taken)
            gap.grew_at = now
        return view.changes != changes

    def _status(self, name: str, payload: bytes, wall: float, live: bool) -> None:
        try:
            status = decode_status(payload)
        except ValueError as exc:
            self._refused(name, "status", exc)
            return
        self.view(name).heard(status.online, wall, status.instance, live=live)
        if status.online:
            self.gaps[name].paused = False  # a new start: its rows may continue the copy now

    def _state(self, name: str, payload: bytes, live: bool) -> bool:
        """Where the table's journal ends: a newer state corrects what the floor believed."""
        try:
            state = decode_state(payload)
        except ValueError as exc:
            self._refused(name, "state", exc)
            return True
        view, gap = self.view(name), self.gaps[name]
        corrected = state.version < gap.known  # the watchers hear of a belief set right
        gap.known = state.version
        if not live or state.head is None:
            return corrected
        changes = view.changes
        view.ended(state.head.seq, state.head.digest())
        if state.balances is not None and state.head.seq == state.version:
            view.states(state.version, state.balances)  # the table stood at that very row
        return corrected or view.changes != changes

    def _refused(self, name: str, kind: str, exc: ValueError) -> None:
        """A message that is not what its topic says: logged, and counted against its table
        on the page."""
        self._bad(name, kind, exc)
        self.view(name).refused(kind, str(exc))

    def _bad(self, name: str, kind: str, exc: Exception) -> None:
        """A message the floor could not take: told once per table and topic."""
        if (name, kind) not in self._told_bad:
            self._told_bad.add((name, kind))
            log.warning("floor: %s: ignored a message on %s: %s", name, kind, exc)

    # -- rows the floor lacks ------------------------------------------------------------

    def _audit(self, name: str, now: float) -> None:
        """Asks the table for the rows the floor knows it lacks (see the module's notes)."""
        gap, view = self.gaps[name], self.views[name]
        head = view.copy.head
        if gap.known <= head:
            gap.asked_at = None
            return
        if self.client is None or gap.paused or view.online is False:
            return
        if gap.asked_at is not None and (now - gap.asked_at < RETRY or now - gap.grew_at < RETRY):
            return
        gap.asked_at = now
        log.info(
            "floor: %s: rows %d to %d are missing; asking the table", name, head + 1, gap.known
        )
        topic = topics(self.prefix, name).resend
        asyncio.get_running_loop().create_task(self._ask(topic, head + 1))

    async def _ask(self, topic: str, seq: int) -> None:
        client = self.client
        if client is None:
            return
        with contextlib.suppress(aiomqtt.MqttError):
            await client.publish(topic, encode_resend(seq), qos=1)
