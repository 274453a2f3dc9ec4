// The entry on its way to the table: one at a time, each under a key of its own.
//
// A table that hangs keeps its connections open and answers nothing; a tap then looks lost,
// and a second tap would be a second bet once the table wakes. So an entry unanswered for
// a few seconds shows as pending, every other tap is refused until it is answered, and an
// entry that got no answer at all is sent again only when the lookout asks, under the same
// key (Idempotency-Key): the table enters it once, however many times it reached it.

import { $ } from "./dom.js";
import { newKey, post } from "./api.js";
import { store, subscribe } from "./store.js";

/** An entry unanswered this long (ms) shows as pending. */
export const PENDING_AFTER = 2000;
/** An entry unanswered this long (ms) is waited for no more: the lookout sends it again or forgets it. */
export const GIVE_UP_AFTER = 15000;

/** {event, words, key, state: sending | pending | unanswered, done, abort}, or null. */
let entry = null;

/** The entry waiting for the table's answer, in a few words, or null. */
export const waiting = () => (entry ? entry.words : null);

/**
 * Sends ``event`` (``words`` say it) under a new key; resolves the table's answer once one
 * comes (sent again, if need be, when the lookout asks), or null if the lookout forgets it.
 */
export function send(event, words) {
  return new Promise((done) => {
    entry = { event, words, key: newKey(), state: "sending", done, abort: null };
    attempt(entry, "sending");
  });
}

/** Sends the entry (again: the lookout asked, and it shows as pending at once). */
async function attempt(sent, state = "pending") {
  const giving = new AbortController();
  sent.abort = () => giving.abort();
  shown(sent, state);
  const slow = setTimeout(() => shown(sent, "pending"), PENDING_AFTER);
  const late = setTimeout(() => giving.abort(), GIVE_UP_AFTER);
  const answer = await post(sent.event, sent.key, giving.signal);
  clearTimeout(slow);
  clearTimeout(late);
  if (entry !== sent) return; // forgotten meanwhile
  if (answer.unanswered) shown(sent, "unanswered");
  else end(answer);
}

function shown(sent, state) {
  if (entry !== sent) return;
  sent.state = state;
  draw();
}

function end(answer) {
  const { done } = entry;
  entry = null;
  draw();
  done(answer);
}

function draw() {
  const box = $("pending");
  document.body.dataset.pending = entry ? entry.state : "";
  box.hidden = !entry || entry.state === "sending";
  if (box.hidden) return;
  const unanswered = entry.state === "unanswered";
  $("pending-text").textContent = unanswered
    ? `No answer from the table to ${entry.words}. Look at the felt: send it again (the table enters it once, even if it had it), or forget it.`
    : `Waiting for the table: ${entry.words}. Not entered until it answers; nothing else is sent meanwhile.`;
  $("pending-again").hidden = !unanswered;
  $("pending-again").disabled = store.link !== "live";
  $("pending-forget").hidden = !unanswered;
}

export function wire() {
  $("pending-again").addEventListener("click", () => entry && entry.state === "unanswered" && attempt(entry));
  $("pending-forget").addEventListener("click", () => entry && (entry.abort(), end(null)));
  subscribe(draw);
}
