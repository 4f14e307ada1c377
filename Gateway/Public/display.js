// The TV page (docs/remote.md, "TV page"). The gateway sends the session's anchor, never the
// ticks: on connect and on each change, the program's plan, the session (`run`,
// `elapsed_before_ns`, `anchor_realtime_ns`) and the panels the page does not compute. The
// page measures its clock's offset from the gateway's as NTP does, and computes every frame
// the text the LED panels show at that instant, so it needs no message per second and keeps
// counting through a Wi-Fi drop.
"use strict";

// ---- The panels' text, as the clock's core makes it (RoundClockCore PanelTime, FaceBuilder) ----

const twoDigits = (n) => (n < 10 ? "0" + n : "" + n);
const blankTens = (n) => (n >= 10 ? String(Math.floor(n / 10)) : " ");

function minutesSeconds(seconds) {
  const m = Math.floor(seconds / 60);
  return blankTens(m) + (m % 10) + ":" + twoDigits(seconds % 60);
}

function hoursMinutes(minutes, colon) {
  const m = Math.min(minutes, 99 * 60 + 59);
  const h = Math.floor(m / 60);
  return blankTens(h) + (h % 10) + (colon ? ":" : "") + twoDigits(m % 60);
}

function secondsHundredths(hundredths) {
  const s = Math.floor(hundredths / 100);
  return blankTens(s) + (s % 10) + "." + twoDigits(hundredths % 100);
}

// A countdown showing `remaining` milliseconds: the ceiling of the seconds; `H:MM` with the
// colon lit in the first half of each second from 100 minutes.
function countdown(remaining, cadence) {
  const r = Math.max(0, remaining);
  if (r === 0) return minutesSeconds(0);
  if (cadence === "minutes") return hoursMinutes(Math.ceil(r / 60000), true);
  if (cadence === "live" && Math.ceil(r / 10) < 6000) return secondsHundredths(Math.ceil(r / 10));
  const s = Math.ceil(r / 1000);
  if (s < 6000) return minutesSeconds(s);
  return hoursMinutes(Math.ceil(r / 60000), s * 1000 - r < 500);
}

// A count-up showing `elapsed` milliseconds: the floor of the seconds.
function countUp(elapsed, cadence) {
  const u = Math.max(0, elapsed);
  if (cadence === "minutes") return hoursMinutes(Math.floor(u / 60000), true);
  if (cadence === "live" && u < 60000) return secondsHundredths(Math.floor(u / 10));
  const s = Math.floor(u / 1000);
  if (s < 6000) return minutesSeconds(s);
  return hoursMinutes(Math.floor(s / 60), u - s * 1000 < 500);
}

// Overtime after a capped program: `+M:SS`, then `+H:MM` with the colon blinking.
function overtime(elapsed) {
  const u = Math.max(0, elapsed);
  const s = Math.floor(u / 1000);
  if (s < 600) return "+" + Math.floor(s / 60) + ":" + twoDigits(s % 60);
  const m = Math.min(Math.floor(s / 60), 9 * 60 + 59);
  return "+" + Math.floor(m / 60) + (u - s * 1000 < 500 ? ":" : "") + twoDigits(m % 60);
}

// The wall clock `HH:MM` at `localMs` (milliseconds since local midnight of day 0).
function wallClock(localMs, cadence) {
  const t = ((localMs % 86400000) + 86400000) % 86400000;
  const s = Math.floor(t / 1000);
  const colon = cadence === "minutes" || t - s * 1000 < 500;
  return twoDigits(Math.floor(s / 3600)) + (colon ? ":" : "") + twoDigits(Math.floor(s / 60) % 60);
}

// The phase at `elapsed` ms: the last one whose start is at or before it.
function phaseIndex(phases, elapsedNs) {
  let low = 0, high = phases.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (phases[mid].start_ns <= elapsedNs) low = mid; else high = mid - 1;
  }
  return low;
}

