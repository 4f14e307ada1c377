#!/usr/bin/env python3
"""MQTT and Home Assistant discovery against a real Mosquitto (docs/mqtt-home-assistant.md):
a real `roundclock run --simulate` and `roundclock-gateway` with `[mqtt]`, and
paho-mqtt as the independent client. Status seen from before the gateway starts (`online`
once, never `offline` on the way), retained state and status, the discovery payloads
checked against Home Assistant's documented schema with every template rendered by Jinja2,
commands on `cmd` (live edits too) changing the clock's frames, malformed commands ignored
with one log line each, broker killed and restarted, gateway stopped and killed (will), a
password file, TLS.

    python3 Gateway/Tests/e2e/mqtt_check.py
"""
import json
import os
import re
import signal
import socket
import sys
import time

import jinja2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rc_harness import CONFIG, Rig, wait_for  # noqa: E402
from mqtt_harness import Broker, Checker  # noqa: E402

PREFIX = "roundclock/e2e"
DISCOVERY = "homeassistant"
ID_CHARS = re.compile(r"^[a-zA-Z0-9_-]+$")
# Home Assistant's documented options (integrations/mqtt, button.mqtt, select.mqtt,
# sensor.mqtt) this gateway may use, and the ones each component requires.
COMMON = {"name", "unique_id", "availability_topic", "payload_available", "payload_not_available", "qos", "icon", "device", "origin"}
ALLOWED = {"button": COMMON | {"command_topic", "payload_press"},
           "select": COMMON | {"command_topic", "command_template", "state_topic", "value_template", "options"},
           "sensor": COMMON | {"state_topic", "value_template", "device_class", "state_class", "options", "unit_of_measurement",
                               "enabled_by_default"}}
ENTITIES = 13
REQUIRED = {"button": {"command_topic"}, "select": {"command_topic", "options"}, "sensor": {"state_topic"}}
DEVICE_KEYS = {"identifiers", "name", "manufacturer", "model", "sw_version"}


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok:", message)


def seconds(text):
    """The time panel's `M:SS` as whole seconds."""
    minutes, _, secs = text.strip().partition(":")
    return int(minutes) * 60 + int(secs)


def state_of(checker):
    got = checker.get(f"{PREFIX}/state")
    return json.loads(got[0]) if got else None


def time_frames(rig):
    return [f for f in rig.frame_lines() if f.get("panel") == "time"]


def socket_command(rig, command):
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(30)
        s.connect(rig.socket)
        s.sendall((json.dumps({"command": command}) + "\n").encode())
        return s.makefile().readline()


def ignored_lines(rig):
    return [l for l in rig.gateway_log if f"MQTT {PREFIX}/cmd: ignored:" in l]


def check_discovery(checker, state):
    configs = wait_for(lambda: (lambda c: c if len(c) == ENTITIES else None)(checker.topics(DISCOVERY + "/")),
                       what=f"{ENTITIES} discovery configs")
    components, unique_ids = {}, set()
    for topic, payload in sorted(configs.items()):
        retained = checker.get(topic)[1]
        parts = topic.split("/")
        assert len(parts) == 5 and parts[0] == DISCOVERY and parts[4] == "config", topic
        component, node, obj = parts[1:4]
        assert ID_CHARS.match(node) and ID_CHARS.match(obj), f"node and object ids are [a-zA-Z0-9_-]: {topic}"
        config = json.loads(payload)
        assert isinstance(config, dict) and retained, topic
        assert REQUIRED[component] <= set(config), f"{topic}: required {REQUIRED[component] - set(config)}"
        assert set(config) <= ALLOWED[component], f"{topic}: undocumented {set(config) - ALLOWED[component]}"
        assert config["availability_topic"] == f"{PREFIX}/status", topic
        assert config.get("command_topic", f"{PREFIX}/cmd") == f"{PREFIX}/cmd", topic
        assert config.get("state_topic", f"{PREFIX}/state") == f"{PREFIX}/state", topic
        assert DEVICE_KEYS <= set(config["device"]) and config["device"]["identifiers"] == [node], topic
        assert config["origin"]["name"] == "roundclock-gateway", topic
        assert config["unique_id"] not in unique_ids, f"unique_id {config['unique_id']} twice"
        unique_ids.add(config["unique_id"])
        components.setdefault(component, {})[obj] = config
    check(sorted(components["button"]) == ["add_10_s", "back", "next_program", "reset", "start", "stop", "subtract_10_s"]
          and list(components["select"]) == ["program"]
          and sorted(components["sensor"]) == ["phase", "phase_ends_at", "remaining", "round", "state"],
          "discovery: 7 buttons, a select and 5 sensors, retained, required keys present, only documented keys, "
          f"topics consistent, {ENTITIES} unique unique_ids, one device")
    devices = {json.dumps(c["device"], sort_keys=True) for kind in components.values() for c in kind.values()}
    check(len(devices) == 1, f"one device block: {devices.pop()}")
    env = jinja2.Environment()
    sensors = {obj: env.from_string(c["value_template"]).render(value_json=state) for obj, c in components["sensor"].items()}
    select = components["select"]["program"]
    return components, sensors, env.from_string(select["value_template"]).render(value_json=state), env, select


