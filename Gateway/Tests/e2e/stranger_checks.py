"""The checks of what a stranger without the PIN holds open (abuse_check.py runs them after
its flood; docs/remote.md, "Connections"). Each prints its `ok:` line with what it measured.
Deadlines are generous (a loaded machine); the 1 s goal of a new browser's page, login and
STOP is measured and printed, and held to a loose bound only.
"""
import json
import os
import socket
import struct
import subprocess
import threading
import time

from hardening_check import in_netns
from rc_harness import PIN, Rig, wait_for
from stranger_attacks import Browser, Flood, is_open

# A browser's page, login and STOP under attack must be served within this (the goal is 1 s).
SERVED_DEADLINE = 15
UPGRADE_ERROR = "Error handling upgrade result"


def ended_before_a_request(rig, seconds=10):
    """One client opens and ends connections for `seconds` as fast as it can (half of them
    with half a request head, half reset): returns how many."""
    count = 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            s.bind(("127.0.8.1", 0))
            s.connect(("127.0.0.1", rig.port))
            if count % 2:
                s.sendall(b"GET / HTTP/1.1\r\nHost: 127")
            else:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
        finally:
            s.close()
        count += 1
    return count


def summed_up(rig, since):
    """How many connections the minute lines since log line `since` say ended before a request."""
    total = 0
    for line in rig.gateway_log[since:]:
        if "connections in the last minute:" in line and "ended before a whole request" in line:
            total += int(line.split("connections in the last minute: ", 1)[1].split(" ended before", 1)[0].split()[-1])
    return total


def abort_connections(rig):
    """The burst of `ended_before_a_request`; returns (first log line index, connections, log
    lines logged meanwhile) for `check_aborted_connections`."""
    since = len(rig.gateway_log)
    count = ended_before_a_request(rig)
    return since, count, len(rig.gateway_log) - since


def check_aborted_connections(rig, since, count, during):
    """After `abort_connections` (and other checks, so that a line per connection would long
    have been logged): none logged one by one, and the minute's report sums them up."""
    wait_for(lambda: summed_up(rig, since) > 0, timeout=200, step=0.5,
             what="a minute line summing up connections ended before a request")
    lines = rig.gateway_log[since:]
    errors = sum(UPGRADE_ERROR in line for line in lines)
    assert errors == 0, f"{errors} '{UPGRADE_ERROR}' lines for {count} connections"
    minute_lines = [line for line in lines if "connections in the last minute" in line]
    print(f"ok: {count} connections from one client ended before a whole request head in 10 s: {during} log lines "
          f"meanwhile, none '{UPGRADE_ERROR}' since; {summed_up(rig, since)} summed up in {len(minute_lines)} minute "
          f"line(s), the first: {minute_lines[0]}")


def open_tvs(port, n=32):
    """`n` TV pages (`/api/display` without a session) from 127.0.7.1-8, each read."""
    tvs = []
    for k in range(n):
        def upgraded():
            s = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=(f"127.0.7.{k % 8 + 1}", 0))
            s.sendall((f"GET /api/display HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                       "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                       "Sec-WebSocket-Version: 13\r\n\r\n").encode())
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                byte = s.recv(1)
                if not byte:
                    break
                head += byte
            if head.startswith(b"HTTP/1.1 101"):
                return s
            s.close()
            return None

        # The flood's TV pages may still be giving their places back.
        tvs.append(wait_for(upgraded, timeout=60, step=0.2, what=f"TV page {k} upgraded"))
    return tvs


def pong(payload):
    """A client's (masked) pong frame answering a ping's `payload` (under 126 bytes)."""
    key = os.urandom(4)
    return bytes([0x8A, 0x80 | len(payload)]) + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def drain(sockets, stop):
    """Reads the TV pages' sockets and answers the gateway's pings, as a page does."""
    buffers = {s: b"" for s in sockets}
    for s in sockets:
        s.setblocking(False)
    while not stop.is_set():
        for s in sockets:
            try:
                buffers[s] += s.recv(65536)
            except OSError:
                continue
            data = buffers[s]
            while len(data) >= 2:
                length, at = data[1] & 0x7F, 2
                if length == 126:
                    length, at = int.from_bytes(data[2:4], "big"), 4
                elif length == 127:
                    length, at = int.from_bytes(data[2:10], "big"), 10
                if len(data) < at + length:
                    break
                if data[0] & 0x0F == 0x9:
                    try:
                        s.send(pong(data[at:at + length]))
                    except OSError:
                        pass
                data = data[at + length:]
            buffers[s] = data
        stop.wait(0.1)


def failed_logins(port):
    """18 login heads that fail, as the audit sent them: wrong PINs (401, then 429), a body
    over the limit (413) and heads whose body never comes. Returns the answers."""
    answers = []
    for n in range(18):
        s = socket.create_connection(("127.0.0.1", port), timeout=30, source_address=("127.0.10.1", 0))
        if n % 3 == 0:
            body = json.dumps({"pin": "0000000000"}).encode()
        elif n % 3 == 1:
            body = b'{"pin": "' + b"9" * 600 + b'"}'
        else:
            body = None
        head = (f"POST /api/login HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body) if body else 20}\r\n\r\n").encode()
        s.sendall(head + (body or b""))
        if body:
            try:
                answers.append(s.recv(64).split(b"\r\n", 1)[0].decode("latin-1").split(" ")[1])
            except (OSError, IndexError):
                # A 413 may close with the body unread, which resets the connection.
                answers.append("closed")
        s.close()
    return answers


