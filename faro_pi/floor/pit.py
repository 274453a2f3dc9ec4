"""The pit as the floor page shows it: each table's copy replayed through the engine.

The floor runs each copy through the same rules engine as the table, row by
row as the rows come, so the pack, the turn, the alarms and every result
are the table's own, worked out again from its record (a refused reading
is skipped, as a restart of the daemon skips it). Each pack, once complete,
gets the floor's own deal-integrity report (:mod:`faro_pi.game.integrity`,
against the table's previous pack), kept with the copy. From those views,
:func:`pit` makes the page's JSON: every table, the bank's result per pack
and for the night, each player's result across the tables.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

from faro_pi.floor.store import Added, Copy
from faro_pi.game import resume
from faro_pi.game.events import Event
from faro_pi.game.replay import pack_report, replay
from faro_pi.game.rules import Table

log = logging.getLogger("faro_pi")

TWINS_WINDOW = 600.0
"""Seconds after which a start that took turns with another is taken to have gone."""

WHY_MOST = 300
"""Characters of a refusal's reason on the page at most (a refused value may be long)."""


class TableView:
    """One table as the floor knows it: its copy's engine, and whether it is online."""

    def __init__(self, name: str, copy: Copy):
        self.name = name
        self.copy = copy
        self.table = Table()
        self.applied = 0
        """The last row run through the engine."""
        self.diverged: str | None = None
        """Where and why the engine stopped following the copy, if it did: a row the rules
        refuse (a newer table's events), or anything failing as it followed (:meth:`_failed`)."""
        status = copy.status()
        self.online, self.since = (None, None) if status is None else status
        self.changes = 0
        """Rises with every change the page shows."""
        self.integrity = copy.integrity()
        """What each complete pack's integrity report flagged (an empty tuple: fair)."""
        self.instance: str | None = None
        """The start of the table's that last said it is online."""
        self.starts: dict[str, float] = {}
        """When each start of the table's last said it is online, live."""
        self.witness: dict[str, str] = {}
        """What the copy says of the table's journal that the journal cannot say of itself:
        rows it lost at its end (``lost``), rows changed (``differs``), another journal
        (``breaks``), rows the copy could not keep (``store``), each until the table's rows
        continue the copy again; balances the table states that its rows do not lead to
        (``stated``), until it states theirs; and what the floor refused or could not follow
        (``refused``, ``engine``), until the floor starts again."""
        self.refusals = 0
        """Messages of the table's that the floor refused."""
        self.stated: tuple[int, dict[str, int]] | None = None
        """Balances the table stated after a row the engine has not reached yet."""

    def restore(self) -> None:
        """The engine after every row of the copy: its latest kept state, then the rest."""
        try:
            kept = self.copy.resume_point()
            if kept is not None:
                table = resume.load(kept[1])
                if table is not None:
                    self.table, self.applied = table, kept[0]
            self._follow(self.copy.rows(after=self.applied))
        except Exception as exc:  # one table's copy must never stop the floor, nor its start
            self._failed(exc)

    def apply(self, rows) -> None:
        """Runs newly kept rows (:class:`~faro_pi.floor.wire.Row`, their events decoded as they
        arrived) through the engine."""
        try:
            self._follow((row.seq, row.decoded, row.refused) for row in rows)
        except Exception as exc:  # as in restore
            self._failed(exc)
        self.changes += 1

    def _follow(self, rows: Iterable[tuple[int, Event | bytes, str | None]]) -> None:
        """Replays rows of the copy as the table did: a resume point where it kept one, a
        report where one fell due. From a row the rules refuse on, the engine stops
        following the copy, and later rows are only counted."""
        rows = iter(rows)
        for step in replay(self.table, rows) if self.diverged is None else ():
            self.applied = step.row
            if step.refused is not None:
                self._diverged(f"at row {step.row}: {step.refused}")
                break
            if self.stated is not None and self.stated[0] == step.row:
                self._hold(*self.stated)
            if step.event is not None and step.event.resume_point:
                self.copy.keep_resume_point(step.row, resume.save(self.table))
            elif step.due:
                self._judge()
        for seq, _, _ in rows:
            self.applied = seq

    def _diverged(self, where: str) -> None:
        self.diverged = where
        self._alarm(
            "engine",
            f"the floor stopped following this table {where}; its rows are still copied",
        )

    def _failed(self, exc: Exception) -> None:
        """Something failed as the floor followed this table's copy (its store, a resume
        point, the engine): the engine stops following it, with an alarm on its line, and
        the other tables go on."""
        log.error("floor: %s: following the copy failed", self.name, exc_info=exc)
        if self.diverged is None:
            self._diverged(f"after row {self.applied} ({type(exc).__name__}: {exc})")

    def refused(self, kind: str, why: str) -> None:
        """A message of the table's on ``kind`` that the floor refused (:mod:`.wire` says
        why), counted against the table; the pit boss logs the first of each topic."""
        self.refusals += 1
        count = "a message" if self.refusals == 1 else f"{self.refusals} messages"
        why = why if len(why) <= WHY_MOST else why[: WHY_MOST - 1] + "…"
        self.witness["refused"] = (
            f"the floor refused {count} from this table, the last on {kind}: {why}"
        )
        self.changes += 1

    def not_kept(self, exc: Exception) -> None:
        """The table's rows could not go into its copy (its file, say): they are asked for
        again, and the page says so until they are kept."""
        self._alarm("store", f"the floor cannot keep this table's rows: {exc}")

    def _judge(self) -> None:
        """The integrity report of the pack just completed (again, if a void changed it)."""
        pack = self.table.pack
        flagged = pack_report(self.table).flagged
        self.integrity[pack.number] = flagged
        self.copy.keep_pack(pack.number, [card.code for card in pack.exposed], flagged)

    def compared(self, added: Added) -> None:
        """What the copy made of rows that came (:meth:`Copy.add`)."""
        head = self.copy.head
        if added.taken:  # the chain continues: the table's rows are the copy's again
            for kind in ("lost", "differs", "breaks", "store"):
                self._settled(kind)
        if added.differs is not None:
            seq = added.differs
            self._alarm(
                "differs",
                f"row {seq} came again from the table and is not the floor's row {seq}: "
                f"the table's journal was changed, or replaced, from row {seq} or before",
            )
        if added.breaks is not None:
            self._alarm(
                "breaks",
                f"row {added.breaks} from the table does not continue the floor's copy (rows "
                f"1 to {head}): the table sends another journal than the one copied; the copy "
                "takes none of it",
            )

    def ended(self, seq: int, hash: bytes | None) -> None:
        """The table's journal ends at row ``seq``, with this hash, as its live state says."""
        head = self.copy.head
        if seq < head:
            rows = f"row {head}" if seq + 1 == head else f"rows {seq + 1} to {head}"
            self._alarm(
                "lost",
                f"the table's journal ends at row {seq}, but the floor's copy has {rows}: "
                "the table lost them (rows cut from its end, or its journal put back)",
            )
        kept = self.copy.hash_at(seq) if seq else None
        if kept is not None and hash is not None and kept != hash:
            self._alarm(
                "differs",
                f"the table's row {seq} is not the floor's row {seq}: the table's journal was "
                f"changed, or replaced, from row {seq} or before",
            )
        elif seq == head and kept is not None:
            for kind in ("lost", "differs"):
                self._settled(kind)

    def states(self, seq: int, balances: dict[str, int]) -> None:
        """The balances the table states it stands at after row ``seq``: held against the
        engine's after that row, now or when the engine reaches it (past it, they cannot be)."""
        self.stated = None
        if self.diverged is None and seq == self.applied:
            self._hold(seq, balances)
        elif self.diverged is None and seq > self.applied:
            self.stated = (seq, balances)

    def _hold(self, seq: int, balances: dict[str, int]) -> None:
        self.stated = None
        rows = dict(self.table.balances)
        if balances == rows:
            self._settled("stated")
            return
        names = sorted(set(balances) | set(rows))
        wrong = [name for name in names if balances.get(name) != rows.get(name)]
        said = ", ".join(f"{name} {_signed(balances.get(name))}" for name in wrong)
        replayed = ", ".join(f"{name} {_signed(rows.get(name))}" for name in wrong)
        self._alarm(
            "stated",
            f"after row {seq} the table states {said}, but its rows lead to {replayed}: the "
            "table does not stand where its journal does (a resume point changed?); faro-pi "
            "verify at the table replays every row",
        )

    def _alarm(self, kind: str, text: str) -> None:
        if self.witness.get(kind) != text:
            self.witness[kind] = text
            self.changes += 1
            log.warning("floor: %s: %s", self.name, text)

    def _settled(self, kind: str) -> None:
        text = self.witness.pop(kind, None)
        if text is not None:
            self.changes += 1
            log.info("floor: %s: no longer so: %s", self.name, text)

    def heard(self, online: bool, now: float, instance: str | None = None, live=False) -> None:
        """The table's status message; ``since`` moves only when the status changes. Live
        ``online`` statuses of two starts that take turns are two tables under one name."""
        if online != self.online:
            self.online, self.since = online, now
            self.copy.keep_status(online, now)
            self.changes += 1
        if not (online and live and instance):
            return
        back = instance != self.instance and instance in self.starts
        self.instance, self.starts[instance] = instance, now
        others = [start for start in self.starts if start != instance]
        if back:
            pair = " and ".join(sorted([instance, *others])[:2])
            self._alarm(
                "twins",
                f"two tables are on the floor as {self.name}: starts {pair} take turns on the "
                "broker (a cloned SD card?); give one of them its own floor.table and broker user",
            )
        elif all(now - self.starts[start] > TWINS_WINDOW for start in others):
            self._settled("twins")

    def summary(self, console: str) -> dict[str, Any]:
        """The table's line on the floor page."""
        table = self.table
        pack = table.pack
        packs = bank_by_pack(table)
        for line in packs:
            line["integrity"] = self.integrity.get(line["pack"])
        return {
            "name": self.name,
            "online": self.online,
            "since": self.since,
            "rows": self.copy.head,
            "pack": pack.number,
            "turn": pack.turn,
            "cards": len(pack.exposed),
            "banker": table.banker,
            "seats": list(table.seats),
            "alarms": [{"kind": a.kind, "text": a.text} for a in table.alarms]
            + [{"kind": "floor", "text": text} for text in self.witness.values()],
            "flagged": [
                {"pack": line["pack"], "findings": list(line["integrity"])}
                for line in packs
                if line["integrity"]
            ],
            "diverged": self.diverged,
            "refused": self.refusals,
            "packs": packs,
            "bank": sum(p["result"] for p in packs),
            "chart": bank_chart(table),
            "balances": dict(table.balances),
            "console": console,
        }


