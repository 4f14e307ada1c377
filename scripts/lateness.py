#!/usr/bin/env python3
"""Lateness of a real-time frames file: for each time-panel change, t minus the ideal
instant (the whole second it belongs to; valid for programs whose phases are whole
seconds and that are not paused). Prints count, p50, p99 and max in microseconds.

    roundclock simulate --program countdown:1:00 --no-tty --frames f.jsonl
    python3 scripts/lateness.py f.jsonl
"""
import json
import sys

late = []
with open(sys.argv[1]) as f:
    for line in f:
        d = json.loads(line)
        if d.get("panel") == "time":
            late.append((d["t"] - round(d["t"])) * 1e6)
late.sort()
if not late:
    sys.exit("no time-panel lines")
pick = lambda q: late[min(len(late) - 1, int(q * len(late)))]
print(f"{len(late)} changes: p50 {pick(0.5):.0f} us, p99 {pick(0.99):.0f} us, max {late[-1]:.0f} us, min {late[0]:.0f} us")
