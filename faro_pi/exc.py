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
    ``reason`` is a short stable name of what is wrong, for programs to match:

    - ``"missing"``: no file there (a reader's open);
    - ``"empty"``: the file holds no journal yet (a reader's open);
    - ``"not-a-file"``, ``"cannot-open"``: the path is unusable as a file;
    - ``"not-a-journal"``: another kind of file, or another program's database;
    - ``"newer-schema"``, ``"unknown-schema"``: a journal this faro-pi doesn't read;
    - ``"corrupt"``: a damaged file, row or log;
    - ``"locked"``: another faro-pi is writing it;
    - ``"no-wal"``, ``"cannot-prepare"``, ``"no-folder"``: the writer can't set it up;
    - ``"cannot-write"``: an append or a checkpoint failed;
    - None when the raiser gave no reason.
    """

    def __init__(self, message: str, reason: str | None = None):
        super().__init__(message)
        self.reason = reason
