#!/usr/bin/env python3
"""The clock's control socket for the apt repository VM's checks (docs/control-protocol.md).

  control.py send JSON            one request; prints its reply line
  control.py state FILE           version, then subscribe: writes the clock's version, the
                                  first state line and the wall-clock instants (ns) just before
                                  connecting and just after reading it, as JSON, to FILE
  control.py goes-on BEFORE AFTER the round of BEFORE went on in AFTER, as a restart in the
                                  same boot promises (docs/service.md): prints what it saw;
                                  exit 0 if so
"""
import json, math, socket, sys, time

SOCKET = "/run/roundclock/control.sock"
ANCHOR_SLACK_NS = 5_000_000        # a restart maps the anchor through CLOCK_BOOTTIME again
DISPLAY_SLACK_S = 1.5              # the last display change before the read, under TCG


def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    s.connect(SOCKET)
    return s, s.makefile("r", encoding="utf-8", newline="\n")


def send(request):
    s, lines = connect()
    s.sendall((request + "\n").encode())
    print(lines.readline().strip())


def state(path):
    before = time.time_ns()
    s, lines = connect()
    s.sendall(b'{"command": "version"}\n{"command": "subscribe"}\n')
    version, line = None, None
    while line is None:
        message = json.loads(lines.readline())
        if "clock" in message:
            version = message["clock"]
        elif "state" in message:
            line = message
    after = time.time_ns()
    with open(path, "w") as f:
        json.dump({"before_ns": before, "after_ns": after, "clock": version, "line": line}, f)


def seconds(text):
    """' 2:59' -> 179, '10:00' -> 600, '1:02:03' -> 3723; None if not a time."""
    try:
        value = 0
        for part in text.strip().split(":"):
            value = value * 60 + int(part)
        return value
    except ValueError:
        return None


def shown_at(definition, elapsed_s):
    """(phase, round, seconds on the time panel) possible at elapsed_s into the program."""
    start = 0.0
    for phase in definition["phases"]:
        length = phase["length_ns"] / 1e9 if phase["length_ns"] is not None else math.inf
        if elapsed_s < start + length:
            into = elapsed_s - start
            value = into if phase.get("counting") == "up" else length - into
            return {(phase["kind"], phase["round"], f(value)) for f in (math.floor, math.ceil)}
        start += length
    return set()


def elapsed_s(session, at_ns):
    return (session["elapsed_before_ns"] + at_ns - session["anchor_realtime_ns"]) / 1e9


def goes_on(before_path, after_path):
    before, after = (json.load(open(p)) for p in (before_path, after_path))
    b, a = before["line"], after["line"]
    bs, as_ = b["session"], a["session"]
    seen = (f"after: {a['state']} {a['program']} {a['phase']} round {a['round']}, time panel "
            f"'{a['panels'].get('time')}', session {json.dumps(as_)}; before: {b['state']} "
            f"{b['program']}, session {json.dumps(bs)}")
    if not (b["state"] == "running" and bs["run"] == "running"):
        return False, "the round was not running before: " + seen
    if not (a["state"] == "running" and as_["run"] == "running" and as_["program"] == bs["program"]
            and a["program"] == b["program"]):
        return False, "not running the same program: " + seen
    if as_["elapsed_before_ns"] != bs["elapsed_before_ns"]:
        return False, "the running time before the run changed: " + seen
    moved = as_["anchor_realtime_ns"] - bs["anchor_realtime_ns"]
    if abs(moved) > ANCHOR_SLACK_NS:
        return False, f"the run's start moved by {moved / 1e6:.3f} ms: " + seen
    lo, hi = elapsed_s(as_, after["before_ns"]), elapsed_s(as_, after["after_ns"])
    earlier = elapsed_s(bs, before["after_ns"])
    if not lo > earlier:
        return False, f"elapsed {lo:.1f} s is not later than {earlier:.1f} s before: " + seen
    # the definition comes with a subscriber's first line; the program is the same in both
    definition = a.get("definition") or b.get("definition")
    shown = (a["phase"], a["round"], seconds(a["panels"].get("time", "")))
    possible = set()
    steps = int((hi - lo + 2 * DISPLAY_SLACK_S) / 0.05) + 1
    for i in range(steps + 1):
        possible |= shown_at(definition, lo - DISPLAY_SLACK_S + i * 0.05)
    if shown not in possible:
        return False, (f"the panel shows {shown} at {lo:.2f}-{hi:.2f} s of wall time into the "
                       f"round (possible within {DISPLAY_SLACK_S} s: {sorted(possible)}): " + seen)
    return True, (f"{a['program']} still running from the same start (anchor moved "
                  f"{moved / 1e3:.0f} us), {lo:.1f} s into the round by wall time (was "
                  f"{earlier:.1f} s), panel '{a['panels'].get('time').strip()}' {a['phase']} "
                  f"round {a['round']} of {a['rounds']} as the wall time says, clock {after['clock']}")


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "send":
        send(sys.argv[2])
    elif command == "state":
        state(sys.argv[2])
    elif command == "goes-on":
        ok, text = goes_on(sys.argv[2], sys.argv[3])
        print(text)
        sys.exit(0 if ok else 1)
    else:
        sys.exit(f"control.py: unknown command {command}")
