// Every pair settled tonight, the latest first, and what each hock's calls did.

import { $, h, patch } from "../dom.js";
import { colourOf, move, signed, swatch } from "../cards.js";
import { pictured } from "../pictures.js";

function pairItem(table, pair) {
  return h(
    "li",
    { key: `${pair.pack}:${pair.turn}`, dataset: { pack: pair.pack, turn: pair.turn } },
    h("span", { class: "turn" }, `${pair.pack > 1 ? `P${pair.pack} ` : ""}T${pair.turn}`),
    pictured(pair.pack, pair.loser),
    pictured(pair.pack, pair.winner),
    pair.split ? h("span", { class: "badge split" }, "split") : null,
    h(
      "span",
      { class: "moves" },
      pair.settlements.length
        ? [
            ...pair.settlements.map((x) => move(table, x)),
            h("span", { class: "move bank" }, `bank ${signed(pair.banker)}`),
          ]
        : h("span", { class: "none" }, "nothing on these ranks"),
    ),
  );
}

function callsItem(table, pack) {
  return h(
    "li",
    { key: `${pack.number}:calls`, class: "calls" },
    h("span", { class: "turn" }, "hock"),
    h(
      "span",
      { class: "moves" },
      pack.calls.map((x) =>
        h(
          "span",
          { class: `move ${x.delta > 0 ? "up" : "down"}` },
          swatch(colourOf(table, x.player)),
          `${x.player} ${signed(x.delta)}`,
          h("small", {}, " call"),
        ),
      ),
    ),
  );
}

export function render({ table, history }) {
  if (!history) return;
  const items = [];
  for (const pair of history.pairs) {
    items.push(pairItem(table, pair));
    const pack = history.packs.find((p) => p.number === pair.pack);
    if (pair.turn === 25 && pack && pack.calls.length) items.push(callsItem(table, pack));
  }
  items.reverse();
  patch($("settlements"), items.length ? items : h("li", { class: "none" }, "No pair settled yet."));
}
