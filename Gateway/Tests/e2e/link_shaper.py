#!/usr/bin/env python3
"""A network link with delay, jitter and loss, in user space, for kernels without sch_netem
(sync_network.py uses `tc netem` where the kernel has it). Each link is two TUN devices, one at
each end (each in its own network namespace); this process forwards every IP packet from one to
the other after `delay ± jitter` ms (uniform), never before the packet sent ahead of it in the
same direction (the order is kept), and drops each with probability `loss`. It works on whole
packets, so TCP sees real losses and retransmits.

    link_shaper.py --delay 5 --jitter 3 --loss 0 --seed 7 --control FILE \\
        --link NS_A:DEV_A:NS_B:DEV_B ...

The devices must exist (`ip tuntap add dev DEV mode tun`, as sync_network.py makes them); this
process attaches to them. It prints `ready seed=N` once attached. On SIGHUP it reads `FILE`
(JSON: `delay_ms`, `jitter_ms`, `loss`, each optional) and prints `shape …` once the new shape
applies to every packet that arrives from then on, with the packets forwarded and dropped so
far. SIGTERM ends it.
"""
import argparse
import collections
import ctypes
import errno
import fcntl
import json
import os
import random
import select
import signal
import struct
import sys
import time
from dataclasses import dataclass
from typing import Optional

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000


@dataclass
class LinkShape:
    """One-way delay `delay_ms` ± `jitter_ms` (uniform) and a drop probability, each way."""
    delay_ms: float = 5.0
    jitter_ms: float = 3.0
    loss: float = 0.0
    seed: Optional[int] = None

    def __post_init__(self):
        assert 0 <= self.jitter_ms <= self.delay_ms, "jitter must stay within the delay"
        assert 0 <= self.loss < 1
        if self.seed is None:
            self.seed = random.SystemRandom().randrange(1 << 31)

    def __str__(self):
        return f"{self.delay_ms:g} ms ± {self.jitter_ms:g} ms each way, loss {self.loss * 100:g} %, seed {self.seed}"


def setns(path):
    """Moves this (single-threaded) process into the network namespace at `path`."""
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            number = ctypes.get_errno()
            raise OSError(number, f"setns({path}): {os.strerror(number)}")
    finally:
        os.close(fd)


def attach(namespace, device):
    """An open, non-blocking fd on the TUN device `device` of network namespace `namespace`."""
    home = os.open("/proc/self/ns/net", os.O_RDONLY | os.O_CLOEXEC)
    try:
        setns(f"/var/run/netns/{namespace}")
        fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH22x", device.encode(), IFF_TUN | IFF_NO_PI))
        return fd
    finally:
        setns(f"/proc/self/fd/{home}")
        os.close(home)


class Direction:
    """Packets from one device to the other, each with its delivery instant (in order)."""

    def __init__(self, source, target):
        self.source = source
        self.target = target
        self.queue = collections.deque()
        self.last = 0.0
        self.forwarded = 0
        self.dropped = 0


class Shaper:
    def __init__(self, links, shape, control=None):
        self.shape = shape
        self.control = control
        self.random = random.Random(shape.seed)
        self.directions = []
        for namespace_a, device_a, namespace_b, device_b in links:
            a = attach(namespace_a, device_a)
            b = attach(namespace_b, device_b)
            self.directions += [Direction(a, b), Direction(b, a)]
        self.by_source = {d.source: d for d in self.directions}
        self.reload = False
        self.stop = False
        # Signals wake select() through this pipe (signal.set_wakeup_fd).
        self.wakeup, wakeup_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(wakeup_write)

    def take(self, direction, now):
        while True:
            try:
                packet = os.read(direction.source, 65536)
            except BlockingIOError:
                return
            except OSError as error:
                if error.errno == errno.EINTR:
                    continue
                raise
            if self.random.random() < self.shape.loss:
                direction.dropped += 1
                continue
            delay = self.shape.delay_ms + self.random.uniform(-self.shape.jitter_ms, self.shape.jitter_ms)
            direction.last = max(now + delay / 1000, direction.last)
            direction.queue.append((direction.last, packet))

    def deliver(self, now):
        for direction in self.directions:
            while direction.queue and direction.queue[0][0] <= now:
                _, packet = direction.queue.popleft()
                try:
                    os.write(direction.target, packet)
                    direction.forwarded += 1
                except OSError:
                    # The device is down or its queue full: the packet is lost, as on a wire.
                    direction.dropped += 1

    def apply_control(self):
        self.reload = False
        with open(self.control) as f:
            wanted = json.load(f)
        self.shape = LinkShape(delay_ms=float(wanted.get("delay_ms", self.shape.delay_ms)),
                               jitter_ms=float(wanted.get("jitter_ms", self.shape.jitter_ms)),
                               loss=float(wanted.get("loss", self.shape.loss)), seed=self.shape.seed)
        print(f"shape {self.shape}; so far {self.counts()}", flush=True)

    def run(self):
        sources = [d.source for d in self.directions] + [self.wakeup]
        while not self.stop:
            if self.reload:
                self.apply_control()
            now = time.monotonic()
            self.deliver(now)
            due = [d.queue[0][0] for d in self.directions if d.queue]
            timeout = max(0.0, min(due) - time.monotonic()) if due else None
            try:
                ready, _, _ = select.select(sources, [], [], timeout)
            except InterruptedError:
                continue
            now = time.monotonic()
            for fd in ready:
                if fd == self.wakeup:
                    os.read(self.wakeup, 512)
                else:
                    self.take(self.by_source[fd], now)
        print(f"done: {self.counts()}", flush=True)

    def counts(self):
        forwarded = sum(d.forwarded for d in self.directions)
        dropped = sum(d.dropped for d in self.directions)
        return f"{forwarded} packets forwarded, {dropped} dropped"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--delay", type=float, default=5.0, help="one-way delay, ms")
    parser.add_argument("--jitter", type=float, default=3.0, help="± this, uniform, ms")
    parser.add_argument("--loss", type=float, default=0.0, help="drop probability per packet, 0 to 1")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--control", help="JSON file read on SIGHUP")
    parser.add_argument("--link", action="append", required=True, help="NS_A:DEV_A:NS_B:DEV_B")
    args = parser.parse_args()
    shape = LinkShape(args.delay, args.jitter, args.loss, args.seed)
    shaper = Shaper([link.split(":") for link in args.link], shape, args.control)

    def hangup(*_):
        shaper.reload = True

    def terminate(*_):
        shaper.stop = True

    # A signal mask is inherited: started from `swift test`, these arrive blocked.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGHUP, signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGHUP, hangup)
    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, terminate)
    print(f"ready seed={shape.seed}", flush=True)
    shaper.run()


if __name__ == "__main__":
    sys.exit(main())
