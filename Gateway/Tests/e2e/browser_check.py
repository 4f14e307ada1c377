#!/usr/bin/env python3
"""The phone page in a real browser: headless Chromium (Debian's chromium
and chromium-driver) driven by Selenium, against a real gateway and `roundclock run
--simulate --control` on loopback, in a 390x844 phone viewport.

Checks: the page asks for the PIN; a wrong PIN is refused on the page and changes nothing;
the right PIN shows the remote with the config's programs; START makes the page's time
count down live and the emulated chip's RAM (frames file) change; STOP pauses; −10 s,
+10 s and BACK change the round's time on the clock; prep is "prep" on the status line; the clock
going away shows "clock unreachable" and the page comes back by itself when it returns; a card
file the clock refused (`--card-error`) is on the page and on the ready panels (ERR, the line, CARD).
Keeps the README's picture (boxing, round 3 running) at $ARTIFACTS/phone.png (default
<repo>/.build-artifacts; scripts/screenshots copies it to docs/images/).

    python3 Gateway/Tests/e2e/browser_check.py
"""
import base64
import os
import shutil
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rc_harness import PIN, REPO, Rig, wait_for  # noqa: E402

ARTIFACTS = os.environ.get("ARTIFACTS", os.path.join(REPO, ".build-artifacts"))

# Debian's browser and driver, named explicitly: with a driver path given, Selenium does not
# run Selenium Manager, which would otherwise look for a driver online, download one and send
# usage statistics. Should a Selenium version run it all the same, it is told to stay offline
# (SE_OFFLINE) and to send nothing (SE_AVOID_STATS); child processes inherit both.
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
os.environ["SE_OFFLINE"] = "true"
os.environ["SE_AVOID_STATS"] = "true"


def browser(width=390, height=844, prefs=None):
    """Headless Chromium as a phone of `width` x `height` CSS px at twice the pixel density;
    `prefs` are Chromium's own settings (e.g. the default font size)."""
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        assert os.access(path, os.X_OK), f"{path} missing: apt install {package} (scripts/setup.sh --gateway)"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    # Chromium reaches nothing but loopback, where the page is: its own background fetches
    # are off (component and extension updates, reports), and the host resolver answers
    # "not found" for every other name without asking DNS (Debian's build still looks up
    # Google's account and update hosts at start without the rule).
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
                 "--force-device-scale-factor=1", "--disable-background-networking", "--disable-component-update",
                 "--disable-domain-reliability", "--no-first-run",
                 "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1"):
        options.add_argument(flag)
    if prefs:
        options.add_experimental_option("prefs", prefs)
    options.add_experimental_option("mobileEmulation", {
        "deviceMetrics": {"width": width, "height": height, "pixelRatio": 2.0, "touch": True},
        "userAgent": "Mozilla/5.0 (Linux; Android 14) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120 Mobile Safari/537.36",
    })
    return webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def panel(driver, name):
    found = driver.find_elements(By.CSS_SELECTOR, f'[data-panel="{name}"] .text')
    return found[0].get_attribute("textContent") if found else None


def times_after(driver, ready, count=3, timeout=60.0, step=0.02):
    """Waits for the page's time panel to show `count` texts in turn that differ from `ready`
    (a running clock counting) and returns them."""
    seen = []

    def counting():
        value = panel(driver, "time")
        if value and value != ready and (not seen or seen[-1] != value):
            seen.append(value)
        return len(seen) >= count
    wait_for(counting, timeout=timeout, step=step, what="the page's time to count")
    return seen


def readme_picture(driver, rig, shot):
    """The picture in the README (docs/images/phone.png, copied by scripts/screenshots): a
    boxing round running. RESET, boxing and START on the page; the 10 s prep and the first
    rounds are skipped (the remote's `skip`, MODE held on the clock) up to round 3; the shot
    is taken once the page's time has counted down from 3:00. Cropped below the program picker
    (the link to the editor is below the phone's first screen), at the emulated phone's pixel
    density."""
    driver.find_element(By.ID, "reset").click()
    wait_for(lambda: driver.find_element(By.ID, "program").is_enabled(), what="the program picker after RESET")
    Select(driver.find_element(By.ID, "program")).select_by_value("boxing")
    wait_for(lambda: text(driver, "status").startswith("boxing"), what="boxing on the page")
    driver.find_element(By.ID, "start").click()
    wait_for(lambda: "running" in text(driver, "status"), what="boxing running")
    wait_for(lambda: text(driver, "status") == "boxing · running · prep", what="'prep' on the status line")
    print("ok: during prep the status line says", repr(text(driver, "status")))
    cookie = rig.login()
    for _ in range(6):
        status = text(driver, "status")
        assert "round 0" not in status, status
        if status.endswith("work · round 3 of 12"):
            break
        code, reply = rig.command(cookie, "skip")
        assert code == 200, (code, reply)
        wait_for(lambda: text(driver, "status") != status, what=f"the page to leave {status!r}")
    assert text(driver, "status") == "boxing · running · work · round 3 of 12", text(driver, "status")
    wait_for(lambda: (panel(driver, "time") or "").strip() in ("2:58", "2:57"), what="round 3 counting down")
    # Down to the program picker, the last thing a phone's screen shows whole, plus the page's
    # own side margin.
    box = driver.execute_script(
        "const margin = document.getElementById('panels').getBoundingClientRect().left;"
        "const bottom = document.getElementById('program').getBoundingClientRect().bottom;"
        "return [innerWidth, Math.min(innerHeight, Math.ceil(bottom + margin)), devicePixelRatio];")
    width, height, ratio = box
    png = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
    with open(shot, "wb") as f:
        f.write(base64.b64decode(png["data"]))
    print(f"ok: screenshot {shot}: {text(driver, 'status')!r}, time {panel(driver, 'time')!r}, "
          f"{width}x{height} CSS px at {ratio}x")


