"""The journal: what was acknowledged survives a kill, and a damaged file is reported, not reset."""

import asyncio
import contextlib
import hashlib
import io
import logging
import math
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from faro_pi.config import load_config
from faro_pi.exc import FaroError, JournalError
from faro_pi.game import resume
from faro_pi.game.cards import DECK, parse_card
from faro_pi.game.codec import decode_event, event_from_json
from faro_pi.game.demo import play
from faro_pi.game.events import Alarm, CardDrawn, Lock, Session, Shuffle
from faro_pi.game.integrity import IntegrityReport
from faro_pi.game.replay import replay
from faro_pi.game.rules import Table
from faro_pi.service import verify
from faro_pi.service.daemon import Daemon
from faro_pi.service.journal import Change, Entry, Journal
from faro_pi.service.restore import CHANGED, PUT_IN, PassedOver, check, start
from tests.benchmarks.figures import report
from tests.conftest import running_table, write_config

FRAME0 = 1000
"""The child writer's n-th event applies reader frame FRAME0 + n: the link must move with it."""


def expected(n: int) -> tuple[dict, str | None]:
    """The n-th event the child writer appends, and its refusal (every seventh is refused)."""
    event = {"type": "bet", "player": "Ann", "rank": "9", "weight": n, "copper": n % 2 == 0}
    return event, ("entries are closed [entries-closed]" if n % 7 == 0 else None)


WRITER = f"""  # appends the events of expected(n)
import sys
from faro_pi.service.journal import Change, Journal

with Journal.open(sys.argv[1]) as journal:
    n = journal.count()
    while n < 100_000:
        n += 1
        event = {{"type": "bet", "player": "Ann", "rank": "9", "weight": n, "copper": n % 2 == 0}}
        refused = "entries are closed [entries-closed]" if n % 7 == 0 else None
        row = journal.append([Change(event, refused, {FRAME0} + n)])
        print(row, flush=True)
"""


@contextlib.contextmanager
def writer_process(path):
    """A daemon stand-in appending as fast as it can, printing each id once append returned."""
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, text=True
    )
    watchdog = threading.Timer(30, proc.kill)
    watchdog.start()
    try:
        yield proc
    finally:
        watchdog.cancel()
        proc.kill()
        proc.wait()
        proc.stdout.close()


def read_ids(proc, count: int) -> list[int]:
    ids = []
    for _ in range(count):
        line = proc.stdout.readline()
        assert line, f"the writer stopped after {len(ids)} ids (exit {proc.poll()})"
        ids.append(int(line))
    return ids


def assert_intact(entries: list[Entry]) -> None:
    """Ids 1..n with no gap, each row exactly what the child wrote."""
    assert [entry.id for entry in entries] == list(range(1, len(entries) + 1))
    for entry in entries:
        assert (entry.event, entry.refused) == expected(entry.id)
        event_from_json(entry.event)


def append_times(journal: Journal, count: int) -> list[float]:
    """Seconds each of ``count`` appends took, every other one moving the link too."""
    times = []
    clock = time.perf_counter
    for n in range(1, count + 1):
        event = {"type": "card", "card": DECK[n % 52].code, "source": "reader"}
        start = clock()
        journal.append([Change(event, link_seq=n if n % 2 else None)])
        times.append(clock() - start)
    return times


def listing(folder) -> list[str]:
    return sorted(os.listdir(folder))


@pytest.fixture(scope="module")
def big_journal(tmp_path_factory):
    """A journal of 10,000 events, written in one transaction to skip 10,000 fsyncs."""
    path = tmp_path_factory.mktemp("big") / "journal.db"
    rng = random.Random(2026)
    changes = []
    for n in range(1, 10_001):
        if n % 3:
            event = {"type": "card", "card": rng.choice(DECK).code, "source": "reader"}
        else:
            event = expected(n)[0]
        changes.append(Change(event, "a refusal" if n % 50 == 0 else None))
    with Journal.open(path) as journal:
        journal.append(changes, at=1_700_000_000)
        journal.set_link_seq(10_000)
    return path


