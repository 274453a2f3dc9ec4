"""Reaching the broker, for a table and for the floor alike: one client per attempt.

A broker that is down, has a wrong name, or refuses the password is the same
thing to both sides: one line in the log when it starts (and one when it
ends), then quiet retries, further and further apart, for as long as it
takes. The password is read from its file at every attempt, so a corrected
file is taken without a restart, and it is never logged.
"""

from __future__ import annotations

import logging
import random
import ssl
from dataclasses import dataclass
from pathlib import Path

import aiomqtt

from faro_pi.config import broker_address

log = logging.getLogger("faro_pi")

MQTT_LOG = logging.getLogger("faro_pi.mqtt")
"""paho's own lines (debug only): quiet unless the daemon is verbose."""

KEEPALIVE = 15
"""Seconds between pings on a quiet connection: a broker gone silent is seen within ~20 s."""


@dataclass(frozen=True, slots=True)
class Broker:
    """Where the broker is and who we are to it."""

    url: str
    username: str | None = None
    password_file: Path | None = None
    ca_file: Path | None = None

    def client(
        self,
        identifier: str,
        *,
        will: aiomqtt.Will | None = None,
        clean_session: bool = True,
        timeout: float = 10,
    ) -> aiomqtt.Client:
        """A client for one attempt (``async with`` connects it); OSError if the password
        file can't be read."""
        address = broker_address(self.url)
        if address is None:
            raise ValueError(f"{self.url}: not an mqtt:// or mqtts:// address")
        tls, host, port = address
        tls_params = None
        if tls:
            ca = str(self.ca_file) if self.ca_file is not None else None
            tls_params = aiomqtt.TLSParameters(ca_certs=ca, cert_reqs=ssl.CERT_REQUIRED)
        return aiomqtt.Client(
            host,
            port,
            username=self.username,
            password=self.password(),
            identifier=identifier,
            will=will,
            clean_session=clean_session,
            keepalive=KEEPALIVE,
            timeout=timeout,
            tls_params=tls_params,
            logger=MQTT_LOG,
        )

    def password(self) -> str | None:
        """The first line of the password file; a file others may read is reported once."""
        if self.password_file is None:
            return None
        path = self.password_file
        text = path.read_text(encoding="utf-8")
        if path.stat().st_mode & 0o077 and path not in _OPEN_FILES:
            _OPEN_FILES.add(path)
            log.warning("floor: %s may be read by others than its owner; chmod 600 it", path)
        lines = text.splitlines()
        return lines[0] if lines else ""


_OPEN_FILES: set[Path] = set()


def why(exc: BaseException) -> str:
    """What went wrong with the broker, in a few words for the log."""
    if isinstance(exc, aiomqtt.MqttCodeError):
        rc = exc.rc
        text = str(rc) if rc is not None and not isinstance(rc, int) else str(exc)
        return f"the broker refused us: {text}"
    if isinstance(exc, OSError) and exc.filename:
        return f"{exc.filename}: {exc.strerror or exc}"
    text = str(exc) or type(exc).__name__
    if "Name or service not known" in text or "Temporary failure in name resolution" in text:
        return f"no such host ({text})"
    return text


FIRST_RETRY = 1.0
"""Seconds before the first retry; each one after waits twice as long as the last..."""

LAST_RETRY = 30.0
"""...up to this: a broker back after an outage is found within half a minute."""


class Backoff:
    """Seconds to wait before the next attempt: doubling from :data:`FIRST_RETRY` to
    :data:`LAST_RETRY`, with a little chance mixed in so that a floor of tables does not
    retry in step."""

    def __init__(self, first: float = FIRST_RETRY, most: float = LAST_RETRY) -> None:
        self.first = first
        self.most = most
        self.next = self.first

    def delay(self) -> float:
        delay = self.next * random.uniform(0.8, 1.2)
        self.next = min(self.most, self.next * 2)
        return delay

    def reset(self) -> None:
        self.next = self.first


class Outage:
    """Says once that the broker can't be reached or was lost (again if the reason
    changes), and once that it is back."""

    def __init__(self, who: str, url: str):
        self.who = who
        self.url = url
        self.reason: str | None = None
        self.up = False

    def failed(self, exc: BaseException, retry: float) -> None:
        reason = why(exc)
        if reason != self.reason:
            what = "lost the broker" if self.up else "cannot reach the broker"
            log.warning(
                "%s: %s %s: %s; retrying (next in %.2g s)", self.who, what, self.url, reason, retry
            )
        self.reason, self.up = reason, False

    def connected(self) -> None:
        again = " again" if self.reason is not None else ""
        log.info("%s: connected to the broker %s%s", self.who, self.url, again)
        self.reason, self.up = None, True
