"""``faro-pi sim --out`` replaces only what it wrote: never a real table's journal or config."""

from __future__ import annotations

import asyncio
import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from faro_pi.exc import FaroError
from faro_pi.game.events import Join, Session
from faro_pi.sim.folder import MARK
from faro_pi.sim.run import simulate
from tests.conftest import running_table, write_config

SCENARIO = [{"type": "session", "seats": ["Ann", "Bob"], "banker": "Bob"}]


def sim(out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "faro_pi.cli", "sim", "--speed", "0", "--out", str(out)],
        capture_output=True,
        text=True,
    )


def files(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in folder.iterdir() if path.is_file()}


def test_a_daemons_folder_is_refused_while_it_runs_and_after(tmp_path):
    write_config(tmp_path)

    async def while_it_runs() -> tuple[subprocess.CompletedProcess, int]:
        async with running_table(tmp_path) as (daemon, _, _):
            daemon.enter(Session(("Ann", "Bob"), "Bob"))
            rows = daemon.journal.count()
            done = await asyncio.to_thread(sim, tmp_path)
            assert daemon.journal.count() == rows
            return done, rows

    config = (tmp_path / "config.toml").read_bytes()
    done, rows = asyncio.run(while_it_runs())
    assert done.returncode == 2, done.stdout
    assert str(tmp_path) in done.stderr and "did not write" in done.stderr
    assert "--out" in done.stderr  # the fix: another folder
    assert (tmp_path / "config.toml").read_bytes() == config
    assert not (tmp_path / MARK).exists()

    before = files(tmp_path)  # stopped: the journal is still not the simulator's
    done = sim(tmp_path)
    assert done.returncode == 2 and "did not write" in done.stderr
    assert files(tmp_path) == before
    assert rows == 1


def test_the_simulators_own_folder_is_replaced_unless_a_process_holds_its_journal(tmp_path):
    out = tmp_path / "sim-out"
    asyncio.run(simulate(SCENARIO, out, speed=0))
    assert (out / MARK).is_file()
    asyncio.run(simulate(SCENARIO, out, speed=0))  # its own files: replaced
    journal = out / "journal.sqlite3"
    before = journal.read_bytes()
    fd = os.open(journal, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a running daemon holds it
        with pytest.raises(FaroError, match="held by a running faro-pi"):
            asyncio.run(simulate(SCENARIO, out, speed=0))
    finally:
        os.close(fd)
    assert journal.read_bytes() == before


def test_rows_a_daemon_appended_to_the_simulators_journal_are_never_deleted(tmp_path):
    """A daemon run on the folder's own config (faro-pi run --config sim-out/config.toml)
    appends rows to the simulator's journal: the next run refuses the folder rather than
    delete them."""
    out = tmp_path / "sim-out"
    asyncio.run(simulate(SCENARIO, out, speed=0))

    async def a_night_on_it() -> int:
        async with running_table(out) as (daemon, _, _):
            daemon.enter(Join("Cy"))
            return daemon.journal.count()

    rows = asyncio.run(a_night_on_it())
    before = files(out)
    with pytest.raises(FaroError, match="has rows faro-pi sim did not write"):
        asyncio.run(simulate(SCENARIO, out, speed=0))
    assert files(out) == before and rows >= 2
