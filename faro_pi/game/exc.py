"""The rules' own exceptions: the game package raises only these, and imports nothing else."""

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