def main_run(broker):
    config = CONFIG + broker.config(PREFIX)
    # Subscribed before the gateway starts: Home Assistant's view of `status`.
    watcher = Checker(broker, [f"{PREFIX}/status"])
    watcher.wait_subscribed()
    with Rig(config=config) as rig:
        # Status and state both published (the state comes once the clock's first line has
        # reached the gateway, which may be after the broker's connect on a busy machine).
        first = Checker(broker, [f"{PREFIX}/status", f"{PREFIX}/state"])
        wait_for(lambda: (first.get(f"{PREFIX}/status") or (0,))[0] == b"online", what="status online")
        wait_for(lambda: (state_of(first) or {}).get("remaining") == 300, what="the ready session's report")
        first.close()
        # Subscribed after the gateway published: what comes now is what the broker retained.
        checker = Checker(broker, [f"{PREFIX}/#", f"{DISCOVERY}/#"])
        wait_for(lambda: checker.get(f"{PREFIX}/status") == (b"online", True), what="retained status online")
        state = wait_for(lambda: state_of(checker), what="the retained state")
        check(state["state"] == "ready" and state["program"] == "countdown:5:00" and state["remaining"] == 300
              and state["phase_ends_at"] is None and "panels" not in state,
              f"retained {PREFIX}/state is the session's report: {json.dumps(state)}")
        check(checker.get(f"{PREFIX}/state")[1] and checker.get(f"{PREFIX}/status")[1], "state and status came retained")

        components, sensors, selected, env, select = check_discovery(checker, state)
        check(selected == "countdown:5:00" and sensors == {"remaining": "300", "phase": state["phase"], "round": str(state["round"]),
                                                            "state": "ready", "phase_ends_at": "None"},
              f"templates on the state: {sensors}, program {selected}")
        options = select["options"]
        check(options[0] == "boxing" and options[-2:] == ["sparring", "countdown:5:00"],
              f"select options: presets, [programs], then the running program they lack: {options}")

        # Commands: exactly what Home Assistant sends (payload_press, the rendered command_template).
        press = lambda obj: checker.publish(f"{PREFIX}/cmd", components["button"][obj]["payload_press"])
        press("next_program")
        moved = wait_for(lambda: (s := state_of(checker)) and s["program"] != "countdown:5:00" and s, what="MODE via MQTT")
        check(moved["program"] == options[0], f"button next_program (mode): program {moved['program']}")
        checker.publish(f"{PREFIX}/cmd", env.from_string(select["command_template"]).render(value="sparring"))
        wait_for(lambda: (s := state_of(checker)) and s["program"] == "sparring", what="select sparring")
        check(True, "select: command_template sent sparring, the state says sparring")
        press("start")
        wait_for(lambda: any(f["state"] == "running" for f in time_frames(rig)), what="running in the frames file")
        check(True, "button start: the frames file shows the clock running")
        press("stop")
        wait_for(lambda: time_frames(rig) and time_frames(rig)[-1]["state"] == "paused", what="paused in the frames file")
        paused = wait_for(lambda: (s := state_of(checker)) and s["state"] == "paused" and s, what="paused state on MQTT")
        shown = time_frames(rig)[-1]["text"]
        rendered = env.from_string(components["sensor"]["remaining"]["value_template"]).render(value_json=paused)
        check(rendered == str(seconds(shown)) and paused["phase_ends_at"] is None,
              f"sensor remaining renders {rendered!r}, the time panel shows {shown!r}")
        for obj in ("phase", "round", "state"):
            value = env.from_string(components["sensor"][obj]["value_template"]).render(value_json=paused)
            check(value == str(time_frames(rig)[-1][obj]), f"sensor {obj} renders {value!r} as the frames file says")
        # The live edits Home Assistant's buttons send, on the paused clock skipped into round 1
        # (2:00): 10 s less, then 10 s more.
        checker.publish(f"{PREFIX}/cmd", b'{"command": "skip"}')
        wait_for(lambda: time_frames(rig)[-1]["text"].strip() == "2:00", what="skip into round 1")
        for payload, expected in (('{"command": "adjust", "seconds": -10}', 110), ('{"command": "adjust", "seconds": 10}', 120)):
            checker.publish(f"{PREFIX}/cmd", payload.encode())
            wait_for(lambda: seconds(time_frames(rig)[-1]["text"]) == expected and time_frames(rig)[-1]["state"] == "paused",
                     what=f"{payload} in the frames file")
            check(True, f"{payload}: the time panel shows {time_frames(rig)[-1]['text']!r}, still paused")
        press("reset")
        wait_for(lambda: time_frames(rig)[-1]["state"] == "ready", what="ready after reset")
        check(True, "button reset: ready again")

        # Malformed commands: ignored, at most one line at once (the rest are summed up once a
        # minute and at shutdown), the clock untouched, the gateway running.
        before = len(ignored_lines(rig))
        frames_before = len(rig.frame_lines())
        bad = [b"not json", b'{"command": 5}', b'{"command": "start", "extra": 1}', b"x" * 1_000_000,
               b'\xff\xfe{"command": "start"}', b'{"command": "fly"}', b'{"command": "subscribe"}',
               b'{"command": "adopt", "token": 1, "session": {}}', b"[]", b'{"command": "program", "program": 7}', b""]
        for payload in bad:
            checker.publish(f"{PREFIX}/cmd", payload)
        press("next_program")  # processed after the bad ones: when it shows, they were all handled
        wait_for(lambda: (s := state_of(checker)) and s["program"] != "sparring", what="the command after the bad ones")
        lines = ignored_lines(rig)[before:]
        check(len(lines) <= 1, f"{len(bad)} malformed payloads, {len(lines)} log lines at once: {lines}")
        check(all(f["state"] == "ready" for f in rig.frame_lines()[frames_before:] if "state" in f), "the clock stayed ready")
        check(rig.gateway.poll() is None and rig.clock.poll() is None, "gateway and clock still running")

        check(watcher.statuses(f"{PREFIX}/status") == [b"online"],
              f"seen from before the gateway started: status {watcher.statuses(f'{PREFIX}/status')}, never offline")
        watcher.close()

        # Broker killed mid-round and restarted empty: the gateway reconnects and republishes.
        checker.close()
        socket_command(rig, "start")
        wait_for(lambda: time_frames(rig)[-1]["state"] == "running", what="running before the broker dies")
        broker.kill()
        wait_for(lambda: any("lost MQTT broker" in l for l in rig.gateway_log), what="the gateway's lost line")
        socket_command(rig, "stop")  # a change while the broker is gone
        wait_for(lambda: time_frames(rig)[-1]["state"] == "paused", what="paused while the broker is down")
        broker.start()
        checker = Checker(broker, [f"{PREFIX}/#", f"{DISCOVERY}/#"])
        wait_for(lambda: (checker.get(f"{PREFIX}/status") or (0,))[0] == b"online", what="status online after the restart")
        checker.close()
        checker = Checker(broker, [f"{PREFIX}/#", f"{DISCOVERY}/#"])  # now all of it comes retained
        state = wait_for(lambda: state_of(checker), what="the state after the restart")
        check(state["state"] == "paused" and state["remaining"] == seconds(time_frames(rig)[-1]["text"]),
              f"broker restarted: status online and the current state ({state['state']} {state['remaining']} s) republished")
        check_discovery(checker, state)
        connects = [l for l in rig.gateway_log if "connected to MQTT broker" in l]
        check(len(connects) == 2, f"two connects logged: {connects[-1]}")

        # Gateway stopped: a clean `offline`, once; started again: `online`, once, and no
        # `offline` on the way; killed: the broker publishes the will.
        wait_for(lambda: checker.statuses(f"{PREFIX}/status"), what="the retained status")
        check(checker.statuses(f"{PREFIX}/status") == [b"online"], "after the broker's restart: status online, never offline")
        before_stop = len(checker.all)
        rig.gateway.send_signal(signal.SIGTERM)
        rig.gateway.wait(timeout=60)
        wait_for(lambda: checker.get(f"{PREFIX}/status")[0] == b"offline", what="offline after SIGTERM")
        check(rig.gateway.returncode == 0 and checker.statuses(f"{PREFIX}/status", before_stop) == [b"offline"],
              "gateway stopped (SIGTERM): status offline once, exit 0")
        summary = [l for l in rig.gateway_log if f"MQTT {PREFIX}/cmd: " in l and "more commands ignored" in l]
        count = int(summary[-1].split(f"MQTT {PREFIX}/cmd: ")[1].split(" ")[0]) if summary else 0
        check(count >= len(bad) - 1, f"the malformed payloads summed up at shutdown: {summary[-1] if summary else None}")
        before_start = len(checker.all)
        rig.start_gateway()
        wait_for(lambda: checker.get(f"{PREFIX}/status")[0] == b"online", what="online again")
        # A reconnect of a starved gateway (keepalive 5 s) may say online again; never offline.
        started = checker.statuses(f"{PREFIX}/status", before_start)
        check(started[:1] == [b"online"] and b"offline" not in started,
              f"gateway started again: online first, never offline (statuses since: {started})")
        rig.gateway.send_signal(signal.SIGKILL)
        rig.gateway.wait(timeout=30)
        wait_for(lambda: checker.get(f"{PREFIX}/status")[0] == b"offline", what="the last will")
        late = Checker(broker, [f"{PREFIX}/status"])
        wait_for(lambda: late.get(f"{PREFIX}/status") == (b"offline", True), what="the will retained")
        check(True, "gateway killed (SIGKILL): the broker published the retained will offline")
        late.close()
        checker.close()


