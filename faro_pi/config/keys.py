"""The keys of a config file: what one may hold, how a value is checked and written, and how a
section of keys is declared (a dataclass whose fields are :func:`declare` d) and read.

Messages and the README's reference both show values as they would be written
in TOML, so what the reader of a message sees can be pasted into the file. The
table's configuration and the floor's are declared and read the same way.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

from faro_pi.exc import ConfigError


class _Required:
    """Default of a key that has none: the file must give it."""

    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED = _Required()


@dataclass(frozen=True, slots=True)
class Key:
    """One key of the file: its default, purpose, allowed values and TOML type.

    ``default`` is :data:`REQUIRED` when the file must give the key, or None
    when leaving it out means "unset". ``choices`` lists every allowed value;
    ``low``/``high`` bound it inclusively and ``above`` exclusively. ``pin``
    marks a BCM GPIO number (which also counts towards pin clashes);
    ``may_disable`` lets ``false`` stand for "not wired" (the value is None);
    ``hex`` shows the value in hexadecimal, as datasheets do; ``secret`` marks a
    string sent in an HTTP header (:func:`secret_problem`). ``kind`` is the type of
    the dataclass field that declares the key, without its None (``tuple``: an
    array of strings).
    """

    default: object
    meaning: str
    choices: tuple = ()
    low: float | None = None
    high: float | None = None
    above: float | None = None
    pin: bool = False
    may_disable: bool = False
    hex: bool = False
    secret: bool = False
    kind: type = object


SECRET_LENGTH = 16
"""Characters of a secret at least: a shorter one can be guessed."""


def secret_problem(value: str) -> str | None:
    """What keeps ``value`` from being a secret sent as ``Authorization: Bearer``, or None.

    It must be printable ASCII without spaces (anything else never arrives
    unchanged in a header) and at least :data:`SECRET_LENGTH` characters.
    """
    if not (value.isascii() and value.isprintable()) or " " in value:
        return f"must be printable ASCII without spaces, at least {SECRET_LENGTH} characters"
    if len(value) < SECRET_LENGTH:
        return f"must be at least {SECRET_LENGTH} characters (it has {len(value)})"
    return None


class Invalid(Exception):
    """A value that breaks its key's rule; the text says how."""


def check(spec: Key, value: object) -> object:
    """The value as the daemon uses it, or :class:`Invalid`."""
    if spec.may_disable and value is False:
        return None
    if spec.kind is float and type(value) is int:
        value = float(value)
    if spec.kind is tuple:
        return _strings(value)
    if type(value) is not (str if spec.kind is Path else spec.kind):
        raise Invalid(f"expected {_type_name(spec, article=True)}, got {kind_name(value)}")

    if spec.kind in (str, Path) and not value:
        raise Invalid("must not be empty")
    if spec.secret and (problem := secret_problem(value)):
        raise Invalid(problem)  # never the value: it is a secret
    if spec.kind is float and not math.isfinite(value):
        raise Invalid(f"{value!r} is not a finite number")
    if spec.choices and value not in spec.choices:
        allowed = ", ".join(shown(choice, spec.hex) for choice in spec.choices)
        raise Invalid(f"{shown(value, spec.hex)} is not one of {allowed}")
    if (
        (spec.low is not None and value < spec.low)
        or (spec.high is not None and value > spec.high)
        or (spec.above is not None and value <= spec.above)
    ):
        what = "is not a BCM GPIO number" if spec.pin else "is out of range"
        raise Invalid(f"{shown(value, spec.hex)} {what} ({_range(spec)})")
    return Path(value) if spec.kind is Path else value


def _strings(value: object) -> tuple[str, ...]:
    """An array of names: each non-empty printable ASCII without spaces."""
    if type(value) is not list or not all(type(item) is str for item in value):
        raise Invalid(f"expected an array of strings, got {kind_name(value)}")
    for item in value:
        if not item or not (item.isascii() and item.isprintable()) or " " in item:
            raise Invalid(f"{shown(item)} is not a name: printable ASCII without spaces")
    return tuple(value)


