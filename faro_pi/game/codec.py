"""Events to and from JSON, and their schema, from the declarations of :mod:`~faro_pi.game.events`.

One msgspec decoder reads a line (the journal, replay files, the floor) or an
object already parsed (the console, the simulator) into an event. A value
msgspec refuses is refused by the rule its field names in ``Meta.extra``,
with the field's message; a domain value (a card, a rank) is refused by its
own parser's :class:`Refused`; what concerns several fields, by the event.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal, get_args, get_origin

import msgspec
from msgspec.structs import fields

from faro_pi.game.cards import (
    CARD_BY_CODE,
    COLOURS,
    RANK_BY_CODE,
    RANKS,
    parse_card,
    parse_colour,
    parse_rank,
    rank_name,
)
from faro_pi.game.events import Event
from faro_pi.game.exc import Refused
from faro_pi.game.fields import CardCode, Colour, HouseRules, Name, OnlyTrue, Rank, Seat
from faro_pi.game.names import MAX_NAME, normal_name, require_text, seat_name
from faro_pi.game.profile import OPTION_KEYS, Options, options_json

EVENTS: tuple[type, ...] = get_args(Event)
TAGS: dict[str, type] = {cls.__struct_config__.tag: cls for cls in EVENTS}


def player_name(name: object) -> str:
    """The normal form of a name; a blank or a non-string is none (its field says why)."""
    if type(name) is str:
        name = name.strip() if name.isascii() else normal_name(name)  # ASCII is composed
        if name:
            return name
    raise ValueError("not a name")


def _seat_name(name: object) -> str:
    """A name fit to seat (:func:`faro_pi.game.names.seat_name`); a blank is none."""
    return seat_name(player_name(name))


def _true(obj: object) -> bool:
    if obj is True:
        return obj
    raise ValueError("not true")


def _overrides(obj: object) -> dict:
    if isinstance(obj, dict):
        return obj  # the session puts them over its profile's
    raise ValueError("not an object")


_READ: dict[type, Callable[[Any], Any]] = {
    Rank: parse_rank,
    CardCode: parse_card,
    Colour: parse_colour,
    Name: player_name,
    Seat: _seat_name,
    HouseRules: _overrides,
    OnlyTrue: _true,
}


def _read(kind: type, obj: Any) -> Any:
    if type(obj) is str:  # the common names, ranks and cards at once; the rest the long way
        if kind is Name and obj.isascii() and obj == obj.strip() and obj:
            return obj
        if kind is Rank and obj in RANK_BY_CODE:
            return RANK_BY_CODE[obj]
        if kind is CardCode and obj in CARD_BY_CODE:
            return CARD_BY_CODE[obj]
    return _READ[kind](obj)


def stored(kind: type, obj: Any) -> Any:
    """An event's field as msgpack keeps it (a resume point, written by faro-pi): the value."""
    if kind is CardCode:
        return parse_card(f"{rank_name(obj[0])}{obj[1]}")
    if kind is HouseRules:
        return msgspec.convert(obj, Options)
    return obj


_decode_line = functools.lru_cache(maxsize=4096)(msgspec.json.Decoder(Event, dec_hook=_read).decode)
"""Lines recur (every pack deals the same 52 card lines, a night's bets repeat) and an event
is an immutable value: one read a line serves each time it comes again."""


def decode_event(line: str | bytes) -> Event:
    """The event a line of JSON stands for; refuses malformed ones.

    Raises ``ValueError`` when the line is not JSON at all.
    """
    try:
        return _decode_line(line)
    except msgspec.ValidationError as exc:
        raise _refusal(exc, json.loads(line)) from None
    except msgspec.DecodeError as exc:
        try:  # JSON that msgspec will not read as text (a lone surrogate's escape)
            obj = json.loads(line)
        except ValueError:
            raise ValueError(str(exc)) from None
        return event_from_json(obj)


def event_from_json(obj: Any) -> Event:
    """The event a decoded JSON object stands for; refuses malformed ones."""
    require_text(obj, obj.get("type", "event") if isinstance(obj, dict) else "event")
    try:
        return msgspec.convert(obj, Event, strict=True, dec_hook=_read)
    except msgspec.ValidationError as exc:
        raise _refusal(exc, obj) from None


# -- a refusal from msgspec's error ------------------------------------------------------


def _extra(hint: Any) -> dict | None:
    """The rule and message a field's ``Meta`` declares, wherever it sits in the type."""
    if get_origin(hint) is Annotated:
        for meta in hint.__metadata__:
            if isinstance(meta, msgspec.Meta) and meta.extra:
                return meta.extra
    for arg in get_args(hint):
        found = _extra(arg)
        if found:
            return found
    return None


_RULES = {cls: {f.name: _extra(f.type) for f in fields(cls)} for cls in EVENTS}
_WHERE = re.compile(r"(.*?)(?: - at `(\$\.(\w+).*)`)?", re.S)
_MISSING = re.compile(r"Object missing required field `(\w+)`")


