"""Two tables under one floor name: each start's instance, and the sign of another.

A cloned SD card gives two tables the same name on the floor, the same broker
user and the same client id, and the broker keeps only one connection per
client id: each table's connecting closes the other's, and both retry every
second or two, each sure the broker is flaky. Nothing in MQTT 3.1.1 tells the
one closed why. So each start of the publisher draws an instance id and says
``online INSTANCE`` on its status topic, which the broker keeps, and leaves
``offline INSTANCE`` as its will, which the broker sends when it closes the
connection for another. A table that finds there, when it connects again,
another instance than its own knows another client has had its client id
since it last did: another table is on the floor under its name. It says so
in its log and with a ``floor`` alarm, and keeps a note (:data:`NOTE_FILE`,
beside the journal) that ``faro-pi doctor`` reports; the note goes once a
connection has held for :data:`QUIET` seconds.
The floor sees the same from its side: live statuses whose instances take
turns (:mod:`faro_pi.floor.pit`).
"""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import time
from pathlib import Path
from typing import NamedTuple

log = logging.getLogger("faro_pi")

NOTE_FILE = "floor.twin"
"""Beside the journal: another table seen under this one's name, for ``faro-pi doctor``."""

QUIET = 60.0
"""Seconds a connection holds, no other table seen, before the note goes."""

_INSTANCE_MOST = 32
"""Characters in an instance id at most (one drawn here has 12)."""


class Status(NamedTuple):
    """A status message: online or not, and the start that said it (None: not said)."""

    online: bool
    instance: str | None


def online(instance: str) -> bytes:
    return f"online {instance}".encode()


def offline(instance: str) -> bytes:
    return f"offline {instance}".encode()


def decode_status(payload: bytes) -> Status:
    """``online`` or ``offline``, each with its start's instance or without;
    ValueError for anything else."""
    word, _, instance = payload.partition(b" ")
    if word in (b"online", b"offline") and (
        not instance or (len(instance) <= _INSTANCE_MOST and instance.isalnum())
    ):
        return Status(word == b"online", instance.decode() if instance else None)
    raise ValueError(f"{payload[:40]!r} is not online or offline")


def instance() -> str:
    """A new start's instance id."""
    return secrets.token_hex(6)


def other_table(status: Status, mine: str, *, retained: bool, said_before: bool) -> str | None:
    """The instance of another table that ``status`` shows, or None.

    A live status of another instance is another table's. One the broker kept
    is only if this start has said its own since: the kept status (or will) of
    a start before this one is not.
    """
    if status.instance in (None, mine):
        return None
    if retained and not said_before:
        return None
    return status.instance


def keep_note(folder: Path, table: str, other: str) -> None:
    """Notes another table under this one's name, for the doctor."""
    note = {"table": table, "other": other, "at": time.time()}
    try:
        (folder / NOTE_FILE).write_text(json.dumps(note) + "\n", encoding="utf-8")
    except OSError as exc:
        log.warning("floor: cannot keep the note in %s: %s", folder / NOTE_FILE, exc)


def drop_note(folder: Path) -> None:
    with contextlib.suppress(OSError):
        (folder / NOTE_FILE).unlink(missing_ok=True)


def read_note(folder: Path, table: str) -> dict | None:
    """The note of another table seen under ``table``'s name, or None."""
    try:
        note = json.loads((folder / NOTE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(note, dict) or note.get("table") != table:
        return None
    return note
