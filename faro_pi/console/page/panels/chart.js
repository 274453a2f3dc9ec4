// The balances pair by pair, as lines, sized to the panel (drawn again when it resizes).

import { $, patch } from "../dom.js";
import { colourOf } from "../cards.js";
import { chart } from "../chart.js";
import { openNight } from "../night.js";

export function render({ table, history }) {
  const box = $("chart");
  // Everyone with a result tonight, those who left too.
  const names = openNight(table).map((r) => r.player);
  patch(box, chart(history, names, (name) => colourOf(table, name), box.clientWidth));
}

export function wire(actions) {
  let width = 0;
  new ResizeObserver(() => {
    const w = $("chart").clientWidth;
    if (w !== width) {
      width = w;
      actions.redraw();
    }
  }).observe($("chart"));
}