def shown(value: object, as_hex: bool = False) -> str:
    """A value as it would be written in TOML."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 60 else value[:57] + "...", ensure_ascii=False)
    if isinstance(value, int) and as_hex:
        return f"0x{value:02X}"
    return repr(value)


_TYPE_NAMES = {
    bool: "a boolean",
    int: "an integer",
    float: "a float",
    str: "a string",
    Path: "a string (path)",
    tuple: "an array of strings",
}


def _type_name(spec: Key, article: bool = False) -> str:
    name = _TYPE_NAMES[spec.kind] + (" or false" if spec.may_disable else "")
    return name if article else name.split(" ", 1)[1]


def kind_name(value: object) -> str:
    """What TOML type a parsed value came from, with the value if it is short."""
    if type(value) in (bool, int, float, str):
        return f"{_TYPE_NAMES[type(value)]} ({shown(value)})"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, list):
        return "an array"
    return "a date or time"


def _range(spec: Key) -> str:
    def number(bound: float) -> str:
        return shown(bound, as_hex=True) if spec.hex else f"{bound:g}"

    if spec.above is not None:
        return f"> {number(spec.above)}"
    if spec.high is None:
        return f">= {number(spec.low)}"
    return f"{number(spec.low)}..{number(spec.high)}"


def _allowed(spec: Key) -> str:
    if spec.choices:
        allowed = ", ".join(f"`{shown(choice, spec.hex)}`" for choice in spec.choices)
    elif spec.low is not None or spec.above is not None:
        allowed = ("BCM " if spec.pin else "") + _range(spec)
    elif spec.kind is bool:
        allowed = "`true`, `false`"
    elif spec.secret:
        allowed = f"printable ASCII, no spaces, {SECRET_LENGTH}+ characters"
    elif spec.kind is tuple:
        allowed = "names (printable ASCII, no spaces)"
    else:
        allowed = "non-empty"
    if spec.may_disable:
        allowed += ", or `false` (not wired)"
    return allowed


def reference_row(dotted: str, spec: Key) -> str:
    """The README's row for one key: type, default, what is allowed, and what it is for."""
    if spec.default is REQUIRED:
        default = "*required*"
    elif spec.default is None:
        default = "*unset*"
    else:
        default = f"`{shown(spec.default, spec.hex)}`"
    cells = [f"`{dotted}`", _type_name(spec), default, _allowed(spec), spec.meaning]
    return "| " + " | ".join(cells) + " |"


def declare(default: object, meaning: str, **rules: Any) -> Any:
    """A key, declared as a dataclass field; :data:`SCHEMA` takes its kind from the field's type."""
    return field(metadata={"key": Key(default, meaning, **rules)})


@dataclass(frozen=True, slots=True)
class Section:
    """A ``[table]`` of the file: the dataclass it becomes and its keys in order."""

    cls: type
    keys: dict[str, Key]


def section_of(cls: type) -> Section:
    """A section's keys, read off its dataclass: each field's Key, of the field's type."""
    types = get_type_hints(cls)
    keys = {}
    for declared in fields(cls):
        kind = types[declared.name]
        kind = next((arg for arg in get_args(kind) if arg is not type(None)), kind)
        kind = get_origin(kind) or kind  # tuple[str, ...]: an array of strings
        keys[declared.name] = replace(declared.metadata["key"], kind=kind)
    return Section(cls, keys)


def read_section(source: str, name: str, section: Section, table: object) -> dict[str, object]:
    """The values of one ``[table]``, each checked alone, with the defaults of keys left out;
    the floor's configuration reads its sections with it too."""
    if not isinstance(table, dict):
        raise ConfigError(
            f"{source}: {name}: expected a table [{name}], got {kind_name(table)}", name
        )
    for key in table:
        if key not in section.keys:
            known = ", ".join(section.keys)
            raise ConfigError(
                f"{source}: {name}.{key}: unknown key (known: {known})", f"{name}.{key}"
            )
    values = {}
    for key, spec in section.keys.items():
        dotted = f"{name}.{key}"
        if key in table:
            try:
                values[key] = check(spec, table[key])
            except Invalid as exc:
                raise ConfigError(f"{source}: {dotted}: {exc}", dotted) from None
        elif spec.default is REQUIRED:
            meaning = spec.meaning.rstrip(".")
            raise ConfigError(f"{source}: {dotted}: required key is missing ({meaning})", dotted)
        else:
            values[key] = None if spec.default is None else spec.kind(spec.default)
    return values
