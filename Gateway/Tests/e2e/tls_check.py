#!/usr/bin/env python3
"""The gateway with TLS (docs/remote.md): a user-provided certificate ([remote]
tls_cert, tls_key; here a self-signed one for 127.0.0.1 made by openssl and trusted by this
client alone). Checks: HTTPS with certificate verification, the session cookie gets
`Secure`, the Origin must be https://, the WebSocket works as wss://, plain HTTP is refused.

    python3 Gateway/Tests/e2e/tls_check.py
"""
import json
import os
import socket
import sys

import websocket

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rc_harness import PIN, Rig  # noqa: E402


def main():
    with Rig(tls=True) as rig:
        assert rig.origin.startswith("https://"), rig.origin
        print("ok: the gateway logs", rig.origin)
        status, headers, body, _ = rig.request("GET", "/")
        assert status == 200 and b"RoundClock" in body
        print("ok: GET / over HTTPS, certificate verified")
        hsts = [rig.request("GET", path)[1].get("strict-transport-security") for path in ("/", "/nothing", "/api/state")]
        assert hsts == ["max-age=31536000"] * 3, hsts
        print("ok: every answer over HTTPS (200, 404, 401) carries Strict-Transport-Security: max-age=31536000")
        status, _, _, _ = rig.request("POST", "/api/login", {"pin": PIN}, headers={"Origin": "http://127.0.0.1:%d" % rig.port})
        assert status == 403, status
        print("ok: an http:// Origin is refused under TLS: 403")
        status, _, _, cookies = rig.request("POST", "/api/login", {"pin": PIN}, headers={"Origin": rig.origin})
        attributes = [a.strip() for a in cookies[0].split(";")]
        assert status == 200 and "Secure" in attributes and "HttpOnly" in attributes and "SameSite=Strict" in attributes, cookies
        print("ok: login over HTTPS: the cookie is Secure; HttpOnly; SameSite=Strict")
        cookie = attributes[0]
        status, _, body, _ = rig.request("GET", "/api/state", cookie=cookie)
        assert status == 200 and json.loads(body)["state"] == "ready", body
        live = websocket.create_connection(f"wss://127.0.0.1:{rig.port}/api/live", cookie=cookie, origin=rig.origin, timeout=30,
                                           sslopt={"context": rig.tls})
        assert json.loads(live.recv())["state"] == "ready"
        live.close()
        print("ok: wss:// /api/live streams the state")
        with socket.create_connection(("127.0.0.1", rig.port), timeout=30) as s:
            s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            try:
                reply = s.recv(100)
            except OSError:
                reply = b""
        assert not reply.startswith(b"HTTP/1.1 200"), reply
        print("ok: plain HTTP to the TLS port gets no page")
        assert rig.gateway.poll() is None
    print("TLS check: all passed")


if __name__ == "__main__":
    main()
