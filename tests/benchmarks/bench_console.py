"""The lookout's console as it runs at the table: ``faro-pi run`` with the console on.

Prints, beside the same daemon without a console: start-up to READY=1 and
resident memory once ready; with the console, resident memory after a pack
dealt to an open event stream, and the time from a card frame on the reader's
line to its state at an event-stream client (median, p99); and, with 1,100
connections holding their request heads back (with the unit's LimitNOFILE),
the daemon's CPU to take them and a card frame's time to its acknowledgement;
and a POST's time and size at a full layout (ten seated, 900 bets standing,
the most the rules let nine players hold), over 5,000 POSTs. Last, with
Debian's Chromium on the lookout's page as tests/test_page.py drives it (the
daemon in this process, a virtual reader on a pty): the time from a card
frame to the page drawing its state (goal: a median under 100 ms), and from
the state applied on the daemon to that drawing.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import random
import resource
import select
import shutil
import socket
import tempfile
import time
from pathlib import Path

from faro_pi.game.cards import DECK
from faro_pi.shoe.fsp1 import CardFrame, Hello
from tests.benchmarks.bench_daemon import PACE, Child
from tests.benchmarks.figures import report
from tests.conftest import write_config
from tests.ports import free_port
from tests.test_console_attack import ATTACKERS, hold_back_heads

RUNS = 10
PACKS = 3
"""Packs dealt to an event stream, each on a fresh daemon."""
FILES = 4096
"""The unit's LimitNOFILE, for this process and the daemons it starts."""


def configure(folder: Path, console: bool) -> None:
    path = write_config(folder)
    if console:
        port = free_port()
        path.write_text(path.read_text().replace("enabled = false", f"port = {port}"))
        (folder / "port").write_text(str(port))


class Stream:
    """An event-stream client on a plain socket (HTTP/1.0, so the body is the stream itself)."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(b"GET /api/events HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        self.buffer = b""
        head = self._until(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), head

    def _until(self, end: bytes) -> bytes:
        while end not in self.buffer:
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("the stream ended")
            self.buffer += data
        part, self.buffer = self.buffer.split(end, 1)
        return part

    def ready(self) -> bool:
        return bool(self.buffer) or bool(select.select([self.sock], [], [], 0)[0])

    def state(self) -> dict | None:
        """The next message's state, or None for a beat, a comment or a retry line."""
        lines = self._until(b"\n\n").split(b"\n")
        if b"event: beat" in lines:
            return None
        for line in lines:
            if line.startswith(b"data: "):
                return json.loads(line[6:])
        return None

    def close(self) -> None:
        self.sock.close()


def deal_to_stream(child: Child, stream: Stream, deck: list) -> list[float]:
    """Seconds from each card frame's write to its state at the stream."""
    latencies = []
    for seq, card in enumerate(deck, start=1):
        time.sleep(PACE)
        frame = CardFrame(seq, card).to_bytes()
        os.write(child.master, frame)
        sent = time.perf_counter()
        arrived = False
        while not arrived:
            readable = select.select([child.master, stream.sock], [], [], 0.2)[0]
            if not readable:
                os.write(child.master, frame)  # unacknowledged: the reader sends it again
            if child.master in readable:
                os.read(child.master, 256)  # its acknowledgement
            while not arrived and stream.ready():
                state = stream.state()
                arrived = state is not None and len(state["pack"]["exposed"]) == seq
        latencies.append(time.perf_counter() - sent)
    return latencies


def under_idle_connections(folder: Path, deck: list) -> tuple[list[float], float]:
    """Card frame to acknowledgement with :data:`ATTACKERS` connections holding their request
    heads back, and the daemon's CPU seconds to take those connections."""
    folder.mkdir()
    configure(folder, True)
    child = Child(folder)
    child.exchange(Hello(0, "bench"))
    cpu = child.cpu_seconds()
    held = hold_back_heads(int((folder / "port").read_text()), ATTACKERS)
    time.sleep(0.5)  # nothing to await: the daemon takes the last of them
    cpu = child.cpu_seconds() - cpu
    acks = []
    for seq, card in enumerate(deck, start=1):
        time.sleep(PACE)
        acks.append(child.exchange(CardFrame(seq, card)))
    for sock in held:
        sock.close()
    child.stop()
    return acks, cpu


POSTS = 5_000
"""Posts timed at a full layout: a bet and its taking back, in turn."""


def posts_at_a_full_layout(folder: Path) -> tuple[list[float], int]:
    """Seconds of each of :data:`POSTS` posts with 900 bets standing, and one answer's bytes."""
    folder.mkdir()
    configure(folder, True)
    child = Child(folder)
    token = (folder / "console.token").read_text().strip()
    conn = http.client.HTTPConnection("127.0.0.1", int((folder / "port").read_text()))
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def post(event: dict) -> bytes:
        conn.request("POST", "/api/events", json.dumps(event), headers)
        answer = conn.getresponse()
        body = answer.read()
        assert answer.status == 200, body
        return body

    players = [f"P{i}" for i in range(10)]
    post({"type": "session", "seats": players, "banker": "P0"})
    ranks = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    for player in players[1:]:
        for n in range(100 if player != "P9" else 99):
            post({"type": "bet", "player": player, "rank": ranks[n % 13], "weight": 2})
    times, size = [], 0
    for n in range(POSTS):
        event = {"type": "bet", "player": "P9", "rank": "K", "weight": 4}
        if n % 2:
            event = {"type": "remove", "player": "P9", "rank": "K"}
        started = time.perf_counter()
        size = len(post(event))
        times.append(time.perf_counter() - started)
    conn.close()
    child.stop()
    return times, size


