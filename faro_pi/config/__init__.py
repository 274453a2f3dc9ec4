"""The daemon's configuration: one TOML file, checked once at start.

``faro-pi run --config FILE`` calls :func:`load_config`, which reads the file
and the one environment variable that matters (``GPIOZERO_PIN_FACTORY``) and
returns an immutable :class:`Config`; nothing reads either again, so a running
table can't change behaviour under the dealer's hands.

Every key is declared once, as a field of its section's dataclass: the field's
type is the key's, and its :class:`Key` (default, what is allowed, what it is
for) rides in the field's metadata. :data:`SCHEMA` is read off those
dataclasses, and validation and the Markdown reference in the README
(:func:`reference_markdown`) are both produced from it, so they cannot disagree.
Any problem is a :class:`~faro_pi.exc.ConfigError` whose message is one line
naming the file and the key.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_type_hints
from urllib.parse import urlsplit

import msgspec

from faro_pi import handed
from faro_pi.board import CHAIN_DRIVERS
from faro_pi.config.keys import (
    REQUIRED,
    Invalid,
    Section,
    check,
    declare,
    read_section,
    reference_row,
    section_of,
    shown,
)
from faro_pi.config.pins import pin_problem
from faro_pi.config.ports import check_port
from faro_pi.exc import ConfigError
from faro_pi.game.profile import MAX_WEIGHT, OPTION_KEYS, PROFILES, Options

PIN_FACTORY_VARIABLE = "GPIOZERO_PIN_FACTORY"
BCM_PINS = (0, 27)


def _pin(default: int, meaning: str, may_disable: bool = False) -> Any:
    return declare(
        default, meaning, low=BCM_PINS[0], high=BCM_PINS[1], pin=True, may_disable=may_disable
    )


# One field per key: its type, then its default, meaning and what is allowed. Kept as a
# table by hand because it is read as one.
# fmt: off
@dataclass(frozen=True, slots=True)
class ReaderConfig:
    """The card reader in the shoe."""

    port: str = declare(REQUIRED,
                        "Serial port of the card reader in the shoe, e.g. `/dev/faro-reader`; "
                        "`unix:///run/faro-pi-camera/reader.sock` where the camera reader "
                        "listens.")
    protocol: str = declare("fsp1", "Line protocol the reader's firmware speaks.",
                            choices=("fsp1", "plain"))
    baud: int = declare(115200, "Serial speed in bits per second; must match the firmware.",
                        choices=(9600, 19200, 38400, 57600, 115200, 230400, 460800))
    heartbeat_timeout: float = declare(3.5,
                                       "Seconds of silence before the reader is reported lost "
                                       "(an fsp1 reader speaks every second).",
                                       low=2.0, high=600.0)


@dataclass(frozen=True, slots=True)
class JournalConfig:
    """Where every table event is kept."""

    path: Path = declare("/var/lib/faro-pi/journal.sqlite3",  # noqa: RUF009 (a field, no default)
                         "SQLite file of every table event; relative to the config file's folder.")


@dataclass(frozen=True, slots=True)
class GpioConfig:
    """How gpiozero reaches the pins."""

    pin_factory: str | None = declare(None, "gpiozero pin library; unset lets gpiozero choose. "
                                            f"`{PIN_FACTORY_VARIABLE}`, if set, overrides it.",
                                      choices=("lgpio", "rpigpio", "mock"))


@dataclass(frozen=True, slots=True)
class ButtonsConfig:
    """The dealer's push buttons (BCM pin numbers)."""

    signal: int = _pin(17, "BCM pin of the banker's signal button (closes entries).")
    undo: int = _pin(27, "BCM pin of the undo button.")
    new_pack: int = _pin(22, "BCM pin of the new-pack button.")
    bounce: float = declare(0.03, "Seconds of button debounce; 0 turns it off.", low=0, high=1)
    undo_hold: float = declare(1.5,
                               "Seconds undo must be held to void the last card, so a brush can't.",
                               above=0)
    pair_hold: float = declare(3.0,
                               "Seconds new pack must be held to show the console's pairing "
                               "code on the OLED.", above=0)


