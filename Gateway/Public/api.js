// The phone pages' one way to the gateway's JSON API (app.js, editor.js): a same-origin
// request with the session cookie, answered with its status and its JSON (or null).
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
