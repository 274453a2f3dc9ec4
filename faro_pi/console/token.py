"""The console's token: what a change posted to the console must carry.

A token set in the configuration wins; otherwise the daemon makes one at its
first start and keeps it in :data:`TOKEN_FILE` beside the journal, where the
command line's clients on the same machine read it: as its owner, or as
logins in the daemon's group (``faro-pi`` on the Pi).
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
from pathlib import Path

from faro_pi.config import Config, ConsoleConfig
from faro_pi.config.keys import secret_problem

log = logging.getLogger("faro_pi")

TOKEN_FILE = "console.token"
"""Beside the journal: the console's token when the configuration names none."""

TOKEN_MODE = 0o640
"""Its owner (the daemon) and its group (the lookouts' logins) read it; nobody else."""


def token_path(config: Config) -> Path:
    """Where the generated token is kept: beside the journal, which the daemon owns."""
    return config.journal.path.parent / TOKEN_FILE


def console_token(settings: ConsoleConfig, path: Path, who: str = "console") -> str:
    """The configured token, or the one kept at ``path`` (made there at the first start).

    The file is written whole under a temporary name, created with
    ``O_EXCL`` and mode 0640 (set past the umask: the service's is 0077),
    then linked into place, which fails rather than replace a token another
    start has just made: every start sees one complete token or none. Its
    group is the daemon's, so the lookouts in that group can read it.
    """
    if settings.token is not None:
        return settings.token
    with contextlib.suppress(FileNotFoundError):
        return read_token(path)
    token = "-"
    while token.startswith("-"):  # it would read as an option on a command line
        token = secrets.token_urlsafe(32)
    spare = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_EXCL, TOKEN_MODE)
    try:
        with open(fd, "w", encoding="utf-8") as file:
            os.fchmod(file.fileno(), TOKEN_MODE)
            file.write(token + "\n")
            file.flush()
            os.fsync(file.fileno())
        try:
            os.link(spare, path)
        except FileExistsError:
            return read_token(path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(spare)
    log.info("%s: made a new token in %s", who, path)
    return token


def read_token(path: Path) -> str:
    """The token kept at ``path``; an empty file, or one that could never authenticate (as
    a configured token could not), is an error, never a token."""
    try:
        token = path.read_text(encoding="utf-8").strip()
    except UnicodeDecodeError:
        token = "\ufffd"  # not text: as unusable as any other non-ASCII
    if not token:
        raise OSError(f"{path}: the console's token file is empty; delete it to make a new one")
    if problem := secret_problem(token):
        raise OSError(f"{path}: the console's token {problem}; delete it to make a new one")
    if path.stat().st_mode & 0o027:
        log.warning("console: %s is open to others than its group; chmod 640 it", path)
    return token
