"""The network of the clocks-in-sync checks (sync_harness.py): as root, the broker and every
member get network namespaces of their own, each member linked to the broker's by a veth
pair; otherwise all share loopback. A shaped network (`shape=LinkShape(…)`) delays, jitters
and drops packets on each member's link: with `tc netem` on veth pairs where the kernel has
sch_netem, else through TUN devices and link_shaper.py. And the broker: a real Mosquitto, no
persistence.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading

from link_shaper import LinkShape
from rc_harness import terminate, wait_for

HERE = os.path.dirname(os.path.abspath(__file__))

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
BROKER_PORT = 1883


def run(*args):
    subprocess.run(args, check=True, capture_output=True)


class Network:
    """The broker's namespace and one per member, veth-linked (root), or plain loopback.
    `shape` (a LinkShape) shapes every member's link, both ways; it needs root."""

    def __init__(self, members, use_namespaces=None, shape=None, shaper_prefix=("chrt", "-f", "5")):
        """`shaper_prefix`: what runs link_shaper.py; by default SCHED_FIFO 5, above every
        ordinary process and below the clocks (their unit's SCHED_FIFO 10), so a busy machine
        does not stretch the links' delay."""
        self.tag = f"rcs{os.getpid() % 100000}"
        self.namespaces = (os.geteuid() == 0 and shutil.which("ip") is not None) if use_namespaces is None else use_namespaces
        self.members = members
        self.fallback = None
        self.broker_ns = f"{self.tag}-b"
        self.shape = shape
        self.shaper_prefix = list(shaper_prefix)
        self.netem = False
        self.shaper = None
        self.shaper_lines = []
        assert shape is None or self.namespaces, "a shaped network needs network namespaces (root)"
        if self.namespaces:
            try:
                self._link()
                self.port = BROKER_PORT
                return
            except subprocess.CalledProcessError as error:
                # E.g. a container without CAP_NET_ADMIN: said, and loopback instead.
                self.fallback = (error.stderr or b"").decode(errors="replace").strip() or str(error)
                self.close()
                self.namespaces = False
                if shape is not None:
                    raise AssertionError(f"a shaped network needs network namespaces: {self.fallback}") from error
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]

    def _link(self):
        run("ip", "netns", "add", self.broker_ns)
        run("ip", "-n", self.broker_ns, "link", "set", "lo", "up")
        self.netem = self.shape is not None and self._has_netem()
        tun = self.shape is not None and not self.netem
        for i in range(self.members):
            ns = self.member_ns(i)
            run("ip", "netns", "add", ns)
            run("ip", "-n", ns, "link", "set", "lo", "up")
            if tun:
                # Two TUN devices; link_shaper.py carries the packets between them.
                run("ip", "-n", ns, "tuntap", "add", "dev", "eth0", "mode", "tun")
                run("ip", "-n", self.broker_ns, "tuntap", "add", "dev", f"m{i}", "mode", "tun")
            else:
                # The pair is made in the member's namespace, its peer moved to the broker's.
                run("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", f"m{i}", "netns", self.broker_ns)
            run("ip", "-n", ns, "addr", "add", f"10.77.{i}.2/24", "dev", "eth0")
            run("ip", "-n", self.broker_ns, "addr", "add", f"10.77.{i}.1/24", "dev", f"m{i}")
            run("ip", "-n", ns, "link", "set", "eth0", "up")
            run("ip", "-n", self.broker_ns, "link", "set", f"m{i}", "up")
            if self.netem:
                for namespace, device in ((ns, "eth0"), (self.broker_ns, f"m{i}")):
                    run("ip", "netns", "exec", namespace, "tc", "qdisc", "add", "dev", device, "root", *self._netem_args())
        if tun:
            self._start_shaper()

    def _has_netem(self):
        """Whether this kernel has sch_netem: a netem qdisc tried on the broker's loopback."""
        probe = ["ip", "netns", "exec", self.broker_ns, "tc", "qdisc"]
        if subprocess.run(probe + ["add", "dev", "lo", "root", "netem", "delay", "1ms"], capture_output=True).returncode:
            return False
        subprocess.run(probe + ["del", "dev", "lo", "root"], capture_output=True)
        return True

    def _netem_args(self):
        # netem's jitter without a distribution table is uniform, as link_shaper.py's.
        shape = self.shape
        return ["netem", "delay", f"{shape.delay_ms}ms", f"{shape.jitter_ms}ms", "loss", f"{shape.loss * 100}%"]

    def _start_shaper(self):
        handle, self.shaper_control = tempfile.mkstemp(prefix=f"{self.tag}-shape-", suffix=".json")
        os.close(handle)
        links = [arg for i in range(self.members) for arg in ("--link", f"{self.member_ns(i)}:eth0:{self.broker_ns}:m{i}")]
        shape = self.shape
        args = self.shaper_prefix + [sys.executable, os.path.join(HERE, "link_shaper.py"), "--delay", str(shape.delay_ms),
                                     "--jitter", str(shape.jitter_ms), "--loss", str(shape.loss), "--seed", str(shape.seed),
                                     "--control", self.shaper_control] + links
        self.shaper = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       text=True)
        threading.Thread(target=self._read_shaper, daemon=True).start()
        wait_for(lambda: any(l.startswith("ready") for l in self.shaper_lines) or self.shaper.poll() is not None,
                 what="link_shaper.py to attach to the links")
        assert self.shaper.poll() is None, "link_shaper.py exited: " + "\n".join(self.shaper_lines)

    def _read_shaper(self):
        for line in self.shaper.stdout:
            self.shaper_lines.append(line.rstrip("\n"))

    def set_loss(self, loss):
        """Changes every link's drop probability now; returns once it applies, with the shaper's
        packet counts so far (`… packets forwarded, … dropped`; None under netem)."""
        self.shape = LinkShape(self.shape.delay_ms, self.shape.jitter_ms, loss, self.shape.seed)
        if self.netem:
            for i in range(self.members):
                for namespace, device in ((self.member_ns(i), "eth0"), (self.broker_ns, f"m{i}")):
                    run("ip", "netns", "exec", namespace, "tc", "qdisc", "change", "dev", device, "root", *self._netem_args())
            return None
        with open(self.shaper_control, "w") as f:
            json.dump({"loss": loss}, f)
        seen = len([l for l in self.shaper_lines if l.startswith("shape ")])
        self.shaper.send_signal(signal.SIGHUP)
        wait_for(lambda: len([l for l in self.shaper_lines if l.startswith("shape ")]) > seen,
                 what="link_shaper.py to take the new loss")
        return [l for l in self.shaper_lines if l.startswith("shape ")][-1].split("so far ", 1)[1]

    @property
    def kind(self):
        if self.namespaces:
            if self.shape is None:
                return "network namespaces with veth links"
            how = "tc netem on veth pairs" if self.netem else "TUN devices and link_shaper.py"
            return f"network namespaces, links shaped {self.shape} ({how})"
        return f"loopback (network namespaces failed: {self.fallback})" if self.fallback else "loopback"

    def member_ns(self, i):
        return f"{self.tag}-m{i}"

    def prefix(self, i=None):
        """The command prefix that runs a process in member i's namespace (None: the broker's)."""
        if not self.namespaces:
            return []
        return ["ip", "netns", "exec", self.broker_ns if i is None else self.member_ns(i)]

    def broker_address(self, i):
        """Where member i reaches the broker."""
        return f"10.77.{i}.1" if self.namespaces else "127.0.0.1"

    def close(self):
        if self.shaper is not None:
            terminate(self.shaper)
            self.shaper = None
            if os.path.exists(self.shaper_control):
                os.unlink(self.shaper_control)
        if self.namespaces:
            for ns in [self.broker_ns] + [self.member_ns(i) for i in range(self.members)]:
                subprocess.run(["ip", "netns", "del", ns], capture_output=True)


