"""The sessions of the phones logged in to the console, kept by the daemon.

A phone's session cookie is a random value that names one entry here; the
entry keeps when the phone logged in, when it was last seen and what it is
(a short label from its User-Agent), so the lookout can see every phone
logged in and end any one of them, and a phone can log itself out: its
entry goes, and its cookie opens nothing any more.

The entries are kept in :data:`SESSIONS_FILE` beside the journal (and the
token), so a restart of the daemon, or of the Pi, keeps the phones at the
table logged in, as the lookout expects between two packs. The file holds a
digest of each cookie, never the cookie, and is written only when a phone
logs in or out and when the console closes (the times last seen are kept in
memory between: an SD card is not written at every request). A file that
cannot be read costs the phones their login, never the console. The file
names the token its phones belong to: a new token logs every phone out.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import logging
import os
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

log = logging.getLogger("faro_pi")

SESSIONS_FILE = "console.sessions"
"""Beside the journal: the phones logged in."""

SESSIONS_MODE = 0o600
"""The daemon's alone: it is the only one that reads it."""

SESSION = 16 * 3600
"""Seconds a phone stays logged in (the cookie's Max-Age): the longest night, not the next."""

PHONES = 32
"""Phones logged in at once; the one seen longest ago is logged out to make room."""

_LARGEST = 256 * 1024
"""Bytes past which the file is no list of phones the daemon wrote."""

_SYSTEMS = (
    ("iPhone", "iPhone"),
    ("iPad", "iPad"),
    ("Android", "Android"),
    ("CrOS", "ChromeOS"),
    ("Windows", "Windows"),
    ("Macintosh", "Mac"),
    ("Linux", "Linux"),
)
_BROWSERS = (
    ("Edg", "Edge"),
    ("OPR/", "Opera"),
    ("SamsungBrowser", "Samsung Internet"),
    ("Firefox/", "Firefox"),
    ("FxiOS", "Firefox"),
    ("CriOS", "Chrome"),
    ("Chrome/", "Chrome"),
    ("Safari/", "Safari"),
)


def device(user_agent: str | None) -> str:
    """A short label of the phone that sent ``user_agent``: "iPhone · Safari", or the first
    word of a program's (``curl/8.5.0``)."""
    agent = user_agent or ""
    system = next((name for mark, name in _SYSTEMS if mark in agent), None)
    browser = next((name for mark, name in _BROWSERS if mark in agent), None)
    if system or browser:
        return " · ".join(name for name in (system, browser) if name)
    word = "".join(c for c in agent.partition(" ")[0] if c.isascii() and c.isprintable())
    return word[:24] or "unknown device"


@dataclass
class Session:
    """One phone's session."""

    id: str
    """Names the phone in the list, to end its session: not its cookie."""
    key: str
    """The SHA-256 of its cookie's value, which is never kept."""
    since: int
    """When it logged in (seconds since the epoch)."""
    seen: int
    """When a request of its was last seen."""
    device: str


class Sessions:
    """The sessions of the phones logged in, kept at ``path`` (None: in memory only)."""

    def __init__(self, token: str, path: Path | None, clock: Callable[[], float] = time.time):
        self._path = path
        self._clock = clock
        self._token = hmac.digest(token.encode(), b"faro-pi phones", hashlib.sha256).hex()[:32]
        """Names the token the kept phones belong to, without telling it."""
        self._by_key: dict[str, Session] = {}
        self._unkept = False
        """Times last seen not written yet."""
        if path is not None:
            self._load(path)

    def log_in(self, user_agent: str | None) -> str:
        """A new session for the phone that sent ``user_agent``: its cookie's value."""
        self._expire()
        while len(self._by_key) >= PHONES:
            self._end(min(self._by_key.values(), key=lambda phone: phone.seen))
        value = secrets.token_urlsafe(32)
        ids = {phone.id for phone in self._by_key.values()}
        while (id := secrets.token_hex(4)) in ids:
            pass
        now = int(self._clock())
        phone = Session(id, _digest(value), now, now, device(user_agent))
        self._by_key[phone.key] = phone
        self._keep()
        log.info("console: a phone logged in (%s)", phone.device)
        return value

    def find(self, value: str | None) -> Session | None:
        """The phone whose cookie is ``value``, if its session is live; seen now."""
        if not value:
            return None
        phone = self._by_key.get(_digest(value))
        if phone is None:
            return None
        now = int(self._clock())
        if now - phone.since >= SESSION:
            self._end(phone)
            return None
        if phone.seen != now:
            phone.seen, self._unkept = now, True
        return phone

    def end(self, id: str) -> Session | None:
        """Ends the session of the phone ``id``; the phone, or None if none is logged in so."""
        phone = next((p for p in self._by_key.values() if p.id == id), None)
        if phone is not None:
            self._end(phone)
            self._keep()
        return phone

    def listing(self) -> list[Session]:
        """The phones logged in, the first to log in first."""
        self._expire()
        return sorted(self._by_key.values(), key=lambda phone: phone.since)

    def now(self) -> int:
        return int(self._clock())

    def close(self) -> None:
        """Writes the times last seen, if any is new."""
        if self._unkept:
            self._keep()

    def _end(self, phone: Session) -> None:
        del self._by_key[phone.key]
        log.info("console: a phone's session ended (%s)", phone.device)

    def _expire(self) -> None:
        now = self._clock()
        for phone in [p for p in self._by_key.values() if now - p.since >= SESSION]:
            self._end(phone)

    def _load(self, path: Path) -> None:
        try:
            with open(path, "rb") as file:
                data = json.loads(file.read(_LARGEST + 1)[:_LARGEST])
            if data.get("token") != self._token:
                log.info("console: the token is new: every phone logs in again")
                return
            phones = [_session(entry) for entry in data["phones"]]
        except FileNotFoundError:
            return
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as exc:
            log.warning(
                "console: %s is not the list of phones the daemon keeps (%s): every phone "
                "logs in again",
                path,
                exc,
            )
            return
        self._by_key = {phone.key: phone for phone in phones}
        self._expire()

    def _keep(self) -> None:
        """Writes the list whole under a temporary name, then renames it into place: a crash
        leaves the old list or the new one. A failure is logged: the phones stay logged in
        until the daemon restarts."""
        self._unkept = False
        if self._path is None:
            return
        spare = self._path.with_name(f".{self._path.name}.{os.getpid()}")
        phones = [asdict(phone) for phone in self._by_key.values()]
        try:
            fd = os.open(spare, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, SESSIONS_MODE)
            with open(fd, "w", encoding="utf-8") as file:
                os.fchmod(file.fileno(), SESSIONS_MODE)
                json.dump({"token": self._token, "phones": phones}, file, indent=1)
                file.flush()
                os.fsync(file.fileno())
            os.replace(spare, self._path)
        except OSError as exc:
            log.warning(
                "console: cannot keep the phones logged in in %s (%s): a restart logs them out",
                self._path,
                exc.strerror or exc,
            )
            with contextlib.suppress(OSError):
                os.unlink(spare)


def _session(entry: dict) -> Session:
    phone = Session(**entry)
    for name, kind in Session.__annotations__.items():
        if not isinstance(getattr(phone, name), {"str": str, "int": int}[kind]):
            raise TypeError(f"a phone's {name} is not what the daemon writes")
    return phone


def _digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()
