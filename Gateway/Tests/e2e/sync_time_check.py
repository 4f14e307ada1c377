#!/usr/bin/env python3
"""Clocks in a group agree by themselves (docs/sync.md): three members whose wall clocks are
-3 s/-50 ppm, 0 and +7.5 s/+50 ppm off the host's (wallclock.py: one wall clock for each
member's clock and gateway), each linked to the broker by a shaped link (5 ms ± 3 ms each way;
sync_network.py, link_shaper.py), clocks and gateways scheduled as their units run them.
Every minute a program change, a START, two pauses, an adjust and a reset, each on the next
member's control socket. After `--minutes` of that: a minute at 1 % loss, a minute in which
one member's wall clock jumps by +1 h, and a minute in which the reference member's gateway is
killed (SIGKILL) and, half a minute later, started again. Measured on the frames files (one
host's CLOCK_MONOTONIC):

- spread: for each time-panel change outside the commands' renders, the latest member's
  commit minus the earliest's; p99 <= 2 ms, every change shown by every member;
- command -> every display: the command written -> the first frames line with the new state
  on each member; p99 <= 50 ms without loss, every one within 1 s at 1 % loss;
- no jump back of a countdown; the same bells on every member, none twice;
- the member whose wall clock jumped keeps the second; the spread while a new reference is
  chosen and after (the members show the same second within 0.5 s).

Each measure is printed as one `summary:` line, then the checks as `ok:` lines; a failed check
raises AssertionError after all summaries are out. `--report-only` measures and prints what
would fail without failing (today's baseline). The links' seed is printed; `--seed` replays it.

    python3 Gateway/Tests/e2e/sync_time_check.py --minutes 10
    python3 Gateway/Tests/e2e/sync_time_check.py --delay 20 --jitter 15 --report-only
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from link_shaper import LinkShape  # noqa: E402
from rc_harness import CLOCK_UNIT, GATEWAY_UNIT, describe_scheduling, unit_scheduling  # noqa: E402
from sync_harness import TOPIC, Group, Tail, monotonic  # noqa: E402
from sync_measures import bells, jumps_back, offsets, percentile, spreads, summary, time_frames, signals  # noqa: E402

WALLS = [(-3.0, -50), (0.0, 0), (7.5, 50)]
# Two programs with different round counts, so a program change shows on the round panel.
PROGRAMS = [("10 x 0:40/0:10, prep 0:05", 10), ("12 x 0:38/0:12, prep 0:05", 12)]
# One minute: (second, command). The adjust takes 5 s from a paused work phase with more
# than 20 s left, so it never ends the phase; each pause comes at least 4 s from a phase's end.
MINUTE = [(0, "program"), (1, "start"), (15, "stop"), (17, "adjust"), (20, "start"), (40, "stop"), (45, "start"),
          (55, "stop"), (57, "reset")]
SPREAD_P99 = 0.002
COMMAND_P99 = 0.050
LOSS_COMMAND_MAX = 1.0
BELLS_WITHIN = 0.005
# `--bounds loose`: the test suite's guard on a shared, loaded machine (the timing targets
# above are measured by the full run, docs/benchmarks.md); still far below what a group on
# unsynchronized wall clocks shows (seconds).
LOOSE = dict(SPREAD_P99=0.025, COMMAND_P99=0.500, BELLS_WITHIN=0.025)
SAME_SECOND = 0.5
SYNCED = ("group time: this member is the reference", "group time: synced to the reference")
ADOPTED = "group session adopted"


@dataclass
class Command:
    member: str
    word: str
    sent: float
    targets: list
    commits: dict = field(default_factory=dict)
    refused: object = None

    def end(self, deadline):
        """Where the command's renders end: its last member's commit, or its deadline."""
        if self.refused is not None or len(self.commits) < len(self.targets) or not self.commits:
            return self.sent + deadline
        return max(self.commits.values())


@dataclass
class Phase:
    name: str
    start: float
    end: float = 0.0
    commands: list = field(default_factory=list)
    marks: dict = field(default_factory=dict)


class Scenario:
    def __init__(self, group, args):
        self.group = group
        self.args = args
        self.members = group.members
        self.frames = {m.name: Tail(m.frames) for m in self.members}
        self.logs = {m.name: Tail(m.gateway_log_path, lambda b: b.decode(errors="replace")) for m in self.members}
        # (monotonic instant first seen, line) of the gateways' group-time and adoption lines
        self.log_seen = {m.name: [] for m in self.members}
        self.live = list(self.members)
        self.issued = 0
        self.phase = None
        self.phases = []

    # -- polling -----------------------------------------------------------------------------
    def poll(self):
        for m in self.members:
            self.frames[m.name].update()
            log = self.logs[m.name]
            before = len(log.lines)
            now = monotonic()
            self.log_seen[m.name] += [(now, line) for line in log.update()[before:] if "group time: " in line or ADOPTED in line]

    def wait(self, predicate, timeout):
        deadline = monotonic() + timeout
        while True:
            self.poll()
            value = predicate()
            if value or monotonic() >= deadline:
                return value
            time.sleep(0.02)

    def sleep_until(self, instant):
        self.wait(lambda: monotonic() >= instant, max(0.0, instant - monotonic()) + 1)

    def synced_since(self, member, since=0.0):
        return next((t for t, line in self.log_seen[member.name] if t >= since and any(s in line for s in SYNCED)), None)

    def group_time_lines(self, member, since=0.0):
        return [line for t, line in self.log_seen[member.name] if t >= since and "group time: " in line]

    def rejoined_since(self, member, since):
        """When a restarted member's gateway said it is synced again; for a gateway without
        group time (today's), when it adopted the group's session."""
        if any(self.group_time_lines(m) for m in self.members):
            return self.synced_since(member, since)
        return next((t for t, line in self.log_seen[member.name] if t >= since and ADOPTED in line), None)

    # -- commands ----------------------------------------------------------------------------
    def issue(self, word, minute):
        # The next member, shifted by one each minute: a minute has as many commands as three
        # members times three, and each member should issue each kind of command.
        member = self.live[(self.issued + minute) % len(self.live)]
        self.issued += 1
        program, rounds = PROGRAMS[minute % len(PROGRAMS)]
        fields = {"program": program} if word == "program" else {"seconds": -5} if word == "adjust" else {}
        self.poll()
        targets = list(self.live)
        marks = {m.name: len(self.frames[m.name].lines) for m in targets}
        shown = {m.name: next((f["text"] for f in reversed(self.frames[m.name].lines) if f.get("panel") == "time"), None)
                 for m in targets}

        def shows(f, m):
            if word == "program":
                return f.get("state") == "ready" and f.get("rounds") == rounds
            if word == "adjust":
                return f.get("panel") == "time" and f["state"] == "paused" and f["text"] != shown[m.name]
            return f.get("state") == {"start": "running", "stop": "paused", "reset": "ready"}[word]

        sent = monotonic()
        reply = member.command(word, **fields)
        command = Command(member.name, word, sent, [m.name for m in targets])
        self.phase.commands.append(command)
        if reply != {"ok": True}:
            command.refused = reply
            self.record(command)
            return

        def all_shown():
            for m in targets:
                if m.name not in command.commits:
                    hit = next((f["t"] for f in self.frames[m.name].lines[marks[m.name]:] if f["t"] >= sent and shows(f, m)), None)
                    if hit is not None:
                        command.commits[m.name] = hit
            return len(command.commits) == len(targets)

        self.wait(all_shown, self.args.command_deadline)
        self.record(command)

    def record(self, command):
        """One line per command in the group's directory (commands.jsonl; `--keep` keeps it)."""
        with open(os.path.join(self.group.dir, "commands.jsonl"), "a") as f:
            f.write(json.dumps(dict(phase=self.phase.name, **vars(command))) + "\n")

    def minute(self, index, events=()):
        start = monotonic()
        for second, what in sorted(list(MINUTE) + list(events), key=lambda step: step[0]):
            self.sleep_until(start + second)
            if callable(what):
                what()
            else:
                self.issue(what, index)
        self.sleep_until(start + 60)

    def begin(self, name):
        self.phase = Phase(name, monotonic())
        self.phases.append(self.phase)
        return self.phase

    def finish(self):
        self.phase.end = monotonic()


# -- measures -----------------------------------------------------------------------------------
def windows(phase, deadline):
    return [(c.sent, c.end(deadline)) for c in phase.commands]


def spread_of(scenario, members, start, end, deadline):
    """(spreads, unmatched) over the time-panel changes of `members` in [start, end]."""
    phase_windows = [w for p in scenario.phases for w in windows(p, deadline)]
    all_frames = [scenario.frames[m.name].lines for m in members]
    streams = [time_frames(all_frames[0], start, end)] + [time_frames(f, start - 1, end + 1) for f in all_frames[1:]]
    return spreads(streams, phase_windows, SAME_SECOND)


def latencies(phase):
    """(latencies, missing, refused) of a phase's commands, every target member."""
    values, missing, refused = [], 0, 0
    for c in phase.commands:
        if c.refused is not None:
            refused += 1
            continue
        values += [c.commits[name] - c.sent for name in c.targets if name in c.commits]
        missing += sum(1 for name in c.targets if name not in c.commits)
    return values, missing, refused


class Report:
    def __init__(self, report_only):
        self.report_only = report_only
        self.checks = []

    def line(self, text):
        print(f"summary: {text}", flush=True)

    def check(self, condition, message):
        self.checks.append((bool(condition), message))

    def finish(self):
        failed = [message for ok, message in self.checks if not ok]
        for ok, message in self.checks:
            print(("ok: " if ok else "would fail: " if self.report_only else "FAILED: ") + message)
        if failed and not self.report_only:
            raise AssertionError(f"{len(failed)} of {len(self.checks)} checks failed; first: {failed[0]}")
        print(f"sync time check: report only, {len(failed)} of {len(self.checks)} checks would fail" if self.report_only
              else "sync time check: all passed")


def measure_phase(scenario, report, phase, members, start, end, label, strict=True):
    """The spread, commands, jumps back and bells of one stretch; returns its summaries' data."""
    deadline = scenario.args.command_deadline
    spread, unmatched = spread_of(scenario, members, start, end, deadline)
    report.line(summary(f"{label}: spread between members' time-panel changes ({unmatched} not shown by every "
                        f"member within {SAME_SECOND} s)", spread))
    streams = [time_frames(scenario.frames[m.name].lines, start, end) for m in members]
    apart = offsets(streams)
    report.line(f"{label}: seconds shown later than {members[0].name} by " + ", ".join(
        f"{m.name} {'n/a' if a is None else f'{a * 1000:+.1f} ms'}" for m, a in zip(members[1:], apart)))
    pauses = [(c.sent, c.end(deadline)) for c in phase.commands if c.word == "stop"]
    back = {m.name: jumps_back(s, pauses) for m, s in zip(members, streams)}
    report.line(f"{label}: jumps back: " + ", ".join(
        f"{name} {len(b)}" + (f" (up to {max(x[3] or 0 for x in b)} s; {sum(1 for x in b if x[3] is None)} a phase back)"
                              if b else "") for name, b in back.items()))
    phase_windows = [w for p in scenario.phases for w in windows(p, deadline)]
    rung = [signals(scenario.frames[m.name].lines, start, end) for m in members]
    unmatched_bells, twice, boundary, by_command = bells(rung, phase_windows)
    report.line(f"{label}: bells " + ", ".join(f"{m.name} {len(r)}" for m, r in zip(members, rung))
                + f"; {unmatched_bells} not rung by every member, {len(twice)} rung twice; "
                + summary("members' times of a bell at a boundary", boundary).split(": ", 1)[1]
                + "; " + summary("of a bell a command rang", by_command).split(": ", 1)[1])
    if strict:
        report.check(spread and unmatched == 0 and percentile(spread, 99) <= SPREAD_P99,
                     f"{label}: every member shows every second, spread p99 "
                     f"{percentile(spread, 99) * 1000 if spread else float('nan'):.2f} ms <= {SPREAD_P99 * 1000:g} ms")
        report.check(all(streams) and not any(back.values()), f"{label}: no countdown went back in time on any member")
        report.check(all(rung) and unmatched_bells == 0 and not twice and (not boundary or max(boundary) <= BELLS_WITHIN),
                     f"{label}: the same bells on every member, none twice, a boundary's bell within "
                     f"{BELLS_WITHIN * 1000:g} ms on all")
    return spread, unmatched


def measure_commands(report, phase, label, p99=None, most=None):
    values, missing, refused = latencies(phase)
    # Over 150 ms, a display most likely waited for a lost packet's retransmission (TCP's
    # first retransmission comes at least 200 ms after the packet).
    slow = sum(1 for v in values if v > 0.150)
    report.line(summary(f"{label}: command -> every member's display ({missing} never shown within the deadline, "
                        f"{refused} refused, {slow} over 150 ms)", values))
    if p99 is not None:
        report.check(values and not missing and not refused and percentile(values, 99) <= p99,
                     f"{label}: every command shown on every member, p99 "
                     f"{percentile(values, 99) * 1000 if values else float('nan'):.1f} ms <= {p99 * 1000:g} ms")
    if most is not None:
        report.check(values and not missing and not refused and max(values) <= most,
                     f"{label}: every command shown on every member within {most:g} s "
                     f"(max {max(values) * 1000 if values else float('nan'):.0f} ms)")


# -- the run ------------------------------------------------------------------------------------
def settled(scenario, members):
    """Whether the group has one time: each gateway's latest group-time line says it is synced
    or the reference, exactly one is the reference, and every other follows that one."""
    latest = [(scenario.group_time_lines(m) or [""])[-1] for m in members]
    if not all(any(s in line for s in SYNCED) for line in latest):
        return False
    references = [m.name for m, line in zip(members, latest) if SYNCED[0] in line]
    return len(references) == 1 and all(f"{SYNCED[1]} {references[0]}" in line for line in latest if SYNCED[0] not in line)


def wait_synced(scenario, report, members, timeout, label):
    """Waits until the group has one time (`settled`); returns when, or None."""
    done = scenario.wait(lambda: settled(scenario, members) and monotonic(), timeout)
    for m in members:
        lines = scenario.group_time_lines(m)
        report.line(f"{label}: {m.name}'s gateway: " + (" / ".join(l.split("group time: ", 1)[1] for l in lines[-3:])
                                                       if lines else "no group time line"))
    report.check(done, f"{label}: every member's gateway says it is synced or the reference, one reference for all, "
                       f"within {timeout:g} s")
    return done


def run(args, report):
    shape = LinkShape(args.delay, args.jitter, 0.0, args.seed)
    print(f"seed: {shape.seed} (replay with --seed {shape.seed})", flush=True)
    prefixes = {}
    if args.scheduling == "as-deployed":
        prefixes = dict(clock_prefix=unit_scheduling(CLOCK_UNIT), gateway_prefix=unit_scheduling(GATEWAY_UNIT),
                        broker_prefix=["chrt", "-o", "0", "nice", "-n", "0"])
    walls = [(0.0, 0)] * 3 if args.equal_walls else WALLS
    with Group(members=3, program=PROGRAMS[1][0], wall=walls, shape=shape, **prefixes) as group:
        try:
            scenario_run(group, args, report, prefixes, walls)
        finally:
            if args.keep:
                shutil.copytree(group.dir, args.keep, dirs_exist_ok=True, ignore=shutil.ignore_patterns("*.sock"))
                print(f"logs and frames kept in {args.keep}")


def scenario_run(group, args, report, prefixes, walls):
    scenario = Scenario(group, args)
    members = group.members
    print(f"network: {group.network.kind}")
    print("wall clocks: " + ", ".join(f"{m.name} {o:+g} s {d:+g} ppm" for m, (o, d) in zip(members, walls)))
    if prefixes:
        print(f"scheduling: clocks {describe_scheduling(prefixes['clock_prefix'])}, gateways "
              f"{describe_scheduling(prefixes['gateway_prefix'])}, broker SCHED_OTHER, nice 0, links' shaper SCHED_FIFO 5")
    report.check(scenario.wait(lambda: group.broker.retained(TOPIC), 120), "the broker holds the group's session")
    wait_synced(scenario, report, members, args.sync_timeout, "start")

    phase = scenario.begin(f"main, {args.minutes} min")
    for minute in range(args.minutes):
        scenario.minute(minute)
    scenario.finish()
    measure_phase(scenario, report, phase, members, phase.start, phase.end, "main")
    measure_commands(report, phase, "main", p99=COMMAND_P99)
    minute = args.minutes

    if args.loss_minutes:
        before = group.network.set_loss(args.loss)
        phase = scenario.begin(f"{args.loss * 100:g} % loss")
        for i in range(args.loss_minutes):
            scenario.minute(minute + i)
        scenario.finish()
        after = group.network.set_loss(0.0)
        minute += args.loss_minutes
        label = f"{args.loss * 100:g} % loss"
        if before and after:
            report.line(f"{label}: the links' packets before the phase: {before}; after it: {after}")
        measure_phase(scenario, report, phase, members, phase.start, phase.end, label, strict=False)
        measure_commands(report, phase, label, most=LOSS_COMMAND_MAX)

    if args.jump:
        jumper = members[args.jump_member]
        phase = scenario.begin("wall-clock jump")
        scenario.minute(minute, [(25, lambda: (jumper.jump_wall(args.jump), phase.marks.update(jump=monotonic())))])
        scenario.finish()
        minute += 1
        label = f"{jumper.name}'s wall clock {args.jump:+g} s"
        measure_phase(scenario, report, phase, members, phase.marks["jump"], phase.end, f"after {label}")
        measure_commands(report, phase, f"minute of {label}", p99=COMMAND_P99)

    if args.reference_loss:
        reference_loss(scenario, report, minute)
    report.line("group time in /api/state: " + ", ".join(f"{m.name} {state_group_time(m)}" for m in members))


def state_group_time(member):
    try:
        return member.api_state().get("group_time", "absent")
    except (subprocess.SubprocessError, AssertionError, ValueError) as error:
        return f"unreadable ({error})"


def reference_loss(scenario, report, minute):
    """The reference's gateway killed at 0:03 of a minute and started again at 0:30."""
    members = scenario.members
    reference = next((m for m in members if any(SYNCED[0] in l for l in scenario.group_time_lines(m))), members[0])
    others = [m for m in members if m is not reference]
    phase = scenario.begin("reference loss")

    def kill():
        reference.kill_gateway()
        scenario.live = others
        phase.marks["kill"] = monotonic()

    def restart():
        reference.start_gateway()
        phase.marks["restart"] = monotonic()

    def rejoin():
        # Commands go to every member again once the restarted one is back in the group.
        if scenario.rejoined_since(reference, phase.marks["restart"]) is not None:
            scenario.live = list(members)

    scenario.minute(minute, [(3, kill), (30, restart), (38, rejoin)])
    scenario.finish()
    kill_t, restart_t = phase.marks["kill"], phase.marks["restart"]
    # A new reference is chosen once every other member names one that is not the lost one.
    chosen = [next((t for t, l in scenario.log_seen[m.name] if t >= kill_t and any(s in l for s in SYNCED)
                    and reference.name not in l), None) for m in others]
    chosen_t = max(chosen) if None not in chosen else None
    label = f"{reference.name}'s gateway killed"
    report.line(f"{label}: a new reference " + (f"named by the others {chosen_t - kill_t:.2f} s after" if chosen_t
                                                 else "never named by the others"))
    windows_to_check = [("while a new reference is chosen", kill_t, chosen_t or restart_t)]
    if chosen_t:
        windows_to_check.append(("after a new reference was chosen", chosen_t, restart_t))
    for name, start, end in windows_to_check:
        spread, unmatched = measure_phase(scenario, report, phase, others, start, end, f"{label}, {name}", strict=False)
        # The choice may take less than a second: no change to compare then, and nothing wrong.
        report.check((spread or name.startswith("while")) and unmatched == 0,
                     f"{label}, {name}: the others show the same second within {SAME_SECOND} s")
    rejoined = scenario.rejoined_since(reference, restart_t)
    report.line(f"{reference.name}'s gateway restarted: " + (f"synced again {rejoined - restart_t:.2f} s later" if rejoined
                                                            else "never said it is synced again"))
    report.check(rejoined is not None and rejoined < phase.end - 10,
                 f"{reference.name}'s restarted gateway says it is synced again within 20 s")
    if rejoined and rejoined < phase.end:
        spread, unmatched = measure_phase(scenario, report, phase, members, rejoined, phase.end,
                                          f"{reference.name} back", strict=False)
        report.check(spread and unmatched == 0, f"{reference.name} back: all three show the same second within {SAME_SECOND} s")
    measure_commands(report, phase, "minute of the reference's loss")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=int, default=3, help="minutes of the main phase (the issue's run: 10)")
    parser.add_argument("--delay", type=float, default=5.0, help="each link's one-way delay, ms")
    parser.add_argument("--jitter", type=float, default=3.0, help="± this, uniform, ms")
    parser.add_argument("--loss", type=float, default=0.01, help="the loss phase's drop probability per packet")
    parser.add_argument("--loss-phase", dest="loss_minutes", type=int, default=1, metavar="MINUTES",
                        help="minutes at --loss after the main phase (0: none)")
    parser.add_argument("--jump", type=float, default=3600.0, help="the wall-clock jump, s (0: none)")
    parser.add_argument("--jump-member", type=int, default=2, choices=range(3))
    parser.add_argument("--no-reference-loss", dest="reference_loss", action="store_false")
    parser.add_argument("--seed", type=int, help="the links' random seed")
    parser.add_argument("--equal-walls", action="store_true",
                        help="every member on the host's wall clock (a control run: what today's group sync does then)")
    parser.add_argument("--sync-timeout", type=float, default=180.0,
                        help="seconds for every gateway to say it is synced or the reference")
    parser.add_argument("--command-deadline", type=float, default=10.0,
                        help="seconds a command may take to show on every member before it counts as never shown")
    parser.add_argument("--scheduling", choices=("as-deployed", "inherit"), default="as-deployed",
                        help="as-deployed: clocks and gateways with their units' scheduling, this script at SCHED_FIFO 20 "
                             "standing for the buttons (root)")
    parser.add_argument("--stress", type=int, default=0, metavar="N", help="run `stress-ng --cpu N` meanwhile")
    parser.add_argument("--report-only", action="store_true", help="measure and print; fail on nothing")
    parser.add_argument("--bounds", choices=("issue", "loose"), default="issue",
                        help="issue: spread p99 <= 2 ms, command p99 <= 50 ms, bells within 5 ms; loose (the test "
                             "suite, beside other tests): 25 ms, 500 ms, 25 ms")
    parser.add_argument("--spread-p99", type=float, metavar="MS",
                        help="the spread's p99 bound with --bounds issue (default 2 ms; the issue's bound on 20 ± 15 ms links: 3)")
    parser.add_argument("--keep", metavar="DIR", help="copy the members' logs and frames and the commands there at the end")
    args = parser.parse_args()
    if args.bounds == "loose":
        globals().update(LOOSE)
    elif args.spread_p99 is not None:
        globals()["SPREAD_P99"] = args.spread_p99 / 1000
    if args.scheduling == "as-deployed" and os.geteuid() == 0:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(20))
    stress = None
    if args.stress:
        stress = subprocess.Popen(["chrt", "-o", "0", "stress-ng", "--cpu", str(args.stress), "--quiet"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(f"load: stress-ng --cpu {args.stress}")
    report = Report(args.report_only)
    started = time.monotonic()
    try:
        run(args, report)
    finally:
        if stress:
            stress.terminate()
            stress.wait(timeout=30)
    print(f"ran {math.ceil((time.monotonic() - started) / 60)} min; load average {os.getloadavg()[0]:.1f}")
    report.finish()


if __name__ == "__main__":
    main()
