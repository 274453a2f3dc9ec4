// The top of the felt: the pair being dealt or the last one, the soda or the hock; the shoe.

import { $, h, patch } from "../dom.js";
import { miniCard } from "../cards.js";

function now(table) {
  const pack = table.pack;
  const last = table.last_pair;
  if (table.pair) {
    return [
      h("figure", {}, miniCard(table.pair.loser, "big"), h("figcaption", {}, "loser")),
      h("figure", { class: "pending" }, h("span", { class: "mini big blank" }, "?"),
        h("figcaption", {}, "winner")),
      h("p", { class: "pair-caption" }, `Turn ${table.pair.turn}: the winner is to come`),
    ];
  }
  if (pack.complete) {
    return [
      h("figure", {}, miniCard(pack.hock, "big"), h("figcaption", {}, "hock")),
      h("p", { class: "pair-caption" }, "The pack is complete: new pack when ready"),
    ];
  }
  if (last && last.pack === pack.number) {
    return [
      h("figure", {}, miniCard(last.loser, "big"), h("figcaption", {}, "loser")),
      h("figure", {}, miniCard(last.winner, "big"), h("figcaption", {}, "winner")),
      h(
        "p",
        { class: "pair-caption" },
        `Turn ${last.turn}`,
        last.split ? h("span", { class: "badge split" }, "split") : null,
      ),
    ];
  }
  if (pack.soda) {
    return [
      h("figure", {}, miniCard(pack.soda, "big"), h("figcaption", {}, "soda")),
      h("p", { class: "pair-caption" }, "The soda settles nothing"),
    ];
  }
  return [h("p", { class: "pair-caption" }, "Waiting for the soda")];
}

export function render({ table }) {
  patch($("pair-now"), now(table));
  patch(
    $("shoe"),
    h("span", { class: "shoe-count" }, String(table.pack.left)),
    h("span", { class: "shoe-label" }, "in the shoe"),
  );
}
