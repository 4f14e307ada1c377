"""The phone remote's end-to-end harness: a real `roundclock run --simulate --control SOCK`
(emulated HT16K33 chips, frames file) and a real `roundclock-gateway` on loopback, started
and stopped together. Used by the browser, API, abuse and latency checks in this folder.

Binaries: $ROUNDCLOCK (default <repo>/.build/debug/roundclock) and $ROUNDCLOCK_GATEWAY
(default <repo>/Gateway/.build/debug/roundclock-gateway).
"""
import http.client
import json
import os
import re
import shutil
import signal
import ssl
import subprocess
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
CLOCK = os.environ.get("ROUNDCLOCK", os.path.join(REPO, ".build", "debug", "roundclock"))
GATEWAY = os.environ.get("ROUNDCLOCK_GATEWAY", os.path.join(REPO, "Gateway", ".build", "debug", "roundclock-gateway"))
CLOCK_UNIT = os.path.join(REPO, "systemd", "roundclock.service")
GATEWAY_UNIT = os.path.join(REPO, "Gateway", "systemd", "roundclock-gateway.service")
PIN = "482913"
CONFIG = f"""program = "countdown:5:00"
[programs]
sparring = "6 x 2:00/0:30, prep 0:10"
[remote]
pin = "{PIN}"
pin_on_panels = false
"""


