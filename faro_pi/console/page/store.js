// What the page holds of the table: its state from the event stream (GET /api/events, SSE),
// newer versions only, and the odds and history fetched when what they depend on changes.

/** For whoever watches the page: when each state arrived and was drawn (epoch ms). */
export const timings = (window.faro = { received: [], rendered: [] });
const now = () => performance.timeOrigin + performance.now();

/** Notes ``list``'s next entry, keeping the last 200. */
export function remember(list, entry) {
  list.push(entry);
  if (list.length > 200) list.shift();
}
/** When a state was drawn, for ``timings``. */
export const drawn = (version) => remember(timings.rendered, { version, at: now() });

/**
 * The page's state: ``table`` (the table as /api/state gives it), ``odds`` (with the key of
 * the cards it was for), ``history``, and ``link``, the event stream's: connecting, live, lost.
 */
export const store = { table: null, odds: null, history: null, link: "connecting" };

const listeners = [];
/** Calls ``listener(store)`` after each change. */
export const subscribe = (listener) => listeners.push(listener);
const changed = () => listeners.forEach((listener) => listener(store));

/** Takes a state of the table if it is newer than the one held (the version guard). */
export function take(next) {
  if (!next || (store.table && next.version <= store.table.version)) return false;
  store.table = next;
  changed();
  refresh("odds", cardsKey(next));
  refresh("history", pairsKey(next));
  return true;
}

/** Beats of the stream the page may miss before it takes the table for hung. */
export const MISSED = 3;

/**
 * Follows the event stream. It reconnects by itself after a drop; a table that hangs keeps
 * its connection open and sends nothing, not even its beat (every few seconds, the stream
 * says how many): after ``MISSED`` beats of silence the page says offline and opens a new one.
 */
export function listen() {
  let stream = null;
  let every = 2; // seconds between beats, until the stream says
  let silence = null;
  const heard = () => {
    clearTimeout(silence);
    silence = setTimeout(hung, MISSED * every * 1000);
  };
  const hung = () => {
    stream.close();
    linked("lost");
    open();
  };
  const open = () => {
    stream = new EventSource("/api/events");
    let reconnected = false;
    stream.addEventListener("state", (message) => {
      heard();
      const at = now();
      const next = JSON.parse(message.data);
      remember(timings.received, { version: next.version, at });
      // A stream's first state is the table as it is now, even if the table was reset.
      if (reconnected) store.table = null;
      reconnected = false;
      take(next);
    });
    stream.addEventListener("beat", (message) => {
      every = Number(message.data) || every;
      heard();
    });
    stream.addEventListener("open", () => {
      heard();
      reconnected = store.table !== null;
      linked("live");
    });
    stream.addEventListener("error", () => linked("lost"));
    heard();
  };
  open();
}

function linked(how) {
  store.link = how;
  changed();
}

/** What the odds depend on: the cards out. */
export const cardsKey = (table) =>
  `${table.pack.number}:${table.pack.exposed.length}:${table.pack.exposed.at(-1)}`;
/** What the history depends on: the pairs, the calls settled, the seats. */
export const pairsKey = (table) =>
  `${table.pack.number}:${table.pack.turn}:${table.call_results.length}:${table.seats.length}`;

const loaded = {
  odds: (body, key) => {
    store.odds = { ...body, key };
    changed();
    document.body.dataset.odds = key;
  },
  history: (body, key) => {
    store.history = body;
    changed();
    document.body.dataset.history = key;
  },
};
const fetching = { odds: null, history: null };
const wanted = { odds: null, history: null };

/** Fetches /api/odds or /api/history when what they depend on has changed; one at a time. */
async function refresh(what, key) {
  wanted[what] = key;
  if (fetching[what] !== null) return;
  while (wanted[what] !== fetching[what]) {
    const asked = (fetching[what] = wanted[what]);
    try {
      const answer = await fetch(`/api/${what}`);
      if (answer.ok) {
        const body = await answer.json();
        if (asked === wanted[what]) loaded[what](body, asked);
      }
    } catch (err) {
      // the event stream reconnects; the next state asks again
    }
  }
  fetching[what] = null;
}