def test_round_trip_keeps_order_refusals_and_times(tmp_path):
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        assert journal.created
        assert journal.append([Change(CardDrawn(parse_card("KD"), "reader"))], at=100.5) == 1
        bet = {"type": "bet", "player": "Zoë", "rank": "9", "weight": 2, "copper": False}
        assert journal.append([Change(bet)], at=101.0) == 2
        malformed = {"type": "bet", "player": "Ann", "rank": "9", "weight": "lots"}
        assert (
            journal.append([Change(malformed, "the weight must be a whole number [weight]")]) == 3
        )
        assert journal.append([Change(Lock())]) == 4
        assert journal.count() == 4
        assert journal.link_seq is None

    with Journal.open(path) as journal:
        assert not journal.created
        entries = list(journal.rows())
        assert [entry[:2] for entry in entries[:2]] == [(1, 100.5), (2, 101.0)]
        assert [(entry.event, entry.refused) for entry in entries] == [
            ({"type": "card", "card": "KD", "source": "reader"}, None),
            (bet, None),
            (malformed, "the weight must be a whole number [weight]"),
            ({"type": "lock"}, None),
        ]
        assert abs(entries[3].at - time.time()) < 60
        assert [entry.id for entry in journal.rows(after=2)] == [3, 4]

    raw = sqlite3.connect(path)
    try:
        assert raw.execute("SELECT event FROM events WHERE id = 1").fetchone() == (
            '{"card":"KD","source":"reader","type":"card"}',
        )
        assert "Zoë" in raw.execute("SELECT event FROM events WHERE id = 2").fetchone()[0]
        for change in ("DELETE FROM events", "UPDATE events SET refused = 'no'"):
            with pytest.raises(sqlite3.IntegrityError, match="append-only"):
                raw.execute(change)
    finally:
        raw.close()


CLEAR = {"type": "clear"}


def test_link_seq_moves_with_its_event_or_not_at_all(tmp_path):
    with Journal.open(tmp_path / "journal.db") as journal:
        journal.append([Change({"type": "card", "card": "5H"}, link_seq=41)])
        assert journal.link_seq == 41
        journal.append([Change({"type": "lock"})])
        assert journal.link_seq == 41

        # What SQLite would refuse half-way is refused before the file is touched:
        # a frame that is not a number, NaN, text that is not UTF-8 (a lone surrogate).
        for bad in (
            Change({"type": "card", "card": "KD"}, link_seq="frame 42"),
            Change({"type": "bet", "weight": math.nan}),
            Change({"type": "join", "player": "Z\udc80"}),
            Change({"type": "card", "card": "KD"}, "refused \ud800"),
        ):
            with pytest.raises(JournalError, match="not journalled") as caught:
                journal.append([Change({"type": "lock"}), bad])
            assert caught.value.reason == "cannot-encode"
            assert (journal.count(), journal.link_seq) == (2, 41)

        # A failure inside the transaction takes the rows before it too.
        journal._db.execute(
            "CREATE TRIGGER no_clear BEFORE INSERT ON events WHEN NEW.event LIKE '%clear%' "
            "BEGIN SELECT RAISE(ABORT, 'disk full, say'); END"
        )
        with pytest.raises(JournalError, match="disk full, say") as caught:
            journal.append(
                [Change({"type": "card", "card": "KD"}, link_seq=42), Change({"type": "clear"})]
            )
        assert caught.value.reason == "cannot-write"
        assert (journal.count(), journal.link_seq) == (2, 41)
        journal._db.execute("DROP TRIGGER no_clear")

        journal.set_link_seq(None)
        assert journal.link_seq is None
        journal.append([Change({"type": "card", "card": "9C"}, link_seq=0)])
        assert journal.append([Change(CLEAR)]) == 4

    with Journal.open(tmp_path / "journal.db") as journal:
        assert (journal.count(), journal.link_seq) == (4, 0)


def test_the_writer_commits_through_a_synced_write_ahead_log(tmp_path):
    # kill -9 leaves the page cache alone, so fsync can only be checked by its settings.
    with Journal.open(tmp_path / "journal.db") as journal:
        assert journal._db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
        assert journal._db.execute("PRAGMA synchronous").fetchone() == (2,)  # FULL


def test_acknowledged_events_survive_kill_9(tmp_path):
    path = tmp_path / "journal.db"
    acked: list[int] = []
    for _ in range(3):  # each round restarts on what the last kill left
        with writer_process(path) as proc:
            acked += read_ids(proc, 200)
            proc.kill()
            proc.wait()
            # Ids printed before the kill but still in the pipe were acknowledged too.
            acked += [int(line) for line in proc.stdout if line.endswith("\n")]
        assert acked == list(range(1, len(acked) + 1))
        with Journal.open(path) as journal:
            entries = list(journal.rows())
            assert_intact(entries)
            assert len(entries) >= acked[-1]
            assert journal.link_seq == FRAME0 + len(entries)
        acked = list(range(1, len(entries) + 1))


