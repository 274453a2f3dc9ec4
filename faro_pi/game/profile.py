"""The house rules a table plays by: named options, and the two profiles that set them.

The teaching profile is the rule card's accounting game; the house profile is
the 19th-century gambling house. Each option stands on its own, so a table can
mix them; the session event carries the profile and every option, so a journal
replays the same whatever the configuration says later.
"""

from __future__ import annotations

from typing import Any

import msgspec

from faro_pi.game.exc import Refused


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One value per house rule; the defaults are the teaching profile's."""

    even_weights: bool = True
    """Weights (bets and calls) must be even; otherwise any positive whole number."""
    remove_dead: bool = True
    """A prediction whose ranks are all out comes off the layout by itself."""
    collect_leftovers: bool = False
    """At the final pair's winner, the bank takes every prediction still on the layout."""
    high_card: bool = False
    """The high-card space is on the layout."""
    combinations: bool = False
    """A weight may sit between two neighbouring cards or at the corner of four."""
    call_trips: bool = True
    """When the last three share a rank the turn is called by colours; else not at all."""
    cat_hop_pays: int = 2
    """What a right call pays for each unit when two of the last three share a rank."""
    rotate_bank: bool = True
    """The bank passes to the next seat at a shuffle; otherwise it stays all night."""


PROFILES: dict[str, Options] = {
    "teaching": Options(),
    "house": Options(
        even_weights=False,
        remove_dead=False,
        collect_leftovers=True,
        high_card=True,
        combinations=True,
        call_trips=False,
        cat_hop_pays=2,
        rotate_bank=False,
    ),
}
DEFAULT_PROFILE = "teaching"
MAX_WEIGHT = 10**9
"""The largest table limit: a session that names none takes this one."""
OPTION_KEYS: tuple[str, ...] = Options.__struct_fields__


def options_for(profile: object, overrides: object) -> Options:
    """The options of ``profile`` with ``overrides`` (a JSON object) applied; refuses bad ones."""
    if not isinstance(profile, str) or profile not in PROFILES:
        known = " or ".join(PROFILES)
        raise Refused("profile", f"the profile is {known}, not {profile!r}")
    if overrides is None:
        return PROFILES[profile]
    if not isinstance(overrides, dict):
        raise Refused("options", "'options' must be an object of house-rule options")
    changes: dict[str, Any] = {}
    for key, value in overrides.items():
        changes[key] = _option(key, value)
    return msgspec.structs.replace(PROFILES[profile], **changes)


def _option(key: object, value: object) -> bool | int:
    if key not in OPTION_KEYS:
        raise Refused("options", f"{key!r} is not a house-rule option: {', '.join(OPTION_KEYS)}")
    if key == "cat_hop_pays":
        if type(value) is not int or value not in (1, 2):
            raise Refused("options", f"cat_hop_pays is 1 or 2, not {value!r}")
        return value
    if not isinstance(value, bool):
        raise Refused("options", f"{key} must be true or false, not {value!r}")
    return value


def options_json(options: Options) -> dict[str, bool | int]:
    """Every option and its value, in declaration order."""
    return {key: getattr(options, key) for key in OPTION_KEYS}
