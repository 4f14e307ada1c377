"""Clocks in sync, end to end (docs/sync.md): a real Mosquitto broker and several
members, each a `roundclock run --simulate --frames-clock monotonic` with its own
`roundclock-gateway` joined to one group, on the network of sync_network.py (network
namespaces linked by veth pairs as root, else loopback; shaped links on request). Each member
may have a wall clock of its own (wallclock.py): its clock and gateway then read the same
shifted, drifting CLOCK_REALTIME, as two processes on one machine do.

Used by sync_check.py (the test) and sync_bench.py (the measurements).
"""
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time

from rc_harness import CLOCK, GATEWAY, terminate, wait_for
from sync_network import Broker, Network
from wallclock import WallClock

PIN = "482913"
GROUP = "e2e"
TOPIC = f"roundclock/group/{GROUP}/session"
# Whole seconds apart, so "the same second shown" is "the same text within half a second".
AGREE_WITHIN = 0.5


class Member:
    """One clock (`roundclock run --simulate --frames-clock monotonic`, its frames file and
    control socket) and its gateway, joined to the group as member-<i>. The gateway runs in
    the member's network namespace; the clock needs no network at all."""

    def __init__(self, network, index, directory, program="countdown:30:00", clock_prefix=(), gateway_prefix=(), wall=None):
        """`wall`: (offset s, drift ppm) of this member's wall clock, or None for the host's."""
        self.network = network
        self.clock_prefix = list(clock_prefix)
        self.gateway_prefix = list(gateway_prefix)
        self.index = index
        self.name = f"member-{index}"
        self.dir = os.path.join(directory, self.name)
        os.makedirs(os.path.join(self.dir, "clock-state"), exist_ok=True)
        self.socket = os.path.join(self.dir, "control.sock")
        self.frames = os.path.join(self.dir, "frames.jsonl")
        self.config = os.path.join(self.dir, "config.toml")
        self.gateway_log_path = os.path.join(self.dir, "gateway.log")
        with open(self.config, "w") as f:
            f.write(f'program = "{program}"\n[remote]\npin = "{PIN}"\npin_on_panels = false\n'
                    f'[mqtt]\nhost = "{network.broker_address(index)}"\nport = {network.port}\nclient_id = "{self.name}"\nkeepalive = 5\n'
                    f'[sync]\ngroup = "{GROUP}"\n')
        self.clock = None
        self.gateway = None
        self.wall = WallClock(os.path.join(self.dir, "wallclock"), *wall) if wall else None
        self.env = self.wall.env() if self.wall else None

    def jump_wall(self, seconds):
        """Steps this member's wall clock (its clock's and its gateway's) by `seconds` now."""
        self.wall.jump(seconds)

    def start(self):
        self.start_clock()
        self.start_gateway()

    def start_clock(self):
        args = self.clock_prefix + [CLOCK, "run", "--simulate", "--config", self.config, "--control", self.socket,
                "--state-dir", os.path.join(self.dir, "clock-state"), "--frames", self.frames, "--frames-clock", "monotonic"]
        self.clock = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=open(os.path.join(self.dir, "clock.log"), "ab"), env=self.env)
        wait_for(lambda: os.path.exists(self.socket) or self.clock.poll() is not None, what=f"{self.name}'s clock socket")
        assert self.clock.poll() is None, f"{self.name}'s clock exited: {self.clock_log()}"

    def start_gateway(self):
        args = self.network.prefix(self.index) + self.gateway_prefix + [GATEWAY, "--config", self.config, "--control", self.socket, "--listen", "127.0.0.1:0",
                                                  "--state-dir", os.path.join(self.dir, "gateway-state")]
        self.gateway = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=open(self.gateway_log_path, "ab"), env=self.env)

    def kill_gateway(self):
        """SIGKILL the gateway alone: the member leaves the group without a goodbye; its clock
        counts on by itself."""
        if self.gateway and self.gateway.poll() is None:
            self.gateway.kill()
            self.gateway.wait(timeout=30)

    def kill(self):
        """SIGKILL both processes: no goodbye to the broker, no state saved at exit."""
        for process in (self.gateway, self.clock):
            if process and process.poll() is None:
                process.kill()
                process.wait(timeout=30)

    def close(self):
        terminate(self.gateway, self.clock)

    def running(self):
        return self.clock.poll() is None and self.gateway.poll() is None

    def clock_log(self):
        with open(os.path.join(self.dir, "clock.log"), errors="replace") as f:
            return f.read()

    def gateway_log(self):
        try:
            with open(self.gateway_log_path, errors="replace") as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

    def api_state(self):
        """The gateway's `GET /api/state` (logged in with the PIN), from the member's namespace."""
        line = next((l for l in reversed(self.gateway_log()) if "listening on http://" in l), None)
        assert line, f"{self.name}'s gateway has not said where it listens"
        port = int(line.split("listening on http://", 1)[1].split(";", 1)[0].rsplit(":", 1)[1])
        code = ("import http.client, json, sys\n"
                "def call(method, path, body=None, cookie=None):\n"
                "    c = http.client.HTTPConnection('127.0.0.1', int(sys.argv[1]), timeout=30)\n"
                "    headers = {'Content-Type': 'application/json'} if body else {}\n"
                "    if cookie: headers['Cookie'] = cookie\n"
                "    c.request(method, path, body=body, headers=headers)\n"
                "    return c.getresponse()\n"
                "r = call('POST', '/api/login', json.dumps({'pin': sys.argv[2]}))\n"
                "cookie = r.getheader('Set-Cookie').split(';')[0]\n"
                "sys.stdout.write(call('GET', '/api/state', cookie=cookie).read().decode())\n")
        out = subprocess.run(self.network.prefix(self.index) + ["python3", "-c", code, str(port), PIN], check=True,
                             capture_output=True, text=True, timeout=60)
        return json.loads(out.stdout)

    def command(self, word, **fields):
        """One command on the clock's control socket; returns the reply object."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(30)
            s.connect(self.socket)
            s.sendall((json.dumps(dict(command=word, **fields)) + "\n").encode())
            reply = b""
            while not reply.endswith(b"\n"):
                chunk = s.recv(4096)
                if not chunk:
                    break
                reply += chunk
        return json.loads(reply)

    def frames_lines(self):
        try:
            with open(self.frames) as f:
                lines = f.readlines()
        except FileNotFoundError:
            return []
        out = []
        for line in lines:
            if line.endswith("\n"):
                out.append(json.loads(line))
        return out

    def time_changes(self, after=0.0):
        """(t, text, state) of each change of the time panel after monotonic instant `after`."""
        return [(f["t"], f["text"], f["state"]) for f in self.frames_lines() if f.get("panel") == "time" and f["t"] > after]

    def shown(self):
        """The time panel's latest (t, text, state), or None."""
        changes = self.time_changes()
        return changes[-1] if changes else None


