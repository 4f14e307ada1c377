#!/usr/bin/env python3
"""System VM check 11, the host's half: the packaged phone page in headless Chromium (the
browser set-up of Gateway/Tests/e2e/browser_check.py: Debian's chromium and chromedriver by
their paths; Selenium Manager is not run, and is told to stay offline and send no
statistics should it run), against the gateway running under
systemd in the VM, reached through qemu's hostfwd port. A wrong PIN is refused, the PIN the
guest read with `roundclock-gateway --show-pin` opens the remote, START is tapped and the
page's time panel must count down (three different texts). The guest then checks the clock's
session and chip RAM (guest/gateway-checks.sh).

Writes RESULT (sourced by bash in the guest): PAGE_STATUS=PASS|FAIL, PAGE_TEXT, and the tap's
wall time bracket TAP_BEFORE_US / TAP_AFTER_US (the VM's clock is the host's). Keeps the
screenshot at $ARTIFACTS/phone-vm.png (default <repo>/.build-artifacts).

    python3 Tests/system-vm/page_check.py --origin http://127.0.0.1:PORT --pin PIN --result FILE
"""
import argparse
import os
import shlex
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "Gateway", "Tests", "e2e"))
from browser_check import browser, panel, text  # noqa: E402
from rc_harness import wait_for  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

ARTIFACTS = os.environ.get("ARTIFACTS", os.path.join(REPO, ".build-artifacts"))


def drive(origin, pin, report):
    driver = browser()
    try:
        # The gateway under TCG answers slowly at first: generous deadlines.
        wait_for(lambda: _loaded(driver, origin), timeout=120, step=2, what=f"the page at {origin}")
        wait_for(lambda: driver.find_element(By.ID, "pin").is_displayed(), timeout=60, what="the PIN form")
        wrong = "0" * len(pin) if pin != "0" * len(pin) else "1" * len(pin)
        driver.find_element(By.ID, "pin").send_keys(wrong)
        driver.find_element(By.ID, "unlock").click()
        wait_for(lambda: "wrong PIN" in text(driver, "login-error"), timeout=60, what="'wrong PIN' on the page")
        assert not driver.find_element(By.ID, "remote").is_displayed(), "the remote showed after a wrong PIN"
        report["wrong"] = text(driver, "login-error")
        driver.find_element(By.ID, "pin").clear()
        driver.find_element(By.ID, "pin").send_keys(pin)
        driver.find_element(By.ID, "unlock").click()
        wait_for(lambda: driver.find_element(By.ID, "remote").is_displayed(), timeout=60, what="the remote after the PIN")
        wait_for(lambda: text(driver, "link") == "live", timeout=60, what="the live link")
        ready = wait_for(lambda: panel(driver, "time"), timeout=60, what="the time panel")
        report["ready"] = ready
        report["tap_before"] = time.time_ns() // 1000
        driver.find_element(By.ID, "start").click()
        report["tap_after"] = time.time_ns() // 1000
        seen = []

        def counting():
            value = panel(driver, "time")
            if value and value != ready and (not seen or seen[-1] != value):
                seen.append(value)
            return len(seen) >= 3
        wait_for(counting, timeout=60, what="the page's time to count down")
        report["seen"] = seen
        report["status"] = text(driver, "status")
        os.makedirs(ARTIFACTS, exist_ok=True)
        driver.save_screenshot(os.path.join(ARTIFACTS, "phone-vm.png"))
    finally:
        driver.quit()


def _loaded(driver, origin):
    try:
        driver.get(origin + "/")
        return driver.find_elements(By.ID, "pin")
    except Exception:  # connection refused while the guest's gateway is not up yet
        return False


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--origin", required=True)
    parser.add_argument("--pin", required=True)
    parser.add_argument("--result", required=True)
    args = parser.parse_args()
    report = {}
    try:
        drive(args.origin, args.pin, report)
        status = "PASS"
        summary = (f"wrong PIN refused ({report['wrong']!r}), PIN accepted, START tapped, the page's time went "
                   f"{report['ready']!r} -> {' -> '.join(repr(s) for s in report['seen'])} ({report['status']!r})")
    except Exception as error:  # the guest reports it as check 11's failure
        status, summary = "FAIL", f"{type(error).__name__}: {error}".replace("\n", " ")[:400]
    print(f"page check: {status} {summary}")
    with open(args.result + ".tmp", "w") as f:
        f.write(f"PAGE_STATUS={status}\nPAGE_TEXT={shlex.quote(summary)}\n"
                f"TAP_BEFORE_US={report.get('tap_before', 0)}\nTAP_AFTER_US={report.get('tap_after', 0)}\n")
    os.replace(args.result + ".tmp", args.result)
    return 0 if status == "PASS" else 1


if __name__ == "__main__":
    sys.exit(main())