// What the panels show at gateway time `nowMs` (CLOCK_REALTIME milliseconds), with the
// colour class: {time, round, phase, look}.
function face(message, nowMs) {
  const plan = message.plan;
  const panels = message.panels || {};
  if (message.state === "clock" || (plan && plan.kind === "clock")) {
    const label = (plan && plan.label) || panels.phase || "TIME";
    return { time: wallClock(nowMs + message.utc_offset_s * 1000, plan && plan.cadence), round: "    ", phase: label, look: "clock" };
  }
  const session = message.session;
  const running = session && session.run === "running" && session.anchor_realtime_ns !== null;
  if (!plan || !plan.phases || plan.phases.length === 0 || !running) {
    const look = message.state === "paused" ? "paused" : "idle";
    return { time: panels.time || "", round: panels.round || "", phase: panels.phase || "", look: look };
  }
  let elapsed = session.elapsed_before_ns / 1e6 + Math.max(0, nowMs - session.anchor_realtime_ns / 1e6);
  const total = plan.total_ns === null ? null : plan.total_ns / 1e6;
  const finished = total !== null && elapsed >= total;
  if (finished) elapsed = total;
  const index = phaseIndex(plan.phases, elapsed * 1e6);
  const phase = plan.phases[index];
  const inPhase = elapsed - phase.start_ns / 1e6;
  const remaining = phase.length_ns === null ? null : phase.length_ns / 1e6 - inPhase;
  const time = phase.counting === "down" ? countdown(remaining, plan.cadence)
    : phase.counting === "up" ? countUp(inPhase, plan.cadence) : overtime(inPhase);
  const counted = plan.counts_rounds && panels.round && panels.round.trim() !== "" ? panels.round : null;
  const warning = phase.warn_ns !== null && remaining !== null && remaining <= phase.warn_ns / 1e6;
  const look = finished ? "idle" : warning ? "warning" : phase.kind === "work" ? "work" : "rest";
  return { time: time, round: counted || phase.round, phase: finished ? "DONE" : phase.phase, look: look };
}

// ---- The gateway's time: the offset measured NTP-style over the WebSocket ----

const localNow = () => performance.timeOrigin + performance.now();
const clock = { offset: null, roundTrip: null, at: null };
// Each measurement: {t: performance.now(), offset, roundTrip, used} (the last 100).
window.__offsets = [];
const PINGS = 8;
const MEASURE_EVERY_MS = 60000;
let pending = null; // {id, sent, left, best}
let pingId = 0;

function measure(socket) {
  pending = { left: PINGS, best: null };
  sendPing(socket);
}

function sendPing(socket) {
  pingId = (pingId + 1) % 1000000000;
  pending.id = pingId;
  pending.sent = localNow();
  socket.send(JSON.stringify({ ping: pingId }));
}

function pong(socket, message) {
  const received = localNow();
  if (!pending || message.pong !== pending.id) return;
  const roundTrip = received - pending.sent;
  const offset = message.server_us / 1000 - (pending.sent + received) / 2;
  if (!pending.best || roundTrip < pending.best.roundTrip) pending.best = { roundTrip: roundTrip, offset: offset };
  pending.left -= 1;
  if (pending.left > 0) { sendPing(socket); return; }
  adopt(pending.best, socket);
  pending = null;
  scheduleSounds();
}

// A measurement whose best round trip is much slower than the one in use (the TV or the
// gateway was busy) says less about the offset: it is kept only when nothing better is
// recent, and the page measures again in 5 s.
function adopt(best, socket) {
  const now = localNow();
  const better = clock.offset === null || best.roundTrip <= 2 * clock.roundTrip + 5 || now - clock.at > 10 * 60000;
  window.__offsets.push({ t: performance.now(), offset: best.offset, roundTrip: best.roundTrip, used: better });
  if (window.__offsets.length > 100) window.__offsets.shift();
  if (better) {
    clock.offset = best.offset;
    clock.roundTrip = best.roundTrip;
    clock.at = now;
    return;
  }
  setTimeout(() => { if (socket.readyState === WebSocket.OPEN && !pending) measure(socket); }, 5000);
}

const gatewayNow = () => localNow() + (clock.offset || 0);

// ---- Rendering: every frame, the DOM written only when a text changes ----

const elements = {};
let latest = null;
const shown = { time: null, round: null, phase: null, look: null };
window.__changes = [];

function roundWords(text) {
  const m = /^([ \d-]{2})\.([ \d]{2})$/.exec(text);
  if (m) return m[1].trim() + " / " + m[2].trim();
  return text.trim();
}

function showTime(text) {
  // A colon the panel leaves dark (the H:MM blink) keeps its place, so the digits stay put.
  const el = elements.time;
  el.textContent = "";
  const bare = /^[ \d+-]{4}$/.test(text) && !text.includes(":");
  const parts = bare ? [text.slice(0, text.length - 2), ":", text.slice(-2)] : [text];
  for (const part of parts) {
    if (part === ":" && bare) {
      const colon = document.createElement("span");
      colon.className = "colon off";
      colon.textContent = ":";
      el.append(colon);
    } else {
      el.append(part.replace(/^ +/, (spaces) => "\u2007".repeat(spaces.length)));
    }
  }
}

