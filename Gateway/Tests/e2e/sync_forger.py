#!/usr/bin/env python3
"""A client of the group's broker that answers group-time asks in the reference's name
(docs/sync.md "Group time"): it subscribes to `roundclock/group/<group>/time/#` and answers
every ask it sees, on the asker's topic and for the asker's real outstanding sequence, with
crafted answers. Each ask gets one to three answers that every member must refuse on reading
(the out-of-range payload that once crashed a gateway, `sent_ns` before `received_ns`, a
turnaround over a second, numbers beyond 64 bits, strings, not JSON, over 512 bytes) and,
with probability `--plausible`, one that reads well and disagrees with the reference's answer
(seconds or milliseconds off, the range's floor or ceiling, an answer to a sequence not asked
or already answered). Asks to `--ghost` (a member id that never answers) get only refused
answers: a ghost that answers well would be a reference, not a ghost.

The choices come from `--seed`, one draw sequence per ask, so a run replays with its seed (the
asks' timing is the members'). Prints `ready` once subscribed, then one line per ask
(`ask <n> from <asker> to <member>: <kinds>`), and at SIGTERM or SIGINT the totals as one JSON
line (`totals {...}`).

    python3 Gateway/Tests/e2e/sync_forger.py --port 1883 --group e2e --seed 7 --ghost a-ghost
"""
import argparse
import collections
import json
import os
import random
import signal
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mqtt_harness import mqtt  # noqa: E402

INT64_MAX = 2**63 - 1
# GroupInstant.maximum: the largest instant a group message may carry.
INSTANT_MAX = 4 * 10**18
SECOND = 10**9
MS = 10**6


def refused_payloads(n, reference, g, rng):
    """(kind, payload bytes) of answers a member refuses on reading, whatever its state."""
    def answer(**fields):
        return json.dumps(dict({"answer": n, "reference": reference}, **fields)).encode()
    return [
        ("int64-max", answer(received_ns=INT64_MAX, sent_ns=0)),
        ("sent-before-received", answer(received_ns=g, sent_ns=g - rng.randint(1, SECOND))),
        ("turnaround-over-1s", answer(received_ns=g, sent_ns=g + SECOND + rng.randint(1, 10**6 * SECOND))),
        ("above-range", answer(received_ns=INSTANT_MAX + 1, sent_ns=INT64_MAX)),
        ("negative", answer(received_ns=-rng.randint(1, INT64_MAX), sent_ns=0)),
        ("beyond-64-bits", answer(received_ns=2**64 + rng.randint(0, SECOND), sent_ns=2**64 + SECOND)),
        ("not-a-number", answer(received_ns=str(g), sent_ns=float(g) + 0.5)),
        ("sequence-out-of-range", json.dumps({"answer": rng.choice([-n, 2**63, 1e300]), "reference": reference,
                                              "received_ns": g, "sent_ns": g}).encode()),
        ("reference-not-an-id", answer(reference="a/b+#" * rng.randint(1, 20), received_ns=g, sent_ns=g)),
        ("not-json", answer(received_ns=g, sent_ns=g)[:rng.randint(1, 40)]),
        ("over-512-bytes", answer(received_ns=g, sent_ns=g, pad="x" * rng.randint(512, 4096))),
        ("nested", answer(received_ns={"ns": [g]}, sent_ns=[[[g]]])),
    ]


