// Undo at hand: the entries that take back an entry, read against the table it was made on.
//
// The rules engine takes off all of a player's bets on a place (in one direction, with
// copper); so taking back one bet also takes off the others there, and places them again.

import { placeFields, placeKey, placeName } from "./cards.js";

/** How long an entry can be taken back with one tap (ms). */
export const UNDO_FOR = 5000;
/** A second tap on the same place within this (ms) is asked about, not entered twice. */
export const AGAIN_WITHIN = 500;

const betOf = (p) => ({
  type: "bet",
  player: p.player,
  ...placeFields(p),
  weight: p.weight,
  copper: p.copper,
});

const callOf = (c) => ({
  type: "call",
  player: c.player,
  weight: c.weight,
  ...(c.order ? { order: c.order } : { colours: c.colours }),
});

/** The entries that undo ``event`` (a bet, a remove or a call), given the state before it. */
export function inverse(event, before) {
  const here = (p) => p.player === event.player && placeKey(p) === placeKey(event);
  const theirCalls = before.calls.filter((c) => c.player === event.player);
  if (event.type === "bet") {
    const others = before.predictions.filter((p) => here(p) && p.copper === event.copper);
    const remove = { type: "remove", player: event.player, ...placeFields(event), copper: event.copper };
    return [remove, ...others.map(betOf)];
  }
  if (event.type === "call") {
    return [{ type: "remove", player: event.player, call: true }, ...theirCalls.map(callOf)];
  }
  if (event.type === "remove" && event.call) return theirCalls.map(callOf);
  if (event.type === "remove") {
    const direction = (p) => event.copper === undefined || p.copper === event.copper;
    return before.predictions.filter((p) => here(p) && direction(p)).map(betOf);
  }
  return [];
}

const where = (event) => (event.high_card ? "the high card" : placeName(event));

/** What an entry did, in a few words, for its undo. */
export function said(event) {
  const named = event.order || event.colours;
  if (event.type === "bet") {
    return `${event.player} ${event.weight} on ${where(event)}${event.copper ? ", coppered" : ""}`;
  }
  if (event.type === "call") return `${event.player} calls ${named.join(" · ")} for ${event.weight}`;
  if (event.call) return `${event.player}'s calls taken back`;
  const copper = event.copper === undefined ? "" : event.copper ? " coppered" : " ordinary";
  return `${event.player}'s${copper} bets taken off ${where(event)}`;
}

/** Whether two entries are the same tap: the same event on the same place. */
export const same = (a, b) => a !== null && b !== null && JSON.stringify(a) === JSON.stringify(b);
