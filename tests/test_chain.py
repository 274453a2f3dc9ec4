"""The journal's hash chain: a row changed, removed or damaged shows, and nothing is lost to it."""

from __future__ import annotations

import contextlib
import hashlib
import json
import random
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from faro_pi.cli import main as cli
from faro_pi.exc import JournalError
from faro_pi.game import resume
from faro_pi.game.cards import DECK, parse_card
from faro_pi.game.codec import event_to_json
from faro_pi.game.demo import play
from faro_pi.game.events import Alarm, Bet, CardDrawn, Session
from faro_pi.game.rules import Table
from faro_pi.service import journal_schema
from faro_pi.service.chain import GENESIS
from faro_pi.service.journal import Change, Journal
from faro_pi.service.restore import UNSEALED, PassedOver, start
from tests.conftest import write_config

SCHEMA_1 = """
BEGIN;
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    at REAL NOT NULL,
    event TEXT NOT NULL,
    refused TEXT,
    seq INTEGER CHECK (seq IS NULL OR typeof(seq) = 'integer')
);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'the journal is append-only'); END;
CREATE TABLE link (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    seq INTEGER CHECK (seq IS NULL OR typeof(seq) = 'integer'),
    after INTEGER
);
INSERT INTO link (one, seq, after) VALUES (1, NULL, 0);
CREATE TABLE room (pad BLOB);
PRAGMA application_id = 1178686031;
PRAGMA user_version = 1;
COMMIT;
"""
"""A journal as faro-pi wrote it before the chain, word for word."""


def bet(n: int) -> dict:
    return {"type": "bet", "player": "Ann", "rank": "9", "weight": 1000 + n, "copper": False}


def write(path: Path, rows: int = 20) -> None:
    """A journal of ``rows`` bets, every fifth refused, each moving the link."""
    with Journal.open(path) as journal:
        for n in range(1, rows + 1):
            journal.append([Change(bet(n), "a refusal [r]" if n % 5 == 0 else None, n)])


def tamper(path: Path, *statements: str) -> None:
    """Changes the file as someone with the sqlite3 shell would: the triggers dropped first."""
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("DROP TRIGGER IF EXISTS events_no_update")
    db.execute("DROP TRIGGER IF EXISTS events_no_delete")
    for sql in statements:
        db.execute(sql)
    db.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def refused_untouched(path: Path, says: str, opens=Journal.open) -> str:
    """The writer (or a start) refuses ``path`` with one line matching ``says``; nothing changes."""
    before = digest(path)
    with pytest.raises(JournalError, match=says) as caught:
        opens(path)
    message = str(caught.value)
    assert "\n" not in message and str(path) in message
    assert digest(path) == before
    assert sorted(p.name for p in path.parent.glob(path.name + "*")) == [path.name]
    return message


def verify(path: Path, capsys) -> tuple[int, str]:
    status = cli(["verify", str(path)])
    out, err = capsys.readouterr()
    assert err == ""
    assert out.count("\n") == 1
    return status, out.strip()


def hash_by_hand(previous: bytes, row: tuple) -> bytes:
    """The layout in faro_pi.service.chain's notes, built again from its table."""
    id, at, event, refused, seq, *kept = row
    data = previous + struct.pack(">q", id) + struct.pack(">d", at)
    data += struct.pack(">I", len(event.encode())) + event.encode()
    if refused is None:
        data += b"\x00"
    else:
        data += b"\x01" + struct.pack(">I", len(refused.encode())) + refused.encode()
    data += b"\x00" if seq is None else b"\x01" + struct.pack(">q", seq)
    if kept and kept[0] is not None:
        data += b"\x01" + kept[0]
    return hashlib.sha256(data).digest()


# -- the chain as written ----------------------------------------------------------------


