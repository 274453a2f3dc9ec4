"""``faro-pi doctor``'s line for the floor: does the broker take this table's user?

It connects once, as the table's user but under a client id of its own (the
running daemon's connection is left alone), and disconnects: it sends nothing.
A broker that takes the table is not enough when another table is on the
floor under the same name (a cloned SD card): the daemon's publisher notes
that beside the journal (:mod:`faro_pi.floor.twin`), and the line fails on it.
"""

from __future__ import annotations

import asyncio
import ssl

import aiomqtt

from faro_pi.config import Config
from faro_pi.doctor.check import Check, one_line, verdicts
from faro_pi.floor.broker import Broker, why
from faro_pi.floor.twin import read_note


def broker_check(config: Config, timeout: float = 5.0) -> Check:
    """The floor's broker, reached and signed in to within ``timeout`` seconds; skipped
    for a table that is not on a floor."""
    passed, failed, skipped = verdicts("floor")
    floor = config.floor
    if floor.broker is None:
        return skipped("no broker in [floor]: this table is not on a floor")
    broker = Broker(floor.broker, floor.username, floor.password_file, floor.ca_file)
    try:
        asyncio.run(_sign_in(broker, f"faro-pi-{floor.table}-doctor", timeout))
    except (aiomqtt.MqttError, OSError, ssl.SSLError, TimeoutError) as exc:
        return failed(f"{floor.broker}: {one_line(why(exc))}", _fix(exc, floor))
    note = read_note(config.journal.path.parent, floor.table)
    if note is not None:
        return failed(
            f"{floor.broker}: another table is on the floor as {floor.table} (its start "
            f"{note.get('other')}): the broker closes one connection for the other",
            "a cloned SD card? give one of the tables its own floor.table and broker user "
            "(docs/floor.md, steps 2 and 5)",
        )
    user = f"as {floor.username}" if floor.username else "without a user"
    return passed(f"{floor.broker} takes table {floor.table} {user}")


async def _sign_in(broker: Broker, identifier: str, timeout: float) -> None:
    async with asyncio.timeout(timeout), broker.client(identifier, timeout=timeout):
        pass


def _fix(exc: BaseException, floor) -> str:
    if isinstance(exc, aiomqtt.MqttCodeError):
        return (
            f"the broker refused the user {floor.username!r}: check floor.username and the "
            f"password in {floor.password_file} against the broker's password file"
        )
    if isinstance(exc, OSError) and exc.filename:
        return "make the password file readable by the daemon's user (mode 0600)"
    text = str(exc)
    if "Name or service not known" in text or "name resolution" in text:
        return "check floor.broker: this machine cannot find that host"
    if "certificate" in text.lower() or isinstance(exc, ssl.SSLError):
        return "check floor.ca_file: it must be the CA that signed the broker's certificate"
    return "is the broker running and reachable from here? (systemctl status mosquitto)"
