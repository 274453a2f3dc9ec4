"""A journal of a year of nights: 300 sessions of about 3,000 events each.

Builds such a journal as the daemon leaves it (a resume point after each new
pack, sealed in the row it follows, every row sealed in the hash chain, the
chain checked up to the start of the last night), then prints the daemon's
start-up to READY=1 and ``GET /api/history`` against it; and, once each, the
start-up of the same journal without resume points (an older journal's, whose
points are sealed in no row: a start replays every row, until the daemon's
first commit keeps one) and without the chain's mark (which checks every row).
"""

from __future__ import annotations

import json
import random
import sqlite3
import tempfile
import time
from pathlib import Path

import httpx

from faro_pi.game import resume
from faro_pi.game.codec import event_to_json
from faro_pi.game.demo import play
from faro_pi.game.events import CLOSE, SHUFFLE, Close, Shuffle
from faro_pi.game.rules import Table
from faro_pi.service.chain import GENESIS, kept_hash, seal
from faro_pi.service.journal import Journal
from tests.benchmarks.bench_daemon import Child
from tests.benchmarks.figures import report
from tests.conftest import write_config
from tests.ports import free_port

NIGHTS = 300
PACKS = 20
"""Packs a night: about 150 events each, so a night is about 3,000 events."""
SEATS = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")
NIGHT = 3000
"""Rows of a night, about."""


def nights(rng: random.Random):
    """Every event of the year, in order: each night a session, its packs, and its close."""
    for _ in range(NIGHTS):
        yield from play(rng, SEATS, packs=PACKS)
        yield CLOSE
        yield SHUFFLE


def build(path: Path) -> tuple[int, int]:
    """Writes the year into a new journal; returns (rows, resume points kept)."""
    with Journal.open(path):
        pass  # the schema, as the daemon makes it
    db = sqlite3.connect(path)
    table, rows, kept, points, previous = Table(), [], 0, [], GENESIS
    for row, event in enumerate(nights(random.Random(2026)), start=1):
        table.apply(event)
        at, text = time.time(), json.dumps(event_to_json(event), sort_keys=True)
        state = resume.save(table) if isinstance(event, Shuffle | Close) else None
        sealed = None if state is None else kept_hash(state)
        previous = seal(previous, row, at, text.encode(), None, None, sealed)
        rows.append((row, at, text, previous, sealed))
        if state is not None:
            points = [*points[-2:], (row, state)]
            kept += 1
    mark = rows[-NIGHT]  # the daemon checked the chain when it started the last night
    with db:
        db.executemany(
            "INSERT INTO events (id, at, event, hash, kept) VALUES (?, ?, ?, ?, ?)", rows
        )
        db.executemany("INSERT INTO resume (after, state) VALUES (?, ?)", points)
        db.execute("INSERT INTO verified (one, id, hash) VALUES (1, ?, ?)", (mark[0], mark[3]))
    db.close()
    return len(rows), kept


def console_on(folder: Path) -> int:
    port = free_port()
    config = folder / "config.toml"
    text = config.read_text().replace(
        "[console]\nenabled = false\n", f"[console]\nenabled = true\nport = {port}\n"
    )
    config.write_text(text)
    return port


def main() -> None:
    with tempfile.TemporaryDirectory(dir=Path.cwd()) as where:
        folder = Path(where)
        write_config(folder)
        port = console_on(folder)
        start = time.perf_counter()
        rows, kept = build(folder / "journal.sqlite3")
        print(f"{kept:,} resume points kept on the way (the last three stay)")
        size = (folder / "journal.sqlite3").stat().st_size / 2**20
        print(
            f"\na year of nights: {rows:,} events, {size:.0f} MiB, built in "
            f"{time.perf_counter() - start:.0f} s"
        )
        ready, history = [], []
        for _ in range(5):
            child = Child(folder)
            ready.append(child.ready_after)
            with httpx.Client(base_url=f"http://127.0.0.1:{port}") as http:
                for _ in range(20):
                    t0 = time.perf_counter()
                    http.get("/api/history").raise_for_status()
                    history.append(time.perf_counter() - t0)
            child.stop()
        report("start-up to READY=1, a year's journal", ready, "ms", 1e3)
        report("GET /api/history, a year's journal", history, "ms", 1e3)
        for table, line in (
            ("verified", "start-up to READY=1, no mark: every row checked"),
            ("resume", "start-up to READY=1, no resume point: every row replayed"),
        ):
            db = sqlite3.connect(folder / "journal.sqlite3")
            with db:
                db.execute(f"DELETE FROM {table}")
            db.close()
            child = Child(folder)
            print(f"{line:<56} {child.ready_after * 1e3:9.0f} ms")
            child.stop()


if __name__ == "__main__":
    main()
