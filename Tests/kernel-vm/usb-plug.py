#!/usr/bin/env python3
"""Unplugs and plugs the test VM's USB speaker when the guest asks.

usage: usb-plug.py QMP-SOCKET SHARE-DIR

The guest appends "unplug" or "plug" lines to SHARE-DIR/usb-request; each is done over
qemu's QMP socket (device_del, then device_add of a new usb-audio on the second audiodev,
so the sound after the return lands in a file of its own) and answered with "unplugged" or
"plugged" (or "error ...") in SHARE-DIR/usb-done. Ends when qemu closes the socket.
"""
import json
import os
import select
import socket
import sys
import time

DEVICE = "usb-speaker"


class QMP:
    def __init__(self, path):
        deadline = time.monotonic() + 120
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                self.sock.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.buffer = b""
        self.events = []
        self.read()                                   # the greeting
        self.execute("qmp_capabilities")

    def read(self, seconds=None):
        """The next message, or None if none comes within seconds (None: wait)."""
        deadline = None if seconds is None else time.monotonic() + seconds
        while b"\n" not in self.buffer:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                    return None
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("qemu closed the QMP socket")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def execute(self, command, **arguments):
        self.sock.sendall((json.dumps({"execute": command, "arguments": arguments}) + "\n").encode())
        while True:
            message = self.read()
            if "event" in message:
                self.events.append(message)
            elif "error" in message:
                return "error " + message["error"].get("desc", "?")
            else:
                return None

    def wait_deleted(self, device, seconds):
        """Waits for DEVICE_DELETED of device: the guest let go of it."""
        deadline = time.monotonic() + seconds
        while not any(e["event"] == "DEVICE_DELETED" and e.get("data", {}).get("device") == device
                      for e in self.events):
            message = self.read(max(0.0, deadline - time.monotonic()))
            if message is None:
                return "error no DEVICE_DELETED within %d s" % seconds
            if "event" in message:
                self.events.append(message)
        self.events.clear()
        return None


def main():
    qmp_path, share = sys.argv[1], sys.argv[2]
    request, done = os.path.join(share, "usb-request"), os.path.join(share, "usb-done")
    try:
        qmp = QMP(qmp_path)
    except (OSError, EOFError) as error:
        print("usb-plug: no QMP socket: %s" % error, file=sys.stderr)
        return 1
    handled = 0
    while True:
        try:
            with open(request) as f:
                lines = f.read().split("\n")[:-1]
        except FileNotFoundError:
            lines = []
        try:
            for line in lines[handled:]:
                if line == "unplug":
                    answer = qmp.execute("device_del", id=DEVICE) or qmp.wait_deleted(DEVICE, 20) or "unplugged"
                elif line == "plug":
                    answer = qmp.execute("device_add", driver="usb-audio", id=DEVICE, bus="xhci.0",
                                         audiodev="usbsnd1") or "plugged"
                else:
                    answer = "error unknown request %r" % line
                with open(done, "a") as f:
                    f.write(answer + "\n")
                handled += 1
            message = qmp.read(0.05)               # poll the request file, notice qemu's exit
            if message is not None and "event" in message:
                qmp.events.append(message)
        except (EOFError, OSError, ValueError):
            return 0


if __name__ == "__main__":
    sys.exit(main())
