// The last pair's settlements, right under the layout: who is paid, who pays.

import { $, h, patch } from "../dom.js";
import { cardText, move, signed } from "../cards.js";

export function render({ table }) {
  const last = table.last_pair;
  const box = $("paid");
  box.hidden = !last || last.pack !== table.pack.number;
  if (box.hidden) return;
  const row = (side, label, moves) =>
    moves.length
      ? h(
          "p",
          { class: "paid-row", key: side, dataset: { side } },
          h("span", { class: "paid-label" }, label),
          h("span", { class: "moves" }, moves.map((x) => move(table, x))),
        )
      : null;
  box.dataset.turn = last.turn;
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
    last.settlements.length ? null : h("p", { class: "none", key: "none" }, "No bet on these ranks."),
    row("paid", "Paid", last.settlements.filter((x) => x.delta > 0)),
    row("pays", "Pays", last.settlements.filter((x) => x.delta <= 0)),
  );
}
