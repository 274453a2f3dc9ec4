"""``faro-pi verify JOURNAL``: every row of a journal against its hash chain, from row 1.

A start checks only the rows from the writer's mark (:mod:`faro_pi.service.chain`);
this checks them all, and that each kept resume point is the state its rows
lead to. ``--against RECORD`` also holds the journal against a record of it
kept elsewhere (:mod:`faro_pi.service.witness`), which alone can show rows lost
at its end. The camera's stills the rows name (:mod:`faro_pi.pictures`) are held to
their hashes too: a still changed is reported, one pruned since is not.
"""

from __future__ import annotations

import sys
from pathlib import Path

from faro_pi.exc import JournalError
from faro_pi.game import resume
from faro_pi.game.replay import replay
from faro_pi.game.rules import Table
from faro_pi.pictures import Folder
from faro_pi.service.chain import START, Chain, follow
from faro_pi.service.journal import Journal
from faro_pi.service.witness import Witnessed, compare


def verify_journal(journal: Journal) -> Chain:
    """Every row from row 1, and the writer's mark; the chain tells the first break."""
    return follow(Chain(START, journal.mark()), journal.stored())


def check_resume_points(journal: Journal) -> tuple[int, str | None]:
    """How many kept resume points are what their rows lead to, and what is wrong with the
    first that is not (None when they all are).

    A start loads the latest its row seals and replays only the rows after it:
    a point changed after it was kept is passed over, but one kept wrong would
    change the table without touching a row. Replaying every row takes seconds
    for a year of nights: this is for ``verify`` only. Resume points that do
    not load are passed over, as a start passes them.
    """
    kept = {}
    for point in journal.resume_points():
        loaded = resume.load(point.state)
        if loaded is not None:
            kept[point.after] = (_kept(loaded), point.matches)
    table, count = Table(), len(kept)
    for step in replay(table, (entry.row for entry in journal.rows()) if kept else ()):
        if step.refused is not None:
            return 0, f"row {step.row} verifies but no longer applies ({step.refused})"
        if step.row not in kept:
            continue
        state, sealed = kept.pop(step.row)
        if _kept(table) != state:
            start = (
                "it is sealed in that row, and a start loads it"
                if sealed
                else "a start passes over it (its row does not seal it): it was changed after "
                "it was kept"
            )
            return 0, (
                f"the resume point after row {step.row} is not what the rows lead to: {start}; "
                f"delete it (sqlite3 {journal.path} 'DELETE FROM resume WHERE after = "
                f"{step.row}') and a start replays the rows"
            )
        if not kept:
            break
    return count, None


def check_pictures(journal: Journal, folder: Folder) -> tuple[int, list[str]]:
    """How many of the stills the rows name are kept as they were, and a line for each
    row whose still was changed since; a still pruned (or never kept) is passed over."""
    same: dict[str, bool | None] = {}
    changed = []
    for entry in journal.rows():
        picture = entry.event.get("picture")
        if not isinstance(picture, str):
            continue
        if picture not in same:
            same[picture] = folder.check(picture)
        if same[picture] is False:
            changed.append(f"row {entry.id}'s still {picture}.jpg is not what was kept")
    return sum(1 for kept in same.values() if kept), changed


def _kept(table) -> tuple:
    """What a resume point keeps of a table (see :func:`faro_pi.game.resume.save`), to compare
    as values: its bytes may differ for equal tables, a set's order being its history's."""
    return table.state, table.pack_start, table.pack_log, table.history, table.packs


def main(path: str | Path, out=None, err=None, against: str | None = None, pictures=None) -> int:
    """``faro-pi verify JOURNAL [--against RECORD] [--pictures DIR]``: 0 when every row
    verifies (and agrees with the record, and its still is as kept), 1 naming the first
    that does not."""
    out, err = out or sys.stdout, err or sys.stderr
    witnessed: Witnessed | None = None

    try:
        with Journal.open(path, readonly=True) as journal:
            if not journal.chained:
                print(
                    f"{journal.path}: a journal of schema 1 has no hash chain to verify; "
                    "the daemon adds one when it next starts",
                    file=out,
                )
                return 1
            chain = verify_journal(journal)
            points, disagree = (0, None) if chain.broken else check_resume_points(journal)
            if against is not None:
                witnessed = compare(journal, against)
            folder = Folder(pictures or Path(journal.path).parent / "pictures")
            stills, changed = check_pictures(journal, folder) if not chain.broken else (0, [])
    except (JournalError, ValueError) as exc:
        print(f"faro-pi: {exc}", file=err)
        return 1
    print(f"{journal.path}: {_verdict(chain, points, disagree)}", file=out)
    if witnessed is not None:
        print(f"{journal.path}: against {against}: {witnessed.text}", file=out)
        if not witnessed.agrees:
            return 1
    if stills or changed:
        said = f"{stills} still{'s' if stills != 1 else ''} of the cards as kept"
        print(f"{folder.path}: {'; '.join([said, *changed])}", file=out)
    return 0 if chain.broken is None and disagree is None and not changed else 1


def _verdict(chain: Chain, points: int, disagree: str | None) -> str:
    if chain.broken is not None:
        row = chain.broken.row
        if row <= 1:
            return f"{chain.broken}; no row before it verifies"
        before = "row 1 verifies" if row == 2 else f"rows 1 to {row - 1} verify"
        return f"{chain.broken}; {before}"
    last = chain.last
    rows = f"{last.id} rows verified" if last.id != 1 else "1 row verified"
    if disagree is not None:
        return f"{rows}, but {disagree}"
    if last.id == 0:
        return "no rows yet, nothing to verify"
    if points:
        rows += f" and {points} resume point{'s' if points > 1 else ''} replayed"
    return f"{rows}; the hash of row {last.id} is {last.hash.hex()}"