def test_reader_sees_what_a_running_writer_committed(tmp_path):
    path = tmp_path / "journal.db"
    with writer_process(path) as proc:
        first = read_ids(proc, 50)
        with Journal.open(path, readonly=True) as reader:
            assert not reader.created
            assert reader.count() >= first[-1]
            later = read_ids(proc, 50)
            entries = list(reader.rows())
            assert len(entries) >= later[-1]
            assert_intact(entries)
            assert reader.link_seq >= FRAME0 + later[-1]
            with pytest.raises(JournalError, match="readonly"):
                reader.append([Change({"type": "lock"})])


def test_readonly_creates_nothing(tmp_path):
    with pytest.raises(JournalError, match="no journal there") as caught:
        Journal.open(tmp_path / "var" / "journal.db", readonly=True)
    assert str(tmp_path / "var" / "journal.db") in str(caught.value)
    assert listing(tmp_path) == []

    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        journal.append([Change({"type": "shuffle"})])
    assert listing(tmp_path) == ["journal.db"]  # a stopped journal is one file
    before = path.read_bytes()
    with Journal.open(path, readonly=True) as reader:
        assert [entry.event for entry in reader.rows()] == [{"type": "shuffle"}]
    assert listing(tmp_path) == ["journal.db"]
    assert path.read_bytes() == before


def test_closing_the_writer_does_not_wait_for_a_reader(tmp_path):
    path = tmp_path / "journal.db"
    writer = Journal.open(path)
    writer.append([Change({"type": "shuffle"})])
    # Were closing to wait on the reader through SQLite's busy handler, it would wait this
    # long (the connection's default is 5 s): closing, on a thread of its own, must end while
    # the reader still holds its transaction. The join's bound only tells a return from a hang.
    writer._db.execute("PRAGMA busy_timeout = 600000")
    with Journal.open(path, readonly=True) as reader:
        rows = reader.rows()
        next(rows)  # holds a read transaction open
        closing = threading.Thread(target=writer.close, name="close")
        closing.start()
        closing.join(60)
        assert not closing.is_alive(), "closing the writer waited for the reader"
        rows.close()
        assert reader.count() == 1
    with Journal.open(path) as journal:
        assert journal.count() == 1


def test_folders_are_created_for_a_new_journal(tmp_path):
    path = tmp_path / "var" / "lib" / "faro-pi" / "journal.db"
    with Journal.open(path) as journal:
        assert journal.created
        journal.append([Change({"type": "lock"})])
    with Journal.open(path, readonly=True) as reader:
        assert reader.count() == 1


def test_an_empty_file_becomes_a_new_journal(tmp_path):
    path = tmp_path / "journal.db"
    path.touch()
    with pytest.raises(JournalError, match="holds no journal yet"):
        Journal.open(path, readonly=True)
    assert path.read_bytes() == b""
    assert listing(tmp_path) == ["journal.db"]

    with Journal.open(path) as journal:
        assert journal.created
        journal.append([Change({"type": "lock"})])
    with Journal.open(path) as journal:
        assert journal.count() == 1


def test_an_empty_file_beside_a_log_is_refused(tmp_path):
    # SQLite would delete a log beside a 0-byte database.
    path = tmp_path / "journal.db"
    path.touch()
    wal = tmp_path / "journal.db-wal"
    wal.write_bytes(b"\x37\x7f\x06\x82" + bytes(60))
    for readonly in (False, True):
        with pytest.raises(JournalError, match="is empty but its log"):
            Journal.open(path, readonly=readonly)
    assert wal.read_bytes() == b"\x37\x7f\x06\x82" + bytes(60)
    assert path.read_bytes() == b""


def garbage(path, big):
    path.write_bytes(random.Random(1).randbytes(64 * 1024))