def wait_for(predicate, timeout=60.0, step=0.02, what="condition"):
    """Polls `predicate` until it returns a truthy value; generous deadline, never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def unit_scheduling(unit_file):
    """The command prefix that runs a process with a unit's `CPUSchedulingPolicy=`,
    `CPUSchedulingPriority=` and `Nice=` (systemd.exec(5)), as systemd starts it: `chrt` sets
    the policy explicitly (SCHED_OTHER too, so a benchmark run under `chrt -f` does not pass its
    own policy on), `nice -n` adds the unit's nice value to the caller's (run the benchmark at
    nice 0, as systemd's manager is)."""
    settings = {}
    with open(unit_file) as f:
        for line in f:
            key, sep, value = line.strip().partition("=")
            if sep and key in ("Nice", "CPUSchedulingPolicy", "CPUSchedulingPriority"):
                settings[key] = value
    policy = settings.get("CPUSchedulingPolicy", "other")
    flag = {"other": "-o", "batch": "-b", "idle": "-i", "fifo": "-f", "rr": "-r"}[policy]
    realtime = policy in ("fifo", "rr")
    priority = settings.get("CPUSchedulingPriority", "1" if realtime else "0")
    return ["chrt", flag, priority, "nice", "-n", settings.get("Nice", "0")]


def unit_open_files(unit_file):
    """The command prefix that gives a process a unit's `LimitNOFILE=` (soft and hard), as
    systemd does: `prlimit --nofile=N:N`."""
    with open(unit_file) as f:
        for line in f:
            key, sep, value = line.strip().partition("=")
            if sep and key == "LimitNOFILE":
                soft, _, hard = value.partition(":")
                return ["prlimit", f"--nofile={soft}:{hard or soft}", "--"]
    return []


def describe_scheduling(prefix):
    """`chrt -f 10 nice -n 0` -> 'SCHED_FIFO 10, nice 0' (for the benchmarks' output)."""
    if not prefix:
        return "inherited (the benchmark's own)"
    names = {"-o": "SCHED_OTHER", "-b": "SCHED_BATCH", "-i": "SCHED_IDLE", "-f": "SCHED_FIFO", "-r": "SCHED_RR"}
    policy = names[prefix[1]] + (f" {prefix[2]}" if prefix[1] in ("-f", "-r") else "")
    return f"{policy}, nice {prefix[5]}"


def terminate(*processes):
    """SIGTERM each running process and waits for it (SIGKILL after 30 s)."""
    for process in processes:
        if process and process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


class Rig:
    """Clock + gateway in a temporary directory. `frames` may be a path or None (a file in
    the directory); `clock_args` are added to `roundclock run`; `clock_prefix` and `gateway_prefix` go before
    each command (e.g. `unit_scheduling(CLOCK_UNIT)`); the gateway listens on `listen`."""

    def __init__(self, clock_args=(), frames=None, config=CONFIG, start_clock=True, tls=False, clock_prefix=(),
                 gateway_prefix=(), listen="127.0.0.1:0"):
        self.dir = tempfile.mkdtemp(prefix="rc-e2e-")
        self.tls = None
        if tls:
            # A self-signed certificate for 127.0.0.1, trusted by this client only.
            cert, key = os.path.join(self.dir, "cert.pem"), os.path.join(self.dir, "key.pem")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                            "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=127.0.0.1",
                            "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
            config += f'tls_cert = "{cert}"\ntls_key = "{key}"\n'
            self.tls = ssl.create_default_context(cafile=cert)
        self.socket = os.path.join(self.dir, "control.sock")
        self.frames = frames or os.path.join(self.dir, "frames.jsonl")
        self.config = os.path.join(self.dir, "config.toml")
        with open(self.config, "w") as f:
            f.write(config)
        os.mkdir(os.path.join(self.dir, "clock-state"))
        self.clock_args = list(clock_args)
        self.clock_prefix = list(clock_prefix)
        self.gateway_prefix = list(gateway_prefix)
        self.listen = listen
        self.clock = None
        self.gateway = None
        self.gateway_log = []
        if start_clock:
            self.start_clock()
        self.start_gateway()

    # -- processes -------------------------------------------------------------------------
    def start_clock(self):
        args = self.clock_prefix + [CLOCK, "run", "--simulate", "--config", self.config, "--control", self.socket,
                "--state-dir", os.path.join(self.dir, "clock-state"), "--frames", self.frames] + self.clock_args
        self.clock = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=open(os.path.join(self.dir, "clock.log"), "ab"))
        wait_for(lambda: os.path.exists(self.socket) or self.clock.poll() is not None, what="the clock's socket")
        assert self.clock.poll() is None, f"the clock exited: {self.clock_log()}"

    def stop_clock(self):
        if self.clock and self.clock.poll() is None:
            self.clock.send_signal(signal.SIGTERM)
            self.clock.wait(timeout=60)

    def start_gateway(self):
        args = self.gateway_prefix + [GATEWAY, "--config", self.config, "--control", self.socket, "--listen", self.listen,
                "--state-dir", os.path.join(self.dir, "gateway-state")]
        self.gateway = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, text=True)
        threading.Thread(target=self._read_gateway_log, daemon=True).start()
        line = wait_for(lambda: next((l for l in self.gateway_log if "listening on" in l), None)
                        or (self.gateway.poll() is not None and "exited"), what="the gateway to listen")
        assert line != "exited", f"the gateway exited: {self.gateway_log}"
        match = re.search(r"listening on (https?)://\S+:(\d+);", line)
        assert match, line
        self.port = int(match.group(2))
        self.origin = f"{match.group(1)}://127.0.0.1:{self.port}"

    def _read_gateway_log(self):
        for line in self.gateway.stderr:
            self.gateway_log.append(line.rstrip("\n"))

    def clock_log(self):
        with open(os.path.join(self.dir, "clock.log"), errors="replace") as f:
            return f.read()

    def close(self):
        terminate(self.gateway, self.clock)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- frames ----------------------------------------------------------------------------
    def frame_lines(self):
        try:
            with open(self.frames) as f:
                return [json.loads(l) for l in f if l.strip()]
        except FileNotFoundError:
            return []

    # -- HTTP ------------------------------------------------------------------------------
    def request(self, method, path, body=None, headers=None, cookie=None, raw=None, source=None):
        """One request on a fresh connection (from the loopback address `source`, e.g.
        "127.0.0.7", when given); returns (status, headers dict, body bytes, Set-Cookie list)."""
        bind = (source, 0) if source else None
        if self.tls:
            connection = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=30, context=self.tls, source_address=bind)
        else:
            connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30, source_address=bind)
        h = dict(headers or {})
        if cookie:
            h["Cookie"] = cookie
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        if data is not None:
            h.setdefault("Content-Type", "application/json")
        connection.request(method, path, body=data, headers=h)
        response = connection.getresponse()
        payload = response.read()
        result = (response.status, {k.lower(): v for k, v in response.getheaders()}, payload,
                  response.headers.get_all("Set-Cookie") or [])
        connection.close()
        return result

    def login(self, pin=PIN, source=None):
        status, headers, body, cookies = self.request("POST", "/api/login", {"pin": pin}, source=source)
        assert status == 200, (status, body)
        return cookies[0].split(";")[0]

    def command(self, cookie, command, **fields):
        status, _, body, _ = self.request("POST", "/api/command", dict(command=command, **fields), cookie=cookie)
        return status, json.loads(body)
