// RoundClock phone remote: log in with the PIN, mirror the panels from the WebSocket
// /api/live, send START / STOP / RESET and program choices to /api/command.
"use strict";

const $ = (id) => document.getElementById(id);
const PANEL_ORDER = ["time", "round", "phase"];
let socket = null;
let retryDelay = 500;
let retryTimer = null;
let lastState = null;

function showLink(kind, text) {
  const link = $("link");
  link.className = "link " + kind;
  link.textContent = text;
}

function showScreen(loggedIn) {
  $("login").hidden = loggedIn;
  $("remote").hidden = !loggedIn;
  if (!loggedIn) { $("pin").focus(); }
}

function renderPanels(state) {
  const panels = state.panels || {};
  const names = Object.keys(panels).sort((a, b) => {
    const ia = PANEL_ORDER.indexOf(a), ib = PANEL_ORDER.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
  const box = $("panels");
  for (const name of names) {
    let panel = box.querySelector(`[data-panel="${CSS.escape(name)}"]`);
    if (!panel) {
      panel = document.createElement("div");
      panel.className = "panel " + name.replace(/[^a-z0-9_-]/gi, "");
      panel.dataset.panel = name;
      panel.innerHTML = '<div class="name"></div><div class="text"></div>';
      panel.querySelector(".name").textContent = name;
      box.appendChild(panel);
    }
    const text = panel.querySelector(".text");
    const value = String(panels[name]);
    if (text.textContent !== value) { text.textContent = value; }
  }
}

function describe(state) {
  const parts = [];
  if (state.program) { parts.push(state.program); }
  if (state.state) { parts.push(state.state); }
  if (state.phase && state.phase !== state.state) { parts.push(state.phase); }
  // Prep comes before round 1: the phase above says "prep", no "round 0 of 12".
  if (state.rounds && state.phase !== "prep") { parts.push(`round ${state.round} of ${state.rounds}`); }
  return parts.join(" · ");
}

// A clock in a group: whether it counts in the group's time or alone (docs/sync.md).
function describeGroup(group) {
  if (group.state === "reference") { return "Group time: this clock is the reference"; }
  if (group.state === "synced") { return `Group time: synced to ${group.reference}`; }
  return `Group time: ${group.note || "not synced"}`;
}

function applyState(state) {
  lastState = state;
  renderPanels(state);
  $("status").textContent = describe(state);
  const group = $("group");
  group.hidden = !state.group_time;
  if (state.group_time) {
    group.textContent = describeGroup(state.group_time);
    group.classList.toggle("alone", state.group_time.state === "unsynced");
  }
  // A setting the clock could not take: the card's roundclock.toml and what is wrong in it.
  const notice = $("notice");
  notice.hidden = !state.notice;
  const noticeText = state.notice ? `Card settings not applied: ${state.notice}` : "";
  if (notice.textContent !== noticeText) { notice.textContent = noticeText; }
  const picker = $("program");
  if (state.program && picker.value !== state.program) {
    if (![...picker.options].some((o) => o.value === state.program)) {
      picker.appendChild(new Option(state.program, state.program));
    }
    picker.value = state.program;
  }
  picker.disabled = !(state.state === "ready" || state.state === "clock");  // as MODE
  $("start").disabled = state.state === "running";
  const underway = state.state === "running" || state.state === "paused";  // what the clock edits
  for (const button of document.querySelectorAll("section.edits button")) { button.disabled = !underway; }
}

function onLine(text) {
  let message;
  try { message = JSON.parse(text); } catch (_) { return; }
  if (message.gateway === "clock unreachable") {
    showLink("unreachable", "clock unreachable");
    return;
  }
  showLink("live", "live");
  applyState(message);
}

function connect() {
  clearTimeout(retryTimer);
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const ws = new WebSocket(scheme + location.host + "/api/live");
  socket = ws;
  let opened = false;
  ws.onopen = () => { opened = true; retryDelay = 500; };
  ws.onmessage = (event) => onLine(event.data);
  ws.onclose = async () => {
    if (socket !== ws) { return; }
    socket = null;
    showLink("lost", "connection lost — reconnecting");
    if (!opened) {
      // Refused upgrade: the session may have ended.
      const check = await api("GET", "/api/state").catch(() => null);
      if (check && check.status === 401) { showScreen(false); showLink("connecting", "locked"); return; }
    }
    retryTimer = setTimeout(connect, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 5000);
  };
}

async function loadPrograms() {
  const { status, json } = await api("GET", "/api/programs");
  if (status !== 200 || !json || !Array.isArray(json.programs)) { return; }
  const picker = $("program");
  picker.innerHTML = "";
  for (const name of json.programs) { picker.appendChild(new Option(name, name)); }
  if (lastState) { applyState(lastState); }
}

async function send(command) {
  $("error").textContent = "";
  try {
    const { status, json } = await api("POST", "/api/command", command);
    if (status === 401) { showScreen(false); return; }
    if (!json || json.ok !== true) {
      $("error").textContent = (json && json.error) || `refused (${status})`;
    }
  } catch (_) {
    $("error").textContent = "no answer from the gateway";
  }
}

async function startRemote() {
  showScreen(true);
  await loadPrograms().catch(() => {});
  connect();
}

async function boot() {
  for (const button of document.querySelectorAll("button[data-command]")) {
    const command = { command: button.dataset.command };
    if (button.dataset.seconds) { command.seconds = Number(button.dataset.seconds); }
    button.addEventListener("click", () => send(command));
  }
  $("program").addEventListener("change", (event) => send({ command: "program", program: event.target.value }));
  $("login-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("login-error").textContent = "";
    const pin = $("pin").value.trim();
    const { status, json } = await api("POST", "/api/login", { pin }).catch(() => ({ status: 0, json: null }));
    $("pin").value = "";
    if (status === 200) { startRemote(); return; }
    $("login-error").textContent = (json && json.error) || "no answer from the gateway";
  });
  const { status } = await api("GET", "/api/state").catch(() => ({ status: 0 }));
  if (status === 401) { showScreen(false); showLink("connecting", "locked"); } else { startRemote(); }
}

document.addEventListener("DOMContentLoaded", boot);