def accepted_payloads(n, reference, g, rng):
    """(kind, payload bytes) of answers that read well: a member takes each as an answer to
    its ask, and the reference's own answer to the same ask then disagrees."""
    def answer(received, sent, sequence=n):
        return json.dumps({"answer": sequence, "reference": reference, "received_ns": received, "sent_ns": sent}).encode()
    off = rng.choice([-1, 1]) * rng.randint(SECOND // 2, 5 * SECOND)
    small = rng.choice([-1, 1]) * rng.randint(5 * MS, 100 * MS)
    turn = rng.randint(0, 5 * MS)
    return [
        ("seconds-off", answer(g + off, g + off + turn)),
        ("milliseconds-off", answer(g + small, g + small + turn)),
        ("range-floor", answer(0, turn)),
        ("range-ceiling", answer(INSTANT_MAX - SECOND, INSTANT_MAX)),
        ("not-asked", answer(g, g + turn, sequence=n + rng.randint(1, 1000))),
        ("asked-before", answer(g + off, g + off + turn, sequence=max(1, n - rng.randint(1, 8)))),
    ]


class Forger:
    def __init__(self, host, port, group, seed, ghost, plausible):
        self.rng = random.Random(seed)
        self.prefix = f"roundclock/group/{group}/time/"
        self.ghost = ghost
        self.plausible = plausible
        self.lock = threading.Lock()
        # The payloads this client published: its own answers come back on its subscription.
        self.mine = collections.deque(maxlen=4096)
        # (group time ns, monotonic ns when seen) of the newest answer the reference sent.
        self.latest = None
        self.asks = 0
        self.counts = collections.Counter()
        self.client = mqtt.Client(client_id=f"forger-{os.getpid()}", clean_session=True)
        self.client.on_connect = lambda c, u, flags, rc: c.subscribe(self.prefix + "#", qos=0) if rc == 0 else None
        self.client.on_subscribe = lambda *a: print("ready", flush=True)
        self.client.on_message = self._message
        self.client.connect(host, port, keepalive=30)

    def _message(self, client, userdata, message):
        if not message.topic.startswith(self.prefix):
            return
        try:
            value = json.loads(message.payload)
        except ValueError:
            return
        if not isinstance(value, dict):
            return
        with self.lock:
            if "ask" in value:
                self._forge(value, message.topic[len(self.prefix):])
            elif "answer" in value and message.payload not in self.mine and isinstance(value.get("sent_ns"), int):
                self.latest = (value["sent_ns"], time.monotonic_ns())

    def _groupTime(self):
        if self.latest is None:
            return 1_800_000_000 * SECOND
        sent, seen = self.latest
        return sent + time.monotonic_ns() - seen

    def _forge(self, ask, target):
        n, asker = ask.get("ask"), ask.get("from")
        if not isinstance(n, int) or not isinstance(asker, str) or not asker or "/" in asker:
            return
        self.asks += 1
        g = self._groupTime()
        # The same draws on every ask, whatever is sent: a seed replays the choices.
        refused = refused_payloads(n, target, g, self.rng)
        accepted = accepted_payloads(n, target, g, self.rng)
        picks = self.rng.sample(refused, self.rng.randint(1, 3))
        # The payload of the crash, on the first asks and then on a third of them.
        if self.asks <= 3 or self.rng.random() < 0.3:
            picks = [refused[0]] + [p for p in picks if p[0] != refused[0][0]]
        well = self.rng.choice(accepted)
        if self.rng.random() < self.plausible and target != self.ghost:
            picks.insert(self.rng.randint(0, len(picks)), well)
        for kind, payload in picks:
            self.mine.append(payload)
            self.client.publish(self.prefix + asker, payload, qos=0)
            self.counts[kind] += 1
        print(f"ask {n} from {asker} to {target}: {' '.join(k for k, _ in picks)}", flush=True)

    def totals(self):
        with self.lock:
            return {"asks": self.asks, "answers": dict(sorted(self.counts.items()))}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1883)
    parser.add_argument("--group", required=True)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--ghost", default="a-ghost", help="a member id whose asks get only refused answers")
    parser.add_argument("--plausible", type=float, default=0.35,
                        help="the share of asks that also get an answer that reads well and disagrees")
    args = parser.parse_args()
    done = threading.Event()
    # A signal mask is inherited: run from `swift test`, SIGTERM arrives blocked.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, lambda *a: done.set())
    signal.signal(signal.SIGINT, lambda *a: done.set())
    print(f"seed {args.seed}", flush=True)
    forger = Forger(args.host, args.port, args.group, args.seed, args.ghost, args.plausible)
    forger.client.loop_start()
    done.wait()
    forger.client.loop_stop()
    forger.client.disconnect()
    print("totals " + json.dumps(forger.totals()), flush=True)


if __name__ == "__main__":
    main()
