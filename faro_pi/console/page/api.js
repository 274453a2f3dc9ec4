// Entries to the table (POST /api/events), with the console's token kept in the browser, or
// without one where the browser holds the console's session cookie (a pairing link gave it).

const TOKEN_KEY = "faro-pi.token";

export const token = () => localStorage.getItem(TOKEN_KEY);
export const keepToken = (value) => localStorage.setItem(TOKEN_KEY, value);
export const forgetToken = () => localStorage.removeItem(TOKEN_KEY);

const send = (body, more = {}, signal = undefined) => {
  const headers = { "Content-Type": "application/json", ...more };
  if (token()) headers.Authorization = `Bearer ${token()}`;
  return fetch("/api/events", { method: "POST", headers, body, signal });
};

/** A new idempotency key: 128 random bits (crypto.randomUUID needs HTTPS, the table has none). */
export const newKey = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, "0")).join("");

/**
 * Whether this browser may make changes: a token kept, or the session cookie. Asked with an
 * empty entry, which the table refuses as unauthorised (401) or as no event (400): nothing
 * is entered either way.
 */
export async function authorised() {
  if (token()) return true;
  try {
    return (await send("")).status !== 401;
  } catch (err) {
    return true; // the table is not there: the stream says so; a tap asks again
  }
}

/**
 * Posts one event under ``key`` (sent again, the same key: the table enters it once);
 * answers what came of it, one of:
 * ``{state, event}`` taken; ``{refused, rule}`` refused, with the message and the rule's code;
 * ``{token}`` not authorised (a wrong token is forgotten), with what to tell the lookout;
 * ``{unanswered}`` no answer came (cut off, or ``signal`` gave up): it may have been entered.
 */
export async function post(event, key, signal) {
  let answer;
  try {
    answer = await send(JSON.stringify(event), { "Idempotency-Key": key }, signal);
  } catch (err) {
    return { unanswered: err.name === "AbortError" ? "no answer in time" : err.message };
  }
  let body = {};
  try {
    body = await answer.json();
  } catch (err) {
    body = { error: `the table answered ${answer.status}` };
  }
  if (answer.ok) return body;
  if (answer.status === 401) {
    if (!token()) return { token: "Enter the console's token to make changes." };
    localStorage.removeItem(TOKEN_KEY);
    return { token: "The table refused that token: enter the right one." };
  }
  return { refused: body.error || `refused (${answer.status})`, rule: body.rule };
}