def seconds(shown):
    """The time panel's `M:SS` as seconds."""
    minutes, secs = shown.strip().split(":")
    return int(minutes) * 60 + int(secs)


def live_edits(driver):
    """The round's live edits from the page, on a paused clock so the time holds still:
    −10 s and +10 s move the page's time (what the clock shows) by exactly 10 s, BACK brings
    the round back to its start, and BACK again at once goes to the rest before it; the
    clock stays paused throughout."""
    driver.find_element(By.ID, "stop").click()
    wait_for(lambda: "paused" in text(driver, "status"), what="paused for the edits")
    status = text(driver, "status")
    before = seconds(panel(driver, "time"))
    for button, expected in (("minus10", before - 10), ("minus10", before - 20), ("plus10", before - 10)):
        driver.find_element(By.ID, button).click()
        wait_for(lambda: seconds(panel(driver, "time")) == expected, what=f"{button}: {expected} s on the time panel")
    print(f"ok: −10 s, −10 s, +10 s: {before} s -> {before - 10} s -> {before - 20} s -> {before - 10} s")
    driver.find_element(By.ID, "back").click()
    wait_for(lambda: panel(driver, "time").strip() == "3:00", what="BACK to the round's start")
    assert text(driver, "status") == status, (text(driver, "status"), status)
    print(f"ok: BACK: the round starts again at {panel(driver, 'time').strip()}; still {status!r}")
    driver.find_element(By.ID, "back").click()
    wait_for(lambda: text(driver, "status") == "boxing · paused · rest · round 2 of 12", what="BACK again: round 2's rest")
    assert panel(driver, "time").strip() == "1:00", panel(driver, "time")
    assert text(driver, "error") == "", text(driver, "error")
    print(f"ok: BACK again within 3 s: {text(driver, 'status')!r} at {panel(driver, 'time').strip()}")
    driver.find_element(By.ID, "reset").click()
    wait_for(lambda: not driver.find_element(By.ID, "back").is_enabled(), what="the edit buttons off once ready")


def card_notice():
    """A card file the clock refused: ERR, its line and CARD on the ready panels, the error
    on the page; the first tap gives the panels back, the page keeps the error."""
    error = "/boot/firmware/roundclock.toml: line 7, column 1: not valid TOML: expected a key"
    folder = tempfile.mkdtemp(prefix="rc-card-")
    path = os.path.join(folder, "error")
    with open(path, "w") as f:
        f.write(error + "\n")
    with Rig(clock_args=["--card-error", path]) as rig:
        driver = browser()
        try:
            driver.get(rig.origin + "/")
            wait_for(lambda: driver.find_element(By.ID, "pin").is_displayed(), what="the PIN form")
            driver.find_element(By.ID, "pin").send_keys(PIN)
            driver.find_element(By.ID, "unlock").click()
            wait_for(lambda: driver.find_element(By.ID, "notice").is_displayed(), what="the card's error on the page")
            shown = text(driver, "notice")
            assert shown == "Card settings not applied: " + error, shown
            wait_for(lambda: (panel(driver, "phase") or "").strip() == "CARD", what="CARD on the phase panel")
            panels = tuple((panel(driver, name) or "").strip() for name in ("time", "round", "phase"))
            assert panels == ("ERR", "7", "CARD"), panels
            chip = {f["panel"]: f["text"] for f in rig.frame_lines() if "panel" in f}
            assert chip.get("time", "").strip() == "ERR" and chip.get("phase") == "CARD", chip
            driver.find_element(By.ID, "start").click()
            wait_for(lambda: "running" in text(driver, "status"), what="running after START")
            wait_for(lambda: (panel(driver, "phase") or "").strip() != "CARD", what="the program back on the panels")
            assert driver.find_element(By.ID, "notice").is_displayed(), "the page keeps the card's error"
            print(f"ok: card refused: panels {panels}, page {shown!r}; after START the panels show",
                  repr(panel(driver, "time")), "and the page keeps the error")
        finally:
            driver.quit()
    shutil.rmtree(folder, ignore_errors=True)


def main():
    card_notice()
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
            rig.stop_clock()
            wait_for(lambda: text(driver, "link") == "clock unreachable", what="'clock unreachable' on the page")
            driver.save_screenshot(os.path.join(ARTIFACTS, "phone-unreachable.png"))
            print("ok: clock stopped: the page says", repr(text(driver, "link")))
            rig.start_clock()
            wait_for(lambda: text(driver, "link") == "live", what="the page to come back by itself")
            print("ok: clock back: the page is live again, time", repr(panel(driver, "time")))
            readme_picture(driver, rig, os.path.join(ARTIFACTS, "phone.png"))
            live_edits(driver)
            assert rig.gateway.poll() is None, "the gateway kept running"
        finally:
            driver.quit()
    print("browser check: all passed")


if __name__ == "__main__":
    main()
