#!/usr/bin/env python3
"""A group's time against a forger on its broker (docs/sync.md "Group time"): two members
(`roundclock run --simulate --frames-clock monotonic` + `roundclock-gateway` in one group) on a
real Mosquitto, in network namespaces when run as root, while another client of the broker
(sync_forger.py, in the broker's namespace) answers every ask it sees with crafted answers,
for the asker's real outstanding sequence: the out-of-range payload that once crashed a
gateway, other extremes, answers seconds or milliseconds off, `sent_ns` before `received_ns`.
Meanwhile this script publishes crafted presences (a ghost reference with a low id that never
answers, a member with a low id that never takes the role, garbage, the real members' own
presences emptied or changed) and crafted session messages (versions and anchors out of range,
a stale one, valid ones at the ranges' ends).

Checked: both gateways and both clocks stay up; each gateway logs the refusals and the
conflicting answers, and the number of its log lines stays bounded however many messages the
forger sends; `/api/state`'s `group_time` says synced (one member the reference, the other
synced to it) within `--deadline` after each forgery and at the end; a START on one clock
shows on the other's display (the command's latency printed) and both show the same seconds.

The seed is printed; `--seed` replays the forger's choices and this script's.

    python3 Gateway/Tests/e2e/sync_forgery_check.py
    python3 Gateway/Tests/e2e/sync_forgery_check.py --seed 12345 --seconds 180
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rc_harness import CLOCK_UNIT, GATEWAY_UNIT, describe_scheduling, terminate, unit_scheduling, wait_for  # noqa: E402
from sync_harness import GROUP, TOPIC, Group, agreement, monotonic  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
GHOST = "a-ghost"
IDLE = "a-idle"
MEMBERS_TOPIC = f"roundclock/group/{GROUP}/members/"
INT64_MAX = 2**63 - 1
INSTANT_MAX = 4 * 10**18
# docs/sync.md: versions up to 2^53 - 1; a session's elapsed time up to 100 years.
VERSION_MAX = 2**53 - 1
ELAPSED_MAX = 100 * 366 * 86_400 * 10**9
# What each gateway logs about the forgery, counted.
KINDS = {
    "malformed time messages": "group time: message ignored, malformed",
    "malformed-message summaries": "more malformed messages ignored",
    "malformed presences": "presence of",
    "conflicting answers": "had two different answers",
    "silent references": "has not answered for",
    "malformed session messages": "group message ignored, malformed",
    "stale session messages": "group message ignored, stale",
}


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok:", message, flush=True)


class Forger:
    """sync_forger.py in the broker's namespace; its lines read as they come."""

    def __init__(self, group, seed):
        args = group.network.prefix() + [sys.executable, os.path.join(HERE, "sync_forger.py"), "--port", str(group.network.port),
                                         "--group", GROUP, "--seed", str(seed), "--ghost", GHOST]
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.lines = []
        threading.Thread(target=self._read, daemon=True).start()
        wait_for(lambda: "ready" in self.lines or self.process.poll() is not None, what="the forger to subscribe")
        assert self.process.poll() is None, "sync_forger.py exited: " + "\n".join(self.lines)

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def asks(self, containing=""):
        return [l for l in list(self.lines) if l.startswith("ask ") and containing in l]

    def stop(self):
        """Stops the forger; returns its totals."""
        terminate(self.process)
        wait_for(lambda: any(l.startswith("totals ") for l in self.lines) or self.process.poll() is not None and
                 not any(l.startswith("totals ") for l in self.lines) and "exited", what="the forger's totals")
        line = next((l for l in self.lines if l.startswith("totals ")), None)
        return json.loads(line.split(" ", 1)[1]) if line else None