@dataclass(frozen=True, slots=True)
class LedsConfig:
    """The case keeper's LEDs behind 74HC595 shift registers (BCM pin numbers)."""

    driver: str = declare("74hc595-spi",
                          "What drives the case keeper's LEDs: `74hc595-spi` the Pi's SPI0 (data, "
                          "clock, latch on GPIO 10, 11, 8), `74hc595` the same three GPIOs "
                          "bit-banged (a board without SPI), `none` if not fitted "
                          "(frees its pins).",
                          choices=(*CHAIN_DRIVERS, "none"))
    data: int = _pin(10, "BCM pin to the shift registers' serial data (SER).")
    clock: int = _pin(11, "BCM pin to the shift registers' shift clock (SRCLK).")
    latch: int = _pin(8, "BCM pin to the shift registers' latch (RCLK).")
    enable: int | None = _pin(18, "BCM pin to output-enable (OE) for brightness and blanking; "
                                  "`false` if OE is tied low.", may_disable=True)
    brightness: float = declare(1.0, "LED brightness, 0 (dark) to 1 (full); needs `enable`.",
                                low=0, high=1)


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    """The small status display on I²C."""

    driver: str = declare("ssd1306",
                          "OLED controller; `none` means no display, `dummy` draws nowhere.",
                          choices=("ssd1306", "sh1106", "dummy", "none"))
    i2c_port: int = declare(1, "I²C bus of the display (`/dev/i2c-N`).", low=0)
    i2c_address: int = declare(0x3C, "I²C address of the display.", low=0x08, high=0x77, hex=True)
    rotate: int = declare(0, "Display rotation in quarter turns: 0, or 2 if mounted upside down.",
                          choices=(0, 2))


@dataclass(frozen=True, slots=True)
class ConsoleConfig:
    """The lookout's console, served over HTTP."""

    enabled: bool = declare(True, "Serve the lookout's console.")
    host: str = declare("127.0.0.1",
                        "Address the console listens on; `0.0.0.0` opens it to the network.")
    port: int = declare(8077, "TCP port of the console.", low=1, high=65535)
    token: str | None = declare(
           None, "Secret the console asks for; unset: the daemon generates one at start.",
           secret=True)
    allowed_hosts: tuple[str, ...] | None = declare(
           None, "Names the console answers to (a request's `Host`), against DNS rebinding; "
                 "IP addresses always. Unset: `localhost`, the hostname (and `.local`) and `host`.")


_UNSET_OPTION = "Unset: the profile's."


@dataclass(frozen=True, slots=True)
class RulesConfig:
    """The house rules a new session is seated under (docs/rules.md)."""

    profile: str = declare("teaching", "Rules of a session that names none: the teaching rule "
                                       "card or the 19th-century house.",
                           choices=("teaching", "house"))
    table_limit: int = declare(10_000, "The largest weight of one bet or call (the bank's limit).",
                               low=1, high=MAX_WEIGHT)
    even_weights: bool | None = declare(None, "Weights must be even. " + _UNSET_OPTION)
    remove_dead: bool | None = declare(None, "A bet whose ranks are all out comes off. "
                                             + _UNSET_OPTION)
    collect_leftovers: bool | None = declare(None, "The bank takes what is left at card 51. "
                                                   + _UNSET_OPTION)
    high_card: bool | None = declare(None, "The high-card space is on the layout. " + _UNSET_OPTION)
    combinations: bool | None = declare(None, "Bets on two or four cards. " + _UNSET_OPTION)
    call_trips: bool | None = declare(None, "Three of a kind is called by colours. "
                                            + _UNSET_OPTION)
    cat_hop_pays: int | None = declare(None, "A right cat-hop call pays 1 or 2 to 1. "
                                             + _UNSET_OPTION, choices=(1, 2))
    rotate_bank: bool | None = declare(None, "The bank passes on at a shuffle. " + _UNSET_OPTION)

    def options(self) -> Options:
        """The profile's options with the ones set here."""
        set_here = {k: getattr(self, k) for k in OPTION_KEYS if getattr(self, k) is not None}
        return msgspec.structs.replace(PROFILES[self.profile], **set_here)


@dataclass(frozen=True, slots=True)
class LogConfig:
    """How much the daemon says."""

    verbose: bool = declare(False, "Log every reader line and button press, not just table events.")