def test_each_row_hashes_the_row_before_and_its_own_content_as_documented(tmp_path):
    path = tmp_path / "journal.db"
    with Journal.open(path) as journal:
        journal.append(
            [Change({"type": "card", "card": "KD", "source": "reader"}, link_seq=7)], at=5.25
        )
        bet = {"type": "bet", "player": "Zoë", "rank": "9", "weight": 2, "copper": False}
        journal.append([Change(bet)])
        journal.append(
            [
                Change(CardDrawn(parse_card("KD"), "reader"), "the card is out [duplicate]", 8),
                Change(Alarm("refused", "KD again")),
            ]
        )
        journal.append([Change({"type": "lock"}, link_seq=-(2**63))])
        journal.append([Change({"type": "shuffle"}), Change(bet)], resume_point=b"the table")
    assert hashlib.sha256(b"faro-pi journal").digest() == GENESIS
    db = sqlite3.connect(path)
    rows = db.execute(
        "SELECT id, at, event, refused, seq, kept, hash FROM events ORDER BY id"
    ).fetchall()
    points = db.execute("SELECT after, state FROM resume").fetchall()
    db.close()
    previous = GENESIS
    for row in rows:
        assert row[6] == hash_by_hand(previous, row[:6]), row
        previous = row[6]
    assert [row[0] for row in rows] == [1, 2, 3, 4, 5, 6, 7]
    assert rows[2][3] == "the card is out [duplicate]" and rows[3][3] is None
    assert [row[5] for row in rows] == [None] * 6 + [hashlib.sha256(b"the table").digest()]
    assert points == [(7, b"the table")]  # kept with the last row of its commit, sealed in it


