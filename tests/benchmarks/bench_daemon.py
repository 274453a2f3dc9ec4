"""The daemon as it runs at the table: a child process on a pseudo-terminal.

Prints: card frame to acknowledgement (median, p99) beside a bare 64-byte
write+fsync on the same disk (the floor of a durable acknowledgement);
start-up to READY=1, empty and with a 10,000-event journal; idle CPU;
resident memory after a pack; and SIGTERM to exit, as a club runs the table.
"""

from __future__ import annotations

import os
import pty
import random
import select
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import tty
from pathlib import Path

from faro_pi.game.cards import DECK
from faro_pi.game.codec import event_to_json
from faro_pi.game.demo import play
from faro_pi.service.journal import Change, Journal
from faro_pi.shoe.fsp1 import Ack, CardFrame, FrameParser, Hello
from tests.benchmarks.figures import percentile, report
from tests.conftest import write_config
from tests.ports import free_port

RUNS = 6
IDLE = 6.0
"""Seconds of idleness measured (three times); /proc counts CPU in 10 ms ticks."""
PACE = 0.02
"""Seconds between cards; a fast dealer needs about half a second a card."""


class Child:
    """``faro-pi run`` on a fresh pty, with a notify socket to hear READY=1."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        link = folder / "reader"
        if link.is_symlink():
            link.unlink()
        link.symlink_to(os.ttyname(self.slave))
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock = folder / f"notify-{time.monotonic_ns()}"
        self.notify.bind(str(sock))
        env = {**os.environ, "NOTIFY_SOCKET": str(sock)}
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "faro_pi.cli", "run", "--config", str(folder / "config.toml")],
            env=env,
            stderr=None if os.environ.get("BENCH_DEBUG") else subprocess.DEVNULL,
        )
        while b"READY=1" not in self.notify.recv(4096):
            pass
        self.ready_after = time.perf_counter() - self.started
        self.parser = FrameParser(to_reader=True)

    def exchange(self, frame: CardFrame | Hello) -> float:
        """Writes a frame, as the reader does every 200 ms until it is acknowledged.

        Only an ``A`` of the frame's own sequence number acknowledges it: an ack that took
        over 200 ms comes after the resend, and a later one of the same number is a stale
        answer, never the next card's. Returns the seconds from the last write of the frame
        to its acknowledgement.
        """
        data = frame.to_bytes()
        while True:
            os.write(self.master, data)
            start = time.perf_counter()
            while select.select([self.master], [], [], 0.2)[0]:
                frames = self.parser.feed(os.read(self.master, 256))
                if any(isinstance(f, Ack) and f.seq == frame.seq for f in frames):
                    return time.perf_counter() - start

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> float:
        """SIGTERM; the seconds until the process has exited."""
        start = time.perf_counter()
        self.proc.terminate()
        self.proc.wait()
        stopped = time.perf_counter() - start
        os.close(self.master)
        os.close(self.slave)
        self.notify.close()
        return stopped


class CommitProbe:
    """A bare SQLite commit in WAL mode with synchronous=FULL: the journal's own floor."""

    def __init__(self, folder: Path):
        self.db = sqlite3.connect(folder / "commit-probe.sqlite3", isolation_level=None)
        self.db.execute("PRAGMA journal_mode = WAL")
        self.db.execute("PRAGMA synchronous = FULL")
        self.db.execute("CREATE TABLE t (x TEXT)")
        self.times: list[float] = []

    def sample(self) -> None:
        start = time.perf_counter()
        self.db.execute("INSERT INTO t VALUES (?)", ("x" * 64,))
        self.times.append(time.perf_counter() - start)

    def close(self) -> None:
        self.db.close()


