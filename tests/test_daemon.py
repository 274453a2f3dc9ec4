"""The daemon in this process: a virtual reader on a real pty, buttons on mock pins."""

from __future__ import annotations

import asyncio
import logging
import os
import random
import shutil
import subprocess
import sys

import pytest

from faro_pi.game.cards import DECK
from faro_pi.game.codec import event_to_json
from faro_pi.game.events import Bet, Session
from faro_pi.service.journal import Change, Journal
from faro_pi.shoe.fsp1 import CardFrame
from faro_pi.shoe.link import ReaderPort
from faro_pi.virtual.reader import VirtualReader
from tests.conftest import running_table, until, write_config


def deck(seed: int = 1) -> list[str]:
    cards = [c.code for c in DECK]
    random.Random(seed).shuffle(cards)
    return cards


def exposed(table) -> list[str]:
    return [c.code for c in table.pack.exposed]


def journal_rows(folder):
    with Journal.open(folder / "journal.sqlite3", readonly=True) as journal:
        return list(journal.rows())


async def test_a_pack_over_a_bad_line_gives_each_card_once_and_in_order(table_dir):
    order = deck()

    async def scenario():
        reader = VirtualReader(table_dir / "reader", retry=0.05, rng=random.Random(5))
        reader.lose_frames, reader.lose_acks, reader.damage = 0.15, 0.15, 0.1
        async with running_table(table_dir, reader=reader) as (daemon, reader, _):
            for i, code in enumerate(order):
                reader.card(code)
                if i % 7 == 3:
                    reader.garble(40)  # noise between frames
            await until(daemon, lambda t: t.pack.complete)
            await reader.drained()
            assert exposed(daemon.table) == order
            assert reader.sent > 53  # frames really were lost and repeated
            assert daemon.table.alarms == []

    await scenario()
    rows = journal_rows(table_dir)
    assert [r.event["card"] for r in rows if r.event["type"] == "card"] == order
    assert all(r.refused is None for r in rows)


async def test_a_refused_card_is_acknowledged_kept_out_of_the_pack_and_raises_an_alarm(table_dir):
    async def scenario():
        async with running_table(table_dir) as (daemon, reader, _):
            for code in ("5H", "KD", "9C", "KD"):
                reader.card(code)
            await reader.drained()  # all four acknowledged, the refused one too
            assert exposed(daemon.table) == ["5H", "KD", "9C"]
            [alarm] = daemon.table.alarms
            assert alarm.kind == "refused" and alarm.card.code == "KD"
            assert "already exposed" in alarm.text
            reader.card("QS")
            await until(daemon, lambda t: len(t.pack.exposed) == 4)

    await scenario()
    rows = journal_rows(table_dir)
    refused = [r for r in rows if r.refused]
    assert [r.event["card"] for r in refused] == ["KD"]


async def test_a_no_read_asks_for_the_card_and_clears_when_it_comes(table_dir):
    async with running_table(table_dir) as (daemon, reader, _):
        reader.card("5H")
        reader.no_read()
        await until(daemon, lambda t: t.alarms)
        assert daemon.table.alarms[0].kind == "noread"
        assert "re-feed" in daemon.table.alarms[0].text
        assert exposed(daemon.table) == ["5H"]
        reader.card("KD")  # the dealer re-feeds it
        await until(daemon, lambda t: len(t.pack.exposed) == 2)
        assert daemon.table.alarms == []


async def test_a_reader_that_restarts_mid_pack_carries_on_without_an_alarm(table_dir):
    async with running_table(table_dir) as (daemon, reader, _):
        for code in ("5H", "KD", "9C"):
            reader.card(code)
        await reader.drained()
        reader.restart()  # hello again, numbering from 1
        reader.card("QS")
        reader.card("2C")
        await reader.drained()
        assert exposed(daemon.table) == ["5H", "KD", "9C", "QS", "2C"]
        assert daemon.table.alarms == []


