"""``faro-pi integrity JOURNAL``: the deal-integrity report of every complete pack in a journal.

Each pack's report is worked out again from the cards as they were dealt (the
report is a function of the pack's order and the previous pack's alone), and
set beside the report the daemon journaled at its hock, if it did: the two
must agree. docs/integrity.md explains each measure.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import TextIO

from faro_pi.exc import JournalError
from faro_pi.game import integrity
from faro_pi.game.events import Integrity
from faro_pi.game.replay import pack_report, replay
from faro_pi.game.rules import Table
from faro_pi.service.journal import Journal


def reports(journal: Journal) -> Iterator[tuple[int, integrity.IntegrityReport, Integrity | None]]:
    """(pack, its report worked out again, the report journaled for it or None), pack by pack.

    A row the rules refuse is read past: the daemon refuses to start on such a journal,
    but its packs can still be judged."""
    table, pending = Table(), None
    for step in replay(table, (entry.row for entry in journal.rows())):
        event = step.event
        if isinstance(event, Integrity) and pending is not None and pending[0] == event.pack:
            yield pending[0], pending[1], event
            pending = None
        elif step.due:
            if pending is not None:
                yield *pending, None
            pending = (table.pack.number, pack_report(table))
    if pending is not None:
        yield *pending, None


def figures(report: integrity.IntegrityReport) -> list[str]:
    """Each measure of the pack, how often a fair shuffle reaches it, and where it is flagged
    (docs/integrity.md), so that "fair" can be read against its figures."""
    splits = report.splits
    fewer = _how_often(report.splits_or_fewer, True)
    lines = [
        f"splits: {_figure(splits)}, {splits.value} or fewer {fewer}{_limit(splits)}",
        f"cards followed by one of their rank: {_figure(report.neighbours)}"
        f"{_limit(report.neighbours)}",
        f"longest run of one rank: {_figure(report.same_rank_run)}{_limit(report.same_rank_run)}",
        f"longest straight: {_figure(report.straight)}{_limit(report.straight)}",
    ]
    if report.kept_order is None or report.kept_run is None:
        return [*lines, "the previous pack: not in this journal, so no check of a false shuffle"]
    return [
        *lines,
        f"most cards in the previous pack's order: {_figure(report.kept_order)}"
        f"{_limit(report.kept_order)}",
        f"longest run kept together from the previous pack: {_figure(report.kept_run)}"
        f"{_limit(report.kept_run)}",
    ]


def _figure(m: integrity.Measure) -> str:
    """The value, where it starts, and how often a fair shuffle gives as much or more."""
    where = "" if m.at is None else f" from card {m.at}"
    return f"{m.value}{where} (a fair shuffle: {m.value} or more {_how_often(m.tail, m.exact)}"


def _limit(m: integrity.Measure) -> str:
    return "; never flagged)" if m.limit is None else f"; flagged from {m.limit})"


def _how_often(chance: float, exact: bool) -> str:
    bound = "" if exact else "at most "
    if chance >= 1:
        return "in every pack"
    if chance >= 0.995:
        return f"in {bound}more than 99% of packs"
    if chance < 1e-9:
        return "less than once in a billion packs"
    if chance >= 0.01:
        return f"in {bound}{chance:.0%} of packs"
    return f"{bound}once in {round(1 / chance):,} packs"


def main(path: str, as_json: bool = False, out: TextIO | None = None) -> int:
    """Prints each complete pack's findings; exit 1 if any pack is flagged, 2 if unreadable.

    ``out`` is standard output as it is when called, not as it was when this was imported."""
    out = out or sys.stdout
    try:
        with Journal.open(path, readonly=True) as journal:
            found = list(reports(journal))
    except JournalError as exc:
        print(f"faro-pi integrity: {exc}", file=sys.stderr)
        return 2
    flagged = False
    for pack, report, journaled in found:
        flagged |= bool(report.flagged)
        if as_json:
            line = {"pack": pack, **report.as_dict(), "journaled": journaled is not None}
            print(json.dumps(line, sort_keys=True), file=out)
            continue
        said = "fair" if not report.flagged else "; ".join(report.flagged)
        unsaid = "" if journaled is not None else " (no report journaled at its hock)"
        print(f"pack {pack}: {said}{unsaid}", file=out)
        for line in figures(report):
            print(f"  {line}", file=out)
    if not found:
        print("no complete pack in this journal", file=out)
    return 1 if flagged else 0
