#!/usr/bin/env python3
"""Control socket end to end, from another process: `roundclock run --simulate --control PATH`
must be running with a program started. Sends STOP and START alternately (N commands, random
gaps of 20-80 ms) on one connection while another is subscribed; for each, the time from just
before the request's send to the subscriber's read of the state line showing its effect
(paused / running): socket, parse, inbox, render loop, display commit, hub, socket again.
Usage: scripts/control-roundtrip.py PATH [N]"""
import json, random, socket, sys, time

path = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 200

def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s, s.makefile("rb")

remote, replies = connect()
sub, lines = connect()
sub.sendall(b'{"command": "subscribe"}\n')
lines.readline()
samples = []
for i in range(count):
    time.sleep(random.uniform(0.02, 0.08))
    command, state = (b"stop", "paused") if i % 2 == 0 else (b"start", "running")
    sent = time.monotonic()
    remote.sendall(b'{"command": "' + command + b'"}\n')
    while json.loads(lines.readline()).get("state") != state:
        pass
    samples.append((time.monotonic() - sent) * 1e6)
    assert json.loads(replies.readline()) == {"ok": True}
samples.sort()
pick = lambda p: samples[min(len(samples) - 1, max(0, int(-(-p * len(samples) // 100)) - 1))]
print(f"control round trip: {len(samples)} commands, sent -> subscriber's state line: "
      f"p50 {pick(50):.0f} µs, p99 {pick(99):.0f} µs, max {samples[-1]:.0f} µs")