PAGE_PACKS = 2
"""Packs dealt to the page in Chromium."""
PAGE_GOAL = 0.1
"""Seconds from a card frame to its drawing on the page, at the median."""


def card_to_page(folder: Path) -> tuple[list[float], list[float]] | None:
    """Seconds from each card frame's write to the page drawing its state in Chromium, and
    from the state applied on the daemon to that drawing; None without a Chromium."""
    from tests import test_page

    if not (os.path.exists(test_page.CHROMIUM) or shutil.which("chromium")):
        return None
    folder.mkdir()

    async def deal() -> tuple[list[float], list[float]]:
        totals, pushes = [], []
        applied: dict[int, float] = {}
        rng = random.Random(7)
        async with test_page.table_with_page(folder) as table:
            console = test_page.console_of(table.daemon)
            table.daemon.watchers.append(
                lambda _table, _event: applied.setdefault(console.version, time.time())
            )
            table.enter({"type": "session", "seats": test_page.SEATS, "banker": "Cy"})
            await table.shown()
            for number in range(PAGE_PACKS):
                if number:
                    table.enter({"type": "shuffle"})
                    await table.shown()
                deck = [card.code for card in DECK]
                rng.shuffle(deck)
                for code in deck:
                    await asyncio.sleep(PACE)
                    version = table.version + 1
                    sent = time.time()
                    table.reader.card(code)
                    await table.shown(version)
                    drawn = await table.page.evaluate(
                        "v => window.faro.rendered.find(r => r.version >= v).at", version
                    )
                    totals.append(drawn / 1000 - sent)
                    pushes.append(drawn / 1000 - applied[version])
        return totals, pushes

    return asyncio.run(deal())


def main() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(FILES, hard), hard))
    ready = {False: [], True: []}
    rss = {False: [], True: []}
    rss_after_pack, latencies = [], []
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(dir=Path.cwd()) as where:
        base = Path(where)
        for run in range(RUNS):
            for console in (False, True):
                folder = base / f"run{run}-{console}"
                folder.mkdir()
                configure(folder, console)
                child = Child(folder)
                ready[console].append(child.ready_after)
                time.sleep(0.3)  # nothing to await: the process settles after READY=1
                rss[console].append(child.rss_mib())
                if console and run < PACKS:
                    child.exchange(Hello(0, "bench"))
                    stream = Stream(int((folder / "port").read_text()))
                    deck = list(DECK)
                    rng.shuffle(deck)
                    latencies += deal_to_stream(child, stream, deck)
                    rss_after_pack.append(child.rss_mib())
                    stream.close()
                child.stop()
        idle_acks, idle_cpu = [], []
        for run in range(PACKS):
            deck = list(DECK)
            rng.shuffle(deck)
            acks, cpu = under_idle_connections(base / f"idle{run}", deck)
            idle_acks += acks
            idle_cpu.append(cpu)

        post_times, post_size = posts_at_a_full_layout(base / "posts")
        page = card_to_page(base / "page")

    def median(values: list[float]) -> float:
        return sorted(values)[len(values) // 2]

    print(f"\nfaro-pi run on a pty, mock pins; {RUNS} starts each, fresh journals")
    report("start-up to READY=1, no console", ready[False], "ms", 1e3)
    report("start-up to READY=1, console on", ready[True], "ms", 1e3)
    print(f"{'resident memory when ready, no console':<48} median {median(rss[False]):9.1f} MiB")
    print(f"{'resident memory when ready, console on':<48} median {median(rss[True]):9.1f} MiB")
    print(
        f"{'... after a pack to an event stream':<48} median {median(rss_after_pack):9.1f} MiB"
        f"   max {max(rss_after_pack):9.1f} MiB"
    )
    report("card frame to its state at an event stream", latencies, "ms", 1e3)
    print(f"\nthe same with {ATTACKERS:,} connections holding their request heads back")
    report("the daemon's CPU to take them", idle_cpu, "ms", 1e3)
    report("card frame to its acknowledgement, all held", idle_acks, "ms", 1e3)
    print(f"\n{POSTS:,} posts with 900 bets standing (ten seated, nine players at their most)")
    report("a post, to its whole answer", post_times, "ms", 1e3)
    print(f"{'... its answer':<48} {post_size:9d} bytes")
    if page is None:
        print("\nthe lookout's page: skipped, no Chromium (make browser installs Debian's)")
        return
    totals, pushes = page
    print(f"\nthe lookout's page in Chromium, {PAGE_PACKS} packs from a virtual reader")
    report("card frame to its state drawn on the page", totals, "ms", 1e3)
    print(
        f"{'':<48} median {'under' if median(totals) < PAGE_GOAL else 'OVER'} "
        f"the {PAGE_GOAL * 1e3:g} ms goal"
    )
    report("... from the state applied on the daemon", pushes, "ms", 1e3)


if __name__ == "__main__":
    main()