def check_a_browser_gets_in(rig, kind, cookie, device, tvs, browser_at):
    """The flood of `kind` from 16 addresses x 16 connections beside the TV pages `tvs`: 18
    failed logins close none of them, and a new browser (from `browser_at`), a phone with a
    session and a known phone with only its device cookie are served."""
    flood = Flood("127.0.0.1", rig.port, [f"127.0.6.{a + 1}" for a in range(16)], kind=kind).start()
    try:
        # A half head gets no answer: its connections are accepted in the order they came.
        answered = 0 if kind == "half-head" else 256
        wait_for(lambda: flood.counts["opened"] >= 256 and flood.counts["answers"] >= answered, timeout=120,
                 step=0.1, what=f"{kind}: the flood's 256 connections opened (and answered once)")
        answers = failed_logins(rig.port)
        assert set(answers) <= {"401", "413", "429", "closed"}, answers
        closed_tvs = sum(not is_open(s) for s in tvs)
        assert closed_tvs == 0, f"{kind}: {closed_tvs} of {len(tvs)} TV pages closed by failed logins"
        status = rig.command(cookie, "start")[0]
        assert status in (200, 422), f"{kind}: START from the coach's phone: {status}"
        browser = Browser("127.0.0.1", rig.port, browser_at)
        try:
            seconds, statuses = browser.load_login_stop(PIN)
        finally:
            browser.close()
        refused = [(path, status) for path, status in statuses if status not in (200, 201)]
        assert not refused, f"{kind}: the new browser: {statuses}"
        assert seconds <= SERVED_DEADLINE, f"{kind}: the new browser took {seconds:.2f} s"
        phone = rig.request("POST", "/api/command", {"command": "start"}, cookie=cookie, source="127.0.0.11")[0]
        assert phone in (200, 422), f"{kind}: the phone with a session: {phone}"
        known = rig.request("GET", "/", cookie=device, source="127.0.0.12")[0]
        again = rig.request("POST", "/api/login", {"pin": PIN}, cookie=device, source="127.0.0.12")[0]
        assert (known, again) == (200, 200), f"{kind}: the known phone with only its device cookie: {known}, {again}"
    finally:
        flood.stop()
    print(f"ok: {kind}: 16 addresses x 16 connections ({flood.counts['opened']} opened, {flood.counts['answers']} answers)"
          + (f" beside {len(tvs)} TV pages" if tvs else "")
          + f": 18 failed logins ({', '.join(sorted(set(answers)))}, 6 without a body)"
          + (" closed no TV page" if tvs else " answered")
          + f"; a browser from a new address: page on 6 connections, login and STOP in {seconds:.3f} s (goal 1 s, "
          f"{browser.retries} retried); the phone with a session and the known phone with only its device cookie served")


def check_stranger_places(rig, cookie):
    """The audit's attacks: each flood on its own, then the keep-alive one beside 32 TV pages."""
    _, _, _, cookies = rig.request("POST", "/api/login", {"pin": PIN})
    device = next(c.split(";")[0] for c in cookies if c.startswith("rc_device="))
    for n, kind in enumerate(("keep-alive", "trickle", "half-head")):
        check_a_browser_gets_in(rig, kind, cookie, device, [], f"127.0.9.{n + 1}")
    tvs = open_tvs(rig.port)
    stop = threading.Event()
    reader = threading.Thread(target=drain, args=(tvs, stop), daemon=True)
    reader.start()
    try:
        check_a_browser_gets_in(rig, "keep-alive", cookie, device, tvs, "127.0.9.4")
    finally:
        stop.set()
        reader.join()
        for s in tvs:
            s.close()


def check_one_slash64(config, gateway_prefix):
    """16 addresses of one IPv6 /64, 16 keep-alive connections each, and a browser from a new
    address in the same /64 (a network namespace: run as root)."""
    assert os.geteuid() == 0, "needs root for a network namespace"
    ns = f"rc-abuse-{os.getpid()}"
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
        attackers = [f"fd00::1:{a:x}" for a in range(16)]
        for address in ["fd00::1", "fd00::c0c4"] + attackers:
            subprocess.run(["ip", "-n", ns, "addr", "add", f"{address}/64", "dev", "lo", "nodad"], check=True)
        with Rig(clock_args=["--events", "0:start"], config=config, listen="[::]:0",
                 gateway_prefix=["ip", "netns", "exec", ns] + gateway_prefix) as rig:
            def attack():
                flood = Flood("fd00::1", rig.port, attackers).start()
                try:
                    wait_for(lambda: flood.counts["opened"] >= 256 and flood.counts["closed by the gateway"] > 0,
                             timeout=120, step=0.1, what="IPv6: the flood's connections opened and closed")
                    held = flood.open_count()
                    browser = Browser("fd00::1", rig.port, "fd00::c0c4")
                    try:
                        return held, flood.counts["opened"], browser.load_login_stop(PIN), browser.retries
                    finally:
                        browser.close()
                finally:
                    flood.stop()

            held, opened, (seconds, statuses), retries = in_netns(ns, attack)
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
    refused = [(path, status) for path, status in statuses if status not in (200, 201)]
    assert not refused, f"IPv6: the new browser: {statuses}"
    assert seconds <= SERVED_DEADLINE, f"IPv6: the new browser took {seconds:.2f} s"
    print(f"ok: IPv6: 16 addresses of fd00::/64 x 16 keep-alive connections ({opened} opened, {held} open as the browser "
          f"came); a browser at fd00::c0c4 in the same /64: page on 6 connections, login and STOP in {seconds:.3f} s "
          f"(goal 1 s, {retries} retried)")
