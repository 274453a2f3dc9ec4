// The last pair's settlements, over the layout: who is paid, who pays; at the hock, what
// the calls did too. Its place on the felt is always there, so nothing under it moves.

import { $, h, patch } from "../dom.js";
import { cardText, colourOf, move, signed, swatch } from "../cards.js";

/** What a call did at the hock, as a settlement reads. */
const called = (table, r) =>
  h(
    "span",
    { class: `move ${r.delta > 0 ? "up" : "down"}`, key: r.player, dataset: { player: r.player, outcome: r.outcome } },
    swatch(colourOf(table, r.player)),
    `${r.player} ${signed(r.delta)}`,
    h("small", { class: "on" }, r.outcome === "called" ? " called it" : " miscalled"),
  );

export function render({ table }) {
  const last = table.last_pair;
  const box = $("paid");
  const ours = last && last.pack === table.pack.number;
  box.dataset.turn = ours ? last.turn : "";
  if (!ours) {
    patch(box, h("p", { class: "none", key: "none" }, table.pack.soda ? "No pair settled yet." : "A new pack: no card out yet."));
    return;
  }
  const row = (side, label, moves) =>
    moves.length
      ? h(
          "p",
          { class: "paid-row", key: side, dataset: { side } },
          h("span", { class: "paid-label" }, label),
          h("span", { class: "moves" }, moves),
        )
      : null;
  const calls = table.pack.complete ? table.call_results : [];
  const quiet = !last.settlements.length && !calls.length;
  patch(
    box,
    h(
      "p",
      { class: "paid-head", key: "head" },
      h("strong", {}, `Turn ${last.turn}`),
      ` ${cardText(last.loser)} loses, ${cardText(last.winner)} wins`,
      last.split ? h("span", { class: "badge split" }, "split") : null,
      last.settlements.length ? h("span", { class: "move bank" }, `bank ${signed(last.banker)}`) : null,
    ),
    quiet ? h("p", { class: "none", key: "none" }, "No bet on these ranks.") : null,
    row("paid", "Paid", last.settlements.filter((x) => x.delta > 0).map((x) => move(table, x))),
    row("pays", "Pays", last.settlements.filter((x) => x.delta <= 0).map((x) => move(table, x))),
    row("calls", "Calls", calls.map((r) => called(table, r))),
  );
}