function frame() {
  requestAnimationFrame(frame);
  if (!latest || (latest.state !== "clock" && clock.offset === null && latest.session && latest.session.run === "running")) return;
  const f = face(latest, gatewayNow());
  if (f.time !== shown.time) {
    shown.time = f.time;
    showTime(f.time);
    window.__changes.push({ text: f.time, t: performance.now() });
    if (window.__changes.length > 100000) window.__changes.splice(0, 50000);
  }
  if (f.round !== shown.round) { shown.round = f.round; elements.round.textContent = roundWords(f.round); }
  if (f.phase !== shown.phase) { shown.phase = f.phase; elements.phase.textContent = f.phase.trim(); }
  if (f.look !== shown.look) { shown.look = f.look; document.body.className = f.look; }
}

function applyColors(colors) {
  if (!colors) return;
  for (const name of ["work", "rest", "warning"]) {
    if (/^#[0-9a-f]{6}$/.test(colors[name])) document.documentElement.style.setProperty("--" + name, colors[name]);
  }
}

// ---- Sound: the clock's built-in signals, synthesized, scheduled at their instants ----

let audio = null;
window.__sounds = [];
// Scheduled sounds by session and signal: {at: AudioContext seconds, nodes}.
let scheduled = new Map();

const bellPartials = [[0.5, 0.35, 1.6], [1.0, 1.0, 1.2], [1.19, 0.55, 0.9], [1.51, 0.35, 0.7], [2.0, 0.65, 0.6],
  [2.51, 0.3, 0.35], [2.66, 0.25, 0.3], [3.01, 0.2, 0.25], [4.16, 0.12, 0.15]];

function partial(at, hertz, level, decay, seconds, type) {
  const oscillator = audio.createOscillator();
  const gain = audio.createGain();
  oscillator.type = type || "sine";
  oscillator.frequency.value = hertz;
  gain.gain.setValueAtTime(0, at);
  gain.gain.linearRampToValueAtTime(level, at + 0.002);
  if (decay) gain.gain.setTargetAtTime(0, at + 0.002, decay);
  else gain.gain.setValueAtTime(level, at + seconds - 0.006);
  gain.gain.linearRampToValueAtTime(0, at + seconds);
  oscillator.connect(gain).connect(audio.destination);
  oscillator.start(at);
  oscillator.stop(at + seconds + 0.01);
  return oscillator;
}

const sounds = {
  bell: (at) => bellPartials.map(([ratio, level, decay]) => partial(at, 1350 * ratio, level * 0.12, decay, 3.0)),
  horn: (at) => [415, 421].map((hertz) => partial(at, hertz, 0.12, 0, 1.2, "sawtooth")),
  beep: (at) => [partial(at, 1000, 0.3, 0, 0.2)],
  tick: (at) => [partial(at, 3000, 0.3, 0.003, 0.015)],
};

// The clock's default sound of each signal: [sound, count, spacing in seconds].
const signalSounds = {
  start: ["bell", 1, 0], end: ["bell", 3, 0.4], finish: ["horn", 1, 0], warning: ["beep", 3, 0.3],
  "prep-tick": ["tick", 1, 0], tick: ["tick", 1, 0], halfway: ["beep", 2, 0.3], switch: ["horn", 2, 1.5],
};

// Schedules the signals of the next minute of a running session on the AudioContext's
// timeline, mapped from the anchor; called on every session change, offset and half minute.
// A sound already playing is left alone; one not started yet that the session no longer
// has (a pause, a skip, an adjust) is cancelled.
function scheduleSounds() {
  if (!audio) return;
  const wanted = new Map();
  const session = latest && latest.session;
  const running = session && session.run === "running" && session.anchor_realtime_ns !== null;
  if (running && latest.plan && latest.plan.signals && clock.offset !== null) {
    const now = gatewayNow();
    for (const [offsetNs, signal] of latest.plan.signals) {
      const at = session.anchor_realtime_ns / 1e6 + (offsetNs - session.elapsed_before_ns) / 1e6;
      const ahead = (at - now) / 1000;
      const sound = signalSounds[signal];
      if (ahead < 0 || ahead > 70 || !sound) continue;
      for (let i = 0; i < sound[1]; i += 1) {
        wanted.set([session.anchor_realtime_ns, session.elapsed_before_ns, offsetNs, i].join("|"),
          { ahead: ahead + i * sound[2], sound: sound[0], signal: signal, gatewayMs: at + i * sound[2] * 1000 });
      }
    }
  }
  const audioNow = audio.currentTime;
  for (const [key, entry] of scheduled) {
    if (wanted.has(key)) continue;
    if (entry.at > audioNow) {
      for (const node of entry.nodes) { try { node.stop(); } catch (e) { /* stopped */ } }
      window.__sounds.push({ key: key, cancelled: true });
    }
    if (entry.at > audioNow || entry.at < audioNow - 5) scheduled.delete(key);
  }
  for (const [key, want] of wanted) {
    if (scheduled.has(key)) continue;
    const at = audioNow + want.ahead;
    scheduled.set(key, { at: at, nodes: sounds[want.sound](at) });
    // The gateway's wall-clock instant it is meant for, for checks and troubleshooting.
    window.__sounds.push({ key: key, sound: want.sound, signal: want.signal, gatewayMs: want.gatewayMs });
  }
  if (window.__sounds.length > 10000) window.__sounds.splice(0, 5000);
}

function enableSound() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) { elements.sound.textContent = "no sound here"; return; }
  if (!audio) audio = new Context();
  audio.resume();
  elements.sound.textContent = "sound on";
  elements.sound.classList.add("on");
  scheduleSounds();
}