def truncated(path, big):
    data = big.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def damage_middle_page(path, big, start: int, length: int, seed: int) -> None:
    """Overwrites part of a page in the middle, as a failing card might; page 1 stays intact."""
    data = bytearray(big.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    offset = len(data) // page // 2 * page + start
    data[offset : offset + length] = random.Random(seed).randbytes(length)
    path.write_bytes(bytes(data))


def overwritten_page(path, big):
    damage_middle_page(path, big, 0, 4096, seed=2)


def bad_cell_pointers(path, big):
    damage_middle_page(path, big, 8, 4, seed=3)


def scribbled_cells(path, big):
    """Bytes scribbled over the cells of that page, where its header says they start."""
    data = big.read_bytes()
    page = int.from_bytes(data[16:18], "big")
    middle = len(data) // page // 2 * page
    cells = int.from_bytes(data[middle + 5 : middle + 7], "big")
    damage_middle_page(path, big, cells + 73, 60, seed=4)


def foreign(path, big):
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE players (name TEXT)")
    db.execute("INSERT INTO players VALUES ('Ann')")
    db.commit()
    db.close()


def from_the_future(path, big):
    path.write_bytes(big.read_bytes())
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.close()


def flipped_schema_text(path, big):
    """A byte of the schema's own text (page 1) no longer UTF-8: SQLite's error quotes it."""
    data = bytearray(big.read_bytes())
    data[data.index(b"CREATE TABLE events") + 3] = 0xFF
    path.write_bytes(bytes(data))


def edited_row(path, big):
    """A row made into something that is not an event, with the sqlite3 shell."""
    path.write_bytes(big.read_bytes())
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DROP TRIGGER events_no_update")
    db.execute("UPDATE events SET event = 'not JSON' WHERE id = 9999")
    db.close()


@pytest.mark.parametrize("readonly", [False, True], ids=["writer", "reader"])
@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (garbage, "is not a SQLite database"),
        (truncated, "cannot be read|is corrupt"),
        (overwritten_page, "cannot be read|is corrupt"),
        (bad_cell_pointers, r"is corrupt \(quick_check: On tree page"),
        (scribbled_cells, "cannot be read|is corrupt"),
        (foreign, "not a faro-pi journal"),
        (from_the_future, "schema 99, newer than this faro-pi"),
        (flipped_schema_text, r"cannot be read \(its schema is damaged"),
    ],
)
def test_a_damaged_journal_is_reported_and_left_alone(
    tmp_path, big_journal, damage, says, readonly
):
    path = tmp_path / "journal.db"
    damage(path, big_journal)
    before = path.read_bytes()
    with pytest.raises(JournalError, match=says) as caught:
        Journal.open(path, readonly=readonly)
    message = str(caught.value)
    assert isinstance(caught.value, FaroError)
    assert str(path) in message
    assert "faro-pi never overwrites a journal" in message
    assert "\n" not in message
    assert path.read_bytes() == before
    assert listing(tmp_path) == ["journal.db"]


@pytest.mark.parametrize(
    "damage", [overwritten_page, foreign, from_the_future, flipped_schema_text, edited_row]
)
def test_a_journal_the_writer_refuses_is_left_byte_for_byte(tmp_path, big_journal, damage):
    """Checked read-only first: not switched to WAL, no header byte rewritten, not grown."""
    path = tmp_path / "journal.db"
    damage(path, big_journal)
    before = path.read_bytes()
    assert before[18:20] == b"\x01\x01"  # a journal stopped cleanly is out of WAL mode
    with pytest.raises(JournalError) as caught, Journal.open(path) as journal:
        list(journal.rows())  # as a start replays them
    assert "\n" not in str(caught.value)
    assert hashlib.sha256(path.read_bytes()).digest() == hashlib.sha256(before).digest()
    assert listing(tmp_path) == ["journal.db"]


@pytest.mark.parametrize("readonly", [False, True], ids=["writer", "reader"])
def test_a_path_with_a_nul_is_refused_in_one_line(tmp_path, readonly):
    with pytest.raises(JournalError, match=r"holds a NUL character") as caught:
        Journal.open(tmp_path / "a\x00b", readonly=readonly)
    assert caught.value.reason == "cannot-open"
    assert "\n" not in str(caught.value) and "\x00" not in str(caught.value)
    assert listing(tmp_path) == []


def test_rows_stream_instead_of_loading_the_journal(big_journal):
    # Holding 10,000 decoded entries takes about 7 MB; streaming holds one batch.
    with Journal.open(big_journal, readonly=True) as reader:
        tracemalloc.start()
        try:
            count = sum(1 for _ in reader.rows())
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert count == 10_000
    assert peak < 1_000_000


def test_append_latency(tmp_path, capsys):
    with Journal.open(tmp_path / "journal.db") as journal:
        append_times(journal, 50)  # warm-up
        times = append_times(journal, 500)
        assert journal.count() == 550
    with capsys.disabled():  # printed, not asserted: timing asserts only flake
        print()
        report("journal append (durable commit)", times, unit="ms", scale=1e3)


