#!/usr/bin/env python3
"""The setup page (docs/remote.md "Setup") in headless Chromium (Debian's chromium and
chromium-driver) against a real gateway and `roundclock run --simulate --control --state-dir`:
behind the PIN; a brightness slider reaches the clock's chips as it moves; a bad class start
time is refused with the clock's own line and nothing is saved; the program at start is saved
in the clock's state directory and kept over a restart of the clock; "use the config file
alone" drops the page's settings. Writes setup.png to $ARTIFACTS.

    python3 Gateway/Tests/e2e/setup_check.py
"""
import os
import sys

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_check import browser, text  # noqa: E402
from rc_harness import PIN, REPO, Rig, wait_for  # noqa: E402

ARTIFACTS = os.environ.get("ARTIFACTS", os.path.join(REPO, ".build-artifacts"))


def check(condition, message):
    if not condition:
        raise AssertionError(message)
    print("ok:", message)


def last_brightness(rig):
    frames = [f for f in rig.frame_lines() if "brightness" in f]
    return frames[-1]["brightness"] if frames else None


def main():
    with Rig() as rig:
        driver = browser()
        try:
            driver.get(rig.origin + "/setup.html")
            wait_for(lambda: text(driver, "session-error") == "Log in on the remote first.", what="the setup page's refusal")
            check(not driver.find_element(By.ID, "form").is_displayed(), "without the PIN the setup page shows nothing")
            driver.get(rig.origin + "/")
            driver.find_element(By.ID, "pin").send_keys(PIN + "\n")
            wait_for(lambda: driver.find_element(By.ID, "remote").is_displayed(), what="the remote")
            driver.find_element(By.ID, "setup").click()
            wait_for(lambda: driver.find_element(By.ID, "form").is_displayed(), what="the setup form")
            day = driver.find_element(By.ID, "day")
            check(day.get_attribute("value") == "15" and Select(driver.find_element(By.ID, "program")).first_selected_option.text
                  == "countdown:5:00", "the form shows the clock's settings: day 15, countdown:5:00")

            # A finger's pace: each step of the slider reaches the chips before the next one.
            driver.execute_script("arguments[0].focus()", day)
            for level in range(14, 2, -1):
                day.send_keys(Keys.ARROW_LEFT)
                wait_for(lambda: last_brightness(rig) == level, what=f"brightness {level} on the chips")
            check(day.get_attribute("value") == "3" and text(driver, "day-value") == "3",
                  "each step of the day slider reached the chips as it moved, 14 down to 3")

            field = driver.find_element(By.ID, "start-at")
            field.clear()
            field.send_keys("18:30, 25:00\t")
            wait_for(lambda: text(driver, "error").startswith("settings: start_at:"), what="the clock's refusal")
            check('"25:00" is not a time of day' in text(driver, "error"), "a bad time: the clock's line " + text(driver, "error"))
            field.clear()
            field.send_keys("\t")

            Select(driver.find_element(By.ID, "program")).select_by_visible_text("sparring")
            wait_for(lambda: "program = \"sparring\"" in text(driver, "page-settings"), what="sparring saved")
            saved = open(os.path.join(rig.dir, "clock-state", "settings.toml")).read()
            check('program = "sparring"' in saved and "day = 3" in saved and "25:00" not in saved,
                  "settings.toml in the clock's state directory: " + saved.replace("\n", " | "))
            os.makedirs(ARTIFACTS, exist_ok=True)
            driver.save_screenshot(os.path.join(ARTIFACTS, "setup.png"))
            print("ok: screenshot setup.png")

            rig.stop_clock()
            os.remove(rig.frames)
            rig.start_clock()
            wait_for(lambda: any(f.get("rounds") == 6 for f in rig.frame_lines()) and last_brightness(rig) == 3,
                     what="the restarted clock on sparring at brightness 3")
            print("ok: a restarted clock keeps the page's settings")

            driver.refresh()
            wait_for(lambda: driver.find_element(By.ID, "reset").is_enabled(), what="the reset button")
            driver.find_element(By.ID, "reset").click()
            wait_for(lambda: last_brightness(rig) == 15, what="brightness 15 again")
            check(not os.path.exists(os.path.join(rig.dir, "clock-state", "settings.toml")),
                  "use the config file alone: settings.toml removed, brightness 15 again")
        finally:
            driver.quit()
    print("setup check: all passed")


if __name__ == "__main__":
    main()
