// Under the felt: who bets, the weight, copper and take off, and what a tap will do.

import { $, h, patch } from "../dom.js";
import { colourOf, swatch } from "../cards.js";
import { players, weightOf, weights } from "../picks.js";

export function render({ table, picks }, actions) {
  const seated = players(table);
  $("pickers").hidden = seated.length === 0;
  patch(
    $("players"),
    seated.map((name) =>
      h(
        "button",
        {
          type: "button",
          key: name,
          class: "choice player",
          "aria-pressed": String(name === picks.player),
          dataset: { player: name },
          onclick: () => actions.pick({ player: name }),
        },
        swatch(colourOf(table, name)),
        name,
      ),
    ),
  );
  const offered = weights(table);
  const typed = !offered.includes(picks.weight);
  $("weights").dataset.count = offered.length;
  patch(
    $("weights"),
    offered.map((w) =>
      h(
        "button",
        {
          type: "button",
          key: w,
          class: "choice weight",
          "aria-pressed": String(w === picks.weight),
          "aria-label": `weight ${w}`,
          dataset: { weight: w },
          onclick: () => actions.pick({ weight: w }),
        },
        String(w),
      ),
    ),
    // Any other weight, typed in: a stake of 8, or 500.
    h("input", {
      key: "typed",
      id: "weight-typed",
      class: "choice typed",
      type: "text",
      inputmode: "numeric",
      pattern: "[0-9]*",
      enterkeyhint: "done",
      autocomplete: "off",
      placeholder: "…",
      "aria-label": "another weight, typed in",
      dataset: { picked: typed },
      title: "another weight",
      oninput: (e) => {
        const w = weightOf(e.target.value);
        if (w) actions.pick({ weight: w });
      },
    }),
  );
  // The typed weight shows while it is the pick, and clears once a button is picked.
  const field = $("weight-typed");
  if (document.activeElement !== field) field.value = typed ? String(picks.weight) : "";
  $("copper").setAttribute("aria-pressed", String(picks.copper));
  $("take-off").setAttribute("aria-pressed", String(picks.takeOff));
  $("combine").hidden = !(table.options || {}).combinations;
  $("combine").setAttribute("aria-pressed", String(picks.combine));
  $("hint").textContent = hint(table, picks);
  $("felt").classList.toggle("taking-off", picks.takeOff);
}

/** What a tap on the felt will do, with the picks as they are; what the moment allows. */
function hint(table, picks) {
  const pack = table.pack;
  if (pack.complete) return "No bets until a new pack. Next: start it, pass the bank, or close the night.";
  if (table.entries === "locked") return "Entries are locked until the winner: no bets, no calls.";
  if (table.entries === "closed") {
    return pack.stage === "final" ? "Entries are closed: the hock is to come." : "Entries are closed until the winner is out.";
  }
  const who = picks.player || "the player";
  const how = picks.copper ? "coppered, to lose" : "to win";
  if (picks.combine) {
    const what = picks.takeOff ? ` to take ${who}'s off them` : `: ${who} puts ${picks.weight} on them ${how}`;
    return picks.first === null
      ? `Combine: tap a card, then a neighbour (diagonally: a corner of four)${what}.`
      : `With the ${picks.first}: tap a lit neighbour${what}. The ${picks.first} again lets go.`;
  }
  if (picks.takeOff) return `Taking off: tap a check to take it off, or a card to take ${who}'s off it.`;
  if (pack.stage === "last-three") return `Call the turn under the controls, or tap a card: ${who} puts ${picks.weight} on it ${how}.`;
  return `Tap a card: ${who} puts ${picks.weight} on it ${how}. Take off, then tap a check, to remove it.`;
}

export function wire(actions) {
  $("combine").addEventListener("click", () => actions.pick((p) => ({ combine: !p.combine, first: null })));
  $("copper").addEventListener("click", () => actions.pick((p) => ({ copper: !p.copper, takeOff: false })));
  $("take-off").addEventListener("click", () => actions.pick((p) => ({ takeOff: !p.takeOff })));
}
