// Entering a card by hand, for one the reader missed: a rank, then a suit; cards out are greyed.
// While a no-read from the camera stands, the card names its still: it settles that no-read.

import { $, h, patch } from "../dom.js";
import { RANKS, SUITS, SUIT_NAME, SUIT_SYMBOL, cardText } from "../cards.js";
import { store } from "../store.js";

let chosen = { rank: null, suit: null };

export function open(actions) {
  chosen = { rank: null, suit: null };
  $("card-dialog").showModal();
  actions.redraw();
}

export function render({ table }, actions) {
  if (!$("card-dialog").open) return;
  const out = new Set(table.pack.exposed);
  const counts = Object.fromEntries(table.case.map((c) => [c.rank, c.count]));
  const choose = (change) => {
    Object.assign(chosen, change);
    actions.redraw();
  };
  patch(
    $("card-ranks"),
    RANKS.map((r) =>
      h(
        "button",
        {
          type: "button",
          key: r,
          class: "choice",
          "aria-pressed": String(r === chosen.rank),
          disabled: counts[r] === 0,
          dataset: { rank: r },
          onclick: () => choose({ rank: r, suit: chosen.suit && out.has(r + chosen.suit) ? null : chosen.suit }),
        },
        r,
      ),
    ),
  );
  patch(
    $("card-suits"),
    SUITS.map((suit) =>
      h(
        "button",
        {
          type: "button",
          key: suit,
          class: `choice suit ${"HD".includes(suit) ? "red-suit" : ""}`,
          "aria-pressed": String(suit === chosen.suit),
          "aria-label": SUIT_NAME[suit],
          disabled: chosen.rank !== null && out.has(chosen.rank + suit),
          dataset: { suit },
          onclick: () => choose({ suit }),
        },
        SUIT_SYMBOL[suit],
      ),
    ),
  );
  const ready = chosen.rank && chosen.suit;
  $("card-confirm").disabled = !ready;
  $("card-confirm").textContent = ready ? `Enter ${cardText(chosen.rank + chosen.suit)}` : "Enter";
}

export function wire(actions) {
  const dialog = $("card-dialog");
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "enter" && chosen.rank && chosen.suit) {
      // A card entered while the camera's no-read stands settles it: it names its still.
      const noread = store.table && store.table.alarms.find((a) => a.kind === "noread" && a.picture);
      const still = noread && !store.table.pack.complete ? { picture: noread.picture } : {};
      actions.post({ type: "card", card: chosen.rank + chosen.suit, ...still });
    }
  });
}
