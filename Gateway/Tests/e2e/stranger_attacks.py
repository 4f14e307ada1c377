"""What a stranger without the PIN holds open on the gateway, as an attacker on the gym's
network does it, and the browser and phones that must get in meanwhile (abuse_check.py runs
them; docs/remote.md, "Connections").

- `Flood`: from each of its source addresses, 16 connections that each re-send a tiny request
  every 5 s (keep-alive), or after one trickle a login's body a byte a second, or stop
  half-way through a head; a connection the gateway closes comes back at its next turn. One thread, one
  selector, non-blocking sockets.
- `Browser`: a browser from a new address: `GET /`, then the page's five files on six
  connections at once, the login, then STOP with the session, each on a kept-alive
  connection, retried once on a fresh one when the reused one was closed (as browsers do).
"""
import http.client
import json
import selectors
import socket
import threading
import time

KINDS = ("keep-alive", "trickle", "half-head")


def is_open(s):
    """Whether the gateway still holds the connection open (no EOF, no reset)."""
    s.setblocking(False)
    try:
        return s.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


class Flood:
    """`per_address` connections from each address in `sources` to (host, port), of `kind`:
    `keep-alive` (a tiny GET every `period` s), `trickle` (a first GET, then a login head
    announcing a 64-byte body, then a byte a second) or `half-head` (half a request line, then
    nothing). Every connection but a half head's gets an answer once the gateway holds it."""

    def __init__(self, host, port, sources, kind="keep-alive", per_address=16, period=5.0):
        assert kind in KINDS, kind
        self.host, self.port, self.sources, self.kind = host, port, list(sources), kind
        self.per_address, self.period = per_address, period
        self.family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.selector = selectors.DefaultSelector()
        self.stop_event = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        # slot -> {"sock", "source", "due", "sent"}; counts of what happened.
        self.slots = {}
        self.counts = {"opened": 0, "closed by the gateway": 0, "answers": 0, "refused at connect": 0}
        self.lock = threading.Lock()

    # -- the attacker's loop ----------------------------------------------------------------
    def start(self):
        now = time.monotonic()
        for a, source in enumerate(self.sources):
            for n in range(self.per_address):
                # Staggered over the period, as independent clients are.
                due = now + self.period * ((a * self.per_address + n) / (len(self.sources) * self.per_address))
                self.slots[(source, n)] = {"sock": None, "source": source, "due": due, "sent": 0, "open": False}
        self.thread.start()
        return self

    def stop(self):
        self.stop_event.set()
        self.thread.join(timeout=30)
        for slot in self.slots.values():
            if slot["sock"]:
                slot["sock"].close()

    def open_count(self):
        with self.lock:
            return sum(1 for s in self.slots.values() if s["open"])

    def _request(self, kind):
        host = f"[{self.host}]" if self.family == socket.AF_INET6 else self.host
        if kind == "keep-alive":
            return f"GET /robots.txt HTTP/1.1\r\nHost: {host}:{self.port}\r\n\r\n".encode()
        if kind == "trickle":
            return (f"POST /api/login HTTP/1.1\r\nHost: {host}:{self.port}\r\nContent-Type: application/json\r\n"
                    f"Content-Length: 64\r\n\r\n").encode()
        return b"GET /robots.txt HT"

    def _open(self, key, slot):
        s = socket.socket(self.family, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.bind((slot["source"], 0))
            s.connect_ex((self.host, self.port))
        except OSError:
            s.close()
            self.counts["refused at connect"] += 1
            return
        slot.update(sock=s, sent=0, open=True)
        self.counts["opened"] += 1
        self.selector.register(s, selectors.EVENT_READ, key)

    def _drop(self, key, slot, by_gateway):
        try:
            self.selector.unregister(slot["sock"])
        except (KeyError, ValueError):
            pass
        slot["sock"].close()
        with self.lock:
            slot.update(sock=None, open=False)
        if by_gateway:
            self.counts["closed by the gateway"] += 1
        # It comes back at its next turn.
        slot["due"] = time.monotonic() + self.period

    def _turn(self, key, slot):
        """The slot's periodic step: open it (and send a first GET, or half a head), or send its
        next GET, or its login head, then a body byte a second."""
        if slot["sock"] is None:
            self._open(key, slot)
            if slot["sock"] is None:
                slot["due"] = time.monotonic() + self.period
                return
            data = self._request("half-head" if self.kind == "half-head" else "keep-alive")
        elif self.kind == "keep-alive":
            data = self._request("keep-alive")
        elif self.kind == "trickle":
            data = self._request("trickle") if slot["sent"] == 1 else b" "
        else:
            data = b""
        slot["sent"] += 1
        if data:
            try:
                slot["sock"].send(data)
            except BlockingIOError:
                pass
            except OSError:
                self._drop(key, slot, by_gateway=True)
                return
        slot["due"] = time.monotonic() + (1.0 if self.kind == "trickle" else self.period)

    def _run(self):
        while not self.stop_event.is_set():
            now = time.monotonic()
            for key, slot in self.slots.items():
                if slot["due"] <= now:
                    self._turn(key, slot)
            for selected, _ in self.selector.select(timeout=0.05):
                key = selected.data
                slot = self.slots[key]
                try:
                    data = slot["sock"].recv(65536)
                except BlockingIOError:
                    continue
                except OSError:
                    data = b""
                if not data:
                    self._drop(key, slot, by_gateway=True)
                else:
                    self.counts["answers"] += data.count(b"HTTP/1.1 ")


class Browser:
    """A browser's six connections to one host from `source`; `request` runs one request on a
    kept-alive connection and retries it once on a fresh one when the reused one was closed."""

    def __init__(self, host, port, source, connections=6):
        self.host, self.port, self.source = host, port, source
        self.connections = [None] * connections
        self.retries = 0
        self.cookies = {}

    def _connection(self, n):
        if self.connections[n] is None:
            self.connections[n] = http.client.HTTPConnection(self.host, self.port, timeout=60, source_address=(self.source, 0))
        return self.connections[n]

    def request(self, n, method, path, body=None):
        headers = {"Origin": f"http://{self._host_header()}"} if method == "POST" else {}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if body is not None:
            headers["Content-Type"] = "application/json"
        data = None if body is None else json.dumps(body).encode()
        for attempt in range(2):
            connection = self._connection(n)
            reused = connection.sock is not None
            try:
                connection.request(method, path, body=data, headers=headers)
                response = connection.getresponse()
                payload = response.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError, ConnectionAbortedError):
                connection.close()
                self.connections[n] = None
                if reused and attempt == 0:
                    self.retries += 1
                    continue
                raise
            for cookie in response.headers.get_all("Set-Cookie") or []:
                name, _, rest = cookie.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
            if response.getheader("Connection", "").lower() == "close":
                connection.close()
                self.connections[n] = None
            return response.status, payload
        raise AssertionError("unreachable")

    def _host_header(self):
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"

    def load_login_stop(self, pin):
        """`GET /`, the page's five files at once on the other five connections, the login and
        STOP: returns (seconds, [(path, status)])."""
        started = time.monotonic()
        statuses = [("/", self.request(0, "GET", "/")[0])]
        files = ["/style.css", "/api.js", "/app.js", "/icon.svg", "/manifest.webmanifest"]
        results = {}

        def fetch(n, path):
            try:
                results[path] = self.request(n, "GET", path)[0]
            except OSError as error:
                results[path] = f"{type(error).__name__}: {error}"

        threads = [threading.Thread(target=fetch, args=(n + 1, path)) for n, path in enumerate(files)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        statuses += [(path, results[path]) for path in files]
        statuses.append(("/api/login", self.request(0, "POST", "/api/login", {"pin": pin})[0]))
        statuses.append(("/api/command stop", self.request(1, "POST", "/api/command", {"command": "stop"})[0]))
        return time.monotonic() - started, statuses

    def close(self):
        for connection in self.connections:
            if connection:
                connection.close()
