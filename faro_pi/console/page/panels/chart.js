// The balances pair by pair, as lines, sized to the panel (drawn again when it resizes).
// Drawn only when the history, the participants or the width change: a new card alone
// changes none of them, and the chart is the page's costliest part.

import { $, patch } from "../dom.js";
import { colourOf } from "../cards.js";
import { chart } from "../chart.js";
import { openNight } from "../night.js";

let width = 0;
let drawn = { history: null, key: null };

export function render({ table, history }) {
  // Everyone with a result tonight, those who left too; their colours by the order they sat.
  const names = openNight(table).map((r) => r.player);
  const key = `${width}|${names.join("\n")}|${Object.keys(table.balances).join("\n")}`;
  if (history === drawn.history && key === drawn.key) return;
  drawn = { history, key };
  patch($("chart"), chart(history, names, (name) => colourOf(table, name), width));
}

export function wire(actions) {
  new ResizeObserver(() => {
    const w = $("chart").clientWidth;
    if (w !== width) {
      width = w;
      actions.redraw();
    }
  }).observe($("chart"));
}