class FsyncProbe:
    """A bare 64-byte append and fsync on the journal's disk: a durable write's floor."""

    def __init__(self, folder: Path):
        self.fd = os.open(folder / "fsync-probe", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        self.times: list[float] = []

    def sample(self) -> None:
        start = time.perf_counter()
        os.write(self.fd, b"x" * 64)
        os.fsync(self.fd)
        self.times.append(time.perf_counter() - start)

    def close(self) -> None:
        os.close(self.fd)


ECHO = """
import os, select, sys
fd = os.open(sys.argv[1], os.O_RDWR | os.O_NOCTTY)
while True:
    select.select([fd], [], [])
    data = os.read(fd, 256)
    if data.endswith(b"\\n"):
        os.write(fd, b"$A,1*0000\\r\\n")
"""


def echo_round_trips(folder: Path, count: int = 300) -> list[float]:
    """The same pty round trip to a child that answers at once: the line's own floor."""
    master, slave = pty.openpty()
    tty.setraw(slave)
    child = subprocess.Popen([sys.executable, "-c", ECHO, os.ttyname(slave)])
    times = []
    try:
        for _ in range(count):
            time.sleep(PACE)
            os.write(master, b"$C,1,KD*0000\r\n")
            start = time.perf_counter()
            select.select([master], [], [])
            os.read(master, 256)
            times.append(time.perf_counter() - start)
    finally:
        child.kill()
        child.wait()
        os.close(master)
        os.close(slave)
    return times[10:]


def cpu_per_card(
    base: Path, rng: random.Random, leds: str = "74hc595", packs: int = 5
) -> list[float]:
    """CPU seconds a card over paced packs, with the case keeper on mock pins and the OLED
    rendering (the dummy display), less what the same daemon spends idle over as long."""
    results = []
    for run in range(packs):
        folder = base / f"outputs-{leds}-{run}"
        folder.mkdir()
        config = write_config(folder)
        config.write_text(
            config.read_text()
            .replace('[leds]\ndriver = "none"', f'[leds]\ndriver = "{leds}"')
            .replace('[display]\ndriver = "none"', '[display]\ndriver = "dummy"')
        )
        child = Child(folder)
        child.exchange(Hello(0, "bench"))
        time.sleep(0.5)
        cpu0, t0 = child.cpu_seconds(), time.perf_counter()
        time.sleep(IDLE / 2)  # measuring idleness: nothing to await
        idle = (child.cpu_seconds() - cpu0) / (time.perf_counter() - t0)
        deck = list(DECK)
        rng.shuffle(deck)
        cpu0, t0 = child.cpu_seconds(), time.perf_counter()
        for seq, card in enumerate(deck, start=1):
            time.sleep(PACE)
            child.exchange(CardFrame(seq, card))
        time.sleep(0.5)  # the OLED's last drawing
        spent = child.cpu_seconds() - cpu0 - idle * (time.perf_counter() - t0)
        results.append(spent / len(deck))
        child.stop()
    return results


STOP_CONFIG = """\
[reader]
port = "{folder}/reader"

[journal]
path = "journal.sqlite3"

[gpio]
pin_factory = "mock"

[leds]
driver = "74hc595"
brightness = 0.5

[display]
driver = "dummy"

[console]
port = {port}
token = "bench-token-0123456789abcdef0123"
"""


def sigterm_to_exit(base: Path, runs: int = 10) -> list[float]:
    """Seconds from SIGTERM to the exit of a table as a club runs it: the case keeper
    dimmed and the OLED drawing, the console up with a phone's event stream and a
    kept-alive connection open, a pack under way."""
    times = []
    for run in range(runs):
        folder = base / f"stop-{run}"
        folder.mkdir()
        port = free_port()
        (folder / "config.toml").write_text(STOP_CONFIG.format(folder=folder, port=port))
        child = Child(folder)
        child.exchange(Hello(0, "bench"))
        for seq, card in enumerate(DECK[:9], start=1):
            child.exchange(CardFrame(seq, card))
        phones = []
        for path in ("/api/events", "/api/state"):
            phone = socket.create_connection(("127.0.0.1", port))
            phone.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
            phone.recv(65536)  # answered (the stream's first state); the connection stays
            phones.append(phone)
        times.append(child.stop())
        for phone in phones:
            phone.close()
    return times


def main() -> None:
    acks, ready, idle, rss = [], [], [], []
    rng = random.Random(7)
    with tempfile.TemporaryDirectory(dir=Path.cwd()) as where:
        base = Path(where)
        floor = FsyncProbe(base)
        commit = CommitProbe(base)
        for run in range(RUNS):
            folder = base / f"run{run}"
            folder.mkdir()
            write_config(folder)
            child = Child(folder)
            ready.append(child.ready_after)
            child.exchange(Hello(0, "bench"))
            if run < 3:
                cpu0, t0 = child.cpu_seconds(), time.perf_counter()
                time.sleep(IDLE)  # measuring idleness: nothing to await
                idle.append((child.cpu_seconds() - cpu0) / (time.perf_counter() - t0))
            deck = list(DECK)
            rng.shuffle(deck)
            for seq, card in enumerate(deck, start=1):
                # At a dealer's pace, a probe between cards: both see the disk alike.
                time.sleep(PACE)
                floor.sample()
                time.sleep(PACE)
                commit.sample()
                time.sleep(PACE)
                acks.append(child.exchange(CardFrame(seq, card)))
            rss.append(child.rss_mib())
            child.stop()
        floor.close()
        commit.close()
        per_card = cpu_per_card(base, rng)
        per_card_oled = cpu_per_card(base, rng, leds="none")

        big = base / "big"
        big.mkdir()
        write_config(big)
        with Journal.open(big / "journal.sqlite3") as journal:
            events = play(random.Random(1), ("Ann", "Bob", "Cy", "Dee", "Eve"), packs=60)
            for i, event in enumerate(events):
                if i == 10_000:
                    break
                journal.append([Change(event_to_json(event))])
        restarts = []
        for _ in range(5):
            child = Child(big)
            restarts.append(child.ready_after)
            child.stop()
        echoes = echo_round_trips(base)
        stops = sigterm_to_exit(base)

    print(f"\ndaemon on a pty, {RUNS} fresh journals, one pack each")
    report("card frame to its acknowledgement", acks)
    report("bare 64-byte write + fsync, same disk and pace", floor.times)
    ratio = percentile(acks, 99) / percentile(floor.times, 99)
    print(f"{'':<48} ack p99 / fsync p99 = {ratio:.2f}")
    report("bare SQLite commit (WAL, synchronous=FULL)", commit.times)
    goal = statistics.median(commit.times) * 1.5 + 0.0003
    print(
        f"{'':<48} ack p50 {statistics.median(acks) * 1e3:.2f} ms against the goal "
        f"{goal * 1e3:.2f} ms (1.5 x the commit's p50 + 0.3 ms)"
    )
    report("the same pty round trip, answered at once", echoes)
    report("CPU a card, bit-banged case keeper, OLED", per_card, "ms", 1e3)
    report("CPU a card, OLED, no case keeper", per_card_oled, "ms", 1e3)
    print(f"{'':<48} (the case keeper on SPI adds its bench_case_keeper figure a card)")
    report("start-up to READY=1, new journal", ready, "ms", 1e3)
    report("start-up to READY=1, 10,000-event journal", restarts, "ms", 1e3)
    report("idle CPU, share of one core", idle, "%", 100)
    report("SIGTERM to exit: LEDs, OLED, console, 2 phones", stops, "ms", 1e3)
    print(f"{'resident memory after a pack':<48} median {sorted(rss)[len(rss) // 2]:9.1f} MiB")


if __name__ == "__main__":
    main()
