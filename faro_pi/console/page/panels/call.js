// Calling the turn at the last three: the orders with their chances, the calls made,
// taking a player's calls back, and after the hock what the calls did. It opens under the
// controls, where it moves nothing the lookout taps; the page never scrolls to it by itself.

import { $, h, patch } from "../dom.js";
import { colourOf, signed, swatch } from "../cards.js";
import { formatChance } from "../chance.js";
import { cardsKey } from "../store.js";

function hint(table, three, picks) {
  if (table.pack.stage !== "last-three") return table.pack.complete ? "The hock settled the calls." : "";
  const left = table.case.flatMap((c) => Array(c.count).fill(c.rank));
  const who = picks.player ? ` Tap an order to call it for ${picks.player}, weight ${picks.weight}.` : "";
  const catHop = (table.options || {}).cat_hop_pays || 2;
  const said =
    three && three.by === "colour"
      ? `The last three are all ${left[0]}s: name their colours, loser, winner, hock. A right call pays 2 to 1.`
      : `Left: ${left.join(" ")}. Name the order: loser, winner, hock. A right call pays 4 to 1 (${catHop} to 1 with a pair in it).`;
  return said + who;
}

function order(o, picks, actions) {
  const named = o.order || o.colours;
  const { player, weight } = picks;
  return h(
    "button",
    {
      type: "button",
      key: named.join(" "),
      class: "order",
      dataset: { order: named.join(" ") },
      "aria-label": `${player} calls ${named.join(", ")} for ${weight}; chance ${o.fraction}`,
      onclick: (e) => {
        // A choice goes when calls close: left focused, Chrome scrolls the page as it goes.
        e.currentTarget.blur();
        actions.tapped(
          { type: "call", player, weight, ...(o.order ? { order: o.order } : { colours: o.colours }) },
          "call-note",
        );
      },
    },
    h("span", { class: "named" }, named.join(" · ")),
    h("span", { class: "chance" }, formatChance(picks.percent, o.chance, o.fraction)),
  );
}

function items(table) {
  const calls = table.calls.map((c) =>
    h(
      "li",
      { dataset: { player: c.player } },
      swatch(colourOf(table, c.player)),
      `${c.player} calls ${(c.order || c.colours).join(" · ")} for ${c.weight}`,
    ),
  );
  const results = table.pack.complete
    ? table.call_results.map((r) =>
        h(
          "li",
          { dataset: { player: r.player, outcome: r.outcome } },
          swatch(colourOf(table, r.player)),
          `${r.player} ${r.outcome === "called" ? "called it" : "miscalled"}: `,
          h("strong", { class: r.delta > 0 ? "up" : "down" }, signed(r.delta)),
        ),
      )
    : [];
  return [...calls, ...results];
}

export function render({ table, odds, picks }, actions) {
  const box = $("call");
  const pack = table.pack;
  const atThree = pack.stage === "last-three";
  box.hidden = !(atThree || table.calls.length || (pack.complete && table.call_results.length));
  if (box.hidden) return;
  const three = odds && odds.key === cardsKey(table) ? odds.last_three : null;
  $("call-hint").textContent = hint(table, three, picks);
  patch($("call-orders"), atThree && three && picks.player ? three.orders.map((o) => order(o, picks, actions)) : []);
  patch($("call-list"), items(table));
  // While calls are taken, a player's calls can be taken back (all of them at once).
  const callers = atThree && table.entries === "open" ? [...new Set(table.calls.map((c) => c.player))] : [];
  patch(
    $("call-back"),
    callers.map((name) =>
      h(
        "button",
        {
          type: "button",
          key: name,
          class: "quiet small",
          dataset: { player: name },
          onclick: () => actions.enter({ type: "remove", player: name, call: true }, "call-note"),
        },
        `Take back ${name}'s calls`,
      ),
    ),
  );
}
