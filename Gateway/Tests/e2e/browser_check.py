#!/usr/bin/env python3
"""The phone page in a real browser (issue 15 proof): headless Chromium (Debian's chromium
and chromium-driver) driven by Selenium, against a real gateway and `roundclock run
--simulate --control` on loopback, in a 390x844 phone viewport.

Checks: the page asks for the PIN; a wrong PIN is refused on the page and changes nothing;
the right PIN shows the remote with the config's programs; START makes the page's time
count down live and the emulated chip's RAM (frames file) change; STOP pauses; the clock
going away shows "clock unreachable" and the page comes back by itself when it returns.
Keeps the screenshot at $ARTIFACTS/phone.png (default <repo>/.build-artifacts).

    python3 Gateway/Tests/e2e/browser_check.py
"""
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rc_harness import PIN, REPO, Rig, wait_for  # noqa: E402

ARTIFACTS = os.environ.get("ARTIFACTS", os.path.join(REPO, ".build-artifacts"))


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                 "--force-device-scale-factor=1"):
        options.add_argument(flag)
    options.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": 390, "height": 844, "pixelRatio": 2.0, "touch": True},
        "userAgent": "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Mobile Safari/537.36",
    })
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def panel(driver, name):
    found = driver.find_elements(By.CSS_SELECTOR, f'[data-panel="{name}"] .text')
    return found[0].get_attribute("textContent") if found else None


def main():
    with Rig() as rig:
        driver = browser()
        try:
            driver.get(rig.origin + "/")
            wait_for(lambda: driver.find_element(By.ID, "pin").is_displayed(), what="the PIN form")
            # Wrong PIN: refused on the page, the clock untouched.
            frames_before = len(rig.frame_lines())
            driver.find_element(By.ID, "pin").send_keys("000000")
            driver.find_element(By.ID, "unlock").click()
            wait_for(lambda: "wrong PIN" in text(driver, "login-error"), what="'wrong PIN' on the page")
            assert not driver.find_element(By.ID, "remote").is_displayed()
            print("ok: wrong PIN refused:", text(driver, "login-error"))

            driver.find_element(By.ID, "pin").send_keys(PIN)
            driver.find_element(By.ID, "unlock").click()
            wait_for(lambda: driver.find_element(By.ID, "remote").is_displayed(), what="the remote after the PIN")
            wait_for(lambda: text(driver, "link") == "live", what="the live link")
            wait_for(lambda: panel(driver, "time"), what="the time panel")
            ready_time = panel(driver, "time")
            programs = [o.get_attribute("value") for o in Select(driver.find_element(By.ID, "program")).options]
            assert "sparring" in programs and "boxing" in programs, programs
            print(f"ok: logged in; time panel {ready_time!r}; programs {programs}")
            assert all(f.get("state") != "running" for f in rig.frame_lines()), "nothing ran before START"
            ram_before = [f["ram"] for f in rig.frame_lines() if f.get("panel") == "time"][-1]

            tap = time.monotonic()
            driver.find_element(By.ID, "start").click()
            seen = []
            def counting():
                value = panel(driver, "time")
                if value and (not seen or seen[-1] != value):
                    seen.append(value)
                return len(seen) >= 3
            wait_for(counting, what="the page's time to count down")
            print(f"ok: START: the page counted {seen} ({time.monotonic() - tap:.1f} s)")
            running = [f for f in rig.frame_lines() if f.get("panel") == "time" and f.get("state") == "running"]
            assert running, "frames file: no running time frame"
            assert running[-1]["ram"] != ram_before, "the chip's RAM did not change"
            page_texts = set(seen)
            chip_texts = {f["text"] for f in running}
            assert page_texts & chip_texts, (page_texts, chip_texts)
            print(f"ok: chip RAM {ram_before} -> {running[-1]['ram']} ({running[-1]['text']!r}); page and chip agree on {sorted(page_texts & chip_texts)}")

            driver.find_element(By.ID, "stop").click()
            wait_for(lambda: "paused" in text(driver, "status"), what="paused on the page")
            wait_for(lambda: any(f.get("state") == "paused" for f in rig.frame_lines()), what="paused in the frames file")
            print("ok: STOP paused the clock:", text(driver, "status"))
            driver.find_element(By.ID, "start").click()
            wait_for(lambda: "running" in text(driver, "status"), what="running again")

            os.makedirs(ARTIFACTS, exist_ok=True)
            wait_for(lambda: panel(driver, "time") not in (None, ready_time), what="a running picture for the screenshot")
            shot = os.path.join(ARTIFACTS, "phone.png")
            driver.save_screenshot(shot)
            print("ok: screenshot", shot, driver.execute_script("return [innerWidth, innerHeight]"))

            rig.stop_clock()
            wait_for(lambda: text(driver, "link") == "clock unreachable", what="'clock unreachable' on the page")
            driver.save_screenshot(os.path.join(ARTIFACTS, "phone-unreachable.png"))
            print("ok: clock stopped: the page says", repr(text(driver, "link")))
            rig.start_clock()
            wait_for(lambda: text(driver, "link") == "live", what="the page to come back by itself")
            print("ok: clock back: the page is live again, time", repr(panel(driver, "time")))
            assert rig.gateway.poll() is None, "the gateway kept running"
        finally:
            driver.quit()
    print("browser check: all passed")


if __name__ == "__main__":
    main()