class Tail:
    """A growing file read as it grows: `update()` parses only the lines added since the last
    call (with `parse`), so a test may poll it often; a file that shrank (a restarted clock's
    frames) is read afresh. `lines` holds what was parsed."""

    def __init__(self, path, parse=json.loads):
        self.path = path
        self.parse = parse
        self.offset = 0
        self.partial = b""
        self.lines = []

    def update(self):
        try:
            with open(self.path, "rb") as f:
                if os.fstat(f.fileno()).st_size < self.offset:
                    self.offset, self.partial, self.lines = 0, b"", []
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return self.lines
        self.offset += len(data)
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        self.lines.extend(self.parse(line) for line in lines if line.strip())
        return self.lines


def monotonic():
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def agreement(members, after, count=3, within=AGREE_WITHIN):
    """The spreads (s) of `count` consecutive time-panel changes of member 0 after `after` that
    every member shows (same text and state, within `within` s of member 0's), the first such
    run; None until there is one. (A run, not the first changes: on a loaded machine one
    commit may come late, and the next ones show whether the members agree.)"""
    sequences = [m.time_changes(after) for m in members]
    if any(len(s) < count for s in sequences):
        return None
    spreads = []
    for t, text, state in sequences[0]:
        times = [t]
        for other in sequences[1:]:
            match = [o for o in other if o[1] == text and abs(o[0] - t) < within and o[2] == state]
            if not match:
                break
            times.append(match[0][0])
        else:
            spreads.append(max(times) - min(times))
            if len(spreads) == count:
                return spreads
            continue
        spreads = []
    return None


def wait_agree(members, after, what, timeout=60.0, count=3):
    """Waits until every member shows the same `count` second changes after `after`."""
    return wait_for(lambda: agreement(members, after, count), timeout=timeout, what=what)


def wait_log(member, text, after_lines=0, timeout=60.0):
    """Waits for a gateway log line containing `text` (among the lines after the first `after_lines`)."""
    return wait_for(lambda: next((l for l in member.gateway_log()[after_lines:] if text in l), None), timeout=timeout,
                    what=f"{member.name}'s gateway to log {text!r}")


class Group:
    """Network, broker and members, started together and torn down together."""

    def __init__(self, members=3, spare=0, program="countdown:30:00", clock_prefix=(), gateway_prefix=(), broker_prefix=(),
                 wall=None, shape=None):
        """`clock_prefix`, `gateway_prefix`, `broker_prefix`: commands put before each process's
        own (rc_harness.unit_scheduling: run them as their units do). `wall`: each member's wall
        clock as (offset s, drift ppm), e.g. [(-3.0, -50), (0, 0), (7.5, 50)]; members past the
        list's end, and all without it, read the host's. `shape`: a link_shaper.LinkShape for
        every member's link to the broker."""
        self.dir = tempfile.mkdtemp(prefix="rc-sync-")
        self.network = None
        self.broker = None
        self.members = []
        try:
            self.network = Network(members + spare, shape=shape)
            self.broker = Broker(self.network, self.dir, broker_prefix)
            walls = list(wall or [])
            self.members = [Member(self.network, i, self.dir, program, clock_prefix, gateway_prefix,
                                   walls[i] if i < len(walls) else None) for i in range(members + spare)]
            for member in self.members[:members]:
                member.start()
        except BaseException:
            self.close()
            raise

    def close(self):
        for member in self.members:
            member.close()
        if self.broker:
            self.broker.close()
        if self.network:
            self.network.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
