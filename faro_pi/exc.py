"""The project's exceptions, named for what went wrong, so callers catch meaning.

:class:`FaroError` and :class:`Refused` live with the rules (:mod:`faro_pi.game.exc`),
which import nothing else of faro-pi; they are named here too so the rest of the
project finds every error in one place.
"""

from __future__ import annotations

from faro_pi.game.exc import FaroError, Refused

__all__ = ["ConfigError", "FaroError", "JournalError", "Refused"]


class ConfigError(FaroError):
    """The configuration can't be used, so the daemon must not start.

    The message is one line naming the file (or the environment) and the key,
    fit to print as is. ``key`` is the dotted key at fault (``"buttons.undo"``),
    the environment variable's name, or None when the file as a whole is unusable.
    """

    def __init__(self, message: str, key: str | None = None):
        super().__init__(message)
        self.key = key


class JournalError(FaroError):
    """The journal can't be opened or written as it is, so nothing may be acknowledged.

    The message is one line naming the journal's path and saying what to do;
    faro-pi never deletes or recreates a journal to get past one of these.
    """
