"""The table's side of the floor: the journal, row by row, to the broker.

The journal is the outbox. A task on the daemon's loop reads the rows that
follow the cursor through a read-only connection of its own, in a worker
thread, and publishes each one, in order, QoS 1, to ``PREFIX/TABLE/journal``
(:mod:`faro_pi.floor.wire`). Up to :data:`WINDOW` rows are on their way at
once; as the broker acknowledges them, in order, the cursor moves, and it is
kept on disk (:mod:`faro_pi.floor.cursor`). After an outage, a restart or a
kill -9, sending starts again after the cursor: nothing committed is
skipped, and a row may arrive twice, never out of order. The floor's
``resend`` request moves the sending back to the row it names.

The table never waits on the floor: the daemon's watcher here only sets two
flags, the card's commit and acknowledgement come first, and everything else
happens after them, in this task. A broker that can't be reached is a line in
the log and a retry, further and further apart (:mod:`faro_pi.floor.broker`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import weakref
from collections import deque
from collections.abc import Callable

import aiomqtt

from faro_pi.config import Config
from faro_pi.floor import twin
from faro_pi.floor.broker import Backoff, Broker, Outage
from faro_pi.floor.cursor import CURSOR_FILE, START, Cursor, Mark
from faro_pi.floor.outbox import Outbox
from faro_pi.floor.wire import decode_resend, head, topics
from faro_pi.game.events import Alarm
from faro_pi.service import view as snapshot
from faro_pi.service.journal import Journal

log = logging.getLogger("faro_pi")

WINDOW = 64
"""Rows published and not yet acknowledged, at most: enough to fill a floor's link."""

ACK_WITHIN = 30.0
"""Seconds the broker has to acknowledge a row before the connection is given up as stuck."""

STATE_EVERY = 0.5
"""The retained state goes out at most twice a second."""

SAVE_EVERY = 1.0
"""Seconds between writes of the cursor while a backlog is being sent."""

POLL = 2.0
"""Seconds between looks at the journal when no watcher call has said it grew."""

_RUNNING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
"""The publisher of each daemon: one journal, one cursor, one publisher."""


