"""``faro-pi run`` that kills itself with SIGKILL at one commit of its journal.

tests/test_crash.py runs this as the daemon's process, so a fault lands on a
chosen commit boundary instead of at a random moment, and production code
carries no hook for it. Every method of :class:`Journal` that commits is
wrapped: each call is numbered from 1 in this process and written to LOG
(``N method what``) before it is made, and when N is the chosen one the
process kills itself just before the call or just after it returns.

    python kill_at_commit.py LOG {before,after,never} N -- faro-pi's arguments
"""

from __future__ import annotations

import functools
import itertools
import os
import signal
import sys

from faro_pi import cli
from faro_pi.service.journal import Journal

COMMITS = ("append", "set_link_seq")
"""Every method of Journal that writes a transaction (checkpoint folds, it adds nothing)."""


def what(method: str, args: tuple, kwargs: dict) -> str:
    """What a commit holds, then ``@`` and the reader's frame it carries (``None`` for none)."""
    if method == "append":
        changes = args[0]
        seq = next((c.link_seq for c in changes if c.link_seq is not None), None)
        return "+".join(type(change.event).__name__ for change in changes) + f"@{seq}"
    return f"link@{args[0]}"


def arm(log_path: str, when: str, chosen: int) -> None:
    """Wraps the journal's commits so that commit number ``chosen`` kills this process."""
    # Left open for the life of the process, which ends with SIGKILL or cli.main's return.
    log = open(log_path, "a", buffering=1)  # noqa: SIM115
    numbers = itertools.count(1)

    def die() -> None:
        log.flush()
        os.kill(os.getpid(), signal.SIGKILL)

    def wrap(method: str) -> None:
        commit = getattr(Journal, method)

        @functools.wraps(commit)
        def counted(self, *args, **kwargs):
            number = next(numbers)
            log.write(f"{number} {method} {what(method, args, kwargs)}\n")
            if number == chosen and when == "before":
                die()
            result = commit(self, *args, **kwargs)
            if number == chosen and when == "after":
                die()
            return result

        setattr(Journal, method, counted)

    for method in COMMITS:
        wrap(method)


def main(argv: list[str]) -> int:
    log_path, when, chosen, dashes, *rest = argv
    if when not in ("before", "after", "never") or dashes != "--":
        raise SystemExit(__doc__)
    arm(log_path, when, int(chosen))
    return cli.main(rest)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
