// Entries to the table (POST /api/events) and the console's token they need, kept in the browser.

const TOKEN_KEY = "faro-pi.token";

export const token = () => localStorage.getItem(TOKEN_KEY);
export const keepToken = (value) => localStorage.setItem(TOKEN_KEY, value);

/**
 * Posts one event; answers what came of it, one of:
 * ``{state, event}`` taken; ``{refused, rule}`` refused, with the message and the rule's code;
 * ``{token}`` no token or a wrong one (then forgotten), with what to tell the lookout.
 */
export async function post(event) {
  if (!token()) return { token: "Enter the console's token to make changes." };
  let answer;
  try {
    answer = await fetch("/api/events", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token()}` },
      body: JSON.stringify(event),
    });
  } catch (err) {
    return { refused: "The table cannot be reached: " + err.message };
  }
  let body = {};
  try {
    body = await answer.json();
  } catch (err) {
    body = { error: `the table answered ${answer.status}` };
  }
  if (answer.ok) return body;
  if (answer.status === 401) {
    localStorage.removeItem(TOKEN_KEY);
    return { token: "The table refused that token: enter the right one." };
  }
  return { refused: body.error || `refused (${answer.status})`, rule: body.rule };
}