def _signed(balance: int | None) -> str:
    return "(none)" if balance is None else f"{balance:+d}"


def bank_by_pack(table: Table) -> list[dict[str, Any]]:
    """The bank's result in each pack of the night: its pairs, then its calls at the hock."""
    results: dict[int, int] = {}
    for pair in table.pairs:
        results[pair.pack] = results.get(pair.pack, 0) + pair.banker_delta
    bankers = {}
    for record in table.pack_records:
        bankers[record.number] = record.banker
        calls = sum(s.delta for s in record.calls)
        results[record.number] = results.get(record.number, 0) - calls
    if not table.seats and not table.pairs:
        return []
    return [
        {"pack": number, "banker": bankers.get(number), "result": result}
        for number, result in sorted(results.items())
    ]


def bank_chart(table: Table) -> list[int]:
    """The bank's running result through the night, after each pair and each pack's calls."""
    calls = {r.number: -sum(s.delta for s in r.calls) for r in table.pack_records if r.calls}
    points, running, pack = [], 0, None
    for pair in table.pairs:
        if pack is not None and pair.pack != pack and calls.get(pack):
            running += calls[pack]
            points.append(running)
        pack = pair.pack
        running += pair.banker_delta
        points.append(running)
    if pack is not None and calls.get(pack):
        points.append(running + calls[pack])
    return points


def pit(summaries: list[dict[str, Any]]) -> dict[str, Any]:
    """The floor page's JSON: the tables, the night's bank, and every player across tables."""
    players: dict[str, dict[str, Any]] = {}
    for line in summaries:
        for name, balance in line["balances"].items():
            player = players.setdefault(name, {"name": name, "result": 0, "tables": []})
            player["result"] += balance
            player["tables"].append({"table": line["name"], "result": balance})
    ranked = sorted(players.values(), key=lambda p: (-p["result"], p["name"]))
    return {
        "tables": summaries,
        "bank": sum(line["bank"] for line in summaries),
        "players": ranked,
        "alarms": sum(1 for line in summaries if line["alarms"] or line["flagged"]),
    }
