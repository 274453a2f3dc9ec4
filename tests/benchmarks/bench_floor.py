"""The floor of tables, through a real Mosquitto on this machine.

Prints: the floor's ingest rate (rows a second from the broker into the
copies and through the engines: 20 tables' nights waiting at the broker while
the floor was away, taken when it comes back; goal 5,000 rows/s); the time
from a card entered at a table to the floor page's event stream showing it,
with 20 tables dealing and publishing at once (goal p99 250 ms); and a card
frame to its acknowledgement at a table on a pty with the floor off, on, and
on with its broker down (goal: the same within noise).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiomqtt
import httpx

from faro_pi.floor import command
from faro_pi.floor.config import load_floor_config
from faro_pi.floor.wire import subscriptions, topics
from faro_pi.game.cards import DECK
from faro_pi.game.demo import play
from faro_pi.shoe.fsp1 import CardFrame, FrameParser, Hello
from tests.benchmarks.bench_daemon import PACE, Child
from tests.benchmarks.figures import percentile, report
from tests.broker import FLOOR_USER, Mosquitto
from tests.conftest import write_config
from tests.floor_table import row_messages
from tests.ports import free_port

TABLES = 20
INGEST_ROWS = 2500
"""Rows of each table's night waiting at the broker for the ingest run."""
LATENCY_SECONDS = 12.0
CARD_EVERY = 0.5
"""Seconds between two cards at one table: a brisk dealer."""
FLOOR_PASSWORD = "the-floor-watches"
SEATS = ("Ann", "Bob", "Cy", "Dee")


def password(name: str) -> str:
    return f"{name}-secret"


def names() -> list[str]:
    return [f"t{i}" for i in range(1, TABLES + 1)]


def broker_in(folder: Path) -> Mosquitto:
    users = {FLOOR_USER: FLOOR_PASSWORD, **{name: password(name) for name in names()}}
    broker = Mosquitto(folder / "broker", users)
    broker.start()
    return broker


def floor_config(folder: Path, broker: Mosquitto) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "floor.password").write_text(FLOOR_PASSWORD + "\n")
    (folder / "floor.password").chmod(0o600)
    path = folder / "floor.toml"
    path.write_text(
        f'[broker]\nurl = "{broker.url}"\nusername = "{FLOOR_USER}"\n'
        'password_file = "floor.password"\n[store]\npath = "store"\n'
        f'[page]\nport = {free_port()}\ntoken = "bench-floor-token"\n'
    )
    return path


