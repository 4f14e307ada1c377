#!/usr/bin/env python3
"""Check 3 of check-packages.sh, the host's half: the arm64 gateway (running under qemu-user
in the arm64 root, on loopback) serves its page to the host's headless Chromium, set up as
Gateway/Tests/e2e/browser_check.py sets it up. The page logs in with the PIN, picks a program
from its picker and starts it; its time panel must count (three texts after START). STOP
pauses it; then /api/state over HTTP must name the same program, `paused`, and the time the
page shows, and the clock's frames file (its emulated chip) must have shown a time the page
showed. Writes one line to RESULT: "PASS text" or "FAIL text".

    python3 Tests/release/gateway_check.py --origin http://127.0.0.1:PORT --pin PIN \
        --frames FRAMES.jsonl --result FILE [--program tabata]
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "Gateway", "Tests", "e2e"))
sys.path.insert(0, os.path.join(REPO, "Tests", "system-vm"))
from browser_check import browser, panel, text, times_after  # noqa: E402
from page_check import _loaded  # noqa: E402
from rc_harness import Rig, wait_for  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select  # noqa: E402

# Everything on the other side runs emulated: generous deadlines, polled.
SLOW = 180


class Remote(Rig):
    """The harness's HTTP calls (request, login, command) to a gateway started elsewhere."""

    def __init__(self, port):  # noqa: super().__init__ would start a clock and a gateway
        self.tls = None
        self.port = port


def drive(origin, pin, program, frames):
    driver = browser()
    try:
        wait_for(lambda: _loaded(driver, origin), timeout=SLOW, step=2, what=f"the page at {origin}")
        wait_for(lambda: driver.find_element(By.ID, "pin").is_displayed(), timeout=SLOW, what="the PIN form")
        driver.find_element(By.ID, "pin").send_keys(pin)
        driver.find_element(By.ID, "unlock").click()
        wait_for(lambda: driver.find_element(By.ID, "remote").is_displayed(), timeout=SLOW, what="the remote")
        wait_for(lambda: text(driver, "link") == "live", timeout=SLOW, what="the live link")
        wait_for(lambda: driver.find_element(By.ID, "program").is_enabled(), timeout=SLOW, what="the picker")
        Select(driver.find_element(By.ID, "program")).select_by_value(program)
        wait_for(lambda: text(driver, "status").startswith(program), timeout=SLOW, what=f"{program} on the page")
        ready = panel(driver, "time")
        driver.find_element(By.ID, "start").click()
        seen = times_after(driver, ready, timeout=SLOW, step=0.1)
        driver.find_element(By.ID, "stop").click()
        wait_for(lambda: "paused" in text(driver, "status"), timeout=SLOW, what="paused on the page")
        status = text(driver, "status")

        remote = Remote(int(origin.rsplit(":", 1)[1]))
        cookie = remote.login(pin)

        def api_state():
            code, _, body, _ = remote.request("GET", "/api/state", cookie=cookie)
            assert code == 200, (code, body)
            return json.loads(body)

        def agree():
            state = api_state()
            page = panel(driver, "time")
            same = state.get("program") == program and state.get("state") == "paused"
            return (state, page) if same and state.get("panels", {}).get("time") == page else None
        state, paused_at = wait_for(agree, timeout=SLOW, step=0.5, what="/api/state to agree with the page")

        with open(frames) as f:
            lines = [json.loads(line) for line in f if line.strip()]
        chip = {frame.get("text") for frame in lines if frame.get("panel") == "time"}
        shown = sorted(set(seen) & chip)
        assert shown, f"the clock's frames never showed the page's times {seen}"
        return (f"page logged in with the PIN, picked {program!r}, START: time {ready!r} -> "
                f"{' -> '.join(repr(s) for s in seen)}; STOP: {status!r}; /api/state: program "
                f"{state['program']!r}, {state['state']}, time {state['panels']['time']!r} = page "
                f"{paused_at!r}; the arm64 clock's chip showed {shown}")
    finally:
        driver.quit()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--origin", required=True)
    parser.add_argument("--pin", required=True)
    parser.add_argument("--frames", required=True)
    parser.add_argument("--result", required=True)
    parser.add_argument("--program", default="tabata")
    args = parser.parse_args()
    try:
        line = "PASS " + drive(args.origin, args.pin, args.program, args.frames)
    except Exception as error:  # reported as check 3's failure
        line = "FAIL " + f"{type(error).__name__}: {error}".replace("\n", " ")[:400]
    print(line)
    with open(args.result, "w") as f:
        f.write(line + "\n")
    return 0 if line.startswith("PASS") else 1


if __name__ == "__main__":
    sys.exit(main())
