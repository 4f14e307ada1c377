#!/usr/bin/env python3
"""Clocks in sync against a real Mosquitto (docs/sync.md): three members
(`roundclock run --simulate --frames-clock monotonic` + `roundclock-gateway` with `[mqtt]` and
`[sync] group`), each in its own network namespace veth-linked to the broker's when run as
root, else on loopback. Checks, on the frames files: a START on one member's socket shows
the same second on every member; STOP and START from others; the broker killed and restarted
mid-round (with a STOP made while it was away); a member killed and restarted; a member
started late; an adjust on one member shown by all; malformed and stale group messages
ignored with a log line, changing nothing.

    python3 Gateway/Tests/e2e/sync_check.py
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rc_harness import wait_for  # noqa: E402
from sync_harness import GROUP, TOPIC, Group, agreement, monotonic, wait_agree, wait_log  # noqa: E402


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok:", message)


def ms(spreads):
    return f"{max(spreads) * 1000:.1f} ms"


def all_in(members, state):
    return all((m.shown() or (0, "", ""))[2] == state for m in members)


def same_text(members):
    shown = [m.shown() for m in members]
    return all(s is not None for s in shown) and len({s[1] for s in shown}) == 1 and shown[0][1]


def seconds(shown):
    """A time panel's `M:SS` as seconds."""
    minutes, secs = shown.strip().split(":")
    return int(minutes) * 60 + int(secs)


