#!/usr/bin/env python3
"""The clock in a real Home Assistant Core (docs/development.md "The test suites"): Home
Assistant installed with pip into a cached venv, its MQTT integration set up through the
REST API against a Mosquitto on loopback, a real `roundclock run --simulate` and
`roundclock-gateway` with `[mqtt]`. Checks that the device and its entities appear, that the
select and the buttons drive the clock, counts the recorder's state rows a minute across the
clock's entities while a round runs and in clock mode, and reads Home Assistant's log for
errors and warnings about them after a preset, a program line and `emom:12`. Not part of CI:
the first run installs Home Assistant (minutes); later runs reuse the venv.

    python3 Gateway/Tests/ha/ha_check.py        # HA_WINDOW=60 seconds per count
"""
import glob
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from rc_harness import CONFIG, REPO, Rig, terminate, wait_for  # noqa: E402
from mqtt_harness import Broker, Checker, free_port  # noqa: E402

CACHE = os.environ.get("HA_CACHE", os.path.join(REPO, ".build-ha"))
VENV = os.path.join(CACHE, "venv")
HA_VERSION = os.environ.get("HA_VERSION", "2025.4.4")
WINDOW = float(os.environ.get("HA_WINDOW", "60"))
PREFIX = "roundclock/ring1"
# What the recorder, the MQTT integration and the frontend (which Home Assistant must load, or
# it starts in recovery mode) need beyond `pip install homeassistant`
# (their manifests' requirements), installed up front so Home Assistant runs with --skip-pip.
EXTRAS = ["paho-mqtt", "SQLAlchemy", "fnv-hash-fast", "psutil-home-assistant", "Pillow", "home-assistant-frontend"]
STARTED = time.monotonic()


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok:", message, flush=True)


def python313():
    """Home Assistant 2025 needs Python 3.13."""
    for candidate in [os.environ.get("HA_PYTHON"), shutil.which("python3.13")] + sorted(glob.glob("/root/.pyenv/versions/3.13*/bin/python3.13")):
        if candidate and subprocess.run([candidate, "--version"], capture_output=True).returncode == 0:
            return candidate
    raise SystemExit("ha_check: no Python 3.13 (set HA_PYTHON)")


def pip(*args):
    subprocess.run(["nice", "-n", "19", os.path.join(VENV, "bin", "pip"), "install", "--quiet", *args], check=True)