def rate_run(broker):
    """State messages a minute with a real clock: a running interval program (a phase change
    every 10 to 20 s, more than any preset) and clock mode, each for RATE_SECONDS."""
    window = float(os.environ.get("RATE_SECONDS", "60"))
    config = CONFIG + broker.config(PREFIX)
    with Rig(config=config) as rig:
        checker = Checker(broker, [f"{PREFIX}/#"])
        wait_for(lambda: (checker.get(f"{PREFIX}/status") or (0,))[0] == b"online", what="status online")
        rates = {}
        for name, program, start in (("interval 10 x 0:20/0:10", "10 x 0:20/0:10, prep 0:05", True), ("clock mode", "clock", False)):
            socket_command(rig, "reset")
            checker.publish(f"{PREFIX}/cmd", json.dumps({"command": "program", "program": program}))
            wait_for(lambda: (s := state_of(checker)) and s["program"] == program, what=f"program {program}")
            if start:
                socket_command(rig, "start")
                wait_for(lambda: (s := state_of(checker)) and s["state"] == "running", what="running")
            before = len([m for m in checker.all if m[0] == f"{PREFIX}/state"])
            frames_before = len(rig.frame_lines())
            time.sleep(window)
            count = len([m for m in checker.all if m[0] == f"{PREFIX}/state"]) - before
            rates[name] = (count * 60 / window, len(rig.frame_lines()) - frames_before)
        checker.close()
    for name, (rate, frames) in rates.items():
        print(f"rate: {name}: {rate:.1f} state messages a minute ({frames} frames lines in {window:.0f} s)")
    check(all(rate <= 10 for rate, _ in rates.values()) and rates["clock mode"][0] == 0,
          "at most 10 state messages a minute while running, none in clock mode")