class Publisher:
    """Sends one daemon's journal to the floor's broker; see the module's notes."""

    def __init__(self, daemon, config: Config, *, backoff: Callable[[], Backoff] = Backoff):
        settings = config.floor
        self.backoff = backoff
        """Makes the retry delays of each thing retried: the broker, the journal."""
        self.daemon = daemon
        self.name = settings.table
        self.broker = Broker(
            settings.broker, settings.username, settings.password_file, settings.ca_file
        )
        self.topics = topics(settings.prefix, settings.table)
        self.cursor = Cursor(daemon.journal.path.parent / CURSOR_FILE, settings.broker, self.name)
        self.acked = START
        """The last row the broker has acknowledged, with everything before it."""
        self.saved = START
        self.kept_at = 0.0
        self.sent_to = 0
        """The last row published on this connection: the state's version."""
        self.stated = -1
        """The version of the last state published."""
        self.state_kept = -1
        """The version of the last state the broker has acknowledged, and so retains."""
        self.watchers: list[Callable[[], None]] = []
        """Told each time the broker has acknowledged a row or a state."""
        self.resend_from: int | None = None
        self.outbox: Outbox | None = None
        self.grown = asyncio.Event()
        self.state_due = asyncio.Event()
        self.task: asyncio.Task | None = None
        self.instance = twin.instance()
        """This start's, in its ``online`` status (:mod:`faro_pi.floor.twin`)."""
        self.said = False
        """Whether this start has said ``online`` on its status topic yet."""
        self.twin: str | None = None
        """Another table's instance seen under this table's name, once told."""

    @classmethod
    def start(cls, daemon, config: Config, **options) -> Publisher:
        """Starts publishing ``daemon``'s journal (or returns the publisher already doing it)."""
        running = _RUNNING.get(daemon)
        if running is not None:
            return running
        publisher = cls(daemon, config, **options)
        _RUNNING[daemon] = publisher
        daemon.watchers.append(publisher.changed)
        publisher.task = asyncio.get_running_loop().create_task(publisher._run(), name="floor")
        log.info(
            "floor: sending the journal to %s as table %s", publisher.broker.url, publisher.name
        )
        return publisher

    def changed(self, table, event) -> None:
        """The daemon's watcher: a row was journaled and the table changed."""
        self.grown.set()
        self.state_due.set()

    async def close(self) -> None:
        """Says ``offline``, stops, and keeps the cursor (a few seconds at most)."""
        with contextlib.suppress(ValueError):
            self.daemon.watchers.remove(self.changed)
        if self.task is not None:
            self.task.cancel()
            await asyncio.wait({self.task}, timeout=ACK_WITHIN)
        if self.outbox is not None:
            outbox, self.outbox = self.outbox, None
            await asyncio.to_thread(self._keep_cursor)
            await asyncio.to_thread(outbox.close)
        _RUNNING.pop(self.daemon, None)

    # -- the connection ------------------------------------------------------------

    async def _run(self) -> None:
        await self._open()
        backoff, outage = self.backoff(), Outage("floor", self.broker.url)
        while True:
            try:
                await self._connect(outage, backoff)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the table deals on whatever the broker does
                failure = _leaf(exc)
                if not isinstance(failure, aiomqtt.MqttError | OSError):
                    log.exception("floor: the publisher failed; starting it again", exc_info=exc)
                delay = backoff.delay()
                outage.failed(failure, delay)
            else:
                delay = backoff.delay()
            await asyncio.sleep(delay)

    async def _open(self) -> None:
        """Opens the journal for reading and finds the cursor, retrying until it can."""
        backoff = self.backoff()
        while self.outbox is None:
            try:
                self.outbox = await asyncio.to_thread(self._outbox)
            except Exception as exc:
                log.warning("floor: cannot read the journal (%s); trying again", exc)
                await asyncio.sleep(backoff.delay())

    def _outbox(self) -> Outbox:
        mark = self.cursor.load()
        journal = Journal.open(self.daemon.journal.path, readonly=True)
        head = journal.count()
        if mark.seq > head:
            log.warning(
                "floor: the cursor (row %d) is past the journal's end (row %d): a new journal? "
                "sending from row 1",
                mark.seq,
                head,
            )
            mark = START
        self.acked = self.saved = mark
        log.info("floor: %d of %d rows acknowledged by the broker", mark.seq, head)
        return Outbox(journal, mark)

    async def _connect(self, outage: Outage, backoff: Backoff) -> None:
        offline = twin.offline(self.instance)
        will = aiomqtt.Will(self.topics.status, offline, qos=1, retain=True)
        client = self.broker.client(f"faro-pi-{self.name}", will=will, timeout=5)
        client.pending_calls_threshold = WINDOW + 16
        await self._session(client, offline, outage, backoff)

    async def _session(self, client: aiomqtt.Client, offline: bytes, outage, backoff) -> None:
        async with client:
            _taken(client)
            outage.connected()
            backoff.reset()
            try:
                await client.subscribe([(self.topics.resend, 1), (self.topics.status, 1)])
                status = twin.online(self.instance)
                await client.publish(self.topics.status, status, qos=1, retain=True)
                self.sent_to = self.acked.seq
                self.state_due.set()
                async with asyncio.TaskGroup() as group:
                    group.create_task(self._listen(client))
                    group.create_task(self._send(client))
                    group.create_task(self._states(client))
                    group.create_task(self._quiet())
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    await client.publish(self.topics.status, offline, qos=1, retain=True, timeout=1)
                raise

    # -- the tasks of a connection --------------------------------------------------

    async def _listen(self, client: aiomqtt.Client) -> None:
        """Takes the floor's resend requests, and the table's own status (another table's
        instance in it is a twin); ends (raising) when the connection does."""
        said, self.said = self.said, True
        async for message in client.messages:
            if message.topic.value == self.topics.status:
                self._status(message, said_before=said)
                continue
            if message.topic.value != self.topics.resend:
                continue
            try:
                seq = decode_resend(message.payload)
            except ValueError as exc:
                log.warning("floor: ignored a request on %s: %s", self.topics.resend, exc)
                continue
            self.resend_from = seq if self.resend_from is None else min(seq, self.resend_from)
            self.grown.set()
            self.state_due.set()  # with where the journal ends, in case it has no such rows

    def _status(self, message: aiomqtt.Message, said_before: bool) -> None:
        payload = message.payload if isinstance(message.payload, bytes) else b""
        try:
            status = twin.decode_status(payload)
        except ValueError:
            return
        other = twin.other_table(
            status, self.instance, retained=message.retain, said_before=said_before
        )
        if other is not None:
            self._twin(other)

    def _twin(self, other: str) -> None:
        """Another table is on the floor under this one's name: said once a start, loudly."""
        folder = self.daemon.journal.path.parent
        twin.keep_note(folder, self.name, other)
        if self.twin is not None:
            return
        self.twin = other
        text = (
            f"another table is on the floor as {self.name} (its start {other}); the broker "
            "closes one connection for the other: a cloned SD card? give one of them its own "
            "floor.table and broker user"
        )
        log.warning("floor: %s", text)
        try:
            self.daemon.submit(Alarm("floor", text))
        except Exception as exc:  # the table deals on; the log has said it
            log.warning("floor: cannot raise the alarm: %s", exc)

    async def _quiet(self) -> None:
        """A connection that holds, no other table seen, takes the doctor's note away."""
        await asyncio.sleep(twin.QUIET)
        await asyncio.to_thread(twin.drop_note, self.daemon.journal.path.parent)

    async def _send(self, client: aiomqtt.Client) -> None:
        """Publishes the rows after the cursor, and every row that follows, in order."""
        position = self.acked.seq
        pending: deque[tuple[Mark, asyncio.Task]] = deque()
        try:
            while True:
                self.grown.clear()
                position = self._resend_point(position)
                rows = await asyncio.to_thread(self.outbox.read, position)
                for mark, message in rows:
                    publish = client.publish(
                        self.topics.journal, message, qos=1, timeout=ACK_WITHIN
                    )
                    pending.append((mark, asyncio.ensure_future(publish)))
                    self.sent_to = max(self.sent_to, mark.seq)
                    while len(pending) >= WINDOW:
                        await self._acknowledged(*pending.popleft())
                if rows:
                    position = rows[-1][0].seq
                    continue
                while pending:
                    await self._acknowledged(*pending.popleft())
                if self.stated != self.sent_to:
                    self.state_due.set()  # the floor learns how far the journal goes
                await asyncio.to_thread(self._keep_cursor)
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(POLL):
                        await self.grown.wait()
        finally:
            # What the broker has acknowledged already still moves the cursor.
            while pending and pending[0][1].done() and not pending[0][1].cancelled():
                mark, task = pending.popleft()
                if task.exception() is not None or mark.seq != self.acked.seq + 1:
                    break
                self.acked = mark
                self._tell()
            for _, task in pending:
                _settle(task)

    def _resend_point(self, position: int) -> int:
        """Where sending goes on from: back to a row the floor asked for again, if any."""
        seq, self.resend_from = self.resend_from, None
        if seq is None or seq > position:
            return position
        log.info("floor: the floor asked for the rows from %d again", seq)
        return seq - 1

    async def _acknowledged(self, mark: Mark, task: asyncio.Task) -> None:
        await _unless_cancelled(task)
        if mark.seq != self.acked.seq + 1:
            return  # a row sent again, or one the cursor had already passed
        self.acked = mark
        self._tell()
        now = asyncio.get_running_loop().time()
        if now - self.kept_at >= SAVE_EVERY:
            self.kept_at = now
            await asyncio.to_thread(self._keep_cursor)

    def _tell(self) -> None:
        for watcher in list(self.watchers):
            watcher()

    def _keep_cursor(self) -> None:
        mark = self.acked
        if mark == self.saved:
            return
        try:
            self.cursor.save(mark)
        except OSError as exc:
            log.warning("floor: cannot keep the cursor in %s: %s", self.cursor.path, exc)
            return
        self.saved = mark

    async def _states(self, client: aiomqtt.Client) -> None:
        """The table as the console shows it, retained, at most every :data:`STATE_EVERY`, with
        the journal's last row and its hash, which the floor holds against its copy."""
        while True:
            await self.state_due.wait()
            self.state_due.clear()
            version = self.stated = self.sent_to
            state = snapshot.state(self.daemon.table, version)
            state["head"] = await self._head()
            payload = json.dumps(state, separators=(",", ":"), ensure_ascii=False).encode()
            publish = client.publish(
                self.topics.state, payload, qos=1, retain=True, timeout=ACK_WITHIN
            )
            await _unless_cancelled(asyncio.ensure_future(publish))
            self.state_kept = version
            self._tell()
            await asyncio.sleep(STATE_EVERY)

    async def _head(self) -> dict:
        """The journal's last row and its hash, at least as far as every row sent: the state
        goes out right after it (no await between), so the floor never has a row past it."""
        while True:
            seq, hashed = await asyncio.to_thread(self.outbox.end)
            if seq >= self.sent_to:
                return head(seq, hashed)