def install():
    """The venv with Home Assistant, constrained by its own package_constraints.txt (taken
    from the release's wheel), so pip does not backtrack through its dependencies."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.exists(python) and subprocess.run([python, "-c", "import homeassistant, paho.mqtt, sqlalchemy, PIL, hass_frontend"],
                                                 capture_output=True).returncode == 0:
        return 0.0
    began = time.monotonic()
    os.makedirs(CACHE, exist_ok=True)
    if not os.path.exists(python):
        subprocess.run(["nice", "-n", "19", python313(), "-m", "venv", VENV], check=True)
    wheels = os.path.join(CACHE, "wheels")
    subprocess.run([os.path.join(VENV, "bin", "pip"), "download", "--quiet", "--no-deps", "-d", wheels, f"homeassistant=={HA_VERSION}"],
                   check=True)
    wheel = glob.glob(os.path.join(wheels, f"homeassistant-{HA_VERSION}-*.whl"))[0]
    constraints = os.path.join(CACHE, "package_constraints.txt")
    with zipfile.ZipFile(wheel) as z, open(constraints, "wb") as f:
        f.write(z.read("homeassistant/package_constraints.txt"))
    pip(wheel, "-c", constraints)
    pip(*EXTRAS, "-c", constraints)
    return time.monotonic() - began


class HomeAssistant:
    """`python -m homeassistant` on 127.0.0.1 with a fresh config directory, onboarded
    through its REST API (the first user's authorization code traded for a token)."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="rc-ha-")
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.db = os.path.join(self.dir, "home-assistant_v2.db")
        self.log = os.path.join(self.dir, "home-assistant.log")
        with open(os.path.join(self.dir, "configuration.yaml"), "w") as f:
            f.write(f"""homeassistant:
  name: RoundClock check
  time_zone: UTC
  unit_system: metric
  latitude: 0
  longitude: 0
  elevation: 0
http:
  server_host: 127.0.0.1
  server_port: {self.port}
api:
config:
onboarding:
recorder:
  db_url: sqlite:///{self.db}
  commit_interval: 1
logger:
  default: warning
""")
        self.process = subprocess.Popen(["nice", "-n", "19", os.path.join(VENV, "bin", "python"), "-m", "homeassistant", "--config",
                                         self.dir, "--skip-pip", "--log-file", self.log],
                                        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.token = None
        wait_for(lambda: self._up(), timeout=600, step=0.5, what="Home Assistant's HTTP server")

    def _up(self):
        assert self.process.poll() is None, f"Home Assistant exited: {self.log_lines()[-20:]}"
        try:
            return self.request("GET", "/api/onboarding") is not None
        except (OSError, urllib.error.URLError):
            return False

    def request(self, method, path, body=None, form=None):
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        if form is not None:
            data, headers["Content-Type"] = urllib.parse.urlencode(form).encode(), "application/x-www-form-urlencoded"
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read() or b"null")

    def onboard(self):
        client = self.base + "/"
        code = self.request("POST", "/api/onboarding/users", {"client_id": client, "name": "Check", "username": "check",
                                                              "password": "roundclock-check", "language": "en"})["auth_code"]
        self.token = self.request("POST", "/auth/token", form={"grant_type": "authorization_code", "code": code,
                                                               "client_id": client})["access_token"]

    def add_mqtt(self, port):
        """The MQTT integration's config flow, as the UI runs it: broker and port."""
        flow = self.request("POST", "/api/config/config_entries/flow", {"handler": "mqtt", "show_advanced_options": False})
        while flow["type"] == "form":
            flow = self.request("POST", f"/api/config/config_entries/flow/{flow['flow_id']}", {"broker": "127.0.0.1", "port": port})
        return flow

    def states(self):
        return {s["entity_id"]: s for s in self.request("GET", "/api/states") if "roundclock" in s["entity_id"]}

    def service(self, domain, name, **data):
        return self.request("POST", f"/api/services/{domain}/{name}", data)

    def log_lines(self):
        try:
            with open(self.log) as f:
                return f.read().splitlines()
        except OSError:
            return []

    def rows(self, since, until):
        """State rows the recorder wrote per entity of the clock, last_updated in [since, until)."""
        with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True) as db:
            return dict(db.execute(
                "SELECT m.entity_id, COUNT(*) FROM states s JOIN states_meta m ON s.metadata_id = m.metadata_id "
                "WHERE m.entity_id LIKE '%roundclock%' AND s.last_updated_ts >= ? AND s.last_updated_ts < ? GROUP BY m.entity_id",
                (since, until)).fetchall())

    def close(self):
        terminate(self.process)


def entity(states, component, suffix):
    return next((e for e in states if e.startswith(component + ".") and e.endswith(suffix)), None)


def time_frames(rig):
    return [f for f in rig.frame_lines() if f.get("panel") == "time"]


def seconds(text):
    """The time panel's `M:SS` as whole seconds."""
    minutes, _, secs = text.strip().partition(":")
    return int(minutes) * 60 + int(secs)


def rows_a_minute(ha, what, before=None):
    """Waits WINDOW seconds and counts the recorder's rows for the clock's entities."""
    since = time.time()
    if before:
        before()
    time.sleep(WINDOW)
    until = time.time()
    time.sleep(3)  # commit_interval 1
    rows = ha.rows(since, until)
    total = sum(rows.values())
    print(f"recorder: {what}: {total * 60 / WINDOW:.1f} state rows a minute ({total} in {WINDOW:.0f} s: {rows})", flush=True)
    return total * 60 / WINDOW


def main():
    installed = install()
    print(f"install: {installed:.0f} s" if installed else "install: cached venv", flush=True)
    with Broker() as broker:
        began = time.monotonic()
        ha = HomeAssistant()
        try:
            print(f"Home Assistant up in {time.monotonic() - began:.0f} s ({ha.dir})", flush=True)
            ha.onboard()
            entry = ha.add_mqtt(broker.port)
            check(entry["type"] == "create_entry", f"MQTT integration set up: {entry.get('title')}")
            with Rig(config=CONFIG + broker.config(PREFIX)) as rig:
                run(ha, rig, broker)
        finally:
            ha.close()
        problems = [l for l in ha.log_lines() if (" ERROR " in l or " WARNING " in l)
                    and any(w in l.lower() for w in ("roundclock", "mqtt", "select", "sensor", "button", "invalid option"))]
        for line in problems:
            print("log:", line)
        check(not problems, f"Home Assistant's log: no error or warning about MQTT or the clock's entities "
                            f"({sum(' ERROR ' in l or ' WARNING ' in l for l in ha.log_lines())} other warnings)")
    print(f"HA check: all passed in {time.monotonic() - STARTED:.0f} s")


