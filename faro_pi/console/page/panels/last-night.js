// Between nights: the night closed last, as a table and a CSV file.

import { $, patch } from "../dom.js";
import { download, nightCsv, nightTable } from "../night.js";

let shown = null;

export function render({ table }) {
  const night = table.last_night;
  shown = night;
  $("night").hidden = table.seats.length > 0 || !night;
  if (!night) return;
  $("night-title").textContent = `Night ${night.number}: the results`;
  patch($("night-table"), nightTable(night.results));
}

export function wire() {
  $("night-csv").addEventListener("click", () => {
    if (shown) download(`faro-night-${shown.number}.csv`, nightCsv(shown.number, shown.results));
  });
}
