// RoundClock setup page: the clock's settings the phone may change (GET/POST /api/settings),
// checked and kept by the clock over its config file; sliders take effect as they move.
"use strict";

const $ = (id) => document.getElementById(id);
const SEND_EVERY_MS = 150;
let lastSent = 0;
let pending = null;
let pendingTimer = null;

function fields() { return [...document.querySelectorAll("[data-key]")]; }

// The value a field sends, as the config file writes it; null: the page's value removed.
function valueOf(input) {
  const key = input.dataset.key;
  const text = input.value.trim();
  if (key === "start_at") {
    const times = text.split(/[\s,]+/).filter((t) => t !== "");
    return times.length ? times : null;
  }
  if (input.type === "range" || input.type === "number") { return text === "" ? null : Number(text); }
  return text === "" ? null : text;
}

function show(input, value) {
  if (input.dataset.key === "start_at") { input.value = (value || []).join(", "); } else { input.value = value; }
  const output = document.querySelector(`output[for="${input.id}"]`);
  if (output) { output.textContent = input.value; }
}

function fill(reply) {
  for (const input of fields()) {
    if (document.activeElement !== input || input.type !== "range") { show(input, reply.values[input.dataset.key]); }
  }
  const list = $("page-settings");
  list.replaceChildren();
  const saved = Object.entries(reply.settings || {});
  for (const [key, value] of saved) {
    const item = document.createElement("li");
    item.textContent = key + " = " + JSON.stringify(value);
    list.append(item);
  }
  if (!saved.length) {
    const item = document.createElement("li");
    item.textContent = "Nothing: every setting is the config file's.";
    list.append(item);
  }
  $("reset").disabled = !saved.length;
  const notes = [reply.pending, reply.refused && "Left out at start: " + reply.refused].filter(Boolean);
  $("saved").textContent = notes.join(" ");
}

async function send(values) {
  const result = await api("POST", "/api/settings", { values });
  if (result.json && result.json.ok) {
    $("error").textContent = "";
    fill(result.json);
    if (!$("saved").textContent) { $("saved").textContent = "Saved on the clock."; }
  } else {
    $("error").textContent = errorOf(result);
  }
}

// A slider sends at most every SEND_EVERY_MS while it moves, and its last value always.
function sendSoon(input) {
  pending = input;
  const wait = Math.max(0, lastSent + SEND_EVERY_MS - Date.now());
  if (pendingTimer) { return; }
  pendingTimer = setTimeout(() => {
    pendingTimer = null;
    lastSent = Date.now();
    const next = pending;
    pending = null;
    if (next) { send({ [next.dataset.key]: valueOf(next) }); }
  }, wait);
}

async function loadPrograms() {
  const result = await api("GET", "/api/programs");
  const select = $("program");
  for (const name of (result.json && result.json.programs) || []) {
    const option = document.createElement("option");
    option.value = name;
    option.textContent = name;
    select.append(option);
  }
}

async function load() {
  const result = await api("GET", "/api/settings");
  if (result.status === 401) {
    $("session-error").textContent = "Log in on the remote first.";
    return;
  }
  if (!result.json || !result.json.ok) { $("session-error").textContent = errorOf(result); return; }
  await loadPrograms();
  const program = $("program");
  const current = result.json.values.program;
  if (![...program.options].some((o) => o.value === current)) {
    const option = document.createElement("option");
    option.value = current;
    option.textContent = current;
    program.prepend(option);
  }
  fill(result.json);
  $("form").hidden = false;
}

for (const input of fields()) {
  if (input.type === "range") {
    input.addEventListener("input", () => { show(input, input.value); sendSoon(input); });
  } else {
    input.addEventListener("change", () => send({ [input.dataset.key]: valueOf(input) }));
  }
}
$("form").addEventListener("submit", (event) => event.preventDefault());
$("reset").addEventListener("click", async () => {
  const result = await api("POST", "/api/settings/reset", {});
  if (result.json && result.json.ok) {
    $("error").textContent = "";
    fill(result.json);
    $("saved").textContent = "The config file alone counts again.";
  } else {
    $("error").textContent = errorOf(result);
  }
});
load();
