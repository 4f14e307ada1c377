#!/usr/bin/env python3
"""Abuse of the phone remote: while a real clock counts down in real time,
1,000+ malformed HTTP requests, WebSocket frames and control-socket lines (oversized, bad
JSON, bad UTF-8, unknown commands, lying lengths, DNS-rebinding Host and Origin pairs), 100
connections held open from 10 addresses (silent, or half a request head), and PIN guessing
from five addresses, and 300 TV page sockets (`/api/display`, no PIN) from 16 addresses, a
third of them never reading, while the coach logs in and reads the state from another address
every second. Checks: gateway and clock keep running; the held connections are closed by the
head timeout; every one of the coach's logins and reads succeeds; nothing changed the session
(no state but `running` in the frames file); nothing without the PIN got a 2xx from /api;
the TV sockets got no more than their caps (4 per address, 32 in all); with the TV sockets
still open, a coach from a new address logs in and stops the clock within 1 s; the gateway's
RSS stays within idle + RSS_BOUND_MB; display lateness p99 during the flood within FACTOR x
idle (default 2, or `--factor`).

Then what a stranger holds open, as the audit did it (stranger_attacks.py): connections that
end before a whole request head, as fast as one client can, are summed up in the log and
never logged one by one; 16 addresses x 16 keep-alive connections re-sending a GET every 5 s,
then the same trickling login bodies, then half heads, then the keep-alive ones beside 32 TV
pages: failed logins (401, 429, 413, a head without its body) close no TV page, and each time
a browser from a new address loads the page on six connections at once, logs in and sends STOP
(its time printed, the goal 1 s), and a phone with a session and a known phone with only its
device cookie are served; over IPv6 (as root, in a network namespace), the same from 16
addresses of one /64 and a browser in that /64.

    python3 Gateway/Tests/e2e/abuse_check.py [--seconds S] [--factor F] [--fifo | --as-deployed]
                                             [--only-strangers]
"""
import argparse
import base64
import json
import os
import random
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rc_harness import (CLOCK_UNIT, CONFIG, GATEWAY_UNIT, PIN, Rig, describe_scheduling, unit_open_files,  # noqa: E402
                        unit_scheduling, wait_for)
from stranger_attacks import is_open  # noqa: E402
from stranger_checks import (abort_connections, check_aborted_connections, check_one_slash64,  # noqa: E402
                             check_stranger_places)


def lateness_us(frames, start_t, end_t):
    late = sorted((f["t"] - round(f["t"])) * 1e6 for f in frames
                  if f.get("panel") == "time" and start_t <= f["t"] < end_t)
    if not late:
        raise AssertionError(f"no time frames between {start_t} and {end_t}")
    pick = lambda q: late[min(len(late) - 1, int(q * len(late)))]
    return len(late), pick(0.5), pick(0.99)


