// A pack in a few numbers, from /api/history: what the odds panel shows once no pair is left.

/**
 * Pack ``number``'s pairs, splits, calls and each participant's result, the banker's included.
 *
 * Every settlement moves money between a player and the bank, so the bank's result is
 * what the players lost less what they won.
 */
export function packSummary(history, number) {
  const pack = history.packs.find((p) => p.number === number) || { banker: null, calls: [] };
  const pairs = history.pairs.filter((p) => p.pack === number);
  const results = new Map();
  let bank = 0;
  const add = (x) => {
    results.set(x.player, (results.get(x.player) || 0) + x.delta);
    bank -= x.delta;
  };
  for (const pair of pairs) pair.settlements.forEach(add);
  pack.calls.forEach(add);
  return {
    number,
    banker: pack.banker,
    bank,
    pairs: pairs.length,
    splits: pairs.filter((p) => p.split).length,
    settled: pairs.reduce((n, p) => n + p.settlements.length, 0),
    calls: pack.calls.length,
    results: [...results].map(([player, delta]) => ({ player, delta })),
  };
}
