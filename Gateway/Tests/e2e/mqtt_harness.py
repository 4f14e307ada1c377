"""MQTT end-to-end helpers: a real Mosquitto broker (Debian `mosquitto`) on a free loopback
port with its own config, and an independent paho-mqtt client that records every message.
Used by mqtt_check.py (and the group sync checks).
"""
import json
import os
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time

try:
    import paho.mqtt.client as mqtt
except ImportError:
    # Debian's python3-paho-mqtt and python3-jinja2 (scripts/setup.sh --gateway) live here;
    # a python3 of its own (pyenv, a venv) does not look there by itself.
    sys.path.append("/usr/lib/python3/dist-packages")
    import paho.mqtt.client as mqtt

from rc_harness import wait_for

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """`mosquitto -c CONF` on 127.0.0.1:PORT. `users` {name: password} makes a password file
    with mosquitto_passwd and refuses anonymous clients; `tls` makes a CA and a server
    certificate with openssl (`ca_file` is the CA's PEM)."""

    def __init__(self, users=None, tls=False):
        self.dir = tempfile.mkdtemp(prefix="rc-mqtt-")
        self.port = free_port()
        self.log_path = os.path.join(self.dir, "mosquitto.log")
        self.ca_file = None
        # Run as root (the test machine), mosquitto would switch to user `mosquitto`, which
        # cannot read this directory: `user root` keeps it.
        lines = ["user root", "persistence false", f"log_dest file {self.log_path}", "log_type all",
                 f"listener {self.port} 127.0.0.1"]
        if users:
            password_file = os.path.join(self.dir, "passwd")
            for index, (name, password) in enumerate(users.items()):
                subprocess.run(["mosquitto_passwd", "-b"] + (["-c"] if index == 0 else []) + [password_file, name, password],
                               check=True, capture_output=True)
            lines += ["allow_anonymous false", f"password_file {password_file}"]
        else:
            lines.append("allow_anonymous true")
        if tls:
            self.ca_file, cert, key = self._certificates()
            lines += [f"cafile {self.ca_file}", f"certfile {cert}", f"keyfile {key}"]
        self.conf = os.path.join(self.dir, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.process = None
        self.start()

    def _certificates(self):
        """A self-signed CA and a server certificate for 127.0.0.1 signed by it."""
        ca_key, ca, key, csr, cert = (os.path.join(self.dir, n) for n in ("ca.key", "ca.pem", "server.key", "server.csr", "server.pem"))
        run = lambda *a: subprocess.run(list(a), check=True, capture_output=True)
        run("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", ca_key,
            "-out", ca, "-days", "2", "-subj", "/CN=RoundClock test CA")
        run("openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", csr,
            "-subj", "/CN=127.0.0.1")
        extensions = os.path.join(self.dir, "san.cnf")
        with open(extensions, "w") as f:
            f.write("subjectAltName=IP:127.0.0.1\n")
        run("openssl", "x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days", "2",
            "-extfile", extensions)
        return ca, cert, key

    def start(self):
        # A signal mask is inherited: run from `swift test`, SIGTERM arrives blocked.
        unblock = lambda: signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
        self.process = subprocess.Popen([MOSQUITTO, "-c", self.conf], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=unblock)

        def listening():
            assert self.process.poll() is None, f"mosquitto exited: {self.log()}"
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return True
            except OSError:
                return False
        wait_for(listening, what="mosquitto to listen")

    def kill(self):
        """SIGKILL: no goodbye to the clients, retained messages gone (persistence false)."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=30)

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read()
        except FileNotFoundError:
            return ""

    def close(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=30)
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def config(self, prefix, **extra):
        """A `[mqtt]` table for this broker."""
        lines = ["[mqtt]", 'host = "127.0.0.1"', f"port = {self.port}", f'topic_prefix = "{prefix}"', "keepalive = 5"]
        lines += [f"{k} = {json.dumps(v) if isinstance(v, str) else v}" for k, v in extra.items()]
        return "\n".join(lines) + "\n"


class Checker:
    """An independent paho-mqtt client subscribed to `filters`; keeps the last message per
    topic (payload bytes, retain flag) and every message in order."""

    def __init__(self, broker, filters, username=None, password=None, client_id=None):
        self.lock = threading.Lock()
        self.last = {}
        self.all = []
        self.client = mqtt.Client(client_id=client_id or f"checker-{os.getpid()}-{time.monotonic_ns()}", clean_session=True)
        if username:
            self.client.username_pw_set(username, password)
        if broker.ca_file:
            self.client.tls_set(ca_certs=broker.ca_file, cert_reqs=ssl.CERT_REQUIRED)
        self.filters = filters
        self.subscribed = 0
        self.client.on_connect = lambda c, u, flags, rc: [c.subscribe(f, qos=1) for f in self.filters] if rc == 0 else None
        self.client.on_subscribe = self._subscribed
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", broker.port, keepalive=30)
        self.client.loop_start()

    def _subscribed(self, client, userdata, mid, granted_qos):
        with self.lock:
            self.subscribed += 1

    def wait_subscribed(self):
        """Waits for the broker's SUBACK of every filter: from then on nothing published is missed."""
        wait_for(lambda: self.subscribed >= len(self.filters), what="the checker's subscriptions")

    def statuses(self, topic, since=0):
        """The payloads on `topic` among the messages from index `since` on."""
        with self.lock:
            return [p for t, p, _ in self.all[since:] if t == topic]

    def _message(self, client, userdata, message):
        with self.lock:
            self.last[message.topic] = (message.payload, message.retain)
            self.all.append((message.topic, message.payload, message.retain))

    def get(self, topic):
        with self.lock:
            return self.last.get(topic)

    def topics(self, prefix):
        with self.lock:
            return {t: p for t, (p, _) in self.last.items() if t.startswith(prefix)}

    def publish(self, topic, payload):
        info = self.client.publish(topic, payload, qos=1)
        info.wait_for_publish()

    def close(self):
        self.client.loop_stop()
        self.client.disconnect()
