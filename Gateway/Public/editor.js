// RoundClock program editor: the programs saved on the clock, a form for a structured
// program written as its [programs.NAME] TOML snippet, a live preview checked by the
// clock's own parser (/api/editor/check), save and delete, and the snippet to share.
"use strict";

const $ = (id) => document.getElementById(id);
let checkTimer = null;
let checkSerial = 0;

// -- TOML: the snippet the form stands for, and a reader for the same subset -------------

function quote(text) { return '"' + text.replace(/\\/g, "\\\\").replace(/"/g, '\\"') + '"'; }

function formToToml() {
  const lines = ["[programs." + $("name").value.trim() + "]"];
  const text = (key, id) => { const v = $(id).value.trim(); if (v) { lines.push(key + " = " + quote(v)); } };
  const whole = (key, id, skip) => { const v = $(id).value.trim(); if (v && v !== skip) { lines.push(key + " = " + v); } };
  text("prep", "prep");
  whole("rounds", "rounds", "1");
  text("rest", "rest");
  whole("sets", "sets", "1");
  text("set_rest", "set-rest");
  text("warn", "warn");
  if ($("halfway").checked) { lines.push("halfway = true"); }
  whole("countdown_beeps", "beeps", "");
  const rows = [...$("intervals").children].map((row) => {
    const get = (name) => row.querySelector(`[data-field="${name}"]`).value;
    let entry = "{label = " + quote(get("label").trim()) + ", time = " + quote(get("time").trim());
    if (get("count") === "up") { entry += ', count = "up"'; }
    if (get("kind") === "rest") { entry += ', kind = "rest"'; }
    return entry + "}";
  });
  lines.push("intervals = [ " + rows.join(",\n              ") + " ]");
  return lines.join("\n") + "\n";
}

const ESCAPES = { n: "\n", t: "\t", r: "\r", b: "\b", f: "\f" };

// The snippet without its comments: a `#` outside a string to the end of its line.
function withoutComments(text) {
  let out = "", quote = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      out += c;
      if (c === "\\" && quote === '"') { out += text[++i] ?? ""; } else if (c === quote) { quote = null; }
    } else if (c === '"' || c === "'") {
      quote = c;
      out += c;
    } else if (c === "#") {
      while (i + 1 < text.length && text[i + 1] !== "\n") { i++; }
    } else {
      out += c;
    }
  }
  return out;
}

// Reads the values the form writes: strings, whole numbers, booleans, arrays and inline
// tables; comments skipped. Throws with what it could not read.
function parseValue(text, at) {
  const skip = () => {
    while (at.i < text.length) {
      const c = text[at.i];
      if (c === "#") { while (at.i < text.length && text[at.i] !== "\n") { at.i++; } }
      else if (" \t\r\n".includes(c)) { at.i++; }
      else { break; }
    }
  };
  skip();
  const c = text[at.i];
  if (c === '"') {
    let out = "";
    at.i++;
    while (at.i < text.length && text[at.i] !== '"') {
      if (text[at.i] === "\\") { at.i++; out += ESCAPES[text[at.i]] ?? text[at.i]; } else { out += text[at.i]; }
      at.i++;
    }
    at.i++;
    return out;
  }
  if (c === "[" || c === "{") {
    const close = c === "[" ? "]" : "}";
    const out = c === "[" ? [] : {};
    at.i++;
    for (;;) {
      skip();
      if (text[at.i] === close) { at.i++; return out; }
      if (c === "[") { out.push(parseValue(text, at)); } else {
        const key = /^[A-Za-z0-9_-]+/.exec(text.slice(at.i));
        if (!key) { throw new Error("cannot read the key at " + text.slice(at.i, at.i + 20)); }
        at.i += key[0].length;
        skip();
        if (text[at.i] !== "=") { throw new Error("expected = after " + key[0]); }
        at.i++;
        out[key[0]] = parseValue(text, at);
      }
      skip();
      if (text[at.i] === ",") { at.i++; } else if (text[at.i] !== close) { throw new Error("expected , or " + close); }
    }
  }
  const word = /^(true|false|-?[0-9]+)/.exec(text.slice(at.i));
  if (!word) { throw new Error("cannot read the value at " + text.slice(at.i, at.i + 20)); }
  at.i += word[0].length;
  return word[0] === "true" ? true : word[0] === "false" ? false : Number(word[0]);
}

