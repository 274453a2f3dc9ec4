// The cards out, in their piles: the soda, the losers, the winners, the hock.

import { $, h, patch } from "../dom.js";
import { pictured } from "../pictures.js";

export function render({ table }) {
  const pack = table.pack;
  const losers = [];
  const winners = [];
  pack.exposed.forEach((code, i) => {
    if (i === 0 || i === 51) return;
    (i % 2 === 1 ? losers : winners).push(code);
  });
  const pile = (name, cards, extra) =>
    h(
      "div",
      { class: "pile", key: name, dataset: { pile: name } },
      h("span", { class: "pile-name" }, name, extra ? h("small", {}, ` ${extra}`) : null),
      h("div", { class: "fan" }, cards.length ? cards.map((c) => pictured(pack.number, c)) : h("span", { class: "none" }, "—")),
    );
  patch(
    $("pile-list"),
    pile("soda", pack.soda ? [pack.soda] : []),
    pile("losers", losers, losers.length ? `(${losers.length})` : ""),
    pile("winners", winners, winners.length ? `(${winners.length})` : ""),
    pile("hock", pack.hock ? [pack.hock] : []),
  );
}
