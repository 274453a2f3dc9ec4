"""The doctor's look for a running daemon, and its checks around one.

A running daemon holds the pins and the reader's port. The doctor beside it
would find the pins busy, and it would read the reader's frames from under
the daemon; so it finds out first whether a daemon writes the same journal
(the journal's writer lock) or answers on the console's port, and then
leaves both alone and asks the daemon's console what it hears instead.
"""

from __future__ import annotations

import contextlib
import fcntl
import http.client
import os
from dataclasses import dataclass
from pathlib import Path

from faro_pi.config import Config
from faro_pi.console.client import ask, console_url
from faro_pi.doctor.check import Check, verdicts

PROC_LOCKS = Path("/proc/locks")
"""Every lock on the machine with its holder's pid; reading it takes none."""

CONSOLE_TIMEOUT = 2.0
"""Seconds to wait for the console's answer: it is on this machine."""


@dataclass(frozen=True, slots=True)
class Running:
    """A daemon found at work on this table."""

    pid: int | None
    """Its process, when the journal's lock names it."""
    url: str | None
    """Its console's address, when the console answered."""
    state: dict | None
    """The table as the console showed it, or None."""

    def words(self) -> str:
        """``the daemon is running (pid 1234)``, or where its console answers."""
        if self.pid:
            return f"the daemon is running (pid {self.pid})"
        if self.url:
            return f"the daemon is running (its console answers at {self.url})"
        return "the daemon is running (it holds the journal's writer lock)"


def running_daemon(config: Config) -> Running | None:
    """The daemon writing ``config``'s journal or answering on its console's port, if any."""
    holder = journal_writer(config.journal.path)
    url = console_url(config.console) if config.console.enabled else None
    state = _console_state(url) if url else None
    if holder is None and state is None:
        return None
    return Running(holder or None, url if state is not None else None, state)


def journal_writer(path: Path, locks: Path = PROC_LOCKS) -> int | None:
    """The pid holding the journal's writer lock, 0 if it is held by a process
    that cannot be named, None if nobody holds it.

    :func:`faro_pi.service.journal_file._only_writer` takes it as an ``flock``
    for as long as a daemon runs. ``/proc/locks`` names its holder without
    taking anything. Where it cannot (another filesystem's device numbers, a
    process in another pid namespace), a shared lock is tried and let go at
    once: refused, the writer's is held.
    """
    try:
        found = os.stat(path)
    except OSError:
        return None
    pid = _flock_holder(found, locks)
    if pid is not None:
        return pid
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None  # closed to this login: the lock cannot be tried
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return 0
    finally:
        os.close(fd)  # and with it the shared lock
    return None


def _flock_holder(found: os.stat_result, locks: Path) -> int | None:
    """The pid of an exclusive ``flock`` on the file ``found`` in ``/proc/locks``, if listed.

    A line reads ``1: FLOCK  ADVISORY  WRITE 1234 fe:00:2146712 0 EOF``: the
    device's major and minor numbers in hex, the inode in decimal. A waiter's
    line has ``->`` after its number, and so is never taken for the holder.
    """
    file = f"{os.major(found.st_dev):02x}:{os.minor(found.st_dev):02x}:{found.st_ino}"
    try:
        text = locks.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        fields = line.split()
        if fields[1:4] == ["FLOCK", "ADVISORY", "WRITE"] and fields[5:6] == [file]:
            with contextlib.suppress(ValueError):
                return max(int(fields[4]), 0)
    return None


def _console_state(url: str) -> dict | None:
    """The table as a faro-pi console at ``url`` shows it; None if none answers there."""
    try:
        status, state = ask(url + "/api/state", timeout=CONSOLE_TIMEOUT)
    except (OSError, ValueError, http.client.HTTPException):  # nothing there, or not HTTP
        return None
    if status == 200 and isinstance(state, dict) and {"pack", "alarms"} <= state.keys():
        return state
    return None


def pins_beside(running: Running) -> Check:
    return Check("pins", None, f"{running.words()}: pins not opened; the daemon holds them")


def reader_beside(running: Running) -> Check:
    """The reader as the daemon hears it: a ``lost`` alarm fails, anything else is not known."""
    _, failed, skipped = verdicts("reader")
    said = f"{running.words()}: reader not opened"
    if running.state is None:
        return skipped(f"{said}; journalctl -u faro-pi shows what the daemon hears from it")
    lost = [alarm for alarm in running.state["alarms"] if alarm.get("kind") == "lost"]
    if lost:
        return failed(
            f"{said}; the daemon reports it lost ({lost[0].get('text')})",
            "check the reader's cable and power; the alarm clears when it speaks again",
        )
    return skipped(f"{said}; the daemon reports no lost reader (faro-pi status shows the table)")