def main():
    with Group(members=3, spare=1) as group:
        members = group.members[:3]
        late = group.members[3]
        print(f"ok: broker and 3 members on {group.network.kind}")
        for m in members:
            wait_log(m, "connected to MQTT broker")
        wait_for(lambda: group.broker.retained(TOPIC), what="a group session on the broker")
        check(True, "each gateway connected; the broker holds the group's session")
        for m in members:
            wait_log(m, "group time: this member is the reference" if m is members[0] else "group time: synced to the reference member-0")
        check(True, "member-0 logged that it is the group's time reference; members 1 and 2 that they are synced to it")
        states = [m.api_state() for m in members]
        check([s["group_time"]["state"] for s in states] == ["reference", "synced", "synced"]
              and [s["group_time"]["reference"] for s in states[1:]] == ["member-0", "member-0"],
              f"/api/state says so: {[s['group_time'] for s in states]}")

        # START on member 0's socket.
        before = monotonic()
        check(members[0].command("start") == {"ok": True}, "START on member-0's socket")
        spreads = wait_agree(members, before, "every member to count the same seconds after START")
        check(all_in(members, "running"), f"START: all three count the same seconds (spread of 3 changes <= {ms(spreads)})")

        # STOP from member 1, START from member 2.
        check(members[1].command("stop") == {"ok": True}, "STOP on member-1's socket")
        wait_for(lambda: all_in(members, "paused") and same_text(members), what="every member paused on one text")
        check(True, f"STOP: all three paused at {members[0].shown()[1]!r}")
        before = monotonic()
        check(members[2].command("start") == {"ok": True}, "START on member-2's socket")
        spreads = wait_agree(members, before, "every member to count again after START from member-2")
        check(all_in(members, "running"), f"START from member-2: all three count the same seconds (spread {ms(spreads)})")

        # The broker killed mid-round; a STOP made on member 0 while it is away.
        group.broker.kill()
        lines = [len(m.gateway_log()) for m in members]
        before = monotonic()
        spreads = wait_agree(members, before, "the members to keep counting without the broker")
        check(True, f"broker killed (SIGKILL): all three keep counting the same seconds (spread {ms(spreads)})")
        check(members[0].command("stop") == {"ok": True}, "STOP on member-0 while the broker is down")
        wait_log(members[0], "local change kept until the broker is back", lines[0])
        check(True, "member-0 logged the change as kept until the broker is back")
        group.broker.start()
        for m, n in zip(members, lines):
            wait_log(m, "connected to MQTT broker", n)
        wait_for(lambda: all_in(members, "paused") and same_text(members), what="every member paused after the broker came back")
        check(True, f"broker restarted: member-0's STOP reached the others; all paused at {members[0].shown()[1]!r}")
        before = monotonic()
        check(members[1].command("start") == {"ok": True}, "START on member-1's socket")
        spreads = wait_agree(members, before, "every member to count after the broker's restart")
        check(all_in(members, "running"), f"after the broker's restart: all three count the same seconds (spread {ms(spreads)})")

        # A member killed; the group pauses and restarts meanwhile; the member restarted.
        members[2].kill()
        check(members[0].command("stop") == {"ok": True}, "member-2 killed (SIGKILL); STOP on member-0")
        wait_for(lambda: all_in(members[:2], "paused"), what="members 0 and 1 paused")
        before = monotonic()
        check(members[0].command("start") == {"ok": True}, "START on member-0 while member-2 is down")
        wait_agree(members[:2], before, "members 0 and 1 counting")
        lines2 = len(members[2].gateway_log())
        members[2].start()
        wait_log(members[2], "group session adopted", lines2)
        after_restart = monotonic()
        spreads = wait_agree(members, after_restart, "member-2 to count with the others after its restart")
        check(all_in(members, "running"), f"member-2 restarted: it adopted the group's session; all three count the same seconds (spread {ms(spreads)})")

        # A member started late.
        late.start()
        wait_log(late, "group session adopted")
        after_late = monotonic()
        everyone = members + [late]
        spreads = wait_agree(everyone, after_late, "the late member to count with the others")
        check(all_in(everyone, "running"), f"member-3 started late: it shows the same seconds as the others at once (spread {ms(spreads)})")

        # Malformed and stale messages on the group topic: a log line each, nothing changes.
        current = json.loads(group.broker.retained(TOPIC))
        stale = dict(current, version=current["version"] - 1, member="zz-stale", run="paused", anchor_realtime_ns=None,
                     elapsed_before_ns=1_000_000_000)
        wrong_types = dict(current, version=str(current["version"] + 5))
        cases = [("bad JSON", b'{"version": 99, "member": '), ("wrong types", json.dumps(wrong_types).encode()),
                 ("1 MB", json.dumps(dict(current, version=current["version"] + 7, pad="x" * 1_000_000)).encode()),
                 ("stale version", json.dumps(stale).encode())]
        for label, payload in cases:
            lines = [len(m.gateway_log()) for m in everyone]
            group.broker.publish(TOPIC, payload)
            want = "stale" if label == "stale version" else "malformed"
            for m, n in zip(everyone, lines):
                wait_log(m, f"group message ignored, {want}", n)
            check(True, f"{label} ({len(payload):,} bytes): every member logged 'group message ignored, {want}'")
        # Malformed group-time messages: a presence and an ask that are not ones.
        for label, topic, payload, want in [
                ("presence", f"roundclock/group/{GROUP}/members/zz-bad", b'{"role": "boss"}', "presence of zz-bad ignored, malformed"),
                ("ask", f"roundclock/group/{GROUP}/time/member-0", b'{"ask": -4, "from": "x"}', "group time: message ignored, malformed")]:
            lines = len(members[0].gateway_log())
            group.broker.publish(topic, payload)
            wait_log(members[0], want, lines)
            check(True, f"a malformed {label}: member-0 logged '{want}'")
        after_bad = monotonic()
        spreads = wait_agree(everyone, after_bad, "the members to keep counting after the malformed messages")
        check(all_in(everyone, "running"), f"the malformed and stale messages changed nothing: all four count on (spread {ms(spreads)})")
        check(json.loads(group.broker.retained(TOPIC)) == current, "the stale message was answered: the broker retains the current session again")

        # One more command from the late member: the group still works.
        check(late.command("stop") == {"ok": True}, "STOP on member-3's socket")
        wait_for(lambda: all_in(everyone, "paused") and same_text(everyone), what="all four paused")
        check(True, f"all four paused at {late.shown()[1]!r}")
        # A live edit lands on every clock like any other command: 10 s taken from the paused
        # round on member-1 shows 10 s less on all four.
        paused_at = seconds(late.shown()[1])
        check(members[1].command("adjust", seconds=-10) == {"ok": True}, "adjust -10 s on member-1's socket")
        wait_for(lambda: all_in(everyone, "paused") and same_text(everyone) and seconds(late.shown()[1]) == paused_at - 10,
                 what="all four paused 10 s further on")
        check(True, f"adjust -10 s: all four paused at {late.shown()[1]!r}")
        adopts = sum(m.clock_log().count("adopt") for m in everyone)
        check(adopts > 0 and all(m.running() for m in everyone), f"all clocks and gateways still running; the clocks logged {adopts} adopt lines")
    print("sync check: all passed")


if __name__ == "__main__":
    main()
