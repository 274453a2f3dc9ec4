"""The floor's configuration: ``faro-pi floor --config floor.toml``, checked once at start.

Its keys are declared and checked as the table's are (:mod:`faro_pi.config.keys`);
``[consoles]`` alone is free-form: each table's name and the address of its console,
for the tables whose address the ``page.console`` pattern does not give.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from faro_pi.config import TABLE_NAME, broker_address
from faro_pi.config.keys import REQUIRED, declare, read_section, section_of, shown
from faro_pi.exc import ConfigError
from faro_pi.floor.broker import Broker


# fmt: off
@dataclass(frozen=True, slots=True)
class BrokerSection:
    """The broker every table sends to."""

    url: str = declare(REQUIRED, "The broker, `mqtt://HOST[:PORT]` or `mqtts://HOST[:PORT]`.")
    username: str | None = declare(None, "The floor's user at the broker.")
    password_file: Path | None = declare(None,  # noqa: RUF009 (a field, no default)
                                         "File holding the floor's password (mode 0600).")
    ca_file: Path | None = declare(None,  # noqa: RUF009 (a field, no default)
                                   "CA certificate of an `mqtts://` broker; unset: the system's.")
    prefix: str = declare("faro", "First level of the tables' topics, as in their `floor.prefix`.")
    client_id: str = declare("faro-pi-floor", "The floor's MQTT client id: the broker keeps what "
                                              "arrives for it while it is away.")


@dataclass(frozen=True, slots=True)
class StoreSection:
    """Where the copies are kept."""

    path: Path = declare("/var/lib/faro-pi-floor",  # noqa: RUF009 (a field, no default)
                         "Folder of the tables' copies, one SQLite file each.")


@dataclass(frozen=True, slots=True)
class PageSection:
    """The floor page."""

    host: str = declare("127.0.0.1", "Address the page listens on; `0.0.0.0` opens it to the "
                                     "network.")
    port: int = declare(8078, "TCP port of the page.", low=1, high=65535)
    token: str | None = declare(None, "Secret the page asks for; unset: made at the first start "
                                      "and kept in `floor.token` in the store's folder.")
    console: str = declare("http://{table}.local:8077/",
                           "Address of a table's console; `{table}` is the table's name.")
# fmt: on


@dataclass(frozen=True, slots=True)
class FloorSettings:
    """Everything the floor was told at start."""

    broker: BrokerSection
    store: StoreSection
    page: PageSection
    consoles: dict[str, str]

    def endpoint(self) -> Broker:
        b = self.broker
        return Broker(b.url, b.username, b.password_file, b.ca_file)

    def console(self, table: str) -> str:
        """The address of ``table``'s own console."""
        return self.consoles.get(table) or self.page.console.replace("{table}", table)


SECTIONS = {"broker": BrokerSection, "store": StoreSection, "page": PageSection}
PATHS = (("broker", "password_file"), ("broker", "ca_file"), ("store", "path"))


def load_floor_config(path: str | os.PathLike[str]) -> FloorSettings:
    """Reads and checks the floor's file; relative paths are from the file's folder."""
    source = os.fspath(path)
    try:
        document = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read config: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{source}: {' '.join(str(exc).split())}") from exc
    for name in document:
        if name not in (*SECTIONS, "consoles"):
            known = ", ".join((*SECTIONS, "consoles"))
            raise ConfigError(f"{source}: {name}: unknown section (known: {known})", name)
    values = {
        name: _section(source, name, cls, document.get(name, {})) for name, cls in SECTIONS.items()
    }
    base = Path(path).absolute().parent
    for name, key in PATHS:
        if values[name][key] is not None:
            values[name][key] = base / values[name][key]
    if broker_address(values["broker"]["url"]) is None:
        url = shown(values["broker"]["url"])
        raise ConfigError(
            f"{source}: broker.url: {url} is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]",
            "broker.url",
        )
    if not TABLE_NAME.fullmatch(values["broker"]["prefix"]):
        raise ConfigError(f"{source}: broker.prefix: not of a-z, 0-9 and - only", "broker.prefix")
    consoles = _consoles(source, document.get("consoles", {}))
    sections = {name: cls(**values[name]) for name, cls in SECTIONS.items()}
    return FloorSettings(**sections, consoles=consoles)


def _section(source: str, name: str, cls: type, table: object) -> dict[str, Any]:
    return read_section(source, name, section_of(cls), table)


def _consoles(source: str, table: object) -> dict[str, str]:
    if not isinstance(table, dict):
        raise ConfigError(f"{source}: consoles: expected a table [consoles]", "consoles")
    for name, url in table.items():
        if not TABLE_NAME.fullmatch(name) or not isinstance(url, str) or not url:
            raise ConfigError(
                f"{source}: consoles.{name}: give a table's name (a-z, 0-9, -) and its "
                'console\'s address, e.g. table-1 = "http://10.0.0.21:8077/"',
                f"consoles.{name}",
            )
    return dict(table)