class Broker:
    """A real Mosquitto, no persistence: a restart loses its retained messages."""

    def __init__(self, network, directory, prefix=()):
        self.network = network
        self.prefix = list(prefix)
        self.conf = os.path.join(directory, "mosquitto.conf")
        self.log = os.path.join(directory, "mosquitto.log")
        bind = "0.0.0.0" if network.namespaces else "127.0.0.1"
        with open(self.conf, "w") as f:
            # As root, mosquitto would switch to user `mosquitto`; `user root` keeps it.
            # set_tcp_nodelay: no Nagle delay on the broker's side of each connection.
            f.write(f"user root\nlistener {network.port} {bind}\nallow_anonymous true\npersistence false\n"
                    "set_tcp_nodelay true\nlog_dest stderr\nlog_type error\nlog_type warning\nlog_type notice\n")
        self.process = None
        self.start()

    def start(self):
        self.process = subprocess.Popen(self.network.prefix() + self.prefix + [MOSQUITTO, "-c", self.conf], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=open(self.log, "ab"))
        host = "127.0.0.1"
        wait_for(lambda: self._listening(host) or self.process.poll() is not None, what="mosquitto to listen")
        assert self.process.poll() is None, f"mosquitto exited: {open(self.log).read()}"

    def _listening(self, host):
        probe = self.network.prefix() + ["python3", "-c",
                                         f"import socket; socket.create_connection(('{host}', {self.network.port}), 2)"]
        return subprocess.run(probe, capture_output=True).returncode == 0

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def publish(self, topic, payload, retain=True):
        """Publishes `payload` (bytes) with mosquitto_pub, from the broker's own namespace."""
        path = self.conf + ".payload"
        with open(path, "wb") as f:
            f.write(payload)
        args = self.network.prefix() + ["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.network.port), "-q", "1",
                                        "-t", topic, "-f", path] + (["-r"] if retain else [])
        subprocess.run(args, check=True, capture_output=True, timeout=60)

    def retained(self, topic):
        """The retained payload on `topic` (mosquitto_sub), or None."""
        args = self.network.prefix() + ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.network.port), "-t", topic,
                                        "-C", "1", "-W", "3", "--retained-only"]
        out = subprocess.run(args, capture_output=True, timeout=60)
        return out.stdout.rstrip(b"\n") if out.returncode == 0 and out.stdout else None

    def close(self):
        terminate(self.process)