def test_restart_cost_on_10000_events(big_journal, capsys):
    opens, streams, checks = [], [], []
    for _ in range(5):
        start = time.perf_counter()
        journal = Journal.open(big_journal)
        opened = time.perf_counter()
        count = sum(1 for _ in journal.rows())
        streams.append(time.perf_counter() - opened)
        opens.append(opened - start)
        journal.close()
        assert count == 10_000
        raw = sqlite3.connect(f"file:{big_journal}?mode=ro", uri=True)
        start = time.perf_counter()
        assert raw.execute("PRAGMA quick_check").fetchall() == [("ok",)]
        checks.append(time.perf_counter() - start)
        raw.close()
    with Journal.open(big_journal, readonly=True) as reader:
        assert reader.link_seq == 10_000
    with capsys.disabled():
        print(f"\n10,000-event journal, {big_journal.stat().st_size / 1e6:.1f} MB:")
        report("  open, checks included", opens, unit="ms", scale=1e3)
        report("  PRAGMA quick_check alone", checks, unit="ms", scale=1e3)
        report("  stream all rows", streams, unit="ms", scale=1e3)


def test_a_second_writer_is_refused_while_readers_are_welcome(tmp_path):
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        journal.append([Change({"type": "card", "card": "5H"})])
        with pytest.raises(JournalError, match="another faro-pi is writing this journal"):
            Journal.open(path)
        with Journal.open(path, readonly=True) as reader:
            assert reader.count() == 1
        journal.append([Change({"type": "card", "card": "KD"})])
    with Journal.open(path) as again:  # the lock went with the first writer
        assert again.count() == 2


# -- resume points ------------------------------------------------------------------------

SEATS = ("Ann", "Bob", "Cy")


async def a_forged_resume_point(config_path: Path) -> tuple[int, dict[str, int]]:
    """Three packs dealt through the daemon on the config at ``config_path`` (a resume point
    kept at each shuffle), then the latest point's balances changed in the file, Ann 1,000
    up, and no row touched. Returns the row that point follows, and the balances the rows
    lead to."""
    config = load_config(config_path, environ={})
    daemon = Daemon(config, Journal.open(config.journal.path))
    try:
        for event in play(random.Random(8), SEATS, packs=3):
            daemon.enter(event)
            await asyncio.sleep(0)  # the loop turns, for the report a hock brings
        balances = dict(daemon.table.balances)
    finally:
        daemon.quieten()
        daemon.journal.close()
    with contextlib.closing(sqlite3.connect(config.journal.path)) as db, db:
        after, state = db.execute(
            "SELECT after, state FROM resume ORDER BY after DESC LIMIT 1"
        ).fetchone()
        forged = resume.load(state)
        forged.state.balances["Ann"] += 1000
        db.execute("UPDATE resume SET state = ? WHERE after = ?", (resume.save(forged), after))
    return after, balances


async def test_a_start_passes_over_a_resume_point_changed_in_the_file(tmp_path, caplog):
    """The attack: the latest resume point's balances changed in the journal file, no row
    touched. The start loads only a point its row seals: it passes over this one for the one
    before, says so in one line naming the journal and the row, and the table stands where its
    rows lead."""
    write_config(tmp_path)
    after, balances = await a_forged_resume_point(tmp_path / "config.toml")
    caplog.set_level(logging.WARNING, logger="faro_pi")
    async with running_table(tmp_path) as (daemon, _, _):
        assert daemon.table.balances == balances
    said = [r.getMessage() for r in caplog.records if "not trusted" in r.getMessage()]
    assert len(said) == 1, said
    assert said[0].startswith(
        f"{tmp_path / 'journal.sqlite3'}: the resume point after row {after} is not the state "
        "its row seals: it was changed after it was kept; it is not trusted: the table is "
        "replayed from the resume point after row "
    )


async def test_a_resume_point_put_in_after_the_last_row_is_passed_over_too(tmp_path):
    """A forged point put in after the last row, which seals none: passed over as put in."""
    write_config(tmp_path)
    after, balances = await a_forged_resume_point(tmp_path / "config.toml")
    path = tmp_path / "journal.sqlite3"
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        (last,) = db.execute("SELECT max(id) FROM events").fetchone()
        db.execute("INSERT INTO resume SELECT ?, state FROM resume WHERE after = ?", (last, after))
    journal, replayed = check(path)
    with journal:
        assert replayed.passed == (PassedOver(last, PUT_IN), PassedOver(after, CHANGED))
        assert replayed.table.balances == balances


