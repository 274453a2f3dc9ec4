"""The project's exceptions, named for what went wrong, so callers catch meaning."""

from __future__ import annotations


class FaroError(Exception):
    """Base of every error faro-pi raises on purpose."""


class Refused(FaroError):
    """An event that breaks a rule; the table state is left exactly as it was.

    ``rule`` is a short stable name of the rule (``"entries-closed"``,
    ``"weight"``...) that programs can match; the message is for people.
    """

    def __init__(self, rule: str, message: str):
        super().__init__(message)
        self.rule = rule
        self.message = message

    def __str__(self) -> str:
        return f"{self.message} [{self.rule}]"


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