def password_run():
    with Broker(users={"clock": "s3cret", "checker": "peek"}) as broker:
        directory = broker.dir
        for name, password in (("right", "s3cret\n"), ("wrong", "guess\n")):
            with open(os.path.join(directory, name), "w") as f:
                f.write(password)
        config = CONFIG + broker.config(PREFIX, username="clock", password_file=os.path.join(directory, "right"))
        with Rig(config=config) as rig:
            checker = Checker(broker, [f"{PREFIX}/status"], username="checker", password="peek")
            wait_for(lambda: (checker.get(f"{PREFIX}/status") or (0,))[0] == b"online", what="online with a password")
            check(True, "username + password_file: connected, status online")
            checker.close()
        config = CONFIG + broker.config(PREFIX, username="clock", password_file=os.path.join(directory, "wrong"))
        with Rig(config=config) as rig:
            line = wait_for(lambda: next((l for l in rig.gateway_log if "refused the connection" in l), None), what="the refusal")
            check("not authorised" in line and rig.gateway.poll() is None, f"wrong password: refused, one line: {line}")


def tls_run():
    with Broker(tls=True) as broker:
        config = CONFIG + broker.config(PREFIX, ca_file=broker.ca_file)
        with Rig(config=config) as rig:
            checker = Checker(broker, [f"{PREFIX}/#"])
            wait_for(lambda: (checker.get(f"{PREFIX}/status") or (0,))[0] == b"online", what="online over TLS")
            state = wait_for(lambda: state_of(checker), what="the state over TLS")
            line = next(l for l in rig.gateway_log if "connected to MQTT broker" in l)
            check("over TLS" in line and state["state"] == "ready", f"TLS with a CA file: {line}")
            checker.close()


def main():
    with Broker() as broker:
        main_run(broker)
    with Broker() as broker:
        rate_run(broker)
    password_run()
    tls_run()
    print("MQTT check: all passed")


if __name__ == "__main__":
    main()
