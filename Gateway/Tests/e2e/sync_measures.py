"""Measures over a group's frames files (sync_harness.Member), all on one host's
CLOCK_MONOTONIC (`--frames-clock monotonic`): the spread between members' display changes,
how far apart their seconds are, jumps back in time and the bells each rang. Used by
sync_time_check.py; `percentile` and `summary` by sync_bench.py too.

A command window is (sent, end): from a command written to a member's socket to the last
member's first frame that shows it. Renders inside one are the command's, not the clocks'.
"""
import statistics

PHASE_RANK = {"prep": 0, "work": 1, "rest": 2}


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def summary(name, values):
    """`name: n=… p50 … ms, p99 … ms, max … ms` of `values` in seconds."""
    ms = [v * 1000 for v in values]
    if not ms:
        return f"{name}: n=0"
    return f"{name}: n={len(ms)} p50 {percentile(ms, 50):.2f} ms, p99 {percentile(ms, 99):.2f} ms, max {max(ms):.2f} ms"


def seconds(text):
    """A time panel's `M:SS` (or `H:MM`) as a number, or None for any other face."""
    minutes, sep, rest = text.strip().replace(".", "").partition(":")
    if not sep or not minutes.lstrip("+-").isdigit() or not rest.isdigit():
        return None
    return int(minutes) * 60 + int(rest)


def in_windows(t, windows, margin=0.001):
    return any(sent <= t <= end + margin for sent, end in windows)


def time_frames(frames, start, end):
    """The time panel's changes in [start, end]."""
    return [f for f in frames if f.get("panel") == "time" and start <= f["t"] <= end]


def signals(frames, start, end):
    return [f for f in frames if "signal" in f and start <= f["t"] <= end]


def _same_face(a, b):
    return a["text"] == b["text"] and a["state"] == b["state"] and a.get("phase") == b.get("phase") \
        and a.get("round") == b.get("round")


def spreads(streams, windows, within=0.5):
    """For each time-panel change of the first stream outside the command windows, the latest
    member's commit of that face minus the earliest's, when every stream shows it within
    `within` s. Returns (spreads, unmatched): a change some member does not show that close
    is unmatched (members showing different seconds)."""
    out, unmatched = [], 0
    for f in streams[0]:
        if in_windows(f["t"], windows):
            continue
        times = [f["t"]]
        for other in streams[1:]:
            match = [o["t"] for o in other if _same_face(o, f) and abs(o["t"] - f["t"]) < within]
            if not match:
                unmatched += 1
                break
            times.append(min(match, key=lambda t: abs(t - f["t"])))
        else:
            out.append(max(times) - min(times))
    return out, unmatched


def offsets(streams, within=60.0):
    """How much later (s, negative: earlier) each other stream shows the first stream's
    running faces, the median over faces both show within `within` s (nearest), or None."""
    result = []
    for other in streams[1:]:
        deltas = []
        for f in streams[0]:
            if f["state"] != "running":
                continue
            match = [o["t"] for o in other if _same_face(o, f) and abs(o["t"] - f["t"]) < within]
            if match:
                deltas.append(min(match, key=lambda t: abs(t - f["t"])) - f["t"])
        result.append(statistics.median(deltas) if deltas else None)
    return result


def jumps_back(stream, pauses):
    """Where a countdown went back in time on one member: (t, from text, to text, seconds back
    or None when it went back a phase). Progress is (round, phase, time left) and never falls
    while running or paused; a ready or finished face starts afresh. A pause that reaches a
    member just after its second changed may bring the previous second back once: within a
    pause's window (`pauses`), 1 s back is the pause's latency, not a jump."""
    out = []
    last = None
    for f in stream:
        left = seconds(f["text"])
        if f["state"] not in ("running", "paused") or left is None:
            last = None
            continue
        key = (f.get("round", 0), PHASE_RANK.get(f.get("phase"), 0))
        if last is not None:
            last_key, last_left, last_text = last
            if key < last_key:
                out.append((f["t"], last_text, f["text"], None))
            elif key == last_key and left > last_left:
                if not (left - last_left <= 1 and in_windows(f["t"], pauses)):
                    out.append((f["t"], last_text, f["text"], left - last_left))
        last = (key, left, f["text"])
    return out


def bells(streams, windows, within=0.5):
    """The bells (frames' signals) of several members compared with the first's: returns
    (unmatched, twice, boundary, command) where `unmatched` counts bells some member lacks or
    has extra (by kind, within `within` s), `twice` lists (member index, t, kind) of a bell
    rung twice within `within` s on one member, and `boundary` / `command` are the time
    differences (s) between members of the matched bells outside / inside command windows."""
    twice = []
    for index, stream in enumerate(streams):
        for a, b in zip(stream, stream[1:]):
            if a["signal"] == b["signal"] and b["t"] - a["t"] < within:
                twice.append((index, b["t"], b["signal"]))
    unmatched = 0
    boundary, command = [], []
    used = [set() for _ in streams]
    for f in streams[0]:
        times = [f["t"]]
        for index, other in enumerate(streams[1:], 1):
            match = [i for i, o in enumerate(other) if i not in used[index] and o["signal"] == f["signal"]
                     and abs(o["t"] - f["t"]) < within]
            if not match:
                unmatched += 1
                continue
            best = min(match, key=lambda i: abs(other[i]["t"] - f["t"]))
            used[index].add(best)
            times.append(other[best]["t"])
        if len(times) == len(streams):
            (command if in_windows(f["t"], windows) else boundary).append(max(times) - min(times))
    unmatched += sum(len(other) - len(used[index]) for index, other in enumerate(streams[1:], 1))
    return unmatched, twice, boundary, command