async def test_a_start_that_replays_many_rows_keeps_a_sealed_point_with_the_next_commit(tmp_path):
    """A journal with no resume point (an older faro-pi's, whose points are sealed in no row):
    the start replays every row, and the daemon's first commit keeps a point sealed in its
    row, which the next start loads; changed, that point is passed over again."""
    events = list(play(random.Random(8), SEATS, packs=20))
    whole = Table()
    whole.replay(events)
    config = load_config(write_config(tmp_path), environ={})
    path = config.journal.path
    with Journal.open(path) as journal:
        journal.append([Change(event) for event in events])  # one commit: no resume point
    journal, replayed = start(path)
    assert (replayed.after, replayed.last) == (0, len(events)) and replayed.point_due
    daemon = Daemon(config, journal, replayed)
    try:
        assert daemon.table.state == whole.state
        quiet = Alarm("lost", "the reader is quiet")
        daemon.submit(quiet)
        whole.apply(quiet)
        assert [point.after for point in journal.resume_points()] == [len(events) + 1]
    finally:
        daemon.quieten()
        journal.close()
    journal, replayed = start(path)
    with journal:
        assert (replayed.after, replayed.last, replayed.passed) == (len(events) + 1,) * 2 + ((),)
        assert replayed.table.state == whole.state and replayed.table.pairs == whole.pairs
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE resume SET state = x'00'")
    journal, replayed = start(path)
    with journal:
        assert replayed.passed == (PassedOver(len(events) + 1, CHANGED),)
        assert replayed.after == 0 and replayed.table.state == whole.state


# -- integrity reports --------------------------------------------------------------------

REPORTS = Path(__file__).parent / "golden" / "journal" / "reports.sqlite3"
"""Two packs and their reports, journaled by :func:`reported_night` when the report of an
``integrity`` row was any JSON object, before it was typed measure by measure."""


async def reported_night(folder: Path) -> Path:
    """Two packs dealt through the daemon, each reported at its hock, then a shuffle: the
    first fair, the second in the first's order, not shuffled (flagged, with its alarm).
    Returns the journal's path."""
    folder.mkdir(exist_ok=True)
    config = load_config(write_config(folder), environ={})
    daemon = Daemon(config, Journal.open(config.journal.path))
    order = list(DECK)
    random.Random(6).shuffle(order)
    try:
        daemon.enter(Session(("Ann", "Bob", "Cy"), "Cy"))
        for pack in range(2):
            for frame, card in enumerate(order, start=1 + 52 * pack):
                daemon.record_reading(CardDrawn(card, "reader"), seq=frame)
                await asyncio.sleep(0)  # the turn the hock's report is journaled on
            daemon.enter(Shuffle())
    finally:
        daemon.quieten()
        daemon.journal.close()
    return config.journal.path


async def test_a_journal_of_reports_from_before_they_were_typed_verifies_and_replays(tmp_path):
    """The reports journaled as any object verify, and so do the resume points that keep
    them; a start replays the rows and reads each report measure by measure; and the same
    night journaled today is the same rows, byte for byte."""
    path = tmp_path / "journal.sqlite3"
    shutil.copyfile(REPORTS, path)
    out = io.StringIO()
    assert verify.main(path, out=out) == 0, out.getvalue()
    assert out.getvalue().endswith(
        "110 rows verified and 2 resume points replayed; the hash of row 110 is "
        "00b2dfed093ba7747a0d1007ef834158db03927e27a628ef5db45c0cedba4ddd\n"
    )
    journal, replayed = start(path)
    table = replayed.table
    with journal:
        rows = [(row.id, row.event, row.refused, row.seq) for row in journal.stored()]
        kept = {point.after: resume.load(point.state) for point in journal.resume_points()}
    assert sorted(kept) == [55, 110] and None not in kept.values()
    whole = Table()
    assert all(step.refused is None for step in replay(whole, ((n, e, r) for n, e, r, _ in rows)))
    assert table.state == whole.state and table.pack.number == 3
    reports = [decode_event(event) for _, event, _, _ in rows if b'"type":"integrity"' in event]
    assert [type(event.report) for event in reports] == [IntegrityReport] * 2
    assert reports[0].flagged == () and "the previous pack's order" in reports[1].flagged[0]
    assert reports[1].report.kept_order.value == 52
    with Journal.open(await reported_night(tmp_path / "today"), readonly=True) as today:
        assert [(row.id, row.event, row.refused, row.seq) for row in today.stored()] == rows