def test_the_append_only_triggers_stay(tmp_path):
    path = tmp_path / "journal.db"
    write(path, 3)
    db = sqlite3.connect(path)
    for change in ("DELETE FROM events WHERE id = 3", "UPDATE events SET hash = zeroblob(32)"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute(change)
    db.close()


def test_a_whole_journal_verifies_and_names_its_last_hash(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write(path)
    status, out = verify(path, capsys)
    last = sqlite3.connect(path).execute("SELECT hash FROM events WHERE id = 20").fetchone()[0]
    assert status == 0
    assert out == f"{path}: 20 rows verified; the hash of row 20 is {last.hex()}"

    empty = tmp_path / "empty.db"
    Journal.open(empty).close()
    assert verify(empty, capsys) == (0, f"{empty}: no rows yet, nothing to verify")

    assert cli(["verify", str(tmp_path / "none.db")]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "no journal there" in err


# -- tampering ----------------------------------------------------------------------------

CHANGES = {
    "event text": """UPDATE events SET event = replace(event, '1007', '9007') WHERE id = 7""",
    "time": "UPDATE events SET at = at + 60 WHERE id = 7",
    "refusal": "UPDATE events SET refused = 'entries are closed' WHERE id = 7",
    "link's frame": "UPDATE events SET seq = 99 WHERE id = 7",
    "hash": "UPDATE events SET hash = zeroblob(32) WHERE id = 7",
}


@pytest.mark.parametrize("change", CHANGES.values(), ids=CHANGES)
def test_a_changed_row_is_named_by_verify_and_refused_by_the_writer(tmp_path, capsys, change):
    path = tmp_path / "journal.db"
    write(path)
    tamper(path, change)
    status, out = verify(path, capsys)
    assert status == 1
    assert out == (
        f"{path}: row 7 does not match its hash: it was changed after it was written; "
        "rows 1 to 6 verify"
    )
    message = refused_untouched(path, "row 7 does not match its hash")
    assert "faro-pi export --verified" in message and "keep it" in message


def test_removed_rows_are_named(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write(path)
    tamper(path, "DELETE FROM events WHERE id IN (4, 5)")
    assert verify(path, capsys) == (
        1,
        f"{path}: row 4 is missing (and the rows up to 5): the journal was cut; rows 1 to 3 verify",
    )
    refused_untouched(path, "row 4 is missing")


def test_rows_lost_at_the_end_show_against_the_writers_mark(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write(path)
    Journal.open(path).close()  # a start: the mark moves to row 20
    tamper(path, "DELETE FROM events WHERE id > 17")
    says = "row 18 is missing: the journal ends at row 17, but had reached row 20"
    assert verify(path, capsys) == (
        1,
        f"{path}: {says} when it was last verified; rows 1 to 17 verify",
    )
    refused_untouched(path, says)


def test_a_journal_rewritten_and_rehashed_shows_against_the_mark(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write(path)
    Journal.open(path).close()
    db = sqlite3.connect(path, isolation_level=None)
    rows = db.execute("SELECT id, at, event, refused, seq FROM events ORDER BY id").fetchall()
    db.close()
    previous, statements = GENESIS, []
    for row in rows:  # the attacker's weight in row 3, and every hash made again
        event = row[2].replace("1003", "9003")
        previous = hash_by_hand(previous, (row[0], row[1], event, row[3], row[4]))
        statements.append(
            f"UPDATE events SET event = '{event}', hash = x'{previous.hex()}' WHERE id = {row[0]}"
        )
    tamper(path, *statements)
    says = "row 20 is not the row verified before: the rows up to it were rewritten and rehashed"
    assert verify(path, capsys) == (1, f"{path}: {says}; rows 1 to 19 verify")
    refused_untouched(path, says)


def test_a_start_checks_from_its_mark_and_the_rows_it_replays(tmp_path, capsys):
    path = tmp_path / "journal.db"
    demo_journal(path)  # resume points after rows 100 and 200
    start(path)[0].close()  # the mark moves to the last row
    tamper(path, "UPDATE events SET at = 0 WHERE id = 150")
    journal, _ = start(path)  # row 150 is before the resume point and the mark
    with journal:
        assert journal.count() > 200
    assert verify(path, capsys)[0] == 1  # only verify looks at it

    path = tmp_path / "again.db"
    demo_journal(path)
    start(path)[0].close()
    tamper(path, "UPDATE events SET at = 0 WHERE id = 215")  # replayed after the resume point
    refused_untouched(path, "row 215 does not match its hash", start)


def test_with_no_resume_point_yet_a_start_checks_every_row_it_replays(tmp_path):
    """No shuffle or close yet: a start replays from row 1, so it checks from row 1."""
    path = tmp_path / "journal.db"
    night = [Session(("Ann", "Bob", "Cy"), "Cy"), Bet("Ann", 9, 4), Bet("Bob", 5, 2)]
    with Journal.open(path) as journal:
        journal.append([Change(event) for event in night])
        journal.append([Change(CardDrawn(card, "reader")) for card in DECK[:12]])
    start(path)[0].close()  # the mark moves to row 15
    tamper(path, """UPDATE events SET event = replace(event, '"weight":4', '"weight":400')""")
    refused_untouched(path, "row 2 does not match its hash", start)


def test_the_start_refuses_with_one_line_and_leaves_the_journal_as_it_was(tmp_path):
    config = write_config(tmp_path)
    path = tmp_path / "journal.sqlite3"
    write(path)
    tamper(path, CHANGES["event text"])
    before = digest(path)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(__file__).parent.parent)}
    run = subprocess.run(
        [sys.executable, "-m", "faro_pi.cli", "run", "--config", str(config)],
        capture_output=True,
        text=True,
        timeout=30,
        env=env,
    )
    assert run.returncode == 1
    [line] = run.stderr.splitlines()
    assert f"{path}: row 7 does not match its hash" in line
    assert "export what verifies (faro-pi export --verified)" in line
    assert digest(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.toml", "journal.sqlite3"]


# -- export ------------------------------------------------------------------------------


def test_export_stops_before_the_first_bad_row_or_prints_all_and_says_so(tmp_path, capsys):
    config = write_config(tmp_path)
    path = tmp_path / "journal.sqlite3"
    write(path)
    assert cli(["export", "--config", str(config)]) == 0
    whole, err = capsys.readouterr()
    assert len(whole.splitlines()) == 20 and err == ""

    tamper(path, CHANGES["event text"])
    assert cli(["export", "--config", str(config), "--verified"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines() == whole.splitlines()[:6]
    assert err == (
        f"faro-pi: {path}: row 7 does not match its hash: it was changed after it was written; "
        "exported the rows before it only\n"
    )

    assert cli(["export", "--config", str(config)]) == 1
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 20 and '"weight": 9007' in out.splitlines()[6]
    assert err.count("\n") == 1 and "row 7 does not match" in err
    assert "exported every row all the same; --verified stops before it" in err


def test_a_row_without_a_type_is_one_line_in_export_and_the_console(tmp_path, capsys):
    from faro_pi.console.server import _export

    config = write_config(tmp_path)
    path = tmp_path / "journal.sqlite3"
    write(path)
    tamper(path, """UPDATE events SET event = '{"player":"Ann"}' WHERE id = 4""")
    assert cli(["export", "--config", str(config)]) == 1
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 3
    assert err == (
        f"faro-pi: {path}: row 4 is not an event (a JSON object with a type); move it aside "
        "and restore a backup or start a new journal; faro-pi never overwrites a journal\n"
    )
    with pytest.raises(JournalError, match="row 4 is not an event"):
        _export(path)
    assert cli(["export", "--config", str(config), "--verified"]) == 1
    out, err = capsys.readouterr()
    assert len(out.splitlines()) == 3 and "row 4 does not match its hash" in err


# -- damage ------------------------------------------------------------------------------


def event_pages(data: bytes) -> list[int]:
    page = int.from_bytes(data[16:18], "big")
    return [n for n in range(1, len(data) // page) if b'"type":' in data[n * page : (n + 1) * page]]


def test_a_flipped_bit_in_an_events_text_is_named(tmp_path, capsys):
    path = tmp_path / "journal.db"
    write(path)
    data = bytearray(path.read_bytes())
    at = data.index(b'"weight":1013')
    data[at + 12] ^= 0x01  # "1013" becomes "1012": a sound file, a quick_check that passes
    path.write_bytes(bytes(data))
    assert verify(path, capsys)[1].startswith(f"{path}: row 13 does not match its hash")
    refused_untouched(path, "row 13 does not match its hash")


def test_no_flipped_bit_in_the_events_pages_gives_a_journal_with_other_rows(tmp_path):
    original = tmp_path / "original.db"
    write(original, 150)
    with Journal.open(original, readonly=True) as journal:
        rows = list(journal.rows())
    clean = original.read_bytes()
    page = int.from_bytes(clean[16:18], "big")
    pages = event_pages(clean)
    rng = random.Random(13)
    path, outcomes = tmp_path / "journal.db", {"refused": 0, "same": 0}
    for _ in range(300):  # the README's figures
        data = bytearray(clean)
        offset = rng.choice(pages) * page + rng.randrange(page)
        data[offset] ^= 1 << rng.randrange(8)
        path.write_bytes(bytes(data))
        try:
            journal = Journal.open(path)
        except JournalError as exc:
            assert "\n" not in str(exc)
            assert path.read_bytes() == bytes(data), f"a refused journal was changed ({exc})"
            outcomes["refused"] += 1
            continue
        with journal:
            assert list(journal.rows()) == rows, f"byte {offset} changed a row unnoticed"
        outcomes["same"] += 1
    assert outcomes["refused"] > 250, outcomes


# -- resume points -----------------------------------------------------------------------


def demo_journal(path: Path) -> list:
    """Three packs of a demo night, with resume points as a start and a pack keep them."""
    events = list(play(random.Random(4), ("Ann", "Bob"), packs=3))
    table, states, later = Table(), {}, None
    with Journal.open(path) as journal:
        for row, event in enumerate(events, start=1):
            table.apply(event)
            states[row] = resume.save(table)
            point = None
            if later is not None:
                later.apply(event)
            if row == 100:  # as a start does: a point, then the rows after it
                point, later = states[100], resume.load(states[100])
            elif row == 200:
                point = resume.save(later)
            journal.append([Change(event_to_json(event))], resume_point=point)
    return [states[n] for n in range(1, len(events) + 1)]


def test_verify_replays_the_resume_points_and_names_a_changed_one(tmp_path, capsys):
    path = tmp_path / "journal.db"
    states = demo_journal(path)
    status, out = verify(path, capsys)
    assert status == 0 and f"{len(states)} rows verified and 2 resume points replayed" in out

    with sqlite3.connect(path) as db:  # a state from fifty rows before
        db.execute("UPDATE resume SET state = ? WHERE after = 200", (states[150],))
    status, out = verify(path, capsys)
    assert status == 1
    assert out.startswith(
        f"{path}: {len(states)} rows verified, but the resume point after row 200 is not "
        "what the rows lead to"
    )
    assert "DELETE FROM resume" in out


# -- schema 1 ----------------------------------------------------------------------------


def schema_1(path: Path, rows: int = 30) -> list[dict]:
    """A journal as the faro-pi before the chain left it, with a link and a resume point."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(SCHEMA_1)
    events = [bet(n) for n in range(1, rows + 1)]
    db.execute("BEGIN")
    for n, event in enumerate(events, start=1):
        text = json.dumps(event, separators=(",", ":"), sort_keys=True)
        refused = "entries are closed [entries-closed]" if n % 7 == 0 else None
        db.execute(
            "INSERT INTO events (at, event, refused, seq) VALUES (?, ?, ?, ?)",
            (1_700_000_000.5 + n, text, refused, 500 + n),
        )
    db.execute("COMMIT")
    db.execute("UPDATE link SET seq = 1000, after = ?", (rows,))
    db.execute("CREATE TABLE resume (after INTEGER PRIMARY KEY, state BLOB)")
    db.close()
    return events


def test_a_schema_1_journal_reads_as_it_is_without_being_upgraded(tmp_path, capsys):
    config = write_config(tmp_path)
    path = tmp_path / "journal.sqlite3"
    events = schema_1(path)
    before = digest(path)
    with Journal.open(path, readonly=True) as journal:
        assert not journal.chained
        assert [entry.event for entry in journal.rows()] == events
        assert journal.link_seq == 1000
    assert cli(["export", "--config", str(config)]) == 0
    out, err = capsys.readouterr()
    assert [json.loads(line)["weight"] for line in out.splitlines()] == list(range(1001, 1031))
    assert "schema 1 has no hash chain: nothing was verified" in err
    lines = tmp_path / "game.jsonl"
    lines.write_text(out)
    assert cli(["replay", str(lines)]) == 0
    capsys.readouterr()
    assert verify(path, capsys) == (
        1,
        f"{path}: a journal of schema 1 has no hash chain to verify; "
        "the daemon adds one when it next starts",
    )
    assert digest(path) == before


def test_the_writer_upgrades_a_schema_1_journal_once_in_place(tmp_path, capsys):
    path = tmp_path / "journal.sqlite3"
    events = schema_1(path)
    with Journal.open(path, readonly=True) as journal:
        entries = list(journal.rows())
    with Journal.open(path) as journal:
        assert journal.chained and not journal.created
        assert list(journal.rows()) == entries
        assert journal.link_seq == 1000
        assert journal.mark().id == 30
        assert journal.append([Change(bet(31))]) == 31
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (3,)
    assert db.execute("SELECT count(*) FROM events WHERE length(hash) = 32").fetchone() == (31,)
    for change in ("DELETE FROM events", "UPDATE events SET refused = 'no'"):
        with pytest.raises(sqlite3.IntegrityError, match="append-only"):
            db.execute(change)
    db.close()
    status, out = verify(path, capsys)
    assert status == 0 and "31 rows verified" in out
    with Journal.open(path) as journal:  # once: the next start finds schema 3
        assert [entry.event for entry in journal.rows()] == [*events, bet(31)]


def test_an_upgrade_cut_short_leaves_schema_1_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "journal.sqlite3"
    schema_1(path)
    with Journal.open(path, readonly=True) as journal:
        entries = list(journal.rows())
    real, calls = journal_schema.seal, []

    def power_cut(*args):
        calls.append(1)
        if len(calls) == 20:
            raise KeyboardInterrupt  # anything at all, part way through
        return real(*args)

    monkeypatch.setattr(journal_schema, "seal", power_cut)
    with pytest.raises(KeyboardInterrupt):
        Journal.open(path)
    monkeypatch.undo()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone() == (1,)
    assert "hash" not in [column[1] for column in db.execute("PRAGMA table_info(events)")]
    db.close()
    with Journal.open(path) as journal:
        assert list(journal.rows()) == entries and journal.chained


def test_a_schema_1_journal_with_rows_gone_is_refused_untouched(tmp_path):
    path = tmp_path / "journal.sqlite3"
    schema_1(path)
    tamper(path, "DELETE FROM events WHERE id = 9")
    refused_untouched(path, "has 29 rows numbered up to 30: rows were removed")
    with Journal.open(path, readonly=True) as journal:  # still readable, as it is
        assert journal.count() == 29


def set_back_to_schema_1(path: Path, *, keep_mark: bool, keep_hash: bool) -> None:
    """A chained journal edited, then dressed as schema 1 so that an upgrade would chain over
    the edit: the kept and hash columns dropped, the mark's table dropped, ``user_version = 1``."""
    tamper(path, "UPDATE events SET event = replace(event, '1004', '4004') WHERE id = 4")
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("ALTER TABLE events DROP COLUMN kept")
    if not keep_hash:
        db.execute("ALTER TABLE events DROP COLUMN hash")
    if not keep_mark:
        db.execute("DROP TABLE verified")
    db.execute("PRAGMA user_version = 1")
    db.close()


@pytest.mark.parametrize(
    ("keep_mark", "keep_hash", "trace"),
    [
        (True, False, "its verified table"),
        (False, True, "a hash column in its events"),
        (True, True, "its verified table, a hash column in its events"),
    ],
)
def test_a_chained_journal_set_back_to_schema_1_is_refused_not_upgraded(
    tmp_path, keep_mark, keep_hash, trace
):
    path = tmp_path / "journal.sqlite3"
    write(path)
    Journal.open(path).close()  # a start: the mark, the chain
    set_back_to_schema_1(path, keep_mark=keep_mark, keep_hash=keep_hash)
    message = refused_untouched(
        path, "says it is of schema 1 but bears the traces of a later schema"
    )
    assert f"({trace})" in message
    refused_untouched(path, "traces of a later schema", start)


def test_a_journal_set_back_to_schema_2_is_refused_not_upgraded(tmp_path):
    path = tmp_path / "journal.sqlite3"
    write(path)
    tamper(path, "PRAGMA user_version = 2")
    message = refused_untouched(path, "says it is of schema 2 but bears the traces of a later")
    assert "(a kept column in its events)" in message


# -- schema 2 ----------------------------------------------------------------------------


def test_a_schema_2_journal_is_upgraded_in_place_and_its_resume_points_replayed_past(
    tmp_path, caplog
):
    """A journal of schema 2 keeps its resume points beside its rows, sealed in none: they
    are read as they are, and never loaded, even the one whose balances were changed; the
    writer adds the kept column in place, each row's hash as it was."""
    path = tmp_path / "journal.sqlite3"
    table, states = Table(), []
    with Journal.open(path) as journal:
        for event in play(random.Random(4), ("Ann", "Bob"), packs=3):
            journal.append([Change(event_to_json(event))])
            table.apply(event)
            states.append(resume.save(table))
    whole = resume.load(states[-1])
    forged = resume.load(states[199])
    forged.state.balances["Ann"] += 1000
    with contextlib.closing(sqlite3.connect(path)) as db, db:  # as faro-pi left it in schema 2
        db.executemany(
            "INSERT INTO resume VALUES (?, ?)", [(100, states[99]), (200, resume.save(forged))]
        )
        db.execute("ALTER TABLE events DROP COLUMN kept")
        db.execute("PRAGMA user_version = 2")
        hashes = db.execute("SELECT hash FROM events ORDER BY id").fetchall()
    with Journal.open(path, readonly=True) as journal:
        assert journal.version == 2
        assert [(p.after, p.sealed) for p in journal.resume_points()] == [(200, None), (100, None)]
    with caplog.at_level("INFO", logger="faro_pi"):
        journal, replayed = start(path)
    with journal:
        assert journal.version == 3 and replayed.after == 0 and replayed.last == len(states)
        assert replayed.table.balances == whole.balances
        assert replayed.passed == (PassedOver(200, UNSEALED), PassedOver(100, UNSEALED))
    said = [r.getMessage() for r in caplog.records]
    assert f"{path}: upgraded from schema 2 to 3: each resume point is sealed" in said[0]
    assert said[1] == (
        f"{path}: the resume point after row 200 is sealed in no row (kept before resume points "
        "were sealed); it is not trusted (nor 1 other): the table is replayed from row 1"
    )
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA user_version").fetchone() == (3,)
        assert db.execute("SELECT hash FROM events ORDER BY id").fetchall() == hashes


def test_every_upgrade_is_logged_with_its_row_count(tmp_path, caplog):
    path = tmp_path / "journal.sqlite3"
    schema_1(path)
    with caplog.at_level("WARNING", logger="faro_pi"), Journal.open(path):
        pass
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert len(said) == 2, said
    assert f"{path}: upgrading a journal of schema 1 (30 rows, no hash chain)" in said[0]
    assert "the chain vouches for the rows from here on" in said[0]
    assert said[1] == f"{path}: upgraded: 30 rows chained, the last is row 30"