// ---- Screen Wake Lock: kept while the page is visible, where the browser has it ----

let wakeLock = null;
async function keepAwake() {
  if (!("wakeLock" in navigator) || document.visibilityState !== "visible" || wakeLock) return;
  try {
    wakeLock = await navigator.wakeLock.request("screen");
    wakeLock.addEventListener("release", () => { wakeLock = null; });
  } catch (e) { wakeLock = null; }
}

// ---- The WebSocket: reconnected by itself with backoff ----

let retry = 250;
let measuring = null;

function connect() {
  const scheme = location.protocol === "https:" ? "wss://" : "ws://";
  const socket = new WebSocket(scheme + location.host + "/api/display");
  socket.onopen = () => {
    retry = 250;
    elements.mark.hidden = true;
    measure(socket);
    measuring = setInterval(() => { if (!pending) measure(socket); }, MEASURE_EVERY_MS);
  };
  socket.onmessage = (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch (e) { return; }
    if ("pong" in message) { pong(socket, message); return; }
    if (message.display === "unreachable") { elements.mark.hidden = false; return; }
    if (message.display !== "session") return;
    elements.mark.hidden = true;
    latest = message;
    applyColors(message.colors);
    scheduleSounds();
  };
  socket.onclose = () => {
    clearInterval(measuring);
    pending = null;
    elements.mark.hidden = false;
    setTimeout(start, retry);
    retry = Math.min(retry * 2, 5000);
  };
}

// With `[remote] display_pin = true` the page first needs a session: it asks for the PIN.
async function start() {
  let answer;
  try { answer = await fetch("/api/display-access", { cache: "no-store" }); } catch (e) { answer = null; }
  if (answer && answer.status === 401) { elements.login.hidden = false; elements.pin.focus(); return; }
  elements.login.hidden = true;
  if (!answer || !answer.ok) {
    elements.mark.hidden = false;
    setTimeout(start, retry);
    retry = Math.min(retry * 2, 5000);
    return;
  }
  connect();
}

async function login(event) {
  event.preventDefault();
  const answer = await fetch("/api/login", {
    method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ pin: elements.pin.value }),
  }).catch(() => null);
  if (answer && answer.ok) { elements.pin.value = ""; elements["login-error"].textContent = ""; start(); return; }
  const reply = answer ? await answer.json().catch(() => null) : null;
  elements["login-error"].textContent = (reply && reply.error) || "no answer";
}

document.addEventListener("DOMContentLoaded", () => {
  for (const id of ["time", "round", "phase", "sound", "mark", "login", "pin", "login-error"]) elements[id] = document.getElementById(id);
  elements.sound.addEventListener("click", enableSound);
  elements.login.addEventListener("submit", login);
  document.addEventListener("visibilitychange", keepAwake);
  setInterval(scheduleSounds, 30000);
  keepAwake();
  start();
  requestAnimationFrame(frame);
});

window.RoundClockDisplay = { face: face, countdown: countdown, countUp: countUp, overtime: overtime, wallClock: wallClock, clock: clock };