def night_rows(seed: int, count: int) -> list[bytes]:
    """A table's first ``count`` journal rows as the publisher sends them."""
    events = play(random.Random(seed), SEATS, packs=count // 100 + 2)
    return row_messages(event for _, event in zip(range(count), events, strict=False))


# -- the ingest rate -----------------------------------------------------------------------


async def fill(broker: Mosquitto, floor_id: str) -> int:
    """Leaves every table's rows waiting at the broker for the floor's session."""
    async with aiomqtt.Client(
        "127.0.0.1",
        broker.port,
        username=FLOOR_USER,
        password=FLOOR_PASSWORD,
        identifier=floor_id,
        clean_session=False,
    ) as floor:
        await floor.subscribe([(topic, 1) for topic in subscriptions("faro")])
    total = 0
    for number, name in enumerate(names(), start=1):
        rows = night_rows(number, INGEST_ROWS)
        async with aiomqtt.Client(
            "127.0.0.1", broker.port, username=name, password=password(name)
        ) as table:
            table.pending_calls_threshold = 10**6
            topic = topics("faro", name).journal
            for start in range(0, len(rows), 200):
                await asyncio.gather(
                    *(table.publish(topic, row, qos=1) for row in rows[start : start + 200])
                )
        total += len(rows)
    return total


async def ingest(folder: Path) -> tuple[int, float]:
    broker = broker_in(folder)
    try:
        settings = load_floor_config(floor_config(folder / "floor", broker))
        total = await fill(broker, settings.broker.client_id)
        ready = asyncio.get_running_loop().create_future()
        started = time.perf_counter()
        serving = asyncio.create_task(
            command.serve(settings, environ={}, started=lambda *a: ready.set_result(a))
        )
        boss, _, stop, _ = await ready

        def copied() -> int:
            return sum(view.copy.head for view in boss.views.values())

        while copied() < total:
            await asyncio.sleep(0.01)
        elapsed = time.perf_counter() - started
        stop.set()
        await serving
        return total, elapsed
    finally:
        broker.stop()


# -- card to the floor page ------------------------------------------------------------------

TABLES_SCRIPT = """
import asyncio, json, random, sys, time
from pathlib import Path
from faro_pi.floor.publisher import Publisher
from faro_pi.game.demo import play
from faro_pi.config import load_config
from faro_pi.service.daemon import Daemon
from faro_pi.service.journal import Journal

async def main(folders, seconds, every, out):
    daemons = []
    for folder in folders:
        config = load_config(Path(folder) / "config.toml", environ={})
        daemon = Daemon(config, Journal.open(config.journal.path))
        Publisher.start(daemon, config)
        daemons.append((daemon, iter(play(random.Random(len(daemons)), ("Ann", "Bob"), packs=50))))
    await asyncio.sleep(3)  # every publisher connected
    entered = []
    until = time.monotonic() + seconds
    turn = 0
    while time.monotonic() < until:
        daemon, events = daemons[turn % len(daemons)]
        turn += 1
        for event in events:
            daemon.enter(event)
            if type(event).__name__ == "CardDrawn":
                row = daemon.journal.count()
                entered.append((daemon.config.floor.table, row, time.monotonic()))
                break
        await asyncio.sleep(every / len(daemons))
    await asyncio.sleep(2)
    Path(out).write_text(json.dumps(entered))

asyncio.run(main(sys.argv[1:-3], float(sys.argv[-3]), float(sys.argv[-2]), sys.argv[-1]))
"""


def table_folders(folder: Path, broker: Mosquitto) -> list[Path]:
    folders = []
    for name in names():
        path = folder / name
        path.mkdir(parents=True)
        config = write_config(path)
        (path / "floor.password").write_text(password(name) + "\n")
        (path / "floor.password").chmod(0o600)
        config.write_text(
            config.read_text()
            + f'\n[floor]\nbroker = "{broker.url}"\ntable = "{name}"\nusername = "{name}"\n'
            'password_file = "floor.password"\n'
        )
        folders.append(path)
    return folders


async def page_times(port: int, seconds: float) -> dict[tuple[str, int], float]:
    """When each table's row first showed on the floor page's event stream."""
    seen: dict[str, int] = {}
    shown: dict[tuple[str, int], float] = {}
    headers = {"Authorization": "Bearer bench-floor-token"}
    async with (
        httpx.AsyncClient(timeout=None) as http,
        http.stream("GET", f"http://127.0.0.1:{port}/api/events", headers=headers) as stream,
    ):
        until = time.monotonic() + seconds
        kind = None
        async for line in stream.aiter_lines():
            now = time.monotonic()
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: ") and kind == "pit":  # not a beat
                for table in json.loads(line[6:])["tables"]:
                    for seq in range(seen.get(table["name"], 0) + 1, table["rows"] + 1):
                        shown[(table["name"], seq)] = now
                    seen[table["name"]] = max(seen.get(table["name"], 0), table["rows"])
            if now > until:
                break
    return shown


def card_to_page(folder: Path) -> list[float]:
    broker = broker_in(folder)
    floor = subprocess.Popen(
        [sys.executable, "-c", "import sys; from faro_pi.floor.command import run; "
         "sys.exit(run(sys.argv[1]))", str(floor_config(folder / "floor", broker))],
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    port = load_floor_config(folder / "floor" / "floor.toml").page.port
    out = folder / "entered.json"
    try:
        folders = table_folders(folder / "tables", broker)
        time.sleep(1.0)  # the floor's page is up: nothing of it to wait on from here
        tables = subprocess.Popen(
            [sys.executable, "-c", TABLES_SCRIPT, *map(str, folders),
             str(LATENCY_SECONDS), str(CARD_EVERY), str(out)],
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        shown = asyncio.run(page_times(port, LATENCY_SECONDS + 6))
        tables.wait()
    finally:
        floor.terminate()
        floor.wait()
        broker.stop()
    return [
        shown[(name, seq)] - at
        for name, seq, at in json.loads(out.read_text())
        if (name, seq) in shown
    ]


# -- card to its acknowledgement -------------------------------------------------------------


class FloorChild(Child):
    """The daemon on a pty, as bench_daemon's, run through tests.floor_table."""

    def __init__(self, folder: Path):
        import pty
        import socket
        import tty

        self.folder = folder
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        link = folder / "reader"
        link.symlink_to(os.ttyname(self.slave))
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock = folder / f"notify-{time.monotonic_ns()}"
        self.notify.bind(str(sock))
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.floor_table", str(folder / "config.toml")],
            env={**os.environ, "NOTIFY_SOCKET": str(sock)},
            stderr=subprocess.DEVNULL,
        )
        while b"READY=1" not in self.notify.recv(4096):
            pass
        self.ready_after = time.perf_counter() - self.started
        self.parser = FrameParser(to_reader=True)


ACK_RUNS = 6
"""Packs dealt in each mode, the modes taking turns so that the disk sees them alike."""


def one_pack(folder: Path, url: str | None, rng: random.Random) -> list[float]:
    """Card frame to acknowledgement over a pack on a fresh journal (floor on at ``url``)."""
    folder.mkdir(parents=True)
    config = write_config(folder)
    if url is not None:
        (folder / "floor.password").write_text(password("t1") + "\n")
        (folder / "floor.password").chmod(0o600)
        config.write_text(
            config.read_text() + f'\n[floor]\nbroker = "{url}"\ntable = "t1"\n'
            'username = "t1"\npassword_file = "floor.password"\n'
        )
    child = FloorChild(folder)
    child.exchange(Hello(0, "bench"))
    deck = list(DECK)
    rng.shuffle(deck)
    times = []
    for seq, card in enumerate(deck, start=1):
        time.sleep(PACE)
        times.append(child.exchange(CardFrame(seq, card)))
    child.stop()
    return times


def card_to_ack(folder: Path) -> dict[str, list[float]]:
    broker = broker_in(folder)
    floor = subprocess.Popen(
        [sys.executable, "-c", "import sys; from faro_pi.floor.command import run; "
         "sys.exit(run(sys.argv[1]))", str(floor_config(folder / "floor", broker))],
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    modes = {"off": None, "on": broker.url, "on, broker down": f"mqtt://127.0.0.1:{free_port()}"}
    measured: dict[str, list[float]] = {name: [] for name in modes}
    rng = random.Random(7)
    try:
        for run in range(ACK_RUNS):
            for number, (name, url) in enumerate(modes.items()):
                measured[name] += one_pack(folder / f"run{run}-{number}", url, rng)
    finally:
        floor.terminate()
        floor.wait()
        broker.stop()
    return measured


def main() -> None:
    with tempfile.TemporaryDirectory(dir=Path.cwd()) as where:
        base = Path(where)
        total, elapsed = asyncio.run(ingest(base / "ingest"))
        latencies = card_to_page(base / "page")
        measured = card_to_ack(base / "acks")

    print(f"\nthe floor of tables, {TABLES} tables, Mosquitto on this machine")
    rate = total / elapsed
    print(f"{'floor ingest, rows waiting at the broker':<48} {rate:9.0f} rows/s   ({total} rows)")
    report("card to the floor page, 20 tables dealing", latencies, "ms", 1e3)
    print(f"{'':<48} p99 {percentile(latencies, 99) * 1e3:.0f} ms (goal 250 ms)")
    for name, times in measured.items():
        report(f"card frame to its ack, floor {name}", times)


if __name__ == "__main__":
    main()
