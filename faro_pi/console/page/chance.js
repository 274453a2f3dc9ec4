// A chance as the lookout asked to see it: an exact fraction, or a percentage.

export function formatChance(percent, chance, fraction) {
  if (percent) {
    const pct = chance * 100;
    return pct === 0 ? "0%" : pct < 0.1 ? "<0.1%" : `${pct.toFixed(1)}%`;
  }
  return fraction === "0/1" ? "0" : fraction === "1/1" ? "1" : fraction;
}