@dataclass(frozen=True, slots=True)
class FloorConfig:
    """The floor of tables: the journal streamed to an MQTT broker (docs/floor.md)."""

    broker: str | None = declare(None, "Broker the journal is sent to, `mqtt://HOST[:PORT]` or "
                                       "`mqtts://HOST[:PORT]`; unset: no floor.")
    table: str | None = declare(None, "This table's name on the floor (`a-z`, `0-9`, `-`); "
                                      "needed with `broker`.")
    username: str | None = declare(None, "User name at the broker; unset: none.")
    password_file: Path | None = declare(None,  # noqa: RUF009 (a field, no default)
                                         "File holding the broker's password (mode 0600); "
                                         "relative to the config file's folder.")
    ca_file: Path | None = declare(None,  # noqa: RUF009 (a field, no default)
                                   "CA certificate of an `mqtts://` broker; unset: the system's.")
    prefix: str = declare("faro", "First level of the floor's topics, `PREFIX/TABLE/journal`.")

    def problem(self) -> tuple[str, str] | None:
        """The first key that does not fit with the others, and why; None when all fit."""
        if self.table is not None and not TABLE_NAME.fullmatch(self.table):
            return "table", f"{shown(self.table)} is not of a-z, 0-9 and - only"
        if self.broker is None:
            return None
        address = broker_address(self.broker)
        if address is None:
            return "broker", f"{shown(self.broker)} is not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]"
        if self.table is None:
            return "table", "a broker needs the table's name on the floor"
        if not TABLE_NAME.fullmatch(self.prefix):
            return "prefix", f"{shown(self.prefix)} is not of a-z, 0-9 and - only"
        if self.password_file is not None and self.username is None:
            return "password_file", "a password needs floor.username"
        if self.ca_file is not None and not address[0]:
            return "ca_file", "a CA certificate is for an mqtts:// broker"
        return None


@dataclass(frozen=True, slots=True)
class CameraConfig:
    """The camera reader over the dealing box (`faro-pi camera run`; it speaks fsp1 on
    `reader.port`, see hardware/README.md)."""

    source: str = declare("none", "The camera: `csi` a Camera Module (picamera2), `usb` a UVC "
                                  "camera (OpenCV, V4L2), `none` no camera reader.",
                          choices=("csi", "usb", "none"))
    device: int = declare(0, "The USB camera's number N, `/dev/videoN`.", low=0)
    width: int = declare(640, "Width of the frames, in pixels.", low=320, high=1920)
    height: int = declare(480, "Height of the frames, in pixels.", low=240, high=1080)
    rate: float = declare(15.0, "Frames a second the box is watched at.", low=2, high=60)
    deck: Path | None = declare(None,  # noqa: RUF009 (a field, no default)
                                "Folder of the deck taught with `faro-pi camera teach`; "
                                "relative to the config file's folder; unset: none taught.")
    pictures: Path | None = declare(None,  # noqa: RUF009 (a field, no default)
                                    "Folder of the camera's stills of the cards; relative to the "
                                    "config file's folder; unset: `pictures` by the journal.")
# fmt: on


TABLE_NAME = re.compile(r"[a-z0-9-]+")
"""A table's name on the floor, and the floor's prefix: a level of a topic, safe as a file name."""


