// The lookout's picks: who bets, for how much, coppered or not, and how chances show.
// Kept in the browser across reloads, all but copper, combine and "take off", which are for the
// moment only: copper plays one bet to lose and goes off once it is placed, or at a new pack;
// so does Combine.

const PICKS_KEY = "faro-pi.picks";
const KEPT = ["player", "weight", "percent"];

export const picks = {
  player: null,
  weight: 2,
  copper: false,
  takeOff: false,
  percent: false,
  /** Combine: a card, then its neighbour, names a combination (house rules); ``first`` the card. */
  combine: false,
  first: null,
  pack: null,
};
try {
  const kept = JSON.parse(localStorage.getItem(PICKS_KEY) || "{}");
  for (const key of KEPT) if (key in kept) picks[key] = kept[key];
} catch (err) {
  localStorage.removeItem(PICKS_KEY);
}

/** Changes some picks and keeps them. */
export function pick(changes) {
  Object.assign(picks, changes);
  const kept = Object.fromEntries(KEPT.map((key) => [key, picks[key]]));
  localStorage.setItem(PICKS_KEY, JSON.stringify(kept));
}

/** The seated who bet: all but the banker. */
export const players = (table) => table.seats.filter((name) => name !== table.banker);

// The weights offered at a tap: even ones for the teaching rules, the house's checks when it
// allows odd weights; any other is typed in. One row of them on a phone.
const EVEN_WEIGHTS = [2, 4, 6, 10, 20, 50, 100];
const ANY_WEIGHTS = [1, 2, 5, 10, 25, 50, 100];
export const weights = (table) => ((table.options || {}).even_weights === false ? ANY_WEIGHTS : EVEN_WEIGHTS);

/** A weight as typed: a positive whole number, else null. */
export const weightOf = (text) => (/^[0-9]{1,15}$/.test(String(text).trim()) && Number(text) > 0 ? Number(text) : null);

/** Keeps the picks to what the table allows: a player seated, a weight; no copper
 * carried into a new pack. */
export function fit(table) {
  if (picks.pack !== table.pack.number) Object.assign(picks, { copper: false, first: null, pack: table.pack.number });
  if (!(table.options || {}).combinations) Object.assign(picks, { combine: false, first: null });
  const seated = players(table);
  if (!seated.includes(picks.player)) picks.player = seated[0] || null;
  // A weight typed in stands as typed (the rules say if the table takes it).
  if (!weightOf(picks.weight)) picks.weight = weights(table)[0] === 1 ? 2 : weights(table)[0];
}
