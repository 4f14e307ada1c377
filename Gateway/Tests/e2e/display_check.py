#!/usr/bin/env python3
"""The TV page (/display) in headless Chromium against a real gateway and `roundclock run
--simulate --frames-clock monotonic`, the page reaching the gateway through a small TCP proxy
that can stall.

Checks:
  (a) over a program with a pause, an adjust and a skip, each second the page shows changes
      when the LED panel's does (the frames file's change instants), within one frame;
  (b) with the proxy stalling every byte (the page's WebSocket cut) for 20 s mid-round, the page
      keeps counting and is still within one frame when the cut ends;
  (c) without a session the page shows; with `[remote] display_pin = true` it asks for the
      PIN, and the WebSocket is refused without one;
  (d) the page's text equals the panel's at every change of a virtual-time run (seconds, hours,
      count-up, overtime), and a viewer without a PIN is bounded;
  (e) a program saved on the clock is counted from the clock's own definition, also when the
      gateway's config gives its name to another program.
Prints the page's change instants against the panel's as p50/p99/max. `--minutes N` runs the
long measurement (docs/benchmarks.md). Keeps screenshots at 1920x1080 and 3840x2160, checked
for digits a third of the screen tall and nothing cut off, in $ARTIFACTS (default
<repo>/.build-artifacts; scripts/screenshots copies them to docs/images/) or `--shots DIR`.

    python3 Gateway/Tests/e2e/display_check.py [--minutes 10] [--shots DIR]
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import threading
import time

import websocket
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_check import CHROMEDRIVER, CHROMIUM  # noqa: E402
from rc_harness import (CLOCK, CLOCK_UNIT, CONFIG, PIN, REPO, Rig, describe_scheduling, unit_scheduling,  # noqa: E402
                        wait_for)

FRAME_MS = 1000 / 60
# The program: 10 s prep, then rounds of 2:00 work and 0:30 rest.
PROGRAM = "sparring"


# The clock scheduled as its unit runs it (SCHED_FIFO 10): the panels it is compared with are
# on time however busy the machine is, so a late change is the page's.
AS_DEPLOYED = unit_scheduling(CLOCK_UNIT)


class StallingProxy:
    """Forwards 127.0.0.1:<port> to the gateway; while `stalled` is set it forwards nothing
    (each direction's bytes wait), as a Wi-Fi drop does to a TCP connection."""

    def __init__(self, target_port):
        self.target = target_port
        self.stalled = threading.Event()
        # While set, a new connection is closed at once (the gateway out of reach).
        self.refusing = threading.Event()
        self.open = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def drop(self):
        """Closes every connection it forwards, as a router that restarts does."""
        for s in self.open:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.open = []

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.refusing.is_set():
                client.close()
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self.open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                while self.stalled.is_set():
                    time.sleep(0.01)
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def close(self):
        self.listener.close()


def tv_browser(width, height, flags=()):
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in tuple(flags) + ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                 "--force-device-scale-factor=1", "--disable-background-networking", "--disable-component-update",
                 "--disable-domain-reliability", "--no-first-run", f"--window-size={width},{height}",
                 "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_window_size(width, height)
    return driver


def page_to_monotonic(driver):
    """c with CLOCK_MONOTONIC seconds = performance.now() / 1000 + c now, from the round trip
    to the page with the smallest delay; returns (c, that round trip in s, performance.now())."""
    best = None
    for _ in range(40):
        before = time.monotonic()
        now = driver.execute_script("return performance.now()")
        after = time.monotonic()
        if best is None or after - before < best[1]:
            best = ((before + after) / 2 - now / 1000, after - before, now)
    return best


def to_monotonic(first, last):
    """performance.now() ms -> CLOCK_MONOTONIC s, interpolating c between two measurements
    (the two clocks may drift apart by a little over a long run)."""
    (c0, _, p0), (c1, _, p1) = first, last
    return lambda p: p / 1000 + c0 + (c1 - c0) * (p - p0) / max(p1 - p0, 1)


def percentiles(values_ms):
    values = sorted(values_ms)
    pick = lambda q: values[min(len(values) - 1, int(q * len(values)))]
    return pick(0.5), pick(0.99), values[-1]


def compare(frames, changes, mapping, windows, quiet):
    """Each time-panel change of the frames file inside one of `windows` (monotonic seconds)
    and not within `quiet` s after a command, matched to the page's change to the same text:
    the page's instant minus the panel's, in ms."""
    panel = [(f["t"], f["text"]) for f in frames if f.get("panel") == "time" and f.get("state") == "running"]
    page = [(mapping(ch["t"]), ch["text"]) for ch in changes]
    deltas, missing = [], []
    for t, text in panel:
        if not any(a <= t <= b for a, b in windows) or any(0 <= t - q <= 1.2 for q in quiet):
            continue
        near = [pt for pt, ptext in page if ptext == text and abs(pt - t) < 0.9]
        if not near:
            around = [(round(pt - t, 3), ptext) for pt, ptext in page if abs(pt - t) < 2.5]
            missing.append((round(t, 3), text, "page around it:", around))
            continue
        deltas.append(((min(near, key=lambda pt: abs(pt - t)) - t) * 1000, t, text))
    return deltas, missing


def run_measurement(minutes, shots):
    with Rig(clock_args=["--frames-clock", "monotonic"], clock_prefix=AS_DEPLOYED) as rig:
        proxy = StallingProxy(rig.port)
        cookie = rig.login()
        assert rig.command(cookie, "program", program=PROGRAM) == (200, {"ok": True})
        driver = tv_browser(1920, 1080)
        try:
            driver.get(f"http://127.0.0.1:{proxy.port}/display")
            wait_for(lambda: driver.execute_script("return window.RoundClockDisplay.clock.offset !== null"),
                     what="the page's offset measurement")
            wait_for(lambda: driver.find_element(By.ID, "time").text.strip(), what="the ready face")
            print("ok: the page shows without a session:", repr(driver.find_element(By.ID, "time").text))
            print(f"clock as deployed: {describe_scheduling(AS_DEPLOYED)}")
            first = page_to_monotonic(driver)
            print(f"page clock mapped to CLOCK_MONOTONIC within ±{first[1] * 500:.2f} ms")
            quiet = []

            def command(name, **fields):
                quiet.append(time.monotonic())
                status, body = rig.command(cookie, name, **fields)
                assert status == 200 and body == {"ok": True}, (name, status, body)

            start = time.monotonic()
            command("start")
            print(f"started at {start:.3f} (CLOCK_MONOTONIC)")
            total = max(60.0, minutes * 60)
            # The scripted session: a pause, an adjust, a skip, then the cut, then steady running.
            script = [(14, "stop", {}), (17, "start", {}), (22, "adjust", {"seconds": 10}), (26, "skip", {}),
                      (30, "adjust", {"seconds": -5})]
            if minutes > 1:
                for k in range(1, int(minutes)):
                    base = 60 * k
                    script += [(base + 10, "stop", {}), (base + 12, "start", {}), (base + 20, "adjust", {"seconds": 10}),
                               (base + 30, "skip", {})]
            cut = (34.0, 54.0)
            cut_end = []

            def wait_until(second):
                """Waits for `second` of the run, cutting the page's network 20 s when it is due."""
                while time.monotonic() - start < second:
                    if not cut_end and time.monotonic() - start >= cut[0]:
                        proxy.stalled.set()
                        print("the page's network stalled for 20 s")
                        wait_for(lambda: time.monotonic() - start >= cut[1], timeout=40, what="the end of the cut")
                        proxy.stalled.clear()
                        cut_end.append(time.monotonic())
                    time.sleep(0.05)

            for at, name, fields in sorted(script):
                wait_until(at)
                command(name, **fields)
                print(f"{name} {fields} at {quiet[-1]:.3f}")
            wait_until(total)
            fetched = time.monotonic()
            changes = driver.execute_script("return window.__changes")
            offsets = driver.execute_script("return window.__offsets")
            trips = sorted(o["roundTrip"] for o in offsets)
            print(f"{len(offsets)} offset measurements, best round trips {trips[0]:.2f} to {trips[-1]:.2f} ms, "
                  f"{sum(not o['used'] for o in offsets)} set aside")
            last = page_to_monotonic(driver)
            print(f"page clock drift against CLOCK_MONOTONIC over the run: {(last[0] - first[0]) * 1000:.2f} ms")
            mapping = to_monotonic(first, last)
            frames = rig.frame_lines()
            everything = [(start, fetched - 0.1)]
            deltas, missing = compare(frames, changes, mapping, everything, quiet)
            cut_window = [(start + cut[0], cut_end[0] + 2)]
            cut_deltas, cut_missing = compare(frames, changes, mapping, cut_window, quiet)
            report(deltas, missing, cut_deltas, cut_missing)
            if shots:
                screenshots(driver, shots)
        finally:
            driver.quit()
            proxy.close()


def check_sound_and_reconnect():
    """(d) With sound on, the page schedules the start bell at the instant the clock rings it
    (the frames file's signal line), takes it back on a pause and schedules it again on the
    resume; (e) its connection closed and the gateway out of reach for 3 s, the page marks
    `reconnecting`, reconnects by itself and shows the pause made meanwhile."""
    with Rig(clock_args=["--frames-clock", "monotonic"], clock_prefix=AS_DEPLOYED) as rig:
        proxy = StallingProxy(rig.port)
        cookie = rig.login()
        assert rig.command(cookie, "program", program=PROGRAM) == (200, {"ok": True})
        # What a tap allows on a TV: here the policy flag stands in for the tap's gesture.
        driver = tv_browser(1280, 720, flags=["--autoplay-policy=no-user-gesture-required"])
        try:
            driver.get(f"http://127.0.0.1:{proxy.port}/display")
            wait_for(lambda: driver.execute_script("return window.RoundClockDisplay.clock.offset !== null"),
                     what="the page's offset measurement")
            driver.find_element(By.ID, "sound").click()
            wait_for(lambda: driver.find_element(By.ID, "sound").text == "sound on", what="sound on")
            realtime_minus_monotonic = time.time() - time.monotonic()
            assert rig.command(cookie, "start") == (200, {"ok": True})
            wait_for(lambda: any(e.get("signal") == "start" for e in driver.execute_script("return window.__sounds")),
                     what="the start bell scheduled")
            time.sleep(1)  # some of the prep runs before the pause
            assert rig.command(cookie, "stop") == (200, {"ok": True})
            wait_for(lambda: any(e.get("cancelled") for e in driver.execute_script("return window.__sounds")),
                     what="the pause takes the scheduled bell back")
            assert rig.command(cookie, "start") == (200, {"ok": True})
            wait_for(lambda: any(f.get("signal") == "start" for f in rig.frame_lines()), timeout=30,
                     what="the clock's start bell")
            sounds = driver.execute_script("return window.__sounds")
            cancelled = {e["key"] for e in sounds if e.get("cancelled")}
            bells = [e for e in sounds if e.get("signal") == "start"]
            assert len(bells) == 2 and bells[0]["key"] in cancelled and bells[1]["key"] not in cancelled, bells
            rang = [f for f in rig.frame_lines() if f.get("signal") == "start"]
            assert len(rang) == 1, rang
            clock_ms = (rang[0]["t"] + realtime_minus_monotonic) * 1000
            delta = bells[1]["gatewayMs"] - clock_ms
            assert abs(delta) <= FRAME_MS, f"the bell is scheduled {delta:.2f} ms from the clock's"
            print(f"ok: sound: the start bell scheduled {delta:+.2f} ms from the clock's, taken back on the pause "
                  f"and scheduled again on the resume")

            proxy.refusing.set()
            proxy.drop()
            wait_for(lambda: driver.find_element(By.ID, "mark").is_displayed(), what="the reconnecting mark")
            assert rig.command(cookie, "stop") == (200, {"ok": True})
            paused = wait_for(lambda: (lambda t: t[-1]["text"] if t and t[-1].get("state") == "paused" else None)(
                [f for f in rig.frame_lines() if f.get("panel") == "time" and f.get("text", "").strip()]),
                what="paused on the clock")
            time.sleep(3)  # the gateway out of reach: the page retries with backoff
            proxy.refusing.clear()
            wait_for(lambda: not driver.find_element(By.ID, "mark").is_displayed(), timeout=30,
                     what="the page back on its own")
            wait_for(lambda: driver.find_element(By.ID, "time").text.strip() in ("", paused.strip()), what="the pause shown")
            wait_for(lambda: driver.execute_script("return window.__changes").pop()["text"] == paused,
                     what="the page's time as the paused panel's")
            print(f"ok: reconnect: the page marked reconnecting, came back by itself and shows the pause ({paused.strip()})")
        finally:
            driver.quit()
            proxy.close()


def report(timed, missing, cut_timed, cut_missing):
    """Prints the page's changes against the panel's and checks the bounds."""
    deltas, cut_deltas = [d for d, _, _ in timed], [d for d, _, _ in cut_timed]
    print("farthest:", [(round(d, 2), round(t, 3), text) for d, t, text in sorted(timed, key=lambda x: -abs(x[0]))[:5]])
    p50, p99, worst = percentiles([abs(d) for d in deltas])
    print(f"{len(deltas)} second changes: page - panel |p50| {p50:.2f} ms, |p99| {p99:.2f} ms, max {worst:.2f} ms")
    print(f"signed: min {min(deltas):.2f} ms, max {max(deltas):.2f} ms")
    assert not missing, f"changes the page never showed: {missing[:10]}"
    assert p50 <= FRAME_MS + 1, f"p50 {p50:.2f} ms is over a frame"
    assert worst < 100, f"max {worst:.2f} ms"
    print("ok: the page's second changes within one frame of the panel's")
    cp50, cp99, cworst = percentiles([abs(d) for d in cut_deltas])
    assert len(cut_deltas) >= 18 and not cut_missing, (len(cut_deltas), cut_missing[:10])
    assert cworst < 100, f"through the cut: max {cworst:.2f} ms"
    print(f"ok: through a 20 s cut the page kept counting: {len(cut_deltas)} changes, |p50| {cp50:.2f} ms, "
          f"max {cworst:.2f} ms")


def screenshots(driver, directory):
    os.makedirs(directory, exist_ok=True)
    for width, height, name in ((1920, 1080, "tv-1080p.png"), (3840, 2160, "tv-4k.png")):
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        wait_for(lambda: driver.execute_script("return [window.innerWidth, window.innerHeight]") == [width, height],
                 what=f"a {width}x{height} viewport")
        driver.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        driver.save_screenshot(os.path.join(directory, name))
        box = driver.execute_script("const r = document.getElementById('time').getBoundingClientRect();"
                                    "return [r.left, r.top, r.right, r.bottom]")
        assert box[0] >= 0 and box[1] >= 0 and box[2] <= width and box[3] <= height, (name, box)
        assert box[3] - box[1] > height * 0.3, f"{name}: the digits are {box[3] - box[1]} px of {height}"
        print(f"ok: {name}: the time is {box[3] - box[1]:.0f} px tall of {height}, nothing cut off")


# Programs whose every time text the page must compute as the clock does: seconds, H:MM with
# the blinking colon past 100 minutes (counting down and up), overtime `+M:SS` and `+H:MM`.
TEXT_PROGRAMS = {"tabata": 252, "countdown:101:00": 6070, "wod": 60 + 620, "stopwatch": 6010}
WOD = '[programs.wod]\nbase = "fortime:1"\novertime = true\n'


def check_texts_match_the_core():
    """The page's text at each instant the simulated panel changes, in virtual time (exact
    instants): `roundclock run --simulate --virtual` gives the panel's changes, the gateway the
    plan, the page's own `face()` the text a microsecond after each change and before it."""
    with Rig(config=CONFIG + WOD) as rig:
        cookie = rig.login()
        driver = tv_browser(1280, 720)
        try:
            driver.get(f"{rig.origin}/display")
            wait_for(lambda: driver.execute_script("return !!window.RoundClockDisplay"), what="the page's script")
            for spec, seconds in TEXT_PROGRAMS.items():
                assert rig.command(cookie, "program", program=spec) == (200, {"ok": True}), spec
                plan = display_plan(rig, spec)
                frames_path = os.path.join(rig.dir, f"virtual-{len(spec)}.jsonl")
                subprocess.run([CLOCK, "run", "--simulate", "--virtual", "--config", rig.config, "--program", spec,
                                "--events", "1:start", "--until", str(seconds), "--frames", frames_path],
                               check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
                with open(frames_path) as f:
                    panel = [json.loads(l) for l in f if '"panel": "time"' in l]
                panel = [(round((f["t"] - 1) * 1000), f["text"]) for f in panel
                         if 1 <= f["t"] < seconds and f["state"] != "ready"]
                instants = [ms for ms, _ in panel]
                texts = driver.execute_script("""
                    const [plan, instants] = arguments;
                    const message = {state: "running", plan: plan, panels: {}, utc_offset_s: 0,
                                     session: {run: "running", elapsed_before_ns: 0, anchor_realtime_ns: 0}};
                    const at = (ms) => window.RoundClockDisplay.face(message, ms).time;
                    return instants.map((ms) => [at(ms + 0.001), at(ms - 0.001)]);""", plan, instants)
                wrong = [(ms, text, page) for (ms, text), (page, _) in zip(panel, texts) if page != text]
                early = [(ms, text, before) for (ms, text), (_, before) in zip(panel[1:], texts[1:]) if before == text]
                assert not wrong and not early, f"{spec}: {wrong[:5]} {early[:5]}"
                print(f"ok: {spec}: the page's text equals the panel's at all {len(panel)} changes, and not before")
            # Clock mode: the simulated wall clock starts at 23:59:00 local; the page is told a
            # UTC offset of 0 and the instant, so its time of day is the same.
            frames_path = os.path.join(rig.dir, "virtual-clock.jsonl")
            subprocess.run([CLOCK, "run", "--simulate", "--virtual", "--program", "clock", "--wall-time", "23:59:00",
                            "--until", "70", "--frames", frames_path], check=True, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=300)
            with open(frames_path) as f:
                panel = [json.loads(l) for l in f if '"panel": "time"' in l]
            panel = [(round((86340 + f["t"]) * 1000), f["text"]) for f in panel if f["t"] < 70]
            texts = driver.execute_script("""
                const [instants] = arguments;
                const message = {state: "clock", plan: {kind: "clock", label: "TIME"}, panels: {}, utc_offset_s: 0};
                return instants.map((ms) => window.RoundClockDisplay.face(message, ms + 0.001).time);""",
                                          [ms for ms, _ in panel])
            wrong = [(ms, text, page) for (ms, text), page in zip(panel, texts) if page != text]
            assert len(panel) > 100 and not wrong, f"clock: {len(panel)} changes, {wrong[:5]}"
            print(f"ok: clock: the page's time of day equals the panel's at all {len(panel)} changes, midnight included")
        finally:
            driver.quit()


# Saved on the clock: 0:02 prep, then 2 rounds of JUMP 0:07 and BRTH 0:03 (0:22). The gateway's
# config says `x` is 8 x 0:20/0:10.
SAVED_X = ('[programs.x]\nprep = "0:02"\nrounds = 2\n'
           'intervals = [ {label = "JUMP", time = "0:07"}, {label = "BRTH", time = "0:03", kind = "rest"} ]\n')


def check_saved_program_is_counted():
    with Rig() as rig:
        cookie = rig.login()
        status, _, payload, _ = rig.request("POST", "/api/editor/save", {"toml": SAVED_X}, cookie=cookie,
                                            headers={"Origin": rig.origin})
        assert status == 200, (status, payload)
        rig.gateway.terminate()
        rig.gateway.wait(timeout=60)
        with open(rig.config) as f:
            config = f.read()
        with open(rig.config, "w") as f:
            f.write(config.replace("[programs]\n", '[programs]\nx = "8 x 0:20/0:10"\n'))
        rig.gateway_log = []
        rig.start_gateway()
        cookie = rig.login()
        assert rig.command(cookie, "program", program="x") == (200, {"ok": True})
        plan = display_plan(rig, "x")
        phases = [(p["phase"], p["length_ns"] // 10**9) for p in plan["phases"]]
        assert plan["total_ns"] == 22 * 10**9 and phases == [("PREP", 2), ("JUMP", 7), ("BRTH", 3), ("JUMP", 7), ("BRTH", 3)], plan
        print("ok: the saved program's plan is the clock's (0:22), not the gateway config's `x` (3:50)")
        driver = tv_browser(1280, 720)
        try:
            driver.get(f"{rig.origin}/display")
            wait_for(lambda: driver.execute_script("return !!window.RoundClockDisplay"), what="the page's script")
            assert rig.command(cookie, "start") == (200, {"ok": True})
            wait_for(lambda: driver.find_element(By.ID, "phase").text.strip() == "JUMP", timeout=30,
                     what="the page's JUMP")
            seen = {driver.find_element(By.ID, "time").text.strip()}
            wait_for(lambda: seen.add(driver.find_element(By.ID, "time").text.strip()) or len(seen) >= 3, timeout=30,
                     what="the page counting")
            print("ok: the TV page counts the saved program:", sorted(seen))
        finally:
            driver.quit()


def display_plan(rig, spec):
    """The plan /api/display sends for the program `spec`."""
    ws = websocket.create_connection(f"ws://127.0.0.1:{rig.port}/api/display", origin=rig.origin, timeout=30)
    try:
        while True:
            message = json.loads(ws.recv())
            if message.get("program") == spec and message.get("plan"):
                return message["plan"]
    finally:
        ws.close()


def check_display_pin():
    config = CONFIG + "display_pin = true\n"
    with Rig(config=config) as rig:
        origin = rig.origin
        try:
            websocket.create_connection(f"ws://127.0.0.1:{rig.port}/api/display", origin=origin, timeout=10)
            raise AssertionError("the display WebSocket opened without a session")
        except websocket.WebSocketBadStatusException as refused:
            assert refused.status_code == 400, refused.status_code
        print("ok: display_pin: the WebSocket without a session is refused (400, hummingbird-websocket's refusal)")
        driver = tv_browser(1280, 720)
        try:
            driver.get(f"{origin}/display")
            wait_for(lambda: driver.find_element(By.ID, "login").is_displayed(), what="the PIN form")
            print("ok: display_pin: the page asks for the PIN")
            driver.find_element(By.ID, "pin").send_keys(PIN)
            driver.find_element(By.CSS_SELECTOR, "#login button").click()
            wait_for(lambda: not driver.find_element(By.ID, "login").is_displayed()
                     and driver.find_element(By.ID, "time").text.strip(), what="the board after the PIN")
            print("ok: display_pin: after the PIN the page shows", repr(driver.find_element(By.ID, "time").text))
        finally:
            driver.quit()


def check_viewers_are_bounded():
    """Without a PIN, a viewer can hold at most the per-address connections; cross-site
    upgrades and bad messages are refused."""
    with Rig() as rig:
        try:
            websocket.create_connection(f"ws://127.0.0.1:{rig.port}/api/display", origin="http://evil.example", timeout=10)
            raise AssertionError("a cross-site upgrade was accepted")
        except websocket.WebSocketBadStatusException as refused:
            assert refused.status_code == 400, refused.status_code
        print("ok: cross-site upgrade refused (400)")
        ws = websocket.create_connection(f"ws://127.0.0.1:{rig.port}/api/display", origin=rig.origin, timeout=10)
        first = json.loads(ws.recv())
        assert first.get("display") in ("session", "unreachable"), first
        ws.send(json.dumps({"ping": 1}))
        answer = json.loads(ws.recv())
        while "pong" not in answer:
            answer = json.loads(ws.recv())
        assert answer["pong"] == 1 and answer["server_us"] > 1e15, answer
        ws.send("x" * 40)
        closed = wait_for(lambda: _closed_reason(ws), timeout=10, what="the close after a bad message")
        print("ok: a bad message closes the viewer's socket:", closed)
        ws = websocket.create_connection(f"ws://127.0.0.1:{rig.port}/api/display", origin=rig.origin, timeout=10)
        for _ in range(40):
            try:
                ws.send(json.dumps({"ping": 2}))
            except Exception:
                break
        closed = wait_for(lambda: _closed_reason(ws), timeout=10, what="the close after a ping flood")
        print("ok: a ping flood closes the viewer's socket:", closed)
        held, refused = [], 0
        for _ in range(64):
            try:
                held.append(websocket.create_connection(f"ws://127.0.0.1:{rig.port}/api/display", origin=rig.origin, timeout=5))
            except Exception:
                refused += 1
        assert refused > 0, "64 viewers from one address were all accepted"
        status, _, _, _ = rig.request("GET", "/api/display-access", source="127.0.0.9")
        assert status == 200, status
        print(f"ok: one address held {len(held)} viewers, {refused} more refused; another address still served")
        for ws in held:
            ws.close()


def _closed_reason(ws):
    try:
        while True:
            data = ws.recv()
            if not data:
                return "closed"
    except websocket.WebSocketConnectionClosedException:
        return "closed"
    except Exception as error:
        return str(error) or type(error).__name__


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minutes", type=float, default=1.0)
    parser.add_argument("--shots", default=os.environ.get("ARTIFACTS", os.path.join(REPO, ".build-artifacts")),
                        help="directory for the 1080p and 4K screenshots")
    args = parser.parse_args()
    run_measurement(args.minutes, args.shots)
    check_sound_and_reconnect()
    check_texts_match_the_core()
    check_display_pin()
    check_viewers_are_bounded()
    check_saved_program_is_counted()
    print("display check: all passed")


if __name__ == "__main__":
    main()
