"""A wall clock of its own for a process tree (wallclock_shim.c, an LD_PRELOAD library): its
CLOCK_REALTIME reads are the host's plus an offset plus a drift, while CLOCK_MONOTONIC and
every timer stay the host's. One `WallClock` stands for one machine: give its `env()` to every
process of that machine; `jump()` moves it at run time, as a first NTP sync steps a Pi's clock.

The library is compiled on first use (`cc -shared -fPIC -O2 … -ldl`, clang without cc) into
$ROUNDCLOCK_E2E_CACHE (default /var/cache/roundclock-e2e when writable, else the temporary
directory), under a name that carries the source's hash.

    python3 Gateway/Tests/e2e/wallclock.py     # self-test: date, Python and the clock shifted
"""
import hashlib
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "wallclock_shim.c")
# The file's layout, as wallclock_shim.c's struct wallclock_params: sequence, two copies of
# (offset_ns, drift_ppb, base_ns), padding.
COPY = struct.Struct("<qqq")
SIZE = 64


def cache_dir():
    configured = os.environ.get("ROUNDCLOCK_E2E_CACHE")
    if configured:
        os.makedirs(configured, exist_ok=True)
        return configured
    preferred = "/var/cache/roundclock-e2e"
    try:
        os.makedirs(preferred, exist_ok=True)
        if os.access(preferred, os.W_OK):
            return preferred
    except OSError:
        pass
    fallback = os.path.join(tempfile.gettempdir(), "roundclock-e2e")
    os.makedirs(fallback, exist_ok=True)
    return fallback


