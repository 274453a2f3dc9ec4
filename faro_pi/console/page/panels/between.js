// Between packs: after the hock nothing can be bet, so the felt's player and weight pickers
// give way, in the same place, to what comes next: a new pack, the bank passed, the night
// closed. Passing the bank and closing the night come up from the balances for the while.

import { $ } from "../dom.js";

export function render({ table }) {
  const done = table.pack.complete && table.seats.length > 0;
  $("between").hidden = !done;
  $("bets").classList.toggle("done", done);
  if (done) $("between-title").textContent = `Pack ${table.pack.number} is complete: no more bets in it.`;
  // Two buttons, one home at a time: the felt's between packs, the balances' otherwise.
  const home = done ? $("between-row") : $("seat-controls");
  for (const id of ["pass-bank", "close-night"]) {
    if ($(id).parentElement !== home) home.append($(id));
  }
}
