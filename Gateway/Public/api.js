// The phone pages' one way to the gateway's JSON API (app.js, editor.js, setup.js): a
// same-origin request with the session cookie, answered with its status and its JSON (or
// null), and the one line a refusal shows.
"use strict";

async function api(method, path, body) {
  const options = { method, headers: {}, credentials: "same-origin", cache: "no-store" };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(path, options);
  let json = null;
  try { json = await response.json(); } catch (_) { json = null; }
  return { status: response.status, json };
}

// What a refused request says: the clock's or the gateway's line (`error`, or a 413's
// `error.message`), else its HTTP status.
function errorOf(result) {
  if (result.json && typeof result.json.error === "string") { return result.json.error; }
  if (result.json && result.json.error && result.json.error.message) { return result.json.error.message; }
  return "HTTP " + result.status;
}
