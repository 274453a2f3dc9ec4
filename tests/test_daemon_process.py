"""The daemon as systemd runs it: ``faro-pi run`` in its own process, on a pty card reader.

Each test plays systemd's notify socket (read all the time, as systemd does:
the daemon's sends block once the socket's queue is full, ten datagrams by
Linux's default ``net.unix.max_dgram_qlen``) and the card
reader (a :class:`VirtualReader` on this test's loop), then kills, stops,
restarts or disconnects the daemon and checks what a user would see: the
journal as ``faro-pi export`` prints it, what ``faro-pi replay`` makes of
that, the exit status, and what the daemon told systemd and its log.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import itertools
import json
import os
import random
import re
import signal
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from faro_pi.game.cards import DECK, Card
from faro_pi.game.codec import event_to_json
from faro_pi.game.demo import play
from faro_pi.game.events import Bet, CardDrawn, Session
from faro_pi.game.rules import Table
from faro_pi.service.journal import Change, Journal
from faro_pi.service.restore import restore
from faro_pi.virtual.reader import VirtualReader
from tests.conftest import NotifySocket, write_config

INHERITED = ("NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID", "JOURNAL_STREAM")
"""Variables a test runner started by systemd would pass on; each test sets its own."""

STATUS = re.compile(r"STATUS=pack (\d+), (\d+) cards? out")


def environ(notify: NotifySocket | None = None, **more: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in INHERITED}
    env.pop("GPIOZERO_PIN_FACTORY", None)  # the config's "mock" must be what counts
    if notify is not None:
        env["NOTIFY_SOCKET"] = notify.path
    return {**env, **more}


def cards_out(line: str) -> int | None:
    """The number of cards out in a ``STATUS=`` line, or None for any other line."""
    match = STATUS.match(line)
    return None if match is None else int(match[2])


class Notices:
    """systemd's side of sd_notify: every datagram is read at once and kept, to be awaited."""

    def __init__(self, folder: Path):
        self.socket = NotifySocket(folder)
        self.socket.sock.setblocking(False)
        self.messages: list[list[str]] = []
        """The lines of every message, in order."""
        self._arrived = asyncio.Event()
        self._task = asyncio.create_task(self._read())

    async def _read(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            data = await loop.sock_recv(self.socket.sock, 4096)
            self.messages.append(data.decode().splitlines())
            self._arrived.set()

    async def find(
        self, match: str | Callable[[str], object], *, since: int = 0, timeout: float = 15.0
    ) -> int:
        """Index of the first message from ``since`` on with a line ``match`` accepts.

        ``match`` is a whole line, or a test of one.
        """
        test = match if callable(match) else match.__eq__
        at = since
        async with asyncio.timeout(timeout):
            while True:
                while at < len(self.messages):
                    if any(test(line) for line in self.messages[at]):
                        return at
                    at += 1
                self._arrived.clear()
                await self._arrived.wait()

    def lines(self, since: int = 0) -> list[str]:
        return [line for lines in self.messages[since:] for line in lines]

    async def aclose(self) -> None:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self.socket.close()


class DaemonProcess:
    """One ``faro-pi run`` process: its notices from ``since`` on, and its log lines."""

    def __init__(self, proc: asyncio.subprocess.Process, notices: Notices, since: int):
        self.proc, self.notices, self.since = proc, notices, since
        self.log: list[str] = []
        self._logging = asyncio.create_task(self._collect())

    async def _collect(self) -> None:
        async for line in self.proc.stderr:
            self.log.append(line.decode().rstrip("\n"))

    async def ready(self, timeout: float = 20.0) -> list[str]:
        """The lines of the READY=1 message; fails with the daemon's log if it exits first."""
        waiting = asyncio.create_task(
            self.notices.find("READY=1", since=self.since, timeout=timeout)
        )
        exited = asyncio.create_task(self.proc.wait())
        await asyncio.wait({waiting, exited}, return_when=asyncio.FIRST_COMPLETED)
        if not waiting.done():
            waiting.cancel()
            await self.finished()
            pytest.fail(
                f"the daemon exited with {self.proc.returncode} before READY=1:\n"
                + "\n".join(self.log)
            )
        exited.cancel()
        return self.notices.messages[waiting.result()]

    async def status_reaches(self, count: int, timeout: float = 15.0) -> int:
        """Waits for a STATUS= with at least ``count`` cards out; returns its message's index."""
        return await self.notices.find(
            lambda line: (cards_out(line) or 0) >= count, since=self.since, timeout=timeout
        )

    async def stop(self, timeout: float = 30.0) -> int:
        """SIGTERM; the exit status. ``timeout`` only tells a hang from an exit: how soon the
        daemon exits is bench_daemon's figure (make bench)."""
        self.proc.send_signal(signal.SIGTERM)
        async with asyncio.timeout(timeout):
            status = await self.proc.wait()
        await self.finished()
        return status

    async def kill(self) -> int:
        self.proc.kill()
        status = await self.proc.wait()
        await self.finished()
        return status

    async def finished(self) -> list[str]:
        """The whole log, once the process has exited."""
        async with asyncio.timeout(10):
            await self.proc.wait()
            await self._logging
        return self.log


class Rig:
    """A table folder with its notify socket and reader, and every daemon started on it."""

    def __init__(self, folder: Path, reader: VirtualReader | None = None):
        self.folder = folder
        self.config = folder / "config.toml"
        self.journal = folder / "journal.sqlite3"
        self.notices = Notices(folder)
        self.reader = reader
        self.daemons: list[DaemonProcess] = []

    async def start(self, **env: str) -> DaemonProcess:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            *("-m", "faro_pi.cli", "run", "--config", str(self.config)),
            env=environ(self.notices.socket, **env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        daemon = DaemonProcess(proc, self.notices, len(self.notices.messages))
        self.daemons.append(daemon)
        return daemon

    async def aclose(self) -> None:
        for daemon in self.daemons:
            if daemon.proc.returncode is None:
                daemon.proc.kill()
            await daemon.finished()
        if self.reader is not None:
            self.reader.close()
        await self.notices.aclose()


@contextlib.asynccontextmanager
async def rig(folder: Path, reader: VirtualReader | None = None):
    if reader is not None:
        reader.plug()
    table = Rig(folder, reader)
    try:
        yield table
    finally:
        await table.aclose()


class Result(NamedTuple):
    status: int
    out: str
    err: str


async def faro(*args: str, timeout: float = 30.0) -> Result:
    """``faro-pi ARGS`` in a process of its own, awaited without stopping this loop."""
    proc = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "faro_pi.cli", *args),
        env=environ(),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(timeout):
            out, err = await proc.communicate()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    return Result(proc.returncode, out.decode(), err.decode())


async def export(folder: Path) -> tuple[Path, list[dict]]:
    """``faro-pi export`` of the folder's table, saved to a file; the file and its events."""
    result = await faro("export", "--config", str(folder / "config.toml"))
    assert result.status == 0, f"faro-pi export failed: {result.err}"
    path = folder / f"export-{len(list(folder.glob('export-*')))}.jsonl"
    path.write_text(result.out)
    return path, [json.loads(line) for line in result.out.splitlines()]


async def replay(path: Path) -> dict:
    """What ``faro-pi replay`` reports for ``path``; it must refuse no line."""
    result = await faro("replay", str(path))
    assert result.status == 0, result.err
    assert result.err == "", f"faro-pi replay refused lines of the export:\n{result.err}"
    [line] = result.out.splitlines()
    return json.loads(line)


def card_codes(events: list[dict]) -> list[str]:
    return [e["card"] for e in events if e["type"] == "card"]


async def deal(reader: VirtualReader, cards: list[Card], batch: int = 13) -> None:
    """The dealer draws ``cards`` through the reader, ``batch`` at a time (it holds 32 frames)."""
    for i in range(0, len(cards), batch):
        for card in cards[i : i + batch]:
            reader.card(card.code)
        await reader.drained()


def seeded_deck(seed: int) -> list[Card]:
    deck = list(DECK)
    random.Random(seed).shuffle(deck)
    return deck


# -- kill -9 and restart ------------------------------------------------------------


@pytest.mark.parametrize("kill_after", [3, 20, 44])
async def test_kill_9_mid_pack_then_restart_loses_and_doubles_no_card(table_dir, kill_after):
    deck = seeded_deck(kill_after)

    async def scenario():
        reader = VirtualReader(table_dir / "reader", retry=0.05, rng=random.Random(kill_after))
        reader.lose_acks = 0.2
        async with rig(table_dir, reader) as table:
            first = await table.start()
            await first.ready()
            dealing = asyncio.create_task(deal(reader, deck))
            await first.status_reaches(kill_after)
            # From here no acknowledgement reaches the reader, so the card it sends
            # next is journaled (once the daemon says so) but never acknowledged.
            reader.lose_acks = 1.0
            in_flight = reader.acks  # the hello and cards 1..n-1 are acknowledged: n is next
            at = await first.status_reaches(in_flight)
            out_before_kill = max(filter(None, map(cards_out, table.notices.lines(at))))
            assert reader.sender.pending(), "the kill must find frames still unacknowledged"
            assert await first.kill() == -signal.SIGKILL
            reader.lose_acks = 0.2

            second = await table.start()
            [status] = [line for line in await second.ready() if line.startswith("STATUS=")]
            assert cards_out(status) >= out_before_kill, (
                f"the killed daemon had said {out_before_kill} cards were out; "
                f"after the restart: {status}"
            )
            async with asyncio.timeout(20):
                await dealing
            await second.status_reaches(52)
            stopped = await second.stop()
            assert stopped == 0, "\n".join(second.log)

            path, events = await export(table_dir)
            summary = await replay(path)
        return events, summary

    events, summary = await scenario()
    assert card_codes(events) == [card.code for card in deck], "a card was lost or doubled"
    assert [e for e in events if "refused" in e] == [], "a repeated frame was applied again"
    assert [e for e in events if e["type"] == "alarm"] == []
    assert summary["rejected"] == []
    assert (summary["pack"], summary["exposed"]) == (1, 52)


# -- SIGTERM and sd_notify -------------------------------------------------------------


async def test_sigterm_stops_the_daemon_cleanly_and_says_so_to_systemd(table_dir):
    async def scenario():
        reader = VirtualReader(table_dir / "reader", retry=0.05)
        async with rig(table_dir, reader) as table:
            daemon = await table.start()
            await daemon.ready()
            reader.card("KD")
            await reader.drained()
            status = await daemon.stop()
            await table.notices.find("STOPPING=1", since=daemon.since)
            log = await daemon.finished()
            _, events = await export(table_dir)
        return status, log, events

    status, log, events = await scenario()
    assert status == 0, "\n".join(log)
    assert card_codes(events) == ["KD"]
    # Stopped cleanly, the journal is one self-contained file again: a copy is a backup.
    assert sorted(p.name for p in table_dir.glob("journal.sqlite3*")) == ["journal.sqlite3"]


async def test_sd_notify_ready_with_status_watchdog_pings_and_a_status_per_card(table_dir):
    reader = VirtualReader(table_dir / "reader", retry=0.05)
    async with rig(table_dir, reader) as table:
        daemon = await table.start(WATCHDOG_USEC="200000")
        [status] = [line for line in await daemon.ready() if line.startswith("STATUS=")]
        assert cards_out(status) == 0, status

        # Pings every 0.1 s, half of WATCHDOG_USEC (test_deployment checks the half): the
        # bound only tells pings from none.
        async with asyncio.timeout(30):
            at = -1
            for _ in range(3):
                at = await table.notices.find("WATCHDOG=1", since=at + 1)

        since = len(table.notices.messages)
        reader.card("QS")
        at = await table.notices.find(lambda line: cards_out(line) == 1, since=since)
        [status] = [line for line in table.notices.messages[at] if line[:7] == "STATUS="]
        assert status.startswith("STATUS=pack 1, 1 card"), status
        stopped = await daemon.stop()
        assert stopped == 0


# -- export while running ------------------------------------------------------------


async def test_export_while_running_prints_the_events_so_far_and_replays_to_the_same_balances(
    table_dir,
):
    deck = seeded_deck(4)
    ranks = [card.rank for card in deck]
    seated = [
        Session(("Ann", "Bob", "Cy"), "Cy"),
        Bet("Ann", ranks[2], 10),  # on the winner of the first turn
        Bet("Bob", ranks[1], 4, copper=True),  # coppered on its loser
        Bet("Ann", ranks[3], 2),  # on the loser of the second turn
        Bet("Bob", ranks[6], 6),  # on the winner of the third turn
    ]
    with Journal.open(table_dir / "journal.sqlite3") as journal:
        for event in seated:
            journal.append([Change(event_to_json(event))])
    dealt, later = deck[:9], deck[9]
    expected = Table()
    for event in [*seated, *(CardDrawn(card, "reader") for card in dealt)]:
        expected.apply(event)
    assert any(expected.balances.values()), "the deal must move some balance"

    async def scenario():
        reader = VirtualReader(table_dir / "reader", retry=0.05)
        async with rig(table_dir, reader) as table:
            daemon = await table.start()
            await daemon.ready()
            await deal(reader, dealt)
            await daemon.status_reaches(len(dealt))

            path, events = await export(table_dir)
            assert daemon.proc.returncode is None, "faro-pi export stopped the daemon"
            summary = await replay(path)
            with Journal.open(table.journal, readonly=True) as journal:
                journaled = restore(journal)

            reader.card(later.code)  # the daemon still deals after the export
            await reader.drained()
            await daemon.status_reaches(len(dealt) + 1)
            stopped = await daemon.stop()
            assert stopped == 0
        return events, summary, journaled

    events, summary, journaled = await scenario()
    assert events == [
        *(event_to_json(event) for event in seated),
        *({"type": "card", "card": card.code, "source": "reader"} for card in dealt),
    ]
    assert summary["balances"] == journaled.balances == expected.balances
    assert summary["exposed"] == len(dealt)


# -- refusing to start ---------------------------------------------------------------


def garbage(path: Path) -> None:
    path.write_bytes(random.Random(5).randbytes(64 * 1024))


def overwritten_page(path: Path) -> None:
    """A journal of a few packs whose middle page a failing SD card replaced with noise."""
    with Journal.open(path) as journal:
        # one commit, not one fsync an event
        journal.append([Change(e) for e in play(random.Random(2), ("Ann", "Bob", "Cy"), packs=4)])
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    events = data.index(b'"type":"bet"', len(data) // 3)  # a page that holds events
    start = events // page * page
    data[start : start + page] = random.Random(6).randbytes(page)
    path.write_bytes(bytes(data))


def a_night_then(path: Path, edit: str | None, more: list) -> None:
    """A night with no shuffle yet, started once (the mark moves to its end), then ``edit``ed
    with the sqlite3 shell (the triggers dropped first), then ``more`` appended as faro-pi would."""
    night = [Session(("Ann", "Bob", "Cy"), "Cy"), Bet("Ann", 9, 4), Bet("Bob", 5, 2)]
    with Journal.open(path) as journal:
        journal.append([Change(e) for e in night + [CardDrawn(c, "reader") for c in DECK[:9]]])
    with Journal.open(path) as journal:  # a start: the verified mark moves to row 12
        journal.append([Change(event) for event in more])
    if edit is not None:
        db = sqlite3.connect(path, isolation_level=None)
        db.execute("DROP TRIGGER events_no_update")
        db.execute(edit)
        db.close()


def a_bet_raised_before_the_mark(path: Path) -> None:
    """Row 2's bet of 4 made 400: no resume point yet, so a start replays it, and must check it."""
    raised = (
        """UPDATE events SET event = replace(event, '"weight":4', '"weight":400') WHERE id = 2"""
    )
    a_night_then(path, raised, [])


def rows_that_no_longer_apply(path: Path) -> None:
    """A chain that verifies over rows the rules refuse (a card dealt twice): the start is
    refused only at the replay, which must come before the mark moves or the log is set up."""
    a_night_then(path, None, [CardDrawn(DECK[10], "reader"), CardDrawn(DECK[10], "reader")])


@pytest.mark.parametrize(
    "damage", [garbage, overwritten_page, a_bet_raised_before_the_mark, rows_that_no_longer_apply]
)
async def test_a_corrupt_journal_stops_the_start_with_one_line_and_is_left_alone(table_dir, damage):
    journal = table_dir / "journal.sqlite3"
    damage(journal)
    before = hashlib.sha256(journal.read_bytes()).hexdigest()

    async def scenario():
        async with rig(table_dir) as table:
            daemon = await table.start()
            async with asyncio.timeout(15):
                status = await daemon.proc.wait()
            return status, await daemon.finished(), table.notices.lines()

    status, log, notices = await scenario()
    assert status != 0
    assert len(log) == 1, log
    assert str(journal) in log[0]
    assert "READY=1" not in notices
    assert hashlib.sha256(journal.read_bytes()).hexdigest() == before
    beside = sorted(p.name for p in table_dir.glob("journal.sqlite3*"))
    assert beside == ["journal.sqlite3"], "faro-pi made files beside the journal"


BROKEN_CONFIGS = {
    "reader.colour": lambda text: text.replace("[reader]\n", '[reader]\ncolour = "red"\n'),
    "buttons.undo": lambda text: text.replace("[buttons]\n", "[buttons]\nundo = 17\n"),
    "reader.port": lambda text: re.sub(r"(?m)^port = .*\n", "", text),
}


async def test_config_errors_exit_2_with_one_line_naming_the_key(tmp_path):
    configs = {}
    for key, breaking in BROKEN_CONFIGS.items():
        folder = tmp_path / key
        folder.mkdir()
        path = write_config(folder)
        path.write_text(breaking(path.read_text()))
        configs[key] = path

    async def scenario():
        runs = [faro("run", "--config", str(path)) for path in configs.values()]
        return dict(zip(configs, await asyncio.gather(*runs), strict=True))

    for key, result in (await scenario()).items():
        assert result.status == 2, (key, result)
        [line] = result.err.splitlines()
        assert f"{configs[key]}: {key}:" in line, line
        assert not (configs[key].parent / "journal.sqlite3").exists()


# -- a long journal ---------------------------------------------------------------------


async def test_restart_from_a_journal_of_10000_events(table_dir):
    events = list(
        itertools.islice(play(random.Random(1), ("Ann", "Bob", "Cy", "Dee"), 200), 10_000)
    )
    with Journal.open(table_dir / "journal.sqlite3") as journal:
        journal.append([Change(event) for event in events])  # one commit, not 10,000 fsyncs
    last = Table()
    for event in events:
        last.apply(event)

    async def scenario():
        reader = VirtualReader(table_dir / "reader", retry=0.05)
        async with rig(table_dir, reader) as table:
            daemon = await table.start()
            ready = await daemon.ready()
            stopped = await daemon.stop()
            assert stopped == 0
        return ready

    ready = await scenario()  # how soon: bench_daemon's start-up with 10,000 events
    [status] = [line for line in ready if line.startswith("STATUS=")]
    pack, out = map(int, STATUS.match(status).groups())
    assert (pack, out) == (last.pack.number, len(last.pack.exposed)), status


# -- a pulled cable --------------------------------------------------------------------


async def test_a_pulled_reader_cable_loses_and_doubles_no_card(table_dir):
    deck = seeded_deck(8)

    async def scenario():
        reader = VirtualReader(table_dir / "reader", retry=0.05, rng=random.Random(8))
        async with rig(table_dir, reader) as table:
            daemon = await table.start()
            await daemon.ready()
            dealing = asyncio.create_task(deal(reader, deck))
            await daemon.status_reaches(20)
            assert reader.sender.pending(), "the cable must be pulled with cards still queued"
            await reader.unplug(1.0)
            async with asyncio.timeout(20):
                await dealing
            await daemon.status_reaches(52)
            stopped = await daemon.stop()
            assert stopped == 0
            _, events = await export(table_dir)
            return events, daemon.log

    events, log = await scenario()
    assert card_codes(events) == [card.code for card in deck]
    assert [e for e in events if "refused" in e or e["type"] == "alarm"] == []
    gone = [i for i, line in enumerate(log) if "went away" in line]
    assert gone, "the log must say the reader went away:\n" + "\n".join(log)
    back = [line for line in log[gone[0] + 1 :] if re.search(r"(?<!cannot )\bopen\b", line)]
    assert back, "the log must say the reader is open again:\n" + "\n".join(log)