async def test_a_sequence_gap_applies_the_card_and_warns_that_some_may_be_missing(table_dir):
    async with running_table(table_dir) as (daemon, reader, _):
        reader.card("5H")
        await reader.drained()
        from faro_pi.game.cards import parse_card

        reader.send_raw(CardFrame(4, parse_card("KD")).to_bytes())  # 2 and 3 never came
        await until(daemon, lambda t: len(t.pack.exposed) == 2)
        [alarm] = daemon.table.alarms
        assert alarm.kind == "gap" and "2 reading(s)" in alarm.text


async def test_the_port_pulled_and_plugged_back_loses_nothing(table_dir):
    order = deck(2)[:20]

    async with running_table(table_dir) as (daemon, reader, _):
        for code in order[:10]:
            reader.card(code)
        await until(daemon, lambda t: len(t.pack.exposed) >= 4)
        await reader.unplug(0.6)
        for code in order[10:]:
            reader.card(code)
        await until(daemon, lambda t: len(t.pack.exposed) == 20)
        assert exposed(daemon.table) == order


LEAVE_A_LINK = """
import asyncio, os, sys
from faro_pi.virtual.reader import VirtualReader

async def plug_and_die():
    reader = VirtualReader(sys.argv[1])
    reader.plug()
    print(os.ttyname(reader._slave), flush=True)
    os._exit(0)  # killed midway: the reader never unplugs, its link stays

asyncio.run(plug_and_die())
"""


async def test_a_link_left_by_a_killed_reader_leads_to_no_other_pty(tmp_path):
    """A test run killed midway leaves its reader's link, and maybe its daemon retrying it.

    The machine hands the dead pty's number to the next pty opened, here the
    next reader's; were the link to name ``/dev/pts/N``, that daemon would open
    the other table's reader and acknowledge some of its frames, which that
    table would then never see ("1 frame(s) missing before 9").
    """
    link = tmp_path / "dead-reader"
    died = subprocess.run(
        [sys.executable, "-c", LEAVE_A_LINK, str(link)], capture_output=True, text=True
    )
    assert died.returncode == 0, died.stderr
    dead_pty = died.stdout.strip()

    reader = VirtualReader(tmp_path / "reader")
    reader.plug()
    try:
        print(f"the dead reader's pty {dead_pty}, the new one's {os.ttyname(reader._slave)}")
        assert link.is_symlink()
        assert not link.exists(), f"{link} -> {os.readlink(link)} leads to a live pty"
    finally:
        reader.close()


async def test_a_second_faro_pi_on_the_same_reader_waits_and_takes_nothing(table_dir, monkeypatch):
    import serial

    order = deck(5)[:6]
    tries, tried = [0], asyncio.Event()
    loop = asyncio.get_running_loop()
    serial_for_url = serial.serial_for_url

    def counted(url, *args, **kwargs):
        tries[0] += 1
        if tries[0] == 3:
            loop.call_soon_threadsafe(tried.set)
        return serial_for_url(url, *args, **kwargs)

    async with running_table(table_dir) as (daemon, reader, _):
        heard, opened = [], []
        second = ReaderPort(
            str(table_dir / "reader"), 115200, heard.append, lambda: opened.append(True),
            backoff=0.01,
        )  # fmt: skip
        monkeypatch.setattr(serial, "serial_for_url", counted)
        second.start()
        try:
            for code in order:
                reader.card(code)
            await until(daemon, lambda t: len(t.pack.exposed) == len(order))
            await asyncio.wait_for(tried.wait(), 10)  # the second port has tried again, twice
            assert opened == [] and heard == []
            assert exposed(daemon.table) == order
        finally:
            await second.close()


def test_a_journal_folder_it_cannot_write_stops_the_start_and_says_why(tmp_path):
    folder = tmp_path / "journal"
    folder.mkdir()
    folder.chmod(0o555)
    config = write_config(tmp_path)
    config.write_text(config.read_text().replace('"journal.sqlite3"', '"journal/journal.sqlite3"'))
    command = [sys.executable, "-m", "faro_pi.cli", "run", "--config", str(config)]
    if os.geteuid() == 0:  # root writes anywhere: run it without that power
        if shutil.which("setpriv") is None:
            pytest.skip("running as root, without setpriv to give up the right to write anywhere")
        command = ["setpriv", "--bounding-set=-dac_override,-dac_read_search", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    assert done.returncode != 0
    assert f"cannot create the journal in {folder}: Permission denied" in done.stderr, done.stderr


async def test_a_silent_reader_is_reported_lost_and_the_alarm_clears_when_it_speaks(tmp_path):
    write_config(tmp_path, heartbeat_timeout=2.0)

    reader = VirtualReader(tmp_path / "reader", retry=0.05, heartbeat=None)
    async with running_table(tmp_path, reader=reader) as (daemon, reader, _):
        await until(daemon, lambda t: t.alarms)
        assert daemon.table.alarms[0].kind == "lost"
        reader.card("5H")
        await until(daemon, lambda t: t.pack.exposed)
        assert daemon.table.alarms == []


async def test_a_restart_resumes_the_table_and_the_link_from_the_journal(table_dir):
    async def first():
        async with running_table(table_dir) as (_, reader, _):
            for code in ("5H", "KD", "9C"):
                reader.card(code)
            await reader.drained()
            return reader.sender

    sender = await first()

    reader = VirtualReader(table_dir / "reader", retry=0.05)
    reader.sender = sender  # the same reader, still numbering on
    async with running_table(table_dir, reader=reader) as (daemon, reader, _):
        assert exposed(daemon.table) == ["5H", "KD", "9C"]
        reader.card("QS")
        await reader.drained()
        assert exposed(daemon.table) == ["5H", "KD", "9C", "QS"]
        assert daemon.table.alarms == []


# -- the shoe's buttons -------------------------------------------------------------


def press(factory, pin: int) -> None:
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


async def test_signal_locks_entries_for_the_next_pair(table_dir):
    async with running_table(table_dir) as (daemon, reader, factory):
        press(factory, 17)
        await until(daemon, lambda t: t.locked)
        assert not daemon.table.entries_open
        reader.card("5H")
        reader.card("KD")
        reader.card("9C")
        await until(daemon, lambda t: len(t.pack.exposed) == 3)
        assert daemon.table.entries_open


def test_undo_held_voids_the_last_card_once_and_a_short_press_does_not(table_dir, caplog):
    caplog.set_level(logging.INFO, logger="faro_pi")

    async def scenario():
        async with running_table(table_dir) as (daemon, reader, factory):
            for code in ("5H", "KD"):
                reader.card(code)
            await reader.drained()
            press(factory, 27)  # short: nothing to acknowledge, nothing voided
            undo = factory.pin(27)
            undo.drive_low()
            await until(daemon, lambda t: len(t.pack.exposed) == 1)
            undo.drive_high()
            undo.drive_low()  # held again straight away: voids the soda, as asked
            await until(daemon, lambda t: len(t.pack.exposed) == 0)
            undo.drive_high()
            assert daemon.table.pack.counts[13] == 4

    asyncio.run(scenario())
    voids = [r.getMessage() for r in caplog.records if r.getMessage().startswith("void")]
    assert voids == [  # the log names the card each void took back
        "void: card 2, K♦, is taken back (0 entries dropped)",
        "void: card 1, 5♥, is taken back (0 entries dropped)",
    ]


async def test_a_short_undo_press_acknowledges_the_alarms(table_dir):
    async with running_table(table_dir) as (daemon, reader, factory):
        for code in ("5H", "5H"):
            reader.card(code)
        await until(daemon, lambda t: t.alarms)
        press(factory, 27)
        await until(daemon, lambda t: not t.alarms)
        assert exposed(daemon.table) == ["5H"]


async def test_new_pack_shuffles_only_after_the_hock_and_passes_the_bank(table_dir):
    with Journal.open(table_dir / "journal.sqlite3") as journal:
        journal.append([Change(event_to_json(Session(("Ann", "Bob", "Cy"), "Cy")))])

    async with running_table(table_dir) as (daemon, reader, factory):
        press(factory, 22)  # refused: the pack has not been dealt
        for code in deck(3):
            reader.card(code)
        await until(daemon, lambda t: t.pack.complete)
        assert daemon.table.pack.number == 1
        press(factory, 22)
        await until(daemon, lambda t: t.pack.number == 2)
        assert daemon.table.banker == "Ann"


async def test_journal_entries_made_before_start_are_replayed_and_settled(table_dir):
    with Journal.open(table_dir / "journal.sqlite3") as journal:
        journal.append([Change(event_to_json(Session(("Ann", "Bob", "Cy"), "Cy")))])
        journal.append([Change(event_to_json(Bet("Ann", 9, 2)))])
        journal.append([Change(event_to_json(Bet("Bob", 13, 2, copper=True)))])

    async with running_table(table_dir) as (daemon, reader, _):
        for code in ("5H", "KD", "9C"):
            reader.card(code)
        await until(daemon, lambda t: len(t.pack.exposed) == 3)
        assert daemon.table.balances == {"Ann": 2, "Bob": 2, "Cy": -4}


async def test_the_plain_protocol_reads_a_scanner_and_ignores_a_quick_repeat(tmp_path):
    write_config(tmp_path, protocol="plain")

    reader = VirtualReader(tmp_path / "reader", heartbeat=None)
    reader.sender._queue.clear()  # a scanner says no hello
    async with running_table(tmp_path, reader=reader) as (daemon, reader, _):
        reader.send_raw(b"5H\r")
        reader.send_raw(b"KD\rKD\r")  # the scanner fired twice at the same card
        reader.send_raw(b"xx\r9c\n")
        await until(daemon, lambda t: len(t.pack.exposed) == 3)
        assert exposed(daemon.table) == ["5H", "KD", "9C"]


def test_a_log_line_stays_one_line_whatever_a_name_holds():
    import logging

    from faro_pi.service.logline import OneLine

    record = logging.LogRecord(
        "faro_pi", logging.WARNING, "", 0, "refused %s", ("Ann\nINFO x\x1b[2J\x00",), None
    )
    assert OneLine("%(message)s").format(record) == "refused Ann\\nINFO x\\x1b[2J\\x00"


async def test_a_stacked_pack_is_reported_and_raises_an_integrity_alarm(table_dir):
    ranks = {}
    for card in DECK:
        ranks.setdefault(card.rank, []).append(card.code)
    stacked = [code for rank in sorted(ranks) for code in ranks[rank]]  # pairs of one rank

    async def scenario():
        async with running_table(table_dir) as (daemon, reader, _):
            for code in stacked:
                reader.card(code)
            await until(daemon, lambda t: t.state.integrity is not None)
            assert daemon.table.state.integrity.flagged
            assert [a.kind for a in daemon.table.alarms] == ["integrity"]
            assert "splits" in daemon.table.alarms[0].text

    await scenario()
    rows = [r.event for r in journal_rows(table_dir)]
    assert [r["type"] for r in rows[-2:]] == ["integrity", "alarm"]
    assert rows[-2]["pack"] == 1 and rows[-2]["flagged"] and "splits" in rows[-2]["report"]


async def test_a_fair_pack_is_reported_without_an_alarm(table_dir):
    async with running_table(table_dir) as (daemon, reader, _):
        for code in deck(3):
            reader.card(code)
        await until(daemon, lambda t: t.state.integrity is not None)
        assert daemon.table.state.integrity.flagged == () and daemon.table.alarms == []


async def test_faro_pi_integrity_reads_every_pack_of_a_journal(table_dir, capsys):
    from faro_pi.cli import main

    ranks = {}
    for card in DECK:
        ranks.setdefault(card.rank, []).append(card.code)
    stacked = [code for rank in sorted(ranks) for code in ranks[rank]]

    async def scenario():
        async with running_table(table_dir) as (daemon, reader, _):
            for code in stacked:
                reader.card(code)
            await until(daemon, lambda t: t.state.integrity is not None)

    await scenario()
    assert main(["integrity", str(table_dir / "journal.sqlite3")]) == 1
    out = capsys.readouterr().out
    assert out.startswith("pack 1: ") and "splits" in out and "no report" not in out
    assert "\n  splits: 13 (a fair shuffle: 13 or more less than once in a billion" in out
