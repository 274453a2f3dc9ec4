// The balances pair by pair, as lines: one participant a line, in their colour.

import { s } from "./dom.js";
import { signed } from "./cards.js";

/** Each participant's balance after every pair (and each hock with calls), from the history. */
function series(history, names) {
  const balance = Object.fromEntries(names.map((n) => [n, 0]));
  const points = [{ label: "start", pack: 1, values: { ...balance } }];
  const bankerOf = Object.fromEntries(history.packs.map((p) => [p.number, p.banker]));
  const step = (moves, banker, label, pack) => {
    for (const m of moves) {
      if (m.player in balance) balance[m.player] += m.delta;
      if (banker in balance) balance[banker] -= m.delta;
    }
    points.push({ label, pack, values: { ...balance } });
  };
  for (const pair of history.pairs) {
    step(pair.settlements, bankerOf[pair.pack], `pack ${pair.pack} turn ${pair.turn}`, pair.pack);
    const pack = history.packs.find((p) => p.number === pair.pack);
    if (pair.turn === 25 && pack && pack.calls.length) {
      step(pack.calls, bankerOf[pair.pack], `pack ${pair.pack} hock`, pair.pack);
    }
  }
  return points;
}

/** The chart of ``names`` (a line each, in ``colourOf`` its name), ``across`` px wide or so. */
export function chart(history, names, colourOf, across) {
  if (!history || !names.length) return null;
  const points = series(history, names);
  const width = Math.max(260, Math.round(across || 320));
  const height = Math.round(Math.min(220, Math.max(150, width * 0.42)));
  const pad = { left: 38, right: 12, top: 12, bottom: 24 };
  const all = points.flatMap((p) => Object.values(p.values));
  let lo = Math.min(0, ...all);
  let hi = Math.max(0, ...all);
  if (hi - lo < 4) {
    hi += 2;
    lo -= 2;
  }
  const tick = niceStep((hi - lo) / 4);
  lo = Math.floor(lo / tick) * tick;
  hi = Math.ceil(hi / tick) * tick;
  const n = Math.max(points.length - 1, 1);
  const x = (i) => pad.left + ((width - pad.left - pad.right) * i) / n;
  const y = (v) => pad.top + ((height - pad.top - pad.bottom) * (hi - v)) / (hi - lo);
  const grid = [];
  for (let v = lo; v <= hi + 1e-9; v += tick) {
    grid.push(
      s("line", { x1: pad.left, x2: width - pad.right, y1: y(v), y2: y(v), class: v === 0 ? "zero" : "grid" }),
      s("text", { x: pad.left - 6, y: y(v) + 4, class: "axis", "text-anchor": "end" }, signed(v)),
    );
  }
  const packStarts = [];
  points.forEach((p, i) => {
    if (i > 0 && p.pack !== points[i - 1].pack && i > 1) packStarts.push(i - 0.5);
  });
  for (const at of packStarts) {
    grid.push(s("line", { x1: x(at), x2: x(at), y1: pad.top, y2: height - pad.bottom, class: "pack" }));
  }
  grid.push(
    s("text", { x: pad.left, y: height - 6, class: "axis" }, "start"),
    s("text", { x: width - pad.right, y: height - 6, class: "axis", "text-anchor": "end" },
      `${points.length - 1} pair${points.length === 2 ? "" : "s"}`),
  );
  const lines = names.map((name) => {
    const coords = points.map((p, i) => `${x(i).toFixed(1)},${y(p.values[name]).toFixed(1)}`);
    const last = points[points.length - 1].values[name];
    return s(
      "g",
      { class: "series", "data-player": name, "data-final": last, "data-points": points.length },
      s("polyline", { points: coords.join(" "), stroke: colourOf(name) }),
      s("circle", { cx: x(points.length - 1), cy: y(last), r: 4, fill: colourOf(name) }),
    );
  });
  const summary = names
    .map((name) => `${name} ${signed(points[points.length - 1].values[name])}`)
    .join(", ");
  return s(
      "svg",
      {
        width,
        height,
        viewBox: `0 0 ${width} ${height}`,
        role: "img",
        "aria-label": `Balances pair by pair over ${points.length - 1} pairs; now ${summary}`,
      },
      ...grid,
      ...lines,
    );
}

function niceStep(raw) {
  const power = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 5, 10]) if (m * power >= raw) return m * power;
  return 10 * power;
}
