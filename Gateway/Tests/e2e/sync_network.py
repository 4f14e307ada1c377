"""The network of the clocks-in-sync checks (sync_harness.py): as root, the broker and every
member get network namespaces of their own, each member linked to the broker's by a veth
pair; otherwise all share loopback. And the broker: a real Mosquitto, no persistence.
"""
import os
import shutil
import signal
import socket
import subprocess

from rc_harness import terminate, wait_for

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
BROKER_PORT = 1883


def run(*args):
    subprocess.run(args, check=True, capture_output=True)


class Network:
    """The broker's namespace and one per member, veth-linked (root), or plain loopback."""

    def __init__(self, members, use_namespaces=None):
        self.tag = f"rcs{os.getpid() % 100000}"
        self.namespaces = (os.geteuid() == 0 and shutil.which("ip") is not None) if use_namespaces is None else use_namespaces
        self.members = members
        self.fallback = None
        self.broker_ns = f"{self.tag}-b"
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
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]

    def _link(self):
        run("ip", "netns", "add", self.broker_ns)
        run("ip", "-n", self.broker_ns, "link", "set", "lo", "up")
        for i in range(self.members):
            ns = self.member_ns(i)
            run("ip", "netns", "add", ns)
            run("ip", "-n", ns, "link", "set", "lo", "up")
            # The pair is made in the member's namespace, its peer moved to the broker's.
            run("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", f"m{i}", "netns", self.broker_ns)
            run("ip", "-n", ns, "addr", "add", f"10.77.{i}.2/24", "dev", "eth0")
            run("ip", "-n", self.broker_ns, "addr", "add", f"10.77.{i}.1/24", "dev", f"m{i}")
            run("ip", "-n", ns, "link", "set", "eth0", "up")
            run("ip", "-n", self.broker_ns, "link", "set", f"m{i}", "up")

    @property
    def kind(self):
        if self.namespaces:
            return "network namespaces with veth links"
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
            f.write(f"user root\nlistener {network.port} {bind}\nallow_anonymous true\npersistence false\nset_tcp_nodelay true\n"
                    "log_dest stderr\nlog_type error\nlog_type warning\nlog_type notice\n")
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