def broker_address(url: str) -> tuple[bool, str, int] | None:
    """(TLS, host, port) of ``mqtt://HOST[:PORT]`` or ``mqtts://HOST[:PORT]``, else None."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname or parts.path not in ("", "/"):
        return None
    if parts.query or parts.fragment or parts.username or parts.password:
        return None
    tls = parts.scheme == "mqtts"
    return tls, parts.hostname, port if port is not None else (8883 if tls else 1883)


@dataclass(frozen=True, slots=True)
class Config:
    """Everything the daemon was told at start; one field per section of the file."""

    reader: ReaderConfig
    journal: JournalConfig
    gpio: GpioConfig
    buttons: ButtonsConfig
    leds: LedsConfig
    display: DisplayConfig
    console: ConsoleConfig
    rules: RulesConfig
    log: LogConfig
    floor: FloorConfig
    camera: CameraConfig

    def pins(self) -> dict[str, int]:
        """Key → BCM pin of every wired GPIO, for the doctor and the wiring docs.

        A driver of ``none`` leaves its pins free.
        """
        pins = {}
        for name, section in SCHEMA.items():
            part = getattr(self, name)
            if getattr(part, "driver", None) == "none":
                continue
            for key, spec in section.keys.items():
                if spec.pin and getattr(part, key) is not None:
                    pins[f"{name}.{key}"] = getattr(part, key)
        return pins


SCHEMA: dict[str, Section] = {name: section_of(cls) for name, cls in get_type_hints(Config).items()}
"""Every section of the file, in order, with its keys: what validation and the README follow."""


MOST_BYTES = 256 * 1024
"""The largest config file read: the example, every key commented, is under 10 KB."""


def load_config(path: str | os.PathLike[str], environ: Mapping[str, str] = os.environ) -> Config:
    """Read and check the config file; the environment is read here and only here. Only a
    regular file of a sane size is read: ``/dev/zero`` or a FIFO never ends."""
    try:
        if (why := handed.refusal(path, MOST_BYTES, "a config")) is not None:
            raise ConfigError(why)
        text = Path(path).read_bytes()[:MOST_BYTES].decode("utf-8")
    except OSError as exc:
        raise ConfigError(f"{os.fspath(path)}: cannot read config: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{os.fspath(path)}: not UTF-8 text: {exc.reason}") from exc
    return parse_config(
        text, source=os.fspath(path), base_dir=Path(path).absolute().parent, environ=environ
    )


def parse_config(
    text: str,
    source: str = "<config>",
    base_dir: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> Config:
    """Check TOML text and build the :class:`Config`.

    ``source`` names the text in messages; relative paths are taken from
    ``base_dir`` (default: the current folder). The environment counts only
    when ``environ`` is given, so tests see exactly what they pass.
    """
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: {' '.join(str(exc).split())}") from exc
    except RecursionError:
        raise ConfigError(f"{source}: arrays or tables nested too deeply to be a config") from None

    for name in document:
        if name not in SCHEMA:
            known = ", ".join(SCHEMA)
            raise ConfigError(f"{source}: {name}: unknown section (known: {known})", name)
    sections = {name: _read_section(source, name, document.get(name, {})) for name in SCHEMA}
    check_port(source, sections["reader"]["port"])
    if environ is not None and environ.get(PIN_FACTORY_VARIABLE):
        sections["gpio"]["pin_factory"] = _factory_from(environ[PIN_FACTORY_VARIABLE])
    base = Path(base_dir if base_dir is not None else ".").absolute()
    sections["journal"]["path"] = base / sections["journal"]["path"]
    for name, key in (("floor", "password_file"), ("floor", "ca_file"), ("camera", "deck")):
        if sections[name][key] is not None:
            sections[name][key] = base / sections[name][key]
    beside = sections["journal"]["path"].parent / "pictures"
    sections["camera"]["pictures"] = base / (sections["camera"]["pictures"] or beside)

    config = Config(**{name: SCHEMA[name].cls(**values) for name, values in sections.items()})
    _check_together(source, config)
    return config


def _read_section(source: str, name: str, table: object) -> dict[str, object]:
    return read_section(source, name, SCHEMA[name], table)


def _factory_from(value: str) -> object:
    """``GPIOZERO_PIN_FACTORY``, checked as gpio.pin_factory is (it overrides that key)."""
    try:
        return check(SCHEMA["gpio"].keys["pin_factory"], value)
    except Invalid as exc:
        raise ConfigError(
            f"environment: {PIN_FACTORY_VARIABLE}: {exc} (it overrides gpio.pin_factory)",
            PIN_FACTORY_VARIABLE,
        ) from None


def _check_together(source: str, config: Config) -> None:
    """What no key can check alone: dimming needs OE wired, no pin serves two keys nor one
    the board, the display or SPI0 holds (:mod:`.pins`), and the floor's keys fit."""
    leds = config.leds
    if leds.driver != "none" and leds.enable is None and leds.brightness != 1:
        raise ConfigError(
            f"{source}: leds.brightness: {leds.brightness:g} needs leds.enable, which is false",
            "leds.brightness",
        )
    owners: dict[int, str] = {}
    for dotted, pin in config.pins().items():
        if owners.setdefault(pin, dotted) != dotted:
            raise ConfigError(
                f"{source}: {dotted}: pin {pin} is already used by {owners[pin]}", dotted
            )
    held = pin_problem(
        config.pins(),
        leds_driver=leds.driver,
        display_driver=config.display.driver,
        i2c_port=config.display.i2c_port,
    )
    if held is not None:
        raise ConfigError(f"{source}: {held[0]}: {held[1]}", held[0])
    if (problem := config.floor.problem()) is not None:
        raise ConfigError(f"{source}: floor.{problem[0]}: {problem[1]}", f"floor.{problem[0]}")


def reference_markdown() -> str:
    """The README's table of every key, produced from :data:`SCHEMA`."""
    rows = [
        "| Key | Type | Default | Allowed | Meaning |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, section in SCHEMA.items():
        rows += (reference_row(f"{name}.{key}", spec) for key, spec in section.keys.items())
    return "\n".join(rows) + "\n"