async def _unless_cancelled(publish: asyncio.Future) -> None:
    """Awaits a publish, shielded: on Python 3.11, aiomqtt's ``wait_for`` may swallow a
    cancellation that arrives as the broker's acknowledgement does, and a task awaiting the
    publish itself would never hear it was cancelled (a stop would hang on it)."""
    try:
        await asyncio.shield(publish)
    except asyncio.CancelledError:
        _settle(publish)
        raise


def _settle(publish: asyncio.Future) -> None:
    """Cancels a publish still on its way, and takes the failure of one that failed: the
    connection is going, and a failure no one took is an error in the loop's log."""
    if not publish.done():
        publish.cancel()
    elif not publish.cancelled():
        publish.exception()


def _taken(client: aiomqtt.Client) -> None:
    """Takes, once it comes, the failure aiomqtt keeps for a connection lost while no one
    was reading its messages (in a subscribe or a publish, or once the connection is left, as
    when another client takes our id over and over): left, it is a 'Future exception was
    never retrieved' in the loop's log."""
    lost = getattr(client, "_disconnected", None)
    if isinstance(lost, asyncio.Future):
        lost.add_done_callback(lambda done: done.cancelled() or done.exception())


def _leaf(exc: BaseException) -> BaseException:
    """The first exception inside a task group's group of them."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc
