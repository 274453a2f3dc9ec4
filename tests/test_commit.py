"""The daemon's one commit path: whatever makes a commit fail, the table stays the journal's."""

from __future__ import annotations

import errno
import sqlite3

import pytest

from faro_pi.config import load_config
from faro_pi.exc import JournalError, Refused
from faro_pi.game.cards import parse_card
from faro_pi.game.events import Alarm, Bet, CardDrawn, Join, Session
from faro_pi.service.daemon import Daemon
from faro_pi.service.journal import Journal
from faro_pi.service.restore import restore
from tests.conftest import write_config


def seen(table) -> tuple:
    """What a table shows and remembers, to compare as values."""
    return table.state, table.history, table.packs, table.pack_log


def as_journaled(path) -> tuple:
    with Journal.open(path, readonly=True) as reader:
        return seen(restore(reader))


async def seated(folder, session: bool = True) -> Daemon:
    """A daemon in this process: a session seated and a card out, or a new table."""
    config = load_config(write_config(folder), environ={})
    daemon = Daemon(config, Journal.open(config.journal.path))
    if session:
        daemon.enter(Session(("Ann", "Bob", "Cy"), "Cy"))
        daemon.record_reading(CardDrawn(parse_card("5H"), "reader"), seq=1)
    return daemon


FAILURES = {
    "sqlite": sqlite3.OperationalError("database or disk is full"),
    "disk full": OSError(errno.ENOSPC, "No space left on device"),
    "encoding": UnicodeEncodeError("utf-8", "\udc80", 0, 1, "surrogates not allowed"),
    "anything": RuntimeError("a fault of any kind"),
}


@pytest.mark.parametrize("failure", FAILURES.values(), ids=FAILURES.keys())
async def test_a_commit_that_fails_leaves_the_table_as_the_journal_is_and_stops(tmp_path, failure):
    daemon = await seated(tmp_path)
    path = daemon.journal.path

    def broken_write(rows):
        raise failure

    daemon.journal._insert = broken_write
    try:
        with pytest.raises(JournalError, match="not journalled"):
            daemon.enter(Bet("Ann", 9, 2))
        assert seen(daemon.table) == as_journaled(path)
        assert daemon.stopped.is_set() and isinstance(daemon.failure, JournalError)
        # a reading, with the gap alarm it brings, and one the rules refuse with its alarm
        gap = Alarm("gap", "1 reading(s) never arrived")
        for card in ("KD", "5H"):
            with pytest.raises(JournalError):
                daemon.record_reading(CardDrawn(parse_card(card), "reader"), 3, gap)
            assert seen(daemon.table) == as_journaled(path)
        with pytest.raises(JournalError):
            daemon.submit(Alarm("lost", "the card reader is silent"))
        assert seen(daemon.table) == as_journaled(path)
    finally:
        daemon.quieten()
        daemon.journal.close()


ODD_NAMES = {
    "join": (Join("Z\udc80"), Join("Zed")),
    "session": (Session(("\ud800x", "Bob", "Cy"), "Cy"), Session(("Ann", "Bob", "Cy"), "Cy")),
}


@pytest.mark.parametrize(("odd", "good"), ODD_NAMES.values(), ids=ODD_NAMES.keys())
async def test_an_entry_the_journal_cannot_encode_changes_nothing_and_the_table_goes_on(
    tmp_path, odd, good
):
    """A name with a lone surrogate is not UTF-8: refused by the rules, or by the journal;
    never applied in memory without its row, and the table carries on."""

    daemon = await seated(tmp_path, session=isinstance(odd, Join))
    try:
        with pytest.raises((Refused, JournalError)) as caught:
            daemon.enter(odd)
        if isinstance(caught.value, JournalError):
            assert caught.value.reason == "cannot-encode"
        else:
            assert caught.value.rule != "one-session"
        assert seen(daemon.table) == as_journaled(daemon.journal.path)
        assert not daemon.stopped.is_set()
        daemon.enter(good)
        assert daemon.table.seats[-1] == ("Zed" if isinstance(good, Join) else "Cy")
        assert seen(daemon.table) == as_journaled(daemon.journal.path)
    finally:
        daemon.quieten()
        daemon.journal.close()