def run(ha, rig, broker):
    states = wait_for(lambda: (lambda s: s if len(s) >= 12 else None)(ha.states()), timeout=120, what="the clock's entities in HA")
    names = sorted(states)
    check(len(states) == 12 and entity(states, "sensor", "_remaining") is None,
          f"12 entities (Remaining disabled by default): {', '.join(names)}")
    select, state, phase = entity(states, "select", "_program"), entity(states, "sensor", "_state"), entity(states, "sensor", "_phase")
    ends, round_ = entity(states, "sensor", "_phase_ends"), entity(states, "sensor", "_round")
    start, reset = entity(states, "button", "_start"), entity(states, "button", "_reset")
    states = wait_for(lambda: (lambda s: s if s[state]["state"] != "unavailable" and s[select]["state"] != "unavailable" else None)(ha.states()),
                      what="the entities available")
    check(states[state]["state"] == "ready" and states[select]["state"] == "countdown:5:00"
          and "countdown:5:00" in states[select]["attributes"]["options"], f"ready, select on the config's program: {states[select]}")
    check(states[round_]["attributes"].get("state_class") == "measurement" and states[ends]["attributes"].get("device_class") == "timestamp"
          and states[phase]["attributes"].get("options") == ["prep", "work", "rest", "clock"], "round numeric, phase ends a timestamp, phase an enum")
    current = lambda e: ha.states()[e]["state"]

    ha.service("select", "select_option", entity_id=select, option="boxing")
    wait_for(lambda: current(select) == "boxing", what="select boxing")
    check(True, "select: boxing chosen in Home Assistant, the clock runs boxing")
    rate_round = rows_a_minute(ha, "boxing running (prep, then round 1)", before=lambda: ha.service("button", "press", entity_id=start))
    check(current(state) == "running" and current(phase) == "work" and current(ends) not in ("unknown", "unavailable"),
          f"button start: running, work, phase ends {current(ends)}")
    ha.service("button", "press", entity_id=entity(states, "button", "_stop"))
    wait_for(lambda: current(state) == "paused", what="paused")
    check(current(ends) == "unknown", "paused: phase ends unknown")
    # The live edits on the paused round: what the time panel shows after each button.
    shown = lambda: seconds(time_frames(rig)[-1]["text"])
    expected = shown()
    for suffix, change in (("_minus_10_s", -10), ("_plus_10_s", 10)):
        expected += change
        ha.service("button", "press", entity_id=entity(states, "button", suffix))
        wait_for(lambda: shown() == expected, what=f"button {suffix}: the time panel at {expected} s")
        check(current(state) == "paused", f"button {suffix[1:]}: the time panel shows {time_frames(rig)[-1]['text'].strip()}, paused")
    ha.service("button", "press", entity_id=entity(states, "button", "_back"))
    wait_for(lambda: shown() == 180, what="button back: the round's start, 3:00")
    check(current(state) == "paused" and current(phase) == "work", "button back: the round's start (3:00), still paused in work")
    ha.service("button", "press", entity_id=reset)
    wait_for(lambda: current(state) == "ready", what="ready after reset")
    ha.service("select", "select_option", entity_id=select, option="clock")
    wait_for(lambda: current(state) == "clock", what="clock mode")
    rate_clock = rows_a_minute(ha, "clock mode")

    # Programs outside the select's options, sent over MQTT as a script would.
    sender = Checker(broker, [f"{PREFIX}/status"])
    for program in ("10 x 0:45/0:15, prep 0:10", "emom:12"):
        ha.service("button", "press", entity_id=reset)
        sender.publish(f"{PREFIX}/cmd", json.dumps({"command": "program", "program": program}))
        wait_for(lambda: current(select) == program, what=f"select shows {program}")
        check(program in ha.states()[select]["attributes"]["options"], f"select offers and shows {program!r}")
    sender.close()
    ha.service("select", "select_option", entity_id=select, option="tabata")
    wait_for(lambda: current(select) == "tabata", what="select tabata")
    check(rate_round <= 10 and rate_clock == 0, f"recorder: {rate_round:.1f} rows a minute in a round, {rate_clock:.1f} in clock mode")


if __name__ == "__main__":
    main()