def library():
    """The compiled shim's path, compiled now if this source has not been yet."""
    with open(SOURCE, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    path = os.path.join(cache_dir(), f"wallclock_shim-{digest}.so")
    if not os.path.exists(path):
        partial = f"{path}.{os.getpid()}.tmp"
        compiler = shutil.which("cc") or shutil.which("clang") or "gcc"
        subprocess.run([compiler, "-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o", partial, SOURCE, "-ldl"],
                       check=True, capture_output=True)
        os.rename(partial, path)
    return path


def monotonic_ns():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


class WallClock:
    """One machine's wall clock: `offset` seconds ahead of the host's (negative: behind) and
    drifting by `drift_ppm` parts per million from now on."""

    def __init__(self, path, offset=0.0, drift_ppm=0.0):
        self.path = path
        self.sequence = 0
        self.offset_ns = round(offset * 1e9)
        self.drift_ppb = round(drift_ppm * 1000)
        self.base_ns = monotonic_ns()
        with open(path, "wb") as f:
            f.write(bytes(SIZE))
        self._write()

    def env(self, base=None):
        """The environment that runs a process on this wall clock (`base`: default os.environ)."""
        env = dict(os.environ if base is None else base)
        preload = library()
        env["LD_PRELOAD"] = f"{preload} {env['LD_PRELOAD']}" if env.get("LD_PRELOAD") else preload
        env["ROUNDCLOCK_WALLCLOCK_FILE"] = self.path
        return env

    def shift_ns(self, at_monotonic_ns=None):
        """How far this clock is from the host's at a monotonic instant (default now)."""
        now = monotonic_ns() if at_monotonic_ns is None else at_monotonic_ns
        return self.offset_ns + (now - self.base_ns) * self.drift_ppb // 1_000_000_000

    def now(self):
        """This machine's CLOCK_REALTIME now, in seconds."""
        return (time.clock_gettime_ns(time.CLOCK_REALTIME) + self.shift_ns()) / 1e9

    def jump(self, seconds):
        """Steps the clock by `seconds` at once; the drift goes on from where it was."""
        self.offset_ns += round(seconds * 1e9)
        self._write()

    def _write(self):
        # The copy not in force first, then the sequence that puts it in force: a reader never
        # sees a half-written copy (wallclock_shim.c).
        spare = (self.sequence + 1) & 1
        with open(self.path, "r+b") as f:
            os.pwrite(f.fileno(), COPY.pack(self.offset_ns, self.drift_ppb, self.base_ns), 8 + spare * COPY.size)
            os.pwrite(f.fileno(), struct.pack("<Q", self.sequence + 1), 0)
        self.sequence += 1


def self_test(clock_binary=None):
    """Runs `date`, Python and (when given) the clock under a +3600.5 s, +50 ppm wall clock and
    checks each sees the shift, that a jump reaches a running process, and that the monotonic
    clock stays the host's. Returns the lines it printed."""
    lines = []
    with tempfile.TemporaryDirectory(prefix="rc-wallclock-") as directory:
        clock = WallClock(os.path.join(directory, "wall"), offset=3600.5, drift_ppm=50)
        env = clock.env()

        def shifted(args, parse):
            before = time.time()
            out = subprocess.run(args, env=env, check=True, capture_output=True, text=True).stdout
            after = time.time()
            seen = parse(out)
            assert before + 3600.4 <= seen <= after + 3600.6, f"{args[0]}: {seen - before:.3f} s ahead, want 3600.5"
            return seen - (before + after) / 2

        ahead = shifted(["date", "+%s.%N"], float)
        lines.append(f"ok: date +%s.%N under the shim is {ahead:.3f} s ahead")
        # time.time(), time_ns(), CLOCK_REALTIME_COARSE (5), libc's time(2) and gettimeofday(2),
        # then the monotonic clock.
        code = ("import ctypes, time\n"
                "libc = ctypes.CDLL(None)\n"
                "tv = (ctypes.c_long * 2)()\n"
                "libc.gettimeofday(tv, None)\n"
                "print(time.time(), time.time_ns() / 1e9, time.clock_gettime(5), "
                "libc.time(None), tv[0] + tv[1] / 1e6, time.monotonic())")
        before_mono = time.monotonic()
        out = subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True).stdout.split()
        after_mono = time.monotonic()
        now = time.time()
        for value in out[:5]:
            assert abs(float(value) - now - 3600.5) < 1.5, out
        assert before_mono <= float(out[5]) <= after_mono, "the monotonic clock must be the host's"
        lines.append("ok: Python's time.time(), time_ns(), CLOCK_REALTIME_COARSE, libc's time() and gettimeofday() shifted; "
                     "time.monotonic() the host's")
        # The drift: at +100000 ppm the wall clock gains 10 % on the monotonic clock.
        fast = WallClock(os.path.join(directory, "fast"), drift_ppm=100_000)
        code = ("import time\nw0, m0 = time.time(), time.monotonic()\ntime.sleep(0.3)\n"
                "print((time.time() - w0) / (time.monotonic() - m0))")
        ratio = float(subprocess.run([sys.executable, "-c", code], env=fast.env(), check=True, capture_output=True,
                                     text=True).stdout)
        assert 1.09 < ratio < 1.11, f"wall/monotonic rate {ratio:.4f} at +100000 ppm"
        lines.append(f"ok: a drift of +100000 ppm: the wall clock runs at {ratio:.4f} times the monotonic clock")
        # A running process sees a jump: it prints its wall clock, waits for a line, prints again.
        probe = subprocess.Popen([sys.executable, "-c", "import sys, time; print(time.time(), flush=True); sys.stdin.readline(); "
                                  "print(time.time(), flush=True)"], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        first = float(probe.stdout.readline())
        clock.jump(-7200)
        probe.stdin.write("\n")
        probe.stdin.flush()
        second = float(probe.stdout.readline())
        probe.wait(timeout=30)
        assert -7200.5 < second - first < -7199.0, f"jump seen as {second - first:.3f} s"
        lines.append(f"ok: a jump of -7200 s reaches a running process ({second - first:.3f} s between two reads)")
        if clock_binary:
            # A Swift binary (libc's clock_gettime, reached through the vDSO): the clock's own
            # wall-clock face in clock mode shows the shifted local time.
            clock.jump(7200)
            before = time.time()
            out = subprocess.run([clock_binary, "simulate", "--no-tty", "--program", "clock", "--until", "0.2",
                                  "--frames", "-"], env=dict(env, TZ="UTC"), check=True, capture_output=True,
                                 text=True).stdout
            after = time.time()
            shown = json.loads(out.splitlines()[0])["text"]
            digits = shown.replace(":", "").replace(" ", "0")
            wanted = {time.strftime("%H%M", time.gmtime(t + 3600.5)) for t in (before, after)}
            assert digits in wanted, f"the clock shows {shown!r}, want one of {sorted(wanted)} (UTC + 1 h)"
            lines.append(f"ok: {os.path.basename(clock_binary)} (Swift, clock_gettime through libc) in clock mode shows "
                         f"{shown!r}: UTC + 1 h")
            # Its monotonic timerfd is untouched: under a wall clock 3 s behind, a countdown still
            # changes its second 1 s and 2 s after its start (Debian's libfaketime makes it 3 s late).
            clock.jump(-3603.5)
            out = subprocess.run([clock_binary, "simulate", "--no-tty", "--program", "countdown:0:05", "--until", "2.5",
                                  "--frames", "-"], env=env, check=True, capture_output=True, text=True).stdout
            changes = [json.loads(line)["t"] for line in out.splitlines() if '"panel": "time"' in line][1:3]
            assert len(changes) == 2 and abs(changes[0] - 1) < 0.2 and abs(changes[1] - 2) < 0.2, changes
            lines.append(f"ok: under a wall clock 3 s behind, its countdown changes at {changes[0]:.3f} s and "
                         f"{changes[1]:.3f} s (timers on the monotonic clock untouched)")
    return lines


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    from rc_harness import CLOCK  # noqa: E402
    for line in self_test(CLOCK if os.path.exists(CLOCK) else None):
        print(line)
    print(f"wallclock self-test: all passed ({library()})")
