#!/usr/bin/env python3
"""The PIN on the clock's panels (docs/remote.md "The PIN"), against a real gateway and clock:
a gateway no phone has logged in to shows its PIN on the ready panels, a part at a time; the
state lines that leave the clock show only dashes; a command gives the panels back; once a
phone is known, a restarted clock hears the PIN but does not show it.

    python3 Gateway/Tests/e2e/pin_check.py
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rc_harness import CONFIG, PIN, Rig, wait_for  # noqa: E402


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok:", message)


def texts(rig):
    """The panels' texts after each frame, in order."""
    shown, out = {}, []
    for frame in rig.frame_lines():
        if "panel" in frame and "text" in frame:
            shown[frame["panel"]] = frame["text"]
        out.append(dict(shown))
    return out


def main():
    # The harness's config keeps the PIN off the panels for the other checks; this one wants it.
    with Rig(config=CONFIG.replace("pin_on_panels = false", "pin_on_panels = true")) as rig:
        first = wait_for(lambda: next((t for t in texts(rig) if t.get("phase") == "PIN1"), None), what="PIN1 on the phase panel")
        check(first["time"] == PIN[:4], f"no phone yet: the panels show PIN1 {first['time']!r}")
        second = wait_for(lambda: next((t for t in texts(rig) if t.get("phase") == "PIN2"), None), what="PIN2 on the phase panel")
        check(second["time"] == PIN[4:] + "  ", f"then PIN2 {second['time']!r}: the time panel's four digits at a time")
        cookie = rig.login()
        status, _, body, _ = rig.request("GET", "/api/state", cookie=cookie)
        state = json.loads(body)
        check(status == 200 and state["panels"]["phase"] == "PIN-" and set(state["panels"]["time"].strip()) == {"-"},
              f"the state line the phone gets shows dashes, never the digits: {state['panels']}")
        check(PIN not in body.decode() and PIN[:4] not in body.decode(), "the PIN is nowhere in the state line")
        status, reply = rig.command(cookie, "start")
        check(status == 200 and reply == {"ok": True}, "START from the phone")
        wait_for(lambda: texts(rig)[-1].get("phase") not in ("PIN1", "PIN2"), what="the panels back to the round")
        print("ok: a command gives the panels back")
        status = rig.request("POST", "/api/command", {"command": "show-pin", "pin": "1111", "seconds": 600}, cookie=cookie)[0]
        check(status == 400, "a phone cannot send show-pin: 400")
        rig.command(cookie, "reset")

        # A phone is known now: a restarted clock hears the PIN (for the gesture) but shows nothing.
        rig.stop_clock()
        os.remove(rig.frames)
        rig.start_clock()

        def reachable():
            s, _, b, _ = rig.request("GET", "/api/state", cookie=cookie)
            return s == 200 and json.loads(b).get("state") == "ready"
        wait_for(reachable, what="the gateway to reach the restarted clock")
        check(not any(t.get("phase", "").startswith("PIN") for t in texts(rig)),
              "a phone is known: the restarted clock shows no PIN")
    print("PIN check: all passed")


if __name__ == "__main__":
    main()
