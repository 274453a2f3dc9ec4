// The floor page: every table at a glance, live from /api/events. Read-only.
// Names come from the tables: they are only ever set as text, never as markup. Drawn with
// the console's renderer (its dom.js, served here too), so a redraw changes only what differs.

import { $, h as el, patch, s } from "./dom.js";

const COLOURS = ["#f0c75e", "#8fdc8f", "#7fb8ff", "#ff8a80", "#d7a6ff", "#6fe0d0", "#ffb36b", "#c9d86b"];

let last = null; // the latest pit, and when (by this clock) it arrived
let arrivedAt = 0;

function money(value) {
  const sign = value > 0 ? "+" : value < 0 ? "−" : "";
  return sign + Math.abs(value).toLocaleString("en");
}

function moneyCell(tag, value) {
  return el(tag, { class: "money", dataset: { sign: Math.sign(value) } }, money(value));
}

function duration(seconds) {
  const minutes = Math.floor(seconds / 60);
  if (minutes < 1) return "a moment";
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

function sinceText(table) {
  if (table.online === null) return "never heard from";
  const now = last.now + (performance.now() - arrivedAt) / 1000;
  const clock = new Date(table.since * 1000).toLocaleTimeString("en-GB", { hour: "2-digit", minute: "2-digit" });
  const state = table.online ? "online" : "offline";
  return `${state} since ${clock} (${duration(now - table.since)})`;
}

function integrityMark(findings) {
  if (findings === null || findings === undefined) return null; // the pack is not complete
  if (findings.length === 0) return el("span", { class: "fair", title: "fair by the deal-integrity report" }, " ✓");
  return el("span", { class: "flag", title: findings.join("\n") }, " ⚠");
}

function tableCard(table, colour) {
  const alarm = table.alarms.length > 0 || table.flagged.length > 0;
  const current = table.packs.length ? table.packs[table.packs.length - 1].result : 0;
  const head = el(
    "header",
    {},
    el("span", { class: "swatch", style: `background:${colour}` }),
    el("h2", {}, table.name),
    el("a", { href: table.console, target: "_blank", rel: "noopener", class: "console" }, "console ↗"),
  );
  const status = el("p", { class: "status" }, el("span", { class: "dot", "aria-hidden": "true" }, "●"), " ", sinceText(table));
  const deal = el(
    "p",
    { class: "deal" },
    `Pack ${table.pack} · turn ${table.turn} · ${table.cards}/52 out`,
    table.banker ? el("span", { class: "banker" }, ` · ${table.banker} banks`) : null,
  );
  const alarms = () =>
    el(
      "ul",
      { class: "alarms" },
      table.alarms.map((a) => el("li", {}, el("strong", {}, a.kind), " ", a.text)),
      table.flagged.map((f) => el("li", { dataset: { pack: f.pack } }, el("strong", {}, `pack ${f.pack}`), " ", f.findings.join("; "))),
    );
  const packs = () =>
    el(
      "ol",
      { class: "packs", "aria-label": "The bank per pack" },
      table.packs.map((p) =>
        el("li", { title: p.banker ? `${p.banker} banked` : "" }, `#${p.pack} `, moneyCell("span", p.result), integrityMark(p.integrity)),
      ),
    );
  return el(
    "article",
    { class: "table", key: table.name, dataset: { table: table.name, online: String(table.online), alarm: String(alarm) } },
    head,
    status,
    deal,
    alarm ? alarms() : null,
    el(
      "dl",
      { class: "bank" },
      el("dt", {}, "Bank, this pack"),
      moneyCell("dd", current),
      el("dt", {}, "Bank, the night"),
      moneyCell("dd", table.bank),
    ),
    table.packs.length > 1 || table.packs.some((p) => p.integrity !== null) ? packs() : null,
    el("p", { class: "rows muted" }, `${table.rows.toLocaleString("en")} journal rows copied`),
  );
}

function drawChart(tables, colours) {
  const series = tables.map((t) => [0, ...t.chart]);
  const longest = Math.max(2, ...series.map((s) => s.length));
  const values = series.flat();
  const top = Math.max(1, ...values);
  const bottom = Math.min(-1, ...values);
  const x = (i) => (i / (longest - 1)) * 600;
  const y = (v) => 210 - ((v - bottom) / (top - bottom)) * 200;
  patch(
    $("chart"),
    s("line", { x1: 0, x2: 600, y1: y(0), y2: y(0), class: "zero" }),
    series.map((points, i) =>
      s("polyline", {
        key: tables[i].name,
        points: points.map((v, j) => `${x(j).toFixed(1)},${y(v).toFixed(1)}`).join(" "),
        stroke: colours[i],
        class: "series",
        dataset: { table: tables[i].name },
      }),
    ),
  );
  patch(
    $("legend"),
    tables.map((t, i) =>
      el("li", { key: t.name }, el("span", { class: "swatch", style: `background:${colours[i]}` }), `${t.name} `, moneyCell("span", t.bank)),
    ),
  );
}

function drawPlayers(players) {
  $("no-players").hidden = players.length > 0;
  patch(
    $("players"),
    players.map((p) =>
      el(
        "tr",
        { key: p.name, dataset: { player: p.name } },
        el("th", { scope: "row" }, p.name),
        moneyCell("td", p.result),
        el("td", { class: "where" }, p.tables.map((t) => `${t.table} ${money(t.result)}`).join(" · ")),
      ),
    ),
  );
}

function render(pit, fresh = true) {
  if (fresh) {
    last = pit;
    arrivedAt = performance.now();
  }
  const colours = pit.tables.map((_, i) => COLOURS[i % COLOURS.length]);
  patch($("tables"), pit.tables.map((t, i) => tableCard(t, colours[i])));
  drawChart(pit.tables, colours);
  drawPlayers(pit.players);
  const online = pit.tables.filter((t) => t.online).length;
  const alarms = pit.alarms ? ` · ${pit.alarms} with an alarm` : "";
  $("summary").textContent = `${online} of ${pit.tables.length} tables online${alarms}`;
  $("summary").dataset.alarm = String(pit.alarms > 0);
  patch($("bank-total"), "· the bank ", moneyCell("span", pit.bank));
  document.body.dataset.version = String(pit.version);
}

function linked(state, text) {
  $("link").dataset.link = state;
  $("link-text").textContent = text;
}

async function start() {
  const answer = await fetch("/api/pit", { cache: "no-store" });
  if (answer.status === 401) {
    $("signin").hidden = false;
    $("summary").textContent = "the floor's token is needed";
    return;
  }
  $("floor").hidden = false;
  render(await answer.json());
  const events = new EventSource("/api/events");
  events.addEventListener("pit", (message) => {
    render(JSON.parse(message.data));
    linked("live", "live");
  });
  events.addEventListener("open", () => linked("live", "live"));
  events.addEventListener("error", () => linked("lost", "reconnecting"));
  setInterval(() => last && render(last, false), 30_000); // the "since" times move on
}

start().catch((error) => {
  linked("lost", "cannot reach the floor");
  console.error(error);
});
