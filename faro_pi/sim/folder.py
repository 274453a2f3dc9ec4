"""The simulator's output folder: what a run writes there, and which folders it refuses.

A run replaces its own files from the last run, and only those: a folder that holds a
real table's journal or config, or a journal a running faro-pi holds, is refused.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sqlite3
from pathlib import Path

from faro_pi.exc import FaroError

SIM_CONFIG = """\
# Written by faro-pi sim: the table on simulated hardware.
[reader]
port = "{port}"
protocol = "fsp1"

[journal]
path = "journal.sqlite3"

[gpio]
pin_factory = "mock"

[buttons]
undo_hold = 0.5

[leds]
driver = "74hc595-spi"

[display]
driver = "ssd1306"

[console]
{console}
"""
NO_CONSOLE = "enabled = false"
CONSOLE = 'enabled = true\nhost = "127.0.0.1"\nport = {port}'
"""With ``--console``: the page on this machine only (the token is in the link printed)."""
DEFAULT_PORT = 8077

OUTPUTS = (
    "journal.sqlite3",
    "events.jsonl",
    "table.jsonl",
    "oled.gif",
    "summary.json",
    "config.toml",
)
REPLACED = (*OUTPUTS, "journal.sqlite3-wal", "journal.sqlite3-shm", "reader")
"""What a run deletes and writes again in its folder."""
MARK = "faro-pi-sim.txt"
MARK_TEXT = (
    "faro-pi sim wrote this folder: its journal is a simulated table's, replaced at each run.\n"
)
"""Written before anything else: only a folder that holds it has its files replaced."""


def prepare(out: Path, port: int | None = None) -> Path:
    """A fresh output folder: the simulator's own files from a last run are replaced (the
    console's token is kept, so a page opened last time logs in again).

    Only its own: a folder that holds a journal or a config the simulator did
    not write (a real table's, pointed at by mistake) is refused, and so is one
    whose journal a running daemon or simulator holds.
    """
    refuse_foreign(out)
    out.mkdir(parents=True, exist_ok=True)
    (out / MARK).write_text(MARK_TEXT)
    for name in REPLACED:
        path = out / name
        if path.is_symlink() or path.is_file():
            path.unlink()
    if (out / "pictures").is_dir() and not (out / "pictures").is_symlink():
        shutil.rmtree(out / "pictures")  # the camera's stills of the journal replaced
    config = out / "config.toml"
    console = NO_CONSOLE if port is None else CONSOLE.format(port=port)
    config.write_text(SIM_CONFIG.format(port=(out / "reader").absolute(), console=console))
    return config


def refuse_foreign(out: Path) -> None:
    found = [name for name in REPLACED if (out / name).is_symlink() or (out / name).exists()]
    if not found:
        return
    if not (out / MARK).is_file():
        raise FaroError(
            f"{out} holds {', '.join(found)}, which faro-pi sim did not write (no {MARK}): "
            "a run would delete them. Give --out a new folder, or one an earlier "
            "faro-pi sim wrote (one older than the mark has none: delete it first)"
        )
    left = _last_row(out / "journal.sqlite3")
    written = _sealed(out)
    if written is not None and left is not None and left != written:
        raise FaroError(
            f"{out / 'journal.sqlite3'} has rows faro-pi sim did not write (it ends at row "
            f"{left[0]}, the simulator's last run at row {written[0]}): a daemon ran on it, "
            "and a run would delete them. Give --out another folder, or move the journal"
        )
    if _held(out / "journal.sqlite3"):
        raise FaroError(
            f"{out / 'journal.sqlite3'} is held by a running faro-pi (a daemon, or another "
            "faro-pi sim): stop it first, or give --out another folder"
        )


SEALED = "journal ends at row {row}, hash {hash}\n"


def seal(out: Path) -> None:
    """Notes in the mark where the journal a run wrote ends, so that the next run can tell
    rows a daemon appended to it since (``faro-pi run --config`` on the folder's config)
    from the simulator's own."""
    last = _last_row(out / "journal.sqlite3")
    if last is not None:
        (out / MARK).write_text(MARK_TEXT + SEALED.format(row=last[0], hash=last[1]))


def _sealed(out: Path) -> tuple[int, str] | None:
    """Where the journal ended when the simulator's last run sealed it, or None."""
    try:
        text = (out / MARK).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    for line in text.splitlines():
        words = line.split()
        if (
            line.startswith("journal ends at row")
            and len(words) == 7
            and words[4].rstrip(",").isdigit()
        ):
            return int(words[4].rstrip(",")), words[6]
    return None


def _last_row(journal: Path) -> tuple[int, str] | None:
    """The journal's last row and its hash (hex), read without writing; None without one."""
    if not journal.is_file():
        return None
    try:
        db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
        try:
            found = db.execute("SELECT id, hex(hash) FROM events ORDER BY id DESC LIMIT 1")
            row = found.fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    return None if row is None else (int(row[0]), str(row[1]))


def _held(journal: Path) -> bool:
    """Whether a process holds the journal's writer lock (the daemon's ``flock``)."""
    try:
        fd = os.open(journal, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # and with it the shared lock
    return False
