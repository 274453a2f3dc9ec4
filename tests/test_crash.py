"""A kill -9 at every commit of the reader's path, then a restart: nothing lost, doubled or unsaid.

Not at random moments: the scenario is first run without a fault to count the
commits its frames make (a hello, cards, no-reads, a duplicate card refused
with its alarm, a gap), then once for every commit N with the daemon killed
just before commit N and once with it killed just after (before the frame is
acknowledged). The daemon is ``faro-pi run`` in a process of its own
(tests/kill_at_commit.py, which kills itself at the chosen commit), on a
virtual reader that keeps resending what was not acknowledged.

Where the kill leaves it, the journal must hold exactly the commits made, and
the link resume after the last frame among them. After a normal restart has
taken the rest, the journal must hold every frame once and in order, the
refused reading with its alarm, the no-read's alarm and the gap's, and nothing
twice; the table restored from it must show those alarms, each raised once;
and the link must resume after the last frame.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
from collections import Counter
from pathlib import Path
from typing import NamedTuple

from faro_pi.game.cards import parse_card
from faro_pi.game.rules import Table
from faro_pi.service.journal import Journal
from faro_pi.service.restore import restore
from faro_pi.service.verify import verify_journal
from faro_pi.virtual.reader import VirtualReader
from tests.conftest import write_config
from tests.test_daemon_process import environ

LAUNCHER = Path(__file__).with_name("kill_at_commit.py")
AT_ONCE = 6
"""Scenarios run side by side: each spends most of its time waiting on its processes."""
PATIENCE = 20.0
"""Seconds a daemon may take to die at its commit, or to take the rest of the frames."""

APPLIED = ["KD", "3S", "5H", "9C", "JH", "AS"]
"""The cards the rules accept, in the order dealt (the duplicate KD and the lost 2D are not)."""

JOURNAL = [
    "card KD #1",
    "card 3S #2",
    "alarm noread #3",
    "card 5H #4",
    "clear noread",
    "refused card KD #5",
    "alarm refused KD",
    "card 9C #6",
    "alarm gap",
    "card JH #8",
    "card AS #9",
    "alarm noread #10",
]
"""The journal the scenario leaves, a row a line (``#N``: the reader's frame in the row)."""

LAST_FRAME = 10
ALARMS = {"refused": 1, "gap": 1, "noread": 1}
"""The alarms standing at the end, each raised once."""

ROWS = {"set_link_seq": 0}
"""The journal rows each kind of commit writes; ``append`` writes one per event it names."""


def deal(reader: VirtualReader) -> None:
    """The dealer's side: every frame queued at once; the reader sends them one at a time."""
    reader.card("KD")  # 1
    reader.card("3S")  # 2
    reader.no_read()  # 3: an alarm
    reader.card("5H")  # 4: a card read clears the no-read's alarm
    reader.card("KD")  # 5: a duplicate: refused, and its alarm, in one transaction
    reader.card("9C")  # 6
    full, reader.sender.capacity = reader.sender.capacity, 0
    reader.card("2D")  # 7: the reader's queue is full, the frame dropped: a gap
    reader.sender.capacity = full
    reader.card("JH")  # 8
    reader.card("AS")  # 9
    reader.no_read()  # 10: its alarm still stands at the end


class Kill(NamedTuple):
    when: str
    """``before`` or ``after`` the commit, or ``never``."""
    number: int
    """The commit, counted from 1 in the first process."""
    commit: str
    """That commit in the fault-free run, as kill_at_commit.py logs it."""
    made: tuple[str, ...]
    """The commits the fault-free run had made by then: what the kill must leave on disk."""

    def __str__(self) -> str:
        return f"killed {self.when} commit {self.commit}"


NO_KILL = Kill("never", 0, "", ())


class Outcome(NamedTuple):
    commits: list[str]
    """The first process's commits, as kill_at_commit.py logs them: ``N method what@frame``."""
    problems: list[str]


# -- the processes -------------------------------------------------------------------


@contextlib.asynccontextmanager
async def daemon(folder: Path, name: str, kill: Kill = NO_KILL):
    """``faro-pi run`` on ``folder``'s config, killing itself at ``kill``; never left running."""
    log = folder / f"{name}.commits"
    with (folder / f"{name}.err").open("wb") as err:
        proc = await asyncio.create_subprocess_exec(
            *(sys.executable, str(LAUNCHER), str(log), kill.when, str(kill.number)),
            *("--", "run", "--config", str(folder / "config.toml")),
            env=environ(),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=err,
        )
    try:
        yield proc
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()


async def ended(proc: asyncio.subprocess.Process, stop: bool) -> int | None:
    """The exit status (after SIGTERM, if ``stop``), or None when it never came."""
    if stop:
        proc.send_signal(signal.SIGTERM)
    try:
        async with asyncio.timeout(PATIENCE):
            return await proc.wait()
    except TimeoutError:
        proc.kill()
        await proc.wait()
        return None


async def drained(reader: VirtualReader) -> bool:
    try:
        async with asyncio.timeout(PATIENCE):
            await reader.drained()
    except TimeoutError:
        return False
    return True


async def play(folder: Path, kill: Kill) -> Outcome:
    """The scenario with the first process killed at ``kill``, then a restart to finish it."""
    folder.mkdir()
    write_config(folder, heartbeat_timeout=600)  # no "lost" alarm in a slow run
    journal = folder / "journal.sqlite3"
    reader = VirtualReader(folder / "reader", retry=0.05)
    reader.plug()
    problems = []
    try:
        deal(reader)
        if kill != NO_KILL:
            async with daemon(folder, "first", kill) as first:
                status = await ended(first, stop=False)
            if status != -signal.SIGKILL:
                problems.append(f"the first daemon did not die at its commit: exit {status}")
            problems += at_the_kill(journal, kill.made)
        async with daemon(folder, "second" if kill != NO_KILL else "first") as last:
            if not await drained(reader):
                problems.append(f"{reader.sender.pending()} frames never acknowledged")
            status = await ended(last, stop=True)
        if status != 0:
            problems.append(f"the last daemon stopped with {status}")
    finally:
        reader.close()
    commits = (folder / "first.commits").read_text().splitlines()
    if kill != NO_KILL and not commits[-1].startswith(f"{kill.number} "):
        problems.append(f"the kill hit {commits[-1]!r}")
    if reader.sender.dropped != 1:
        problems.append(f"the reader dropped {reader.sender.dropped} frames, not the one")
    return Outcome(commits, problems + at_the_end(journal))


# -- what the journal holds ------------------------------------------------------------


def row(event: dict, refused: str | None, seq: int | None) -> str:
    """One journal row in a few words, as :data:`JOURNAL` writes them."""
    kind = event["type"]
    words = [kind, event.get("kind") or event.get("card") or ""]
    if kind == "alarm" and event.get("card"):
        words.append(event["card"])
    if refused is not None:
        words.insert(0, "refused")
    if seq is not None:
        words.append(f"#{seq}")
    return " ".join(w for w in words if w)


class Read(NamedTuple):
    rows: list[str]
    link: int | None
    table: Table
    chain: str | None
    """The first row that does not verify, or None."""


def read(path: Path) -> Read:
    """The journal as the restarted daemon finds it: its rows, its link and its table."""
    with Journal.open(path, readonly=True) as journal:
        rows = []
        for stored in journal.stored():
            entry = journal.entry(stored)
            rows.append(row(entry.event, entry.refused, stored.seq))
        broken = verify_journal(journal).broken
        return Read(rows, journal.link_seq, restore(journal), broken and str(broken))


def on_disk(made: tuple[str, ...]) -> tuple[list[str], int | None]:
    """The rows and the link's frame that the fault-free run's commits ``made`` leave."""
    count, link = 0, None
    for commit in made:
        _, method, what = commit.split(" ")
        count += what.count("+") + 1 if method == "append" else ROWS[method]
        frame = what.rpartition("@")[2]
        if frame != "None":
            link = int(frame)
    return JOURNAL[:count], link


def standing(rows: list[str]) -> set[str]:
    """The kinds of alarm the rows leave raised."""
    kinds: set[str] = set()
    for text in rows:
        kind, what = text.split(" ")[:2]
        if kind == "alarm":
            kinds.add(what)
        elif kind == "clear":
            kinds.discard(what)
    return kinds


def at_the_kill(path: Path, made: tuple[str, ...]) -> list[str]:
    """Every commit made before the kill is on disk, none after, and the table shows it."""
    rows, link = on_disk(made)
    found = read(path)
    problems = [] if found.chain is None else [f"after the kill, the chain breaks: {found.chain}"]
    if found.rows != rows:
        problems.append(f"after the kill the journal is {found.rows}, not {rows}")
    if found.link != link:
        problems.append(f"after the kill the link resumes after frame {found.link}, not {link}")
    alarms = {alarm.kind for alarm in found.table.alarms}
    if alarms != standing(rows):
        problems.append(f"after the kill the table's alarms are {alarms}, not {standing(rows)}")
    return problems


def at_the_end(path: Path) -> list[str]:
    """What is wrong with the journal the scenario left, and the table it restores to."""
    found = read(path)
    problems = [] if found.chain is None else [f"the hash chain breaks: {found.chain}"]
    problems += journal_order(found.rows)
    if found.link != LAST_FRAME:
        problems.append(f"the link resumes after frame {found.link}, not {LAST_FRAME}")
    table = found.table
    counts = dict(table.state.alarm_counts)
    if counts != ALARMS or {a.kind for a in table.alarms} != set(ALARMS):
        raised = [(a.kind, a.text) for a in table.alarms]
        problems.append(f"the restored table's alarms are {raised}, counted {counts}")
    refused = [a for a in table.alarms if a.kind == "refused"]
    if refused and refused[0].card != parse_card("KD"):
        problems.append(f"the refused reading's alarm names {refused[0].card}, not KD")
    exposed = [card.code for card in table.pack.exposed]
    if exposed != APPLIED:
        problems.append(f"the pack holds {exposed}, not {APPLIED}")
    return problems


def journal_order(rows: list[str]) -> list[str]:
    """The rows against :data:`JOURNAL`: exactly those, once each, in that order.

    A card that follows a no-read clears its alarm in the card's own
    transaction, so even a card whose frame is repeated after a restart
    (acknowledged, not read again) leaves the clearing where it belongs.
    """
    if rows == JOURNAL:
        return []
    doubled = [text for text, n in Counter(rows).items() if n > 1]
    return [f"the journal is {rows}" + (f", twice: {doubled}" if doubled else "")]


# -- every boundary ---------------------------------------------------------------------


async def every_boundary(folder: Path) -> tuple[list[str], dict[Kill, Outcome]]:
    """The fault-free run's commits, and the outcome of a kill before and after each."""
    clean = await play(folder / "clean", NO_KILL)
    assert clean.problems == [], clean.problems
    made = tuple(clean.commits)
    kills = [
        Kill(when, number, commit, made[: number - (when == "before")])
        for number, commit in enumerate(made, 1)
        for when in ("before", "after")
    ]
    room = asyncio.Semaphore(AT_ONCE)

    async def one(kill: Kill) -> Outcome:
        async with room:
            return await play(folder / f"{kill.when}-{kill.number}", kill)

    outcomes = await asyncio.gather(*map(one, kills))
    return clean.commits, dict(zip(kills, outcomes, strict=True))


async def test_a_kill_at_every_commit_of_the_reader_path_loses_doubles_and_hides_nothing(tmp_path):
    commits, outcomes = await every_boundary(tmp_path)

    failed = {kill: outcome.problems for kill, outcome in outcomes.items() if outcome.problems}
    report = "\n".join(f"{kill}:\n  " + "\n  ".join(found) for kill, found in failed.items())
    assert not failed, f"{len(failed)} of {len(outcomes)} kills went wrong:\n{report}"
    kinds = {
        commit.split(" ")[1]
        + (" of several" if "+" in commit else "")
        + ("" if commit.endswith("@None") else " frame")
        for commit in commits
    }
    assert {"set_link_seq frame", "append frame", "append of several frame"} <= kinds, (
        f"the scenario no longer makes every kind of commit: {commits}"
    )
    assert on_disk(tuple(commits)) == (JOURNAL, LAST_FRAME), commits