class Check:
    def __init__(self, group, args):
        self.group = group
        self.args = args
        self.members = group.members
        self.rng = random.Random(args.seed)

    # -- the members' health -------------------------------------------------------------
    def alive(self):
        """Raises at once when a gateway or a clock has exited, with its log's end."""
        for m in self.members:
            for name, process in (("gateway", m.gateway), ("clock", m.clock)):
                if process.poll() is not None:
                    log = m.gateway_log() if name == "gateway" else m.clock_log().splitlines()
                    # A crash report: its first line and the frames in the project's sources.
                    start = next((i for i, l in enumerate(log) if "crashed" in l or "Fatal error" in l), None)
                    crash = [] if start is None else [log[start]] + [l for l in log[start:] if " at /" in l][:8]
                    raise AssertionError(f"{m.name}'s {name} exited with status {process.returncode}; its log ends:\n"
                                         + "\n".join(crash or log[-15:]))
        return True

    def wait(self, predicate, what, timeout=None, step=0.05):
        return wait_for(lambda: self.alive() and predicate(), timeout=timeout or self.args.deadline, step=step, what=what)

    def group_time(self):
        return [m.api_state()["group_time"] for m in self.members]

    def one_time(self):
        """`/api/state`'s group_time of each member when one is the reference and the other
        synced to it; else None."""
        states = self.group_time()
        references = [m.name for m, s in zip(self.members, states) if s["state"] == "reference"]
        if len(references) == 1 and all(s["state"] == "synced" and s["reference"] == references[0]
                                        for m, s in zip(self.members, states) if m.name != references[0]):
            return states
        return None

    def wait_one_time(self, label):
        start = monotonic()
        states = self.wait(self.one_time, f"one group time after {label}", step=1.0)
        check(True, f"{label}: /api/state says one group time within {monotonic() - start:.1f} s: "
                    + "; ".join(f"{m.name} {s['state']}" + (f" to {s['reference']} (within {s['error_ms']} ms)"
                                                              if s["state"] == "synced" else "")
                                for m, s in zip(self.members, states)))

    def log_lines(self, m):
        return len(m.gateway_log())

    def wait_log(self, m, text, after, what=None):
        return self.wait(lambda: next((l for l in m.gateway_log()[after:] if text in l), None),
                         what or f"{m.name}'s gateway to log {text!r}")

    # -- the displays --------------------------------------------------------------------
    def command_reaches(self, issuer, word, state):
        """`word` on `issuer`'s socket; waits until both members' displays show `state` and
        returns how long after the command the other member's first did (s)."""
        other = next(m for m in self.members if m is not issuer)
        sent = monotonic()
        check(issuer.command(word) == {"ok": True}, f"{word.upper()} on {issuer.name}'s socket")

        def shown():
            first = next((f["t"] for f in other.frames_lines() if f["t"] >= sent and f.get("state") == state), None)
            return first if first is not None and all((m.shown() or (0, "", ""))[2] == state for m in self.members) else None
        return self.wait(shown, f"both displays to show {state} after {word.upper()} on {issuer.name}") - sent

    def start_reaches(self, issuer, label):
        """START on `issuer` (paused or ready first: STOP if it runs); both count the same seconds."""
        if (issuer.shown() or (0, "", ""))[2] == "running":
            self.command_reaches(issuer, "stop", "paused")
        latency = self.command_reaches(issuer, "start", "running")
        after = monotonic()
        spreads = self.wait(lambda: agreement(self.members, after), "both members to count the same seconds")
        check(True, f"{label}: START on {issuer.name} shown on the other member's display {latency * 1000:.1f} ms later; "
                    f"both count the same seconds (spread of 3 changes <= {max(spreads) * 1000:.1f} ms)")

    # -- crafted messages ----------------------------------------------------------------
    def publish_each(self, cases, topic, want, who=None):
        """Publishes each (label, payload) retained on `topic`; waits for every member (or
        `who`) to log `want` for it."""
        for label, payload in cases:
            marks = {m.name: self.log_lines(m) for m in self.members}
            self.group.broker.publish(topic, payload)
            for m in who or self.members:
                self.wait_log(m, want, marks[m.name])
            check(True, f"session message with {label} ({len(payload):,} bytes): {', '.join(m.name for m in who or self.members)} "
                        f"logged {want!r}")

    def sessions(self):
        current = json.loads(self.group.broker.retained(TOPIC))
        v = current["version"]
        anchor = current["anchor_realtime_ns"] or current["issued_realtime_ns"]
        running = dict(current, run="running", anchor_realtime_ns=anchor)
        return current, [
            ("version 2^53", dict(current, version=VERSION_MAX + 1)),
            ("version 1e300", dict(current, version=1e300)),
            ("version -1", dict(current, version=-1)),
            ("version 2^64", dict(current, version=2**64 + self.rng.randint(0, 99))),
            ("anchor -1", dict(running, version=v + 1, anchor_realtime_ns=-1)),
            ("anchor 4e18 + 1", dict(running, version=v + 1, anchor_realtime_ns=INSTANT_MAX + 1)),
            ("anchor Int64.max", dict(running, version=v + 1, anchor_realtime_ns=INT64_MAX)),
            ("issued Int64.max", dict(current, version=v + 1, issued_realtime_ns=INT64_MAX)),
            ("elapsed 2^63 - 1", dict(current, version=v + 1, run="paused", anchor_realtime_ns=None,
                                      elapsed_before_ns=INT64_MAX)),
        ]

    def valid_extremes(self, current):
        """Session messages that read well, at the ranges' ends, each a version above the last."""
        v = current["version"]
        issued = current["issued_realtime_ns"]
        base = dict(current, member="zz-forger", issued_realtime_ns=issued)
        return [
            ("paused 100 years in", dict(base, version=v + 1, run="paused", anchor_realtime_ns=None, elapsed_before_ns=ELAPSED_MAX)),
            ("running since group time 0", dict(base, version=v + 2, run="running", anchor_realtime_ns=0,
                                                elapsed_before_ns=0)),
            ("running from group time 4e18", dict(base, version=v + 3, run="running", anchor_realtime_ns=INSTANT_MAX,
                                                  elapsed_before_ns=ELAPSED_MAX)),
            ("running from now, 100 years in", dict(base, version=v + 4, run="running", anchor_realtime_ns=issued,
                                                    elapsed_before_ns=ELAPSED_MAX)),
        ]

    # -- the run -------------------------------------------------------------------------
    def run(self):
        a, b = self.members
        for m in self.members:
            self.wait_log(m, "connected to MQTT broker", 0)
        self.wait(lambda: self.group.broker.retained(TOPIC), "a group session on the broker")
        self.wait_log(a, "group time: this member is the reference", 0)
        self.wait_log(b, "group time: synced to the reference member-0", 0)
        self.wait_one_time("the start")
        self.start_reaches(a, "before the forger")

        marks = {m.name: self.log_lines(m) for m in self.members}
        forger = Forger(self.group, self.args.seed)
        began = monotonic()
        try:
            self.forge(forger, marks, began)
        finally:
            totals = forger.stop()
        if totals:
            print(f"forger: {totals['asks']} asks answered with {sum(totals['answers'].values())} crafted answers: "
                  + ", ".join(f"{k} {n}" for k, n in totals["answers"].items()), flush=True)
        self.alive()
        check(True, "both gateways and both clocks still running")

    def forge(self, forger, marks, began):
        a, b = self.members
        # Crafted answers to real asks, the crash's payload among them.
        self.wait(lambda: len(forger.asks(f"from {b.name}")) >= 20 and len(forger.asks("int64-max")) >= 3,
                  "the forger to answer 20 asks")
        crashes = len(forger.asks("int64-max"))
        self.wait_log(b, "had two different answers", marks[b.name])
        check(True, f"the forger answered {len(forger.asks())} asks ({crashes} with received_ns Int64.max, sent_ns 0); "
                    f"{b.name}'s gateway is up and logged that asks had two different answers")
        self.wait_one_time("crafted answers")

        # Crafted session messages: refused, or stale (answered with the current one).
        current, malformed = self.sessions()
        self.publish_each([(label, json.dumps(message).encode()) for label, message in malformed], TOPIC,
                          "group message ignored, malformed")
        stale = dict(current, version=max(0, current["version"] - 1), member="zz-forger", run="running",
                     anchor_realtime_ns=INSTANT_MAX, elapsed_before_ns=0)
        self.publish_each([("a lower version at anchor 4e18", json.dumps(stale).encode())], TOPIC, "group message ignored, stale")
        self.wait(lambda: json.loads(self.group.broker.retained(TOPIC)) == current,
                  "the broker to retain the current session again")
        check(True, "the stale message was answered: the broker retains the current session again")

        # A ghost reference with a low id that never answers, a low id that never takes the
        # role, and garbage presences.
        marks_ghost = {m.name: self.log_lines(m) for m in self.members}
        garbage = [("zz-bad1", b"{\"role\": \"reference\", \"synced\": "), ("zz-bad2", b'{"role": "boss", "synced": true}'),
                   ("zz-bad3", json.dumps({"role": "member", "synced": True, "pad": "x" * 600}).encode()),
                   ("zz-bad4", b'{"role": "member", "synced": "yes"}'), ("zz-bad5", b"[1, 2, 3]")]
        for member, payload in [(GHOST, b'{"role": "reference", "synced": true}'),
                                (IDLE, b'{"role": "member", "synced": false}')] + garbage:
            self.group.broker.publish(MEMBERS_TOPIC + member, payload)
        for m in self.members:
            # A line of its own, or counted in the minute's sum once the forger's answers
            # have taken the minute's lines.
            self.wait(lambda: any("presence of zz-bad5 ignored, malformed" in l or KINDS["malformed-message summaries"] in l
                                  for l in m.gateway_log()[marks_ghost[m.name]:]),
                      f"{m.name}'s gateway to log the malformed presence or a sum of the malformed messages")
            self.wait_log(m, f"{GHOST} has not answered for", marks_ghost[m.name])
        check(True, f"a ghost reference {GHOST}, a never-synced {IDLE} and 5 malformed presences: each member logged "
                    f"the malformed ones (or their sum) and took {GHOST} as gone")
        self.wait_one_time(f"the ghost {GHOST} and {IDLE}")
        self.start_reaches(b, "after the ghost")

        # The real members' own presences, forged: the reference's emptied (it left), the
        # other's made a reference.
        self.group.broker.publish(MEMBERS_TOPIC + a.name, b"")
        self.group.broker.publish(MEMBERS_TOPIC + b.name, b'{"role": "reference", "synced": true}')
        self.wait(lambda: all(json.loads(self.group.broker.retained(MEMBERS_TOPIC + m.name) or b"null") is not None
                              for m in self.members), "both members to publish their own presences again")
        self.wait_one_time("the members' own presences forged")

        # Valid session messages at the ranges' ends: adopted (any client may change the
        # group's session), and the group goes on with the next command.
        current = json.loads(self.group.broker.retained(TOPIC))
        for label, message in self.valid_extremes(current):
            marks_session = {m.name: self.log_lines(m) for m in self.members}
            self.group.broker.publish(TOPIC, json.dumps(message).encode())
            for m in self.members:
                self.wait_log(m, f"version {message['version']} from zz-forger", marks_session[m.name])
            check(True, f"a valid session {label} (version {message['version']}): both members took it and stay up")
        self.command_reaches(a, "reset", "ready")
        self.start_reaches(b, "after valid sessions at the ranges' ends")

        # The forger goes on to the end of `--seconds`; then the status and a command again.
        self.wait(lambda: monotonic() - began >= self.args.seconds, f"{self.args.seconds:g} s of forgery",
                  timeout=self.args.seconds + 60, step=1.0)
        self.wait_one_time(f"{self.args.seconds:g} s of forgery")
        self.start_reaches(a, "at the end")
        self.log_counts(marks, monotonic() - began)

    def log_counts(self, marks, seconds):
        minutes = math.ceil(seconds / 60)
        # Per member: what the forgery's messages make it log is summed up once a minute
        # beyond the first few; the handful of status lines each forgery brings is counted
        # with it. Far below one line per crafted message.
        # (The logins are this check's own, one per `/api/state` read.)
        bound = 60 + 30 * minutes
        for m in self.members:
            lines = [l for l in m.gateway_log()[marks[m.name]:] if "login from" not in l]
            counts = {kind: sum(1 for l in lines if text in l) for kind, text in KINDS.items()}
            print(f"{m.name}'s gateway logged {len(lines)} lines besides this check's logins in {seconds:.0f} s of forgery: "
                  + ", ".join(f"{kind} {n}" for kind, n in counts.items()), flush=True)
            check(len(lines) <= bound, f"{m.name}'s log is bounded: {len(lines)} lines in {minutes} min <= {bound}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, help="the forger's and this script's random seed")
    parser.add_argument("--seconds", type=float, default=120, help="how long the forger answers asks, at least")
    parser.add_argument("--deadline", type=float, default=120,
                        help="seconds for the group to have one time again after each forgery, and for each event")
    parser.add_argument("--scheduling", choices=("as-deployed", "inherit"), default="as-deployed",
                        help="as-deployed: clocks and gateways with their units' scheduling (root)")
    args = parser.parse_args()
    if args.seed is None:
        args.seed = random.SystemRandom().randrange(2**31)
    print(f"seed: {args.seed} (replay with --seed {args.seed})", flush=True)
    prefixes = {}
    if args.scheduling == "as-deployed" and os.geteuid() == 0:
        prefixes = dict(clock_prefix=unit_scheduling(CLOCK_UNIT), gateway_prefix=unit_scheduling(GATEWAY_UNIT))
        print(f"scheduling: clocks {describe_scheduling(prefixes['clock_prefix'])}, gateways "
              f"{describe_scheduling(prefixes['gateway_prefix'])}", flush=True)
    started = time.monotonic()
    with Group(members=2, **prefixes) as group:
        print(f"ok: broker and 2 members on {group.network.kind}", flush=True)
        Check(group, args).run()
    print(f"ran {time.monotonic() - started:.0f} s; load average {os.getloadavg()[0]:.1f}")
    print("sync forgery check: all passed")


if __name__ == "__main__":
    main()