def raw_exchange(port, data, read=True, source=None):
    """Sends raw bytes on a fresh TCP connection (from the loopback address `source`);
    returns the status line (or '' if closed)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0) if source else None) as s:
        try:
            s.sendall(data)
        except OSError:
            return "closed while sending"
        if not read:
            return ""
        try:
            reply = s.recv(4096)
        except OSError:
            return "closed"
        return reply.split(b"\r\n", 1)[0].decode("latin-1")


def http_cases(rng, cookie, port):
    """Malformed or unauthorized HTTP requests: (kind, bytes), all to be refused."""
    host = f"127.0.0.1:{port}"
    bad_utf8 = b'{"pin": "\xff\xfe\xc3"}'
    bodies = [b"", b"{", b"[]", b'{"pin": 1234}', b"null", bad_utf8, b'{"command": "\xc3\x28"}', b"\x00" * 50,
              b'{"command": "start"}', b'{"command": "fly"}', b'{"pin": "' + b"9" * 300 + b'"}']
    cases = []
    for _ in range(500):
        kind = rng.randrange(9)
        body = rng.choice(bodies)
        path = rng.choice(["/api/login", "/api/command", "/api/state", "/api/live", "/api/../etc/passwd", "/%00", "/x" * 200])
        if kind == 0:
            req = b"GARBAGE \x00\xff / HTTP/9.9\r\n\r\n"
        elif kind == 1:
            req = b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100_000 + b"\r\n\r\n"
        elif kind == 2:
            req = (f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n").encode() + body
        elif kind == 3:
            req = (f"POST {path} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").encode() + body
        elif kind == 4:
            big = b'{"command": "' + b"x" * rng.choice([2000, 70_000]) + b'"}'
            req = (f"POST /api/command HTTP/1.1\r\nHost: x\r\nCookie: {cookie}\r\nContent-Length: {len(big)}\r\n\r\n").encode() + big
        elif kind == 5:
            # With a session: bad JSON / bad UTF-8 / unknown commands reach the gateway's checks or the clock's refusal.
            req = (f"POST /api/command HTTP/1.1\r\nHost: x\r\nCookie: {cookie}\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
        elif kind == 6:
            req = (f"POST {path} HTTP/1.1\r\nHost: x\r\nCookie: rc_session={'%064x' % rng.getrandbits(256)}\r\n"
                   f"Content-Length: {len(body)}\r\n\r\n").encode() + body
        elif kind == 7:
            req = (f"POST /api/login HTTP/1.1\r\nHost: x\r\nOrigin: http://evil.example\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body
        else:
            # DNS rebinding: a page under its own name, with the right PIN or the coach's session.
            evil = rng.choice(["evil.example", f"evil.example:{port}", "127.0.0.1.evil.example"])
            login = b'{"pin": "%s"}' % PIN.encode()
            path, data = rng.choice([("/api/login", login), ("/api/command", b'{"command": "start"}'), ("/", b"")])
            req = (f"{'GET' if path == '/' else 'POST'} {path} HTTP/1.1\r\nHost: {evil}\r\nOrigin: http://{evil}\r\n"
                   f"Cookie: {cookie}\r\nContent-Length: {len(data)}\r\n\r\n").encode() + data
        cases.append((kind, req.replace(b"Host: x\r\n", f"Host: {host}\r\n".encode())))
    return cases


def websocket_frame(payload, opcode=1, mask=True, length_override=None):
    header = bytes([0x80 | opcode])
    n = len(payload) if length_override is None else length_override
    if n < 126:
        header += bytes([(0x80 if mask else 0) | n])
    elif n < 65536:
        header += bytes([(0x80 if mask else 0) | 126]) + n.to_bytes(2, "big")
    else:
        header += bytes([(0x80 if mask else 0) | 127]) + n.to_bytes(8, "big")
    if not mask:
        return header + payload
    key = os.urandom(4)
    return header + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def websocket_abuse(port, cookie, rng):
    """An authenticated WebSocket, then one malformed frame: returns what happened."""
    key = base64.b64encode(os.urandom(16)).decode()
    handshake = (f"GET /api/live HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nCookie: {cookie}\r\n\r\n").encode()
    frames = [websocket_frame(b"x" * 5000), websocket_frame(b"\xff\xfe\xc3\x28"), websocket_frame(b'{"command": "stop"}'),
              websocket_frame(b"x" * 10, mask=False), websocket_frame(b"", opcode=0x3), websocket_frame(b"abc", length_override=1 << 40),
              os.urandom(64), websocket_frame(b"x" * 200, opcode=0x9)]
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(handshake)
        reply = s.recv(4096)
        if not reply.startswith(b"HTTP/1.1 101"):
            return "not upgraded: " + reply.split(b"\r\n", 1)[0].decode("latin-1")
        try:
            s.sendall(rng.choice(frames))
            # The gateway closes on a bad frame; on a harmless one the page just goes away.
            s.settimeout(0.5)
            while s.recv(65536):
                pass
        except OSError:
            pass
        return "upgraded"


# TV sockets: how many, from how many addresses, and the gateway's caps for them.
VIEWER_SOCKETS, VIEWER_ADDRESSES, VIEWERS_PER_ADDRESS, VIEWERS = 300, 16, 4, 32
# The gateway's RSS may grow by this much over its idle RSS during the flood.
RSS_BOUND_MB = 64


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for {pid}")


def open_viewer(port, n):
    """A TV page's WebSocket without a session from 127.0.3.(n % 16 + 1); every third never
    reads (the smallest receive buffer, nothing read after the upgrade's status line). Returns
    (socket, reads, status line or 'closed')."""
    reads = n % 3 != 0
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if not reads:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1)
    s.settimeout(30)
    s.bind((f"127.0.3.{n % VIEWER_ADDRESSES + 1}", 0))
    key = base64.b64encode(os.urandom(16)).decode()
    try:
        s.connect(("127.0.0.1", port))
        s.sendall((f"GET /api/display HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        status = s.recv(12).decode("latin-1")
    except OSError:
        status = ""
    return s, reads, status.split(" ")[1] if status.startswith("HTTP/1.1 ") else "closed"


def drain(viewers, stop):
    """Reads whatever the gateway sends the reading TV sockets until `stop`."""
    readers = [s for s, reads, status in viewers if reads and status == "101"]
    for s in readers:
        s.setblocking(False)
    while not stop.is_set() and readers:
        for s in list(readers):
            try:
                if not s.recv(65536):
                    readers.remove(s)
            except BlockingIOError:
                pass
            except OSError:
                readers.remove(s)
        stop.wait(0.05)


def socket_lines(path, rng):
    lines = [b"{\n", b"\xff\xfe\n", b'{"command": "fly"}\n', b"[]\n", b'{"command": 1}\n', b"x" * 200_000 + b"\n", b"\n",
             b'{"command": "program", "program": "\xc3\x28"}\n']
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        # An empty line gets no reply: wait a little, not forever.
        s.settimeout(1)
        s.connect(path)
        s.sendall(rng.choice(lines))
        try:
            return s.recv(4096)
        except OSError:
            return b""


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30, help="length of the idle window and at least of the flood")
    parser.add_argument("--factor", type=float, default=2.0)
    parser.add_argument("--fifo", action="store_true",
                        help="run the clock at SCHED_FIFO priority 10 (chrt), as the unit's optional real-time setting does")
    parser.add_argument("--as-deployed", action="store_true",
                        help="run clock and gateway with their systemd units' CPUSchedulingPolicy/Priority and Nice")
    parser.add_argument("--slack-ms", type=float, default=0.0,
                        help="also pass when the flood's p99 is within idle p99 + this (a loaded machine's noise)")
    parser.add_argument("--only-strangers", action="store_true",
                        help="skip the flood: only what a stranger holds open (the last part)")
    args = parser.parse_args()
    seed = random.randrange(1 << 32)
    print(f"abuse check seed: {seed}")
    rng = random.Random(seed)
    prefix = ["chrt", "-f", "10"] if args.fifo else []
    gateway_prefix = []
    if args.as_deployed:
        prefix, gateway_prefix = unit_scheduling(CLOCK_UNIT), unit_scheduling(GATEWAY_UNIT)
        print(f"as deployed: clock {describe_scheduling(prefix)}; gateway {describe_scheduling(gateway_prefix)}")
    else:
        print("clock scheduling:", "SCHED_FIFO 10" if args.fifo else "SCHED_OTHER (default)")
    gateway_prefix = unit_open_files(GATEWAY_UNIT) + gateway_prefix
    with Rig(clock_args=["--events", "0:start"], clock_prefix=prefix, gateway_prefix=gateway_prefix) as rig:
        cookie = rig.login()
        if not args.only_strangers:
            flood(rig, cookie, rng, args)
        aborted = abort_connections(rig)
        check_stranger_places(rig, cookie)
        check_aborted_connections(rig, *aborted)
        assert rig.gateway.poll() is None and rig.clock.poll() is None, "the gateway or the clock died"
    check_one_slash64(CONFIG, gateway_prefix)
    print("abuse check: all passed")


def flood(rig, cookie, rng, args):
    """The flood and its checks (the module's first paragraph)."""
    wait_for(lambda: any(f.get("state") == "running" for f in rig.frame_lines()), what="the countdown running")
    idle_from = max(f["t"] for f in rig.frame_lines())
    wait_for(lambda: max(f["t"] for f in rig.frame_lines()) >= idle_from + args.seconds, timeout=args.seconds * 5,
             what="the idle window")
    idle_to = max(f["t"] for f in rig.frame_lines())

    counts = {"http": 0, "ws": 0, "socket": 0, "held": 0}
    accepted_without_pin = []
    stop = threading.Event()
    held = []
    for n in range(100):
        s = socket.create_connection(("127.0.0.1", rig.port), timeout=30, source_address=(f"127.0.2.{n % 10 + 1}", 0))
        if n % 2:
            s.sendall(b"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Le")
        held.append(s)
    counts["held"] = len(held)
    held_from = time.monotonic()
    coach = {"ok": 0, "failed": []}
    guesses = {"401": 0, "429": 0, "other": 0}

    deadline = time.monotonic() + args.seconds

    def http_worker(cases):
        # Each case at least once, then again until the flood's time is up.
        while True:
            for kind, req in cases:
                # Garbage, oversized headers, lying lengths (0-3): sent and dropped, as a
                # broken client does (the gateway answers some, closes the rest when idle).
                status = raw_exchange(rig.port, req, read=kind not in (0, 1, 2, 3))
                counts["http"] += 1
                if kind not in (4, 5) and status.startswith("HTTP/1.1 2"):
                    accepted_without_pin.append((kind, req[:80], status))
            if time.monotonic() >= deadline:
                return

    def ws_worker(n):
        while n > 0 or time.monotonic() < deadline:
            websocket_abuse(rig.port, cookie, rng)
            counts["ws"] += 1
            n -= 1

    def coach_worker():
        # The coach's phone, from its own address: a login and a read every second.
        while time.monotonic() < deadline:
            try:
                status, _, body, cookies = rig.request("POST", "/api/login", {"pin": PIN}, source="127.0.0.9")
                state, _, _, _ = rig.request("GET", "/api/state", cookie=cookies[0].split(";")[0] if cookies else "",
                                             source="127.0.0.9")
                if status == 200 and state == 200:
                    coach["ok"] += 1
                else:
                    coach["failed"].append((status, state))
            except OSError as error:
                coach["failed"].append(str(error))
            stop.wait(1)

    def guess_worker():
        # Distributed guessing: five addresses in turn, as fast as the gateway answers.
        n = 0
        while time.monotonic() < deadline:
            try:
                status = rig.request("POST", "/api/login", {"pin": "%010d" % rng.randrange(10**10)},
                                     source=f"127.0.4.{n % 5 + 1}")[0]
                guesses[str(status) if status in (401, 429) else "other"] += 1
            except OSError:
                guesses["other"] += 1
            n += 1

    def socket_worker(n):
        while n > 0 or time.monotonic() < deadline:
            socket_lines(rig.socket, rng)
            counts["socket"] += 1
            n -= 1

    rss_idle = rss_mb(rig.gateway.pid)
    rss_peak = [rss_idle]

    def rss_worker():
        while not stop.is_set():
            rss_peak[0] = max(rss_peak[0], rss_mb(rig.gateway.pid))
            stop.wait(0.2)

    viewers = [open_viewer(rig.port, n) for n in range(VIEWER_SOCKETS)]
    viewer_status = {}
    for _, _, status in viewers:
        viewer_status[status] = viewer_status.get(status, 0) + 1
    print(f"TV sockets: {VIEWER_SOCKETS} from {VIEWER_ADDRESSES} addresses, every third never reading: {viewer_status}")
    assert viewer_status.get("101", 0) <= VIEWERS, f"more TV sockets than {VIEWERS} upgraded: {viewer_status}"
    cases = http_cases(rng, cookie, rig.port)
    workers = [threading.Thread(target=http_worker, args=(cases[i::4],)) for i in range(4)]
    workers += [threading.Thread(target=coach_worker), threading.Thread(target=guess_worker)]
    workers += [threading.Thread(target=ws_worker, args=(150,)) for _ in range(2)]
    workers += [threading.Thread(target=socket_worker, args=(100,)) for _ in range(2)]
    workers += [threading.Thread(target=drain, args=(viewers, stop)), threading.Thread(target=rss_worker)]
    flood_from = max(f["t"] for f in rig.frame_lines())
    started = time.monotonic()
    for w in workers:
        w.start()
    for w in workers[:-2]:
        w.join()
    flood_seconds = time.monotonic() - started
    flood_to = max(f["t"] for f in rig.frame_lines())
    # The session so far, then the coach's STOP from a new address with the TV sockets open.
    states = {f.get("state") for f in rig.frame_lines() if "state" in f}
    stop_started = time.monotonic()
    status, _, body, cookies = rig.request("POST", "/api/login", {"pin": PIN}, source="127.0.0.10")
    assert status == 200, ("the coach's login from 127.0.0.10 with the TV sockets open", status, body)
    status, _, body, _ = rig.request("POST", "/api/command", {"command": "stop"}, cookie=cookies[0].split(";")[0],
                                     source="127.0.0.10")
    stop_seconds = time.monotonic() - stop_started
    assert status == 200, ("the coach's STOP from 127.0.0.10 with the TV sockets open", status, body)
    open_viewers = sum(1 for s, _, status in viewers if status == "101" and is_open(s))
    stop.set()
    for w in workers[-2:]:
        w.join()
    for s, _, _ in viewers:
        s.close()
    still_open = [s for s in held if is_open(s)]
    held_for = time.monotonic() - held_from
    for s in held:
        s.close()
    total = counts["http"] + counts["ws"] + counts["socket"]
    print(f"flood: {counts['http']} HTTP requests, {counts['ws']} WebSocket frames, {counts['socket']} socket lines "
          f"({total} in all) and {counts['held']} connections held open, in {flood_seconds:.1f} s")

    assert held_for > 15 and not still_open, f"{len(still_open)} of the 100 held connections still open after {held_for:.0f} s"
    print(f"ok: the 100 held connections (silent or half a head) were closed by the gateway within {held_for:.0f} s")
    assert coach["ok"] >= args.seconds / 3 and not coach["failed"], f"the coach: {coach}"
    print(f"ok: the coach from 127.0.0.9 logged in and read the state {coach['ok']} times, every time "
          f"(five addresses guessed: {guesses['401']} wrong PINs, {guesses['429']} throttled, {guesses['other']} other)")
    assert guesses["other"] == 0 and guesses["429"] > guesses["401"], guesses
    assert rig.gateway.poll() is None, "the gateway died"
    assert rig.clock.poll() is None, "the clock died"
    assert states == {"ready", "running"} or states == {"running"}, f"the session changed: {states}"
    assert not accepted_without_pin, accepted_without_pin[:5]
    print("ok: gateway and clock running, the session untouched (states seen: " + ", ".join(sorted(states))
          + "), nothing accepted without the PIN")
    assert stop_seconds <= 1, f"the coach's login and STOP took {stop_seconds:.2f} s"
    status, _, body, _ = rig.request("GET", "/api/state", cookie=cookie)
    assert status == 200 and json.loads(body)["state"] != "running", (status, body)
    print(f"ok: with {open_viewers} TV sockets still open, the coach from 127.0.0.10 logged in and stopped "
          f"the clock in {stop_seconds:.2f} s (limit 1 s)")
    assert rss_peak[0] <= rss_idle + RSS_BOUND_MB, f"gateway RSS {rss_peak[0]:.0f} MB, idle {rss_idle:.0f} MB"
    print(f"ok: gateway RSS {rss_idle:.0f} MB idle, at most {rss_peak[0]:.0f} MB during the flood "
          f"(bound: idle + {RSS_BOUND_MB} MB)")
    n_idle, p50_idle, p99_idle = lateness_us(rig.frame_lines(), idle_from, idle_to)
    n_flood, p50_flood, p99_flood = lateness_us(rig.frame_lines(), flood_from, flood_to + 1)
    print(f"display lateness idle: {n_idle} changes, p50 {p50_idle:.0f} us, p99 {p99_idle:.0f} us")
    print(f"display lateness during the flood: {n_flood} changes, p50 {p50_flood:.0f} us, p99 {p99_flood:.0f} us "
          f"({p99_flood / max(p99_idle, 1):.2f}x idle)")
    assert total >= 1000, total
    limit = max(args.factor * p99_idle, p99_idle + args.slack_ms * 1000)
    assert p99_flood <= limit, f"lateness p99 {p99_flood:.0f} us is over the limit {limit:.0f} us (idle {p99_idle:.0f} us)"


if __name__ == "__main__":
    main()
