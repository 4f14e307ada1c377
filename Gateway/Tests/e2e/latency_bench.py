#!/usr/bin/env python3
"""Phone remote latency over loopback (docs/benchmarks.md), on a real gateway and
`roundclock run --simulate --control` in real time:

  tap -> display commit:   the client sends POST /api/command (START or STOP, alternately)
                           on a kept-alive connection -> the clock's frames line for the new
                           state arrives on a FIFO read by this script (the clock writes it right
                           after the commit returns; its reader's wake-up is included)
  commit -> page frame:    that frames line -> the WebSocket /api/live message with the new
                           state, received by a client standing in for the page

Both read time.monotonic_ns() in this one process. Prints p50/p99/max of each.
`--as-deployed` runs the clock and the gateway with their units' scheduling (systemd/
roundclock.service, Gateway/systemd/roundclock-gateway.service: policy, priority, Nice=);
this script itself stands for the phone (another device): run it under `chrt -f 20` to keep
the machine's load out of the client's own wake-ups.

    python3 Gateway/Tests/e2e/latency_bench.py [--taps N] [--as-deployed]
"""
import argparse
import http.client
import json
import os
import queue
import sys
import tempfile
import threading
import time

import websocket

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rc_harness import CLOCK_UNIT, GATEWAY_UNIT, Rig, describe_scheduling, unit_scheduling  # noqa: E402


def percentiles(values):
    values = sorted(values)
    pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]
    return f"p50 {pick(0.5) / 1e6:.2f} ms, p99 {pick(0.99) / 1e6:.2f} ms, max {values[-1] / 1e6:.2f} ms"


def _own_policy():
    """This process's policy as a `chrt` flag and priority."""
    policy = os.sched_getscheduler(0)
    flag = {os.SCHED_FIFO: "-f", os.SCHED_RR: "-r", os.SCHED_BATCH: "-b", os.SCHED_IDLE: "-i"}.get(policy, "-o")
    return [flag, str(os.sched_getparam(0).sched_priority)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--taps", type=int, default=200)
    parser.add_argument("--max-p99-ms", type=float, default=None, help="fail when either p99 is above this")
    parser.add_argument("--as-deployed", action="store_true",
                        help="run clock and gateway with their systemd units' CPUSchedulingPolicy/Priority and Nice")
    args = parser.parse_args()
    clock_prefix = unit_scheduling(CLOCK_UNIT) if args.as_deployed else []
    gateway_prefix = unit_scheduling(GATEWAY_UNIT) if args.as_deployed else []
    print(f"clock: {describe_scheduling(clock_prefix)}; gateway: {describe_scheduling(gateway_prefix)}; "
          f"this client: {describe_scheduling(['chrt', *_own_policy(), 'nice', '-n', str(os.nice(0))])}")
    fifo_dir = tempfile.mkdtemp(prefix="rc-latency-")
    fifo = os.path.join(fifo_dir, "frames.fifo")
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    frames = queue.Queue()
    stop = threading.Event()

    def read_frames():
        import select
        pending = b""
        while not stop.is_set():
            ready, _, _ = select.select([reader], [], [], 0.2)
            if not ready:
                continue
            chunk = os.read(reader, 65536)
            now = time.monotonic_ns()
            if not chunk:
                time.sleep(0.01)
                continue
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                frames.put((now, json.loads(line)))

    threading.Thread(target=read_frames, daemon=True).start()
    with Rig(frames=fifo, clock_prefix=clock_prefix, gateway_prefix=gateway_prefix) as rig:
        cookie = rig.login()
        messages = queue.Queue()
        live = websocket.create_connection(f"ws://127.0.0.1:{rig.port}/api/live", cookie=cookie, origin=rig.origin, timeout=30)

        def read_live():
            while not stop.is_set():
                try:
                    text = live.recv()
                except Exception:
                    return
                if not text:
                    return
                messages.put((time.monotonic_ns(), json.loads(text)))

        threading.Thread(target=read_live, daemon=True).start()
        connection = http.client.HTTPConnection("127.0.0.1", rig.port, timeout=30)
        tap_to_commit, commit_to_page = [], []
        want = "running"
        for _ in range(args.taps):
            time.sleep(0.05)  # let the previous change settle: one change per tap
            while not frames.empty():
                frames.get_nowait()
            while not messages.empty():
                messages.get_nowait()
            body = json.dumps({"command": "start" if want == "running" else "stop"})
            sent = time.monotonic_ns()
            connection.request("POST", "/api/command", body=body, headers={"Cookie": cookie, "Content-Type": "application/json"})
            reply = connection.getresponse().read()
            assert json.loads(reply) == {"ok": True}, reply
            while True:
                at, frame = frames.get(timeout=30)
                if frame.get("state") == want:
                    break
            while True:
                page_at, message = messages.get(timeout=30)
                if message.get("state") == want:
                    break
            if os.environ.get("LATENCY_DEBUG"):
                print(want, (at - sent) / 1e6, (page_at - at) / 1e6, frame.get("t"), frame.get("panel"))
            tap_to_commit.append(at - sent)
            commit_to_page.append(page_at - at)
            want = "paused" if want == "running" else "running"
        stop.set()
        live.close()
        print(f"{args.taps} taps over loopback")
        print(f"tap (request sent) -> display commit (frames line read): {percentiles(tap_to_commit)}")
        print(f"display commit -> WebSocket message on the page: {percentiles(commit_to_page)}")
        if args.max_p99_ms is not None:
            p99 = lambda v: sorted(v)[min(len(v) - 1, int(0.99 * len(v)))] / 1e6
            assert p99(tap_to_commit) <= args.max_p99_ms and p99(commit_to_page) <= args.max_p99_ms, "p99 over the limit"
    os.close(reader)


if __name__ == "__main__":
    main()
