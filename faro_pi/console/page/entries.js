// Entries from the page: posted, their state taken, and each one offered back for a few
// seconds (its undo), a slip of a double tap asked about rather than entered twice.

import { $ } from "./dom.js";
import { send, waiting } from "./pending.js";
import { store, subscribe, take } from "./store.js";
import { toast } from "./toast.js";
import { ask as askToken } from "./token-form.js";
import { ask as askAgain } from "./dialogs/again.js";
import { AGAIN_WITHIN, UNDO_FOR, inverse, said, same } from "./undo.js";

/** What a tap meets while the event stream is down: the table may be gone, so nothing goes. */
export const OFFLINE = "Offline: the table cannot be reached, so nothing was entered. Wait until the page says live.";

/** An entry in a few words, for the notice of one the table has not answered. */
function named(event) {
  if (["bet", "call", "remove"].includes(event.type)) return said(event);
  const what = event.type === "shuffle" ? "new pack" : event.type;
  return event.player || event.card ? `${what}: ${event.player || event.card}` : what;
}

/** Refuses a tap while an entry waits for the table's answer (else says why not); true if refused. */
function held() {
  if (waiting() === null) return false;
  toast(`Still waiting for the table's answer to ${waiting()}: nothing else is sent until it comes.`, "pending");
  return true;
}

/** Posts ``event``; answers the table's answer if it was taken, else null (having said why). */
export async function post(event) {
  if (store.link !== "live") {
    toast(OFFLINE, "offline");
    return null;
  }
  if (held()) return null;
  const answer = await send(event, named(event));
  if (answer === null) return null; // forgotten by the lookout, unanswered
  if (answer.token) {
    askToken(answer.token);
    return null;
  }
  if (answer.refused) {
    toast(answer.refused, answer.rule);
    return null;
  }
  take(answer.state);
  return answer;
}

let offered = null;
let offeredIn = null; // the pack the offer was made in
let offerTimer = null;
let lastTap = { event: null, at: 0 };

/**
 * Posts an entry; once the table takes it, offers its undo for a few seconds in ``slot``.
 * Answers the table's answer if it was taken, else null.
 */
export async function enter(event, slot = "felt-note") {
  const before = store.table;
  const body = await post(event);
  if (body) offerUndo(event, inverse(event, before), slot);
  return body;
}

function offerUndo(event, events, slot) {
  const offer = $("undo-offer");
  offered = events;
  offeredIn = store.table.pack.number;
  $("undo-text").textContent = said(event);
  $(slot).append(offer);
  offer.hidden = false;
  $("hint").hidden = slot === "felt-note";
  clearTimeout(offerTimer);
  offerTimer = setTimeout(dropOffer, UNDO_FOR);
}

function dropOffer() {
  clearTimeout(offerTimer);
  offered = null;
  $("undo-offer").hidden = true;
  $("hint").hidden = false;
}

async function takeBack() {
  const events = offered;
  dropOffer();
  lastTap = { event: null, at: 0 }; // entering it again after taking it back is no slip
  for (const event of events || []) {
    if (!(await post(event))) break;
  }
}

/**
 * A tap that enters ``event``; the same tap again at once is asked about, not doubled.
 * Answers the table's answer if it was taken, else null.
 */
export async function tapped(event, slot) {
  if (held()) return null;
  const at = Date.now();
  const twice = same(event, lastTap.event) && at - lastTap.at < AGAIN_WITHIN;
  lastTap = { event: twice ? null : event, at };
  if (!twice || (await askAgain(said(event)))) return enter(event, slot);
  return null;
}

/** The offer ends with its pack: at the hock every bet is settled and nothing is taken back. */
function outlived(table) {
  if (offered && table && (table.pack.complete || table.pack.number !== offeredIn)) dropOffer();
}

export function wire() {
  $("undo-entry").addEventListener("click", takeBack);
  subscribe(() => outlived(store.table));
}
