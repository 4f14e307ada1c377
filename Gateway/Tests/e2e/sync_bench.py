#!/usr/bin/env python3
"""Clocks in sync, measured (docs/benchmarks.md): three members against a real
Mosquitto (network namespaces with veth links when root, else loopback) run one session
for `--minutes`, paused and resumed every `--every` seconds from a different member each
time. From the frames files (`t` = CLOCK_MONOTONIC, one host):
(a) spread: for each display change every member shows (same panel text and state), the
    latest member's commit minus the earliest's; the renders a command triggers (from the
    command to its last member's commit) are (b)'s, not counted here;
(b) command -> display: from the command sent on one member's socket to the first frame
    showing the new state on each member (every member, the issuing one included).

    python3 Gateway/Tests/e2e/sync_bench.py --minutes 10
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rc_harness import CLOCK_UNIT, GATEWAY_UNIT, describe_scheduling, unit_scheduling, wait_for  # noqa: E402
from sync_harness import TOPIC, Group, monotonic, wait_agree, wait_log  # noqa: E402
from sync_measures import summary  # noqa: E402


def frames(member):
    return [f for f in member.frames_lines() if "panel" in f]


def spreads(members, start, end, commands):
    """Spread of each change of member 0's panels in [start, end] that every member shows,
    leaving out the renders a command triggers (from the command sent to its last member's
    commit: those are (b))."""
    streams = [[f for f in frames(m) if start <= f["t"] <= end] for m in members]
    out = []
    for f in streams[0]:
        if any(sent <= f["t"] <= last + 0.001 for sent, last in commands):
            continue
        times = [f["t"]]
        for other in streams[1:]:
            match = [o["t"] for o in other if o["panel"] == f["panel"] and o["text"] == f["text"]
                     and o["state"] == f["state"] and abs(o["t"] - f["t"]) < 0.5]
            if not match:
                break
            times.append(min(match, key=lambda t: abs(t - f["t"])))
        else:
            out.append(max(times) - min(times))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--every", type=float, default=15, help="seconds between commands")
    parser.add_argument("--as-deployed", action="store_true",
                        help="clocks and gateways with their units' scheduling (CPUSchedulingPolicy=, Nice=), the broker at "
                             "SCHED_OTHER nice 0; run this script under `chrt -f 20` to stand for the members' buttons")
    args = parser.parse_args()
    prefixes = {}
    if args.as_deployed:
        prefixes = dict(clock_prefix=unit_scheduling(CLOCK_UNIT), gateway_prefix=unit_scheduling(GATEWAY_UNIT),
                        broker_prefix=["chrt", "-o", "0", "nice", "-n", "0"])
        print(f"scheduling: clocks {describe_scheduling(prefixes['clock_prefix'])}, gateways "
              f"{describe_scheduling(prefixes['gateway_prefix'])}, broker SCHED_OTHER, nice 0")
    with Group(members=3, program="countdown:90:00", **prefixes) as group:
        members = group.members
        for m in members:
            wait_log(m, "connected to MQTT broker")
        wait_for(lambda: group.broker.retained(TOPIC), what="a group session on the broker")
        for m in members:
            wait_log(m, "group time: this member is the reference" if m is members[0] else "group time: synced to the reference")
        print(f"network: {group.network.kind}; {len(members)} members; {args.minutes:g} min; a command every {args.every:g} s")
        start = monotonic()
        end = start + args.minutes * 60
        latencies = []
        commands = []  # (sent, the last member's commit)
        issued = 0
        word = "start"
        while monotonic() < end - args.every:
            member = members[issued % len(members)]
            want = "running" if word == "start" else "paused"
            sent = monotonic()
            reply = member.command(word)
            assert reply == {"ok": True}, reply
            commits = []
            for m in members:
                first = wait_for(lambda: next((f["t"] for f in frames(m) if f["t"] >= sent and f["state"] == want), None),
                                 what=f"{m.name} to show {want}")
                commits.append(first)
                latencies.append(first - sent)
            commands.append((sent, max(commits)))
            issued += 1
            word = "stop" if word == "start" else "start"
            time.sleep(max(0.0, sent + args.every - monotonic()))
        if word == "stop":
            wait_agree(members, monotonic(), "the members to count at the end")
        measured = spreads(members, start, monotonic(), commands)
        print(f"commands: {issued} (START/STOP alternating, each from the next member)")
        print(summary("(a) spread between members' identical display changes", measured))
        print(summary("(b) command -> every member's display commit", latencies))
        assert all(m.running() for m in members)


if __name__ == "__main__":
    main()
