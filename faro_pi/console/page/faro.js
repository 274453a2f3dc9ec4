// The lookout's console: the table's state from /api/events, entries posted to /api/events.
//
// The store holds what the table said; each panel draws its part of the page from it with
// render(state, actions), state being {table, odds, history, link, picks} and actions what
// a panel may do. After any change every panel draws again, and patch() touches only what
// differs, so the element under the lookout's finger or focus stays the same element.

import { token } from "./api.js";
import * as entries from "./entries.js";
import { fit, pick, picks } from "./picks.js";
import { cardsKey, drawn, listen, pairsKey, store, subscribe } from "./store.js";
import { toast } from "./toast.js";
import * as tokenForm from "./token-form.js";
import * as again from "./dialogs/again.js";
import * as cardDialog from "./dialogs/card.js";
import * as checks from "./dialogs/checks.js";
import * as seats from "./dialogs/seats.js";
import * as voidDialog from "./dialogs/void.js";
import * as alarms from "./panels/alarms.js";
import * as balances from "./panels/balances.js";
import * as call from "./panels/call.js";
import * as caseKeeper from "./panels/case-keeper.js";
import * as chart from "./panels/chart.js";
import * as controls from "./panels/controls.js";
import * as header from "./panels/header.js";
import * as lastNight from "./panels/last-night.js";
import * as layout from "./panels/layout.js";
import * as odds from "./panels/odds.js";
import * as packSummary from "./panels/pack-summary.js";
import * as paid from "./panels/paid.js";
import * as pairNow from "./panels/pair-now.js";
import * as pickers from "./panels/pickers.js";
import * as piles from "./panels/piles.js";
import * as rules from "./panels/rules.js";
import * as seating from "./panels/seating.js";
import * as settlements from "./panels/settlements.js";

/** In the page's order, the dialogs that follow the table last. */
const PARTS = [
  header, alarms, lastNight, seating, pairNow, layout, paid, rules, pickers, call, controls,
  piles, settlements, caseKeeper, balances, chart, odds, packSummary, checks, cardDialog,
];

const actions = {
  picks,
  post: entries.post,
  enter: entries.enter,
  tapped: entries.tapped,
  toast,
  redraw,
  pick(changes) {
    pick(changes);
    redraw();
  },
  listChecks: (place) => checks.open(place, actions),
  enterCard: () => cardDialog.open(actions),
  voidLast: () => voidDialog.open(store.table),
  join: seats.join,
  leave: () => seats.leave(store.table, actions),
  closeNight: () => seats.closeNight(store.table),
};

let lastDrawn = null;

function redraw() {
  const table = store.table;
  if (!table) {
    header.render({ ...store, picks }, actions);
    return;
  }
  fit(table);
  const state = { ...store, picks };
  for (const part of PARTS) part.render(state, actions);
  document.body.dataset.version = table.version;
  document.body.dataset.cards = cardsKey(table);
  document.body.dataset.pairs = pairsKey(table);
  if (table.version !== lastDrawn) drawn(table.version);
  lastDrawn = table.version;
}

for (const part of [tokenForm, entries, again, ...PARTS, seats, voidDialog]) {
  if (part.wire) part.wire(actions);
}
subscribe(redraw);
if (!token()) tokenForm.ask("");
listen();