function parseSnippet(snippet) {
  const text = withoutComments(snippet);
  const header = /^\s*\[programs\.([a-z0-9_-]+)\][ \t]*\n/.exec(text);
  if (!header) { throw new Error("a program starts with its header, e.g. [programs.circuit]"); }
  const body = text.slice(header[0].length).trim();
  const table = parseValue("{" + body.replace(/\n\s*(?=[A-Za-z0-9_-]+\s*=)/g, ",\n") + "}", { i: 0 });
  return { name: header[1], table };
}

const FORM_KEYS = ["prep", "rounds", "rest", "sets", "set_rest", "warn", "halfway", "countdown_beeps", "intervals"];

function tomlToForm(text) {
  const { name, table } = parseSnippet(text);
  const other = Object.keys(table).find((key) => !FORM_KEYS.includes(key));
  const INTERVAL_KEYS = ["label", "time", "count", "kind"];
  const inner = (table.intervals || []).flatMap((entry) => Object.keys(entry)).find((key) => !INTERVAL_KEYS.includes(key));
  const unknown = other || (inner && "intervals." + inner);
  if (unknown) { throw new Error(`the form does not edit "${unknown}"; edit it in the config file`); }
  $("name").value = name;
  $("prep").value = table.prep || "";
  $("rounds").value = table.rounds || 1;
  $("rest").value = table.rest || "";
  $("sets").value = table.sets || 1;
  $("set-rest").value = table.set_rest || "";
  $("warn").value = table.warn || "";
  $("halfway").checked = table.halfway === true;
  $("beeps").value = table.countdown_beeps === undefined ? "" : table.countdown_beeps;
  $("intervals").replaceChildren();
  for (const entry of table.intervals || []) { addInterval(entry); }
}

// -- The form ----------------------------------------------------------------------------

function field(name, label, value, options) {
  const box = document.createElement("div");
  const caption = document.createElement("label");
  caption.textContent = label;
  let input;
  if (options) {
    input = document.createElement("select");
    for (const option of options) { input.appendChild(new Option(option, option)); }
  } else {
    input = document.createElement("input");
  }
  input.value = value;
  input.dataset.field = name;
  input.setAttribute("aria-label", label);
  box.append(caption, input);
  return box;
}

function addInterval(entry = {}) {
  const row = document.createElement("li");
  row.className = "interval";
  row.append(field("label", "Label", entry.label || "WORK"), field("time", "Time", entry.time || "1:00"),
    field("count", "Count", entry.count || "down", ["down", "up"]), field("kind", "Kind", entry.kind || "work", ["work", "rest"]));
  const moves = document.createElement("div");
  moves.className = "moves";
  for (const [text, label, act] of [["↑", "move up", () => row.previousElementSibling && row.previousElementSibling.before(row)],
    ["↓", "move down", () => row.nextElementSibling && row.nextElementSibling.after(row)], ["✕", "remove", () => row.remove()]]) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "small" + (text === "✕" ? " danger" : "");
    button.textContent = text;
    button.setAttribute("aria-label", label);
    button.addEventListener("click", () => { act(); changed(); });
    moves.appendChild(button);
  }
  row.appendChild(moves);
  $("intervals").appendChild(row);
}

function changed() {
  $("toml").value = formToToml();
  $("saved").textContent = "";
  clearTimeout(checkTimer);
  checkTimer = setTimeout(check, 300);
}