def _refusal(error: msgspec.ValidationError, obj: Any) -> Refused:
    """The :class:`Refused` for what msgspec found wrong in ``obj``, by its field's rule; a
    field's message may say where inside it (``{why}``: msgspec's words and the path)."""
    if not isinstance(obj, dict):
        return Refused("event", "an event is a JSON object with a 'type'")
    kind = obj.get("type")
    cls = TAGS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        return Refused("event", f"unknown event type {kind!r}; known: {', '.join(TAGS)}")
    message, path, key = _WHERE.fullmatch(str(error)).groups()
    missing = _MISSING.match(message) if key is None else None  # inside a field: the field's
    extra = _RULES[cls].get(missing[1] if missing else key)
    if extra is None:
        return Refused("event", f"{message} in a {kind!r} event")
    if missing:
        return Refused(extra["rule"], f"{missing[1]!r} is missing")
    why = f"{message} at {path}"
    return Refused(extra["rule"], extra["wrong"].format(key=key, value=obj.get(key), why=why))


# -- writing ------------------------------------------------------------------------------

_WRITE: dict[Any, Callable[[Any], Any]] = {
    Rank: rank_name,
    CardCode: lambda card: card.code,
    HouseRules: options_json,
}


def _writer(hint: Any) -> Callable[[Any], Any] | None:
    """How a field's value is written: ranks by name, cards by code, options and a report in
    full."""
    if get_origin(hint) is Annotated:
        return _writer(get_args(hint)[0])
    if isinstance(hint, type) and hint in _WRITE:
        return _WRITE[hint]
    if isinstance(hint, type) and issubclass(hint, msgspec.Struct):
        return lambda value: msgspec.json.decode(msgspec.json.encode(value))  # a report
    if get_origin(hint) is tuple:
        each = _writer(get_args(hint)[0])
        return list if each is None else lambda items: [each(item) for item in items]
    if get_origin(hint) is Literal:
        return None
    return next(filter(None, map(_writer, get_args(hint))), None)


def _only_true(hint: Any) -> bool:
    """A flag that is given as true or not at all (``high_card``, ``call``)."""
    return hint is OnlyTrue or any(_only_true(arg) for arg in get_args(hint)[:1])


def _written(cls: type) -> tuple[str, tuple]:
    """The tag and each field's writer, the places (``either``) together where the first is."""
    declared = [f.name for f in fields(cls)]
    first = min((declared.index(name) for name in cls.either), default=0)
    order = sorted(
        fields(cls), key=lambda f: first if f.name in cls.either else declared.index(f.name)
    )
    tag = cls.__struct_config__.tag
    return tag, tuple((f.name, _writer(f.type), _only_true(f.type)) for f in order)


_FIELDS = {cls: _written(cls) for cls in EVENTS}


def event_to_json(event: Event) -> dict[str, Any]:
    """The JSON object for an event: a field left at None (or a flag at false) is left out."""
    try:
        tag, declared = _FIELDS[type(event)]
    except KeyError:
        raise TypeError(f"not an event: {event!r}") from None
    obj: dict[str, Any] = {"type": tag}
    for name, write, flag in declared:
        value = getattr(event, name)
        if value is None or (flag and value is False):
            continue
        obj[name] = value if write is None else write(value)
    return obj


# -- the schema ---------------------------------------------------------------------------

_SCHEMA: dict[type, dict[str, Any]] = {
    Rank: {
        "type": "string",
        "enum": list(RANKS),
        "description": "A rank: A, 2-10, J, Q, K (T for 10 and any case are accepted too).",
    },
    CardCode: {
        "type": "string",
        "pattern": "^(A|[2-9]|10|T|J|Q|K)[SHDC]$",
        "description": "A card: its rank then its suit (S H D C), e.g. KD or 10H; any case.",
    },
    Colour: {"type": "string", "enum": list(COLOURS)},
    OnlyTrue: {"const": True},
    Name: {"type": "string", "minLength": 1},
    Seat: {"type": "string", "minLength": 1, "maxLength": MAX_NAME},
    HouseRules: {
        "type": "object",
        "description": "House-rule options over the profile's, by name.",
        "properties": {
            key: {"enum": [1, 2]} if key == "cat_hop_pays" else {"type": "boolean"}
            for key in OPTION_KEYS
        },
        "additionalProperties": False,
    },
}


def schemas(ref_template: str) -> dict[str, dict[str, Any]]:
    """The JSON schema of each event a lookout may enter, by component name (``BetEvent``)."""
    entered = [cls for cls in EVENTS if cls.entered]
    _, built = msgspec.json.schema_components(
        entered, schema_hook=lambda kind: dict(_SCHEMA[kind]), ref_template=ref_template
    )
    out = {}
    for cls in entered:
        schema = built[cls.__name__]
        schema["description"] += " Other fields are allowed and ignored."
        schema["required"] += [f.name for f in fields(cls) if f.default is msgspec.UNSET]
        schema["examples"] = list(cls.examples)
        if cls.either:
            schema["oneOf"] = [{"required": [name]} for name in cls.either]
        out[f"{cls.__struct_config__.tag.capitalize()}Event"] = schema
    return out
