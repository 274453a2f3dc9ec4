// The lookout's console: the table's state from /api/events, entries posted to /api/events.
//
// store.js holds what the table said (the event stream, newer versions only, the odds and
// the history); api.js posts entries with the token (or the session cookie), pending.js
// one at a time, each under its own key; entries.js offers each one back; picks.js keeps the
// lookout's picks. Each module of panels/ and
// dialogs/ draws its part of the page with render(state, actions), state being {table, odds, history, link, picks},
// and may wire(actions) its fixed controls once. After any change every part draws again
// with dom.js's patch(), which touches only what differs: the element under the lookout's
// finger or focus stays the same element.

import { authorised } from "./api.js";
import * as entries from "./entries.js";
import * as pending from "./pending.js";
import { fit, pick, picks } from "./picks.js";
import * as pictures from "./pictures.js";
import { cardsKey, drawn, listen, pairsKey, store, subscribe } from "./store.js";
import { toast } from "./toast.js";
import * as tokenForm from "./token-form.js";
import * as again from "./dialogs/again.js";
import * as cameraView from "./dialogs/camera.js";
import * as teachDeck from "./dialogs/teach.js";
import * as cardDialog from "./dialogs/card.js";
import * as checks from "./dialogs/checks.js";
import * as phones from "./dialogs/phones.js";
import * as seats from "./dialogs/seats.js";
import * as voidDialog from "./dialogs/void.js";
import * as alarms from "./panels/alarms.js";
import * as balances from "./panels/balances.js";
import * as between from "./panels/between.js";
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
  header, alarms, lastNight, seating, pairNow, layout, paid, rules, pickers, between, call,
  controls, piles, settlements, caseKeeper, balances, chart, odds, packSummary, checks, cardDialog,
  pictures,
];

/** What a part of the page may do: enter, ask, pick, draw again. */
const actions = {
  post: entries.post,
  enter: entries.enter,
  tapped: entries.tapped,
  toast,
  redraw,
  /** Changes the picks (given, or made from the picks as they are) and draws them. */
  pick(changes) {
    pick(typeof changes === "function" ? changes(picks) : changes);
    redraw();
  },
  listChecks: (place) => checks.open(place, actions),
  enterCard: () => cardDialog.open(actions),
  voidLast: () => voidDialog.open(store.table),
  join: seats.join,
  leave: () => seats.leave(store.table, actions),
  passBank: () => seats.passBank(store.table, actions),
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

for (const part of [tokenForm, entries, pending, again, ...PARTS, seats, voidDialog, cameraView, teachDeck, phones]) {
  if (part.wire) part.wire(actions);
}
subscribe(redraw);
authorised().then((yes) => yes || tokenForm.ask(""));
listen();