async function check() {
  const serial = ++checkSerial;
  const result = await api("POST", "/api/editor/check", { toml: formToToml() });
  if (serial !== checkSerial) { return; }
  const program = result.json && result.json.ok ? result.json.program : null;
  $("check-error").textContent = program ? "" : errorOf(result);
  $("total").textContent = program ? program.total : "—";
  $("bar").replaceChildren();
  $("phases").replaceChildren();
  if (!program) { return; }
  const total = program.phases.reduce((sum, phase) => sum + (phase.seconds || 0), 0) || 1;
  for (const phase of program.phases) {
    const piece = document.createElement("span");
    piece.className = phase.kind;
    piece.style.width = (100 * (phase.seconds || 0) / total) + "%";
    $("bar").appendChild(piece);
    const item = document.createElement("li");
    item.className = phase.kind;
    const length = phase.seconds === null ? "open" : Math.floor(phase.seconds / 60) + ":" + String(phase.seconds % 60).padStart(2, "0");
    item.textContent = `${phase.label || phase.kind} ${length}${phase.count === "up" ? " ↑" : ""}`;
    $("phases").appendChild(item);
  }
}

async function save(event) {
  event.preventDefault();
  const result = await api("POST", "/api/editor/save", { toml: formToToml() });
  if (result.json && result.json.ok) {
    const replaced = result.json.replaced;
    $("saved").textContent = `saved ${result.json.program.name} on the clock (${result.json.program.total})`
      + (replaced ? `. Replaced “${replaced.name}” (${replaced.plan}, ${replaced.total})` : "");
    $("check-error").textContent = "";
    await loadList();
  } else {
    $("check-error").textContent = errorOf(result);
  }
}

function edit(toml) {
  $("form").hidden = false;
  try { tomlToForm(toml); } catch (error) { $("share-status").textContent = error.message; return; }
  changed();
}

async function remove(name) {
  if (!confirm(`Delete ${name} from the clock?`)) { return; }
  const result = await api("POST", "/api/editor/delete", { program: name });
  $("session-error").textContent = result.json && result.json.ok ? "" : errorOf(result);
  await loadList();
}

async function loadList() {
  const result = await api("GET", "/api/editor/programs");
  if (result.status === 401) {
    $("session-error").textContent = "Log in on the remote first.";
    return;
  }
  if (!result.json || !result.json.ok) { $("session-error").textContent = errorOf(result); return; }
  const list = $("list");
  list.replaceChildren();
  for (const entry of result.json.programs) {
    const row = document.createElement("div");
    row.className = "entry";
    row.dataset.program = entry.name;
    const what = document.createElement("div");
    what.className = "what";
    what.innerHTML = '<div class="title"></div><div class="plan"></div>';
    what.querySelector(".title").textContent = `${entry.name} · ${entry.total}`;
    what.querySelector(".plan").textContent = entry.source === "config" ? "config file · " + entry.plan : entry.plan;
    row.appendChild(what);
    if (entry.source === "saved") {
      for (const [text, act, danger] of [["EDIT", () => edit(entry.toml), false], ["DELETE", () => remove(entry.name), true]]) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "small" + (danger ? " danger" : "");
        button.textContent = text;
        button.dataset.action = text.toLowerCase();
        button.addEventListener("click", act);
        row.appendChild(button);
      }
    }
    list.appendChild(row);
  }
}

async function copy() {
  const text = $("toml").value;
  try {
    await navigator.clipboard.writeText(text);
    $("share-status").textContent = "copied";
  } catch (_) {
    $("toml").select();
    $("share-status").textContent = "selected: copy it with the phone's menu";
  }
}

function importToml() {
  try {
    tomlToForm($("toml").value);
    $("share-status").textContent = "imported";
    changed();
  } catch (error) {
    $("share-status").textContent = error.message;
  }
}

function newProgram() {
  $("form").hidden = false;
  $("form").reset();
  $("intervals").replaceChildren();
  addInterval({ label: "WORK", time: "0:40" });
  addInterval({ label: "REST", time: "0:20", kind: "rest" });
  $("name").focus();
  changed();
}

$("new").addEventListener("click", newProgram);
$("add").addEventListener("click", () => { addInterval(); changed(); });
$("form").addEventListener("input", (event) => { if (event.target.id !== "toml") { changed(); } });
$("form").addEventListener("submit", save);
$("copy").addEventListener("click", copy);
$("import").addEventListener("click", importToml);
loadList();
