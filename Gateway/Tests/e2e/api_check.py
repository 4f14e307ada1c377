#!/usr/bin/env python3
"""The JSON API against a real gateway and clock (docs/remote.md): login and its
cookies, the PIN back-off and its log, Origin checks, sessions, the command and state routes, the
WebSocket, size limits, and "clock unreachable" while the clock is down.

    python3 Gateway/Tests/e2e/api_check.py
"""
import json
import os
import sys

import websocket  # websocket-client, installed with selenium

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rc_harness import PIN, Rig, wait_for  # noqa: E402


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok:", message)


def main():
    with Rig() as rig:
        status, headers, body, cookies = rig.request("GET", "/")
        check(status == 200 and b"RoundClock" in body and "default-src 'none'" in headers["content-security-policy"],
              "GET / serves the page with a strict Content-Security-Policy")
        for path in ("/api/state", "/api/programs"):
            status, _, body, _ = rig.request("GET", path)
            check(status == 401, f"GET {path} without a session: 401 {body.decode().strip()}")
        status, _, _, _ = rig.request("POST", "/api/command", {"command": "start"})
        check(status == 401, "POST /api/command without a session: 401")
        status, _, _, _ = rig.request("POST", "/api/command", {"command": "start"}, cookie="rc_session=" + "0" * 64)
        check(status == 401, "a made-up session cookie: 401")

        status, _, body, _ = rig.request("POST", "/api/login", {"pin": PIN}, headers={"Origin": "http://evil.example"})
        check(status == 403, "login from another Origin: 403 " + body.decode().strip())
        status, _, body, cookies = rig.request("POST", "/api/login", {"pin": PIN}, headers={"Origin": rig.origin})
        check(status == 200 and len(cookies) == 2, "login with the PIN and this Origin: 200 and two cookies")
        for set_cookie in cookies:
            attributes = [a.strip() for a in set_cookie.split(";")]
            check("HttpOnly" in attributes and "SameSite=Strict" in attributes and "Path=/" in attributes
                  and "Secure" not in attributes, "cookie: " + set_cookie.split("=", 1)[0] + "=…; " + "; ".join(attributes[1:]))
        cookie = cookies[0].split(";")[0]
        device = cookies[1].split(";")[0]
        check(cookie.startswith("rc_session=") and device.startswith("rc_device=") and len(device) == len("rc_device=") + 64
              and "Max-Age=34560000" in cookies[1], "the device cookie: 64 hex digits for 400 days")
        devices = os.path.join(rig.dir, "gateway-state", "devices")
        wait_for(lambda: os.path.exists(devices), what="the devices file")
        check(open(devices).read() == device.split("=", 1)[1] + "\n" and os.stat(devices).st_mode & 0o777 == 0o600,
              "the phone is kept in <state dir>/devices, mode 0600")

        status, _, body, _ = rig.request("GET", "/api/state", cookie=cookie)
        state = json.loads(body)
        check(status == 200 and state["state"] == "ready" and "time" in state["panels"], f"GET /api/state: {body.decode().strip()}")
        status, _, body, _ = rig.request("GET", "/api/programs", cookie=cookie)
        programs = json.loads(body)["programs"]
        check(programs[0] == "boxing" and programs[-1] == "sparring", f"GET /api/programs: {programs}")

        live = websocket.create_connection(f"ws://127.0.0.1:{rig.port}/api/live", cookie=cookie, origin=rig.origin, timeout=30)
        first = json.loads(live.recv())
        check(first["state"] == "ready", "WebSocket /api/live: starts with the current state")
        status, _, body, _ = rig.request("POST", "/api/command", {"command": "program", "program": "sparring"}, cookie=cookie,
                                         headers={"Origin": rig.origin})
        check(status == 200 and json.loads(body) == {"ok": True}, "program sparring: " + body.decode().strip())
        wait_for(lambda: json.loads(live.recv()).get("program") == "sparring", what="program sparring on the WebSocket")
        print("ok: the WebSocket shows the new program")
        status, _, body, _ = rig.request("POST", "/api/command", {"command": "start"}, cookie=cookie)
        check(status == 200, "start without Origin (curl): " + body.decode().strip())
        wait_for(lambda: json.loads(live.recv()).get("state") == "running", what="running on the WebSocket")
        print("ok: the WebSocket shows running")
        status, _, body, _ = rig.request("POST", "/api/command", {"command": "stop"}, cookie=cookie,
                                         headers={"Origin": "http://evil.example"})
        check(status == 403, "stop from another Origin: 403, not forwarded")
        check(not any(f.get("state") == "paused" for f in rig.frame_lines()), "frames file: never paused")

        status, _, body, _ = rig.request("POST", "/api/command", {"command": "fly"}, cookie=cookie)
        check(status == 400 and "unknown command" in json.loads(body)["error"], "unknown command: refused by the contract's parser, 400 " + body.decode().strip())
        status, _, body, _ = rig.request("POST", "/api/command", {"command": "program", "program": "no such thing"}, cookie=cookie)
        check(status == 422 and json.loads(body)["ok"] is False, "an unknown program: the clock's own refusal, 422 " + body.decode().strip())
        status, _, body, _ = rig.request("POST", "/api/command", raw=b'{"command": "start"', cookie=cookie)
        check(status == 400, "bad JSON: 400 " + body.decode().strip())
        status, _, body, _ = rig.request("POST", "/api/command", raw=b'{"command": "' + b"x" * 5000 + b'"}', cookie=cookie)
        check(status == 413, "a 5 kB command: 413")
        status, _, _, _ = rig.request("POST", "/api/login", raw=b'{"pin": "' + b"1" * 1000 + b'"}')
        check(status == 413, "a 1 kB login: 413")
        try:
            websocket.create_connection(f"ws://127.0.0.1:{rig.port}/api/live", origin=rig.origin, timeout=30)
            check(False, "WebSocket without a session refused")
        except websocket.WebSocketBadStatusException as error:
            check(error.status_code == 400, "WebSocket without a session: refused, 400 (hummingbird-websocket's refusal)")
        try:
            websocket.create_connection(f"ws://127.0.0.1:{rig.port}/api/live", cookie=cookie, origin="http://evil.example", timeout=30)
            check(False, "WebSocket from another Origin refused")
        except websocket.WebSocketBadStatusException as error:
            check(error.status_code == 400, "WebSocket from another Origin: refused, 400")

        statuses = [rig.request("POST", "/api/login", {"pin": "000000"})[0] for _ in range(6)]
        check(statuses == [401] * 5 + [429], f"six wrong PINs: {statuses}")
        status, headers, body, _ = rig.request("POST", "/api/login", {"pin": PIN})
        check(status == 429 and int(headers["retry-after"]) > 0, f"then even the right PIN: 429, Retry-After {headers['retry-after']}")
        status, _, _, cookies = rig.request("POST", "/api/login", {"pin": PIN}, cookie=device)
        check(status == 200 and cookies[1].split(";")[0] == device, "the known phone at that address: 200, same device cookie")
        wrong = [line for line in rig.gateway_log if "wrong PIN from" in line]
        check(len(wrong) == 1 and "127.0.0.1" in wrong[0], "one log line for the six wrong PINs: " + wrong[0].strip())
        check(any("[remote] pin has 6 digits" in line and "78 days" in line for line in rig.gateway_log),
              "the start notice names the 6-digit PIN's average time to be found")
        status, _, _, _ = rig.request("GET", "/api/state", cookie=cookie)
        check(status == 200, "an existing session still works")

        status, _, body, cookies = rig.request("POST", "/api/logout", cookie=cookie)
        check(status == 200 and "Max-Age=0" in cookies[0], "logout clears the cookie")
        status, _, _, _ = rig.request("GET", "/api/state", cookie=cookie)
        check(status == 401, "the session is gone after logout")
        try:
            while live.recv_data(control_frame=True)[0] != websocket.ABNF.OPCODE_CLOSE:
                pass
        except websocket.WebSocketConnectionClosedException:
            pass
        print("ok: logout closed the session's WebSocket")
        live.close()

        _, _, _, cookies = rig.request("POST", "/api/login", {"pin": PIN}, cookie=device)
        live = websocket.create_connection(f"ws://127.0.0.1:{rig.port}/api/live", cookie=cookies[0].split(";")[0],
                                           origin=rig.origin, timeout=30)
        rig.stop_clock()
        wait_for(lambda: json.loads(live.recv()).get("gateway") == "clock unreachable", what="unreachable on the WebSocket")
        print("ok: the WebSocket says clock unreachable when the clock stops")
        rig.start_clock()
        wait_for(lambda: "state" in json.loads(live.recv()), what="state again on the WebSocket")
        print("ok: the gateway reconnected by itself; the WebSocket streams states again")
        live.close()
        check(rig.gateway.poll() is None and rig.clock.poll() is None, "gateway and clock still running")
    print("API check: all passed")


if __name__ == "__main__":
    main()
