// The places a combination may sit (house rules), from the felt the table sends, and the
// gesture that names one: a card, then its neighbour (beside, above or below: those two;
// diagonally: the corner of four). A card's whole face is a target of its own this way;
// a place between cards would be a sliver of a thumb's width.

import { byRankOrder } from "./cards.js";

/** The places between cards: two neighbours across, down or to the 7, and each corner. */
export function combinations(felt) {
  const pair = (a, b) => ({ ranks: [a, b].sort(byRankOrder) });
  const places = [];
  for (const row of [felt.upper, felt.lower]) {
    row.slice(0, -1).forEach((r, i) => places.push(pair(r, row[i + 1])));
  }
  felt.lower.forEach((r, i) => places.push(pair(r, felt.upper[i])));
  places.push(pair(felt.upper.at(-1), felt.seven), pair(felt.lower.at(-1), felt.seven));
  // A corner names its lower pair, then its upper pair, left to right: A-2-K-Q.
  felt.lower.slice(0, -1).forEach((r, i) =>
    places.push({ ranks: [r, felt.lower[i + 1], felt.upper[i], felt.upper[i + 1]] }),
  );
  return places;
}

/** The combination ``first`` then ``second`` name: the two, else the corner; null if none. */
export function combination(felt, first, second) {
  const places = combinations(felt);
  const has = (p, r) => p.ranks.includes(r);
  const two = places.find((p) => p.ranks.length === 2 && has(p, first) && has(p, second));
  return two || places.find((p) => p.ranks.length === 4 && has(p, first) && has(p, second)) || null;
}

/** The ranks that make a combination with ``rank``: its neighbours and diagonals. */
export function partners(felt, rank) {
  const near = combinations(felt).filter((p) => p.ranks.includes(rank)).flatMap((p) => p.ranks);
  return new Set(near.filter((r) => r !== rank));
}
