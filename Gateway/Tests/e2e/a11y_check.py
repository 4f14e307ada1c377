#!/usr/bin/env python3
"""The four pages as assistive technology and a small phone meet them: headless Chromium
(Debian's chromium and chromium-driver) as a phone 360 CSS px wide whose user set text to
200%, against a real gateway and `roundclock run --simulate --control` on loopback.

200% text is Chromium's own font-size setting (Settings, Appearance, Font size; the
preference `webkit.webprefs.default_font_size`) at 32 px instead of 16: what a user's larger
text changes in a browser, the size that `rem`, `em` and the keywords are measured from. Text
the page sizes in `px` or by the viewport alone does not follow it, so each text's size is also
compared with its size at 16 px (a11y_probe.layout). Zooming the page or the device's pixel
density would change every length alike, not the text against the layout.

On the phone page (locked, ready, paused), the program editor (a saved program in the list,
the form open), the setup page and the TV page (a round running), each checked in full:
  - axe-core (from `axe-selenium-python`, pinned) reports no serious or critical violation;
  - Tab reaches every control in document order, going down the page, each with a visible
    focus ring and an accessible name; Enter and Space activate it;
  - nothing is wider than the screen, cut off or off-screen, and every target is at least
    48x48 CSS px.
The login, START, STOP, NEW PROGRAM and SAVE are also done from the keyboard for real. Writes
the pictures phone-360-200.png, editor-360-200.png, setup-360-200.png and tv-360-200.png to $ARTIFACTS (default
<repo>/.build-artifacts; scripts/screenshots copies them to docs/images/). Prints every problem
found and exits 1 if there is one.

    python3 Gateway/Tests/e2e/a11y_check.py
"""
import os
import sys

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from a11y_probe import axe_violations, ensure_axe, keyboard, layout  # noqa: E402
from browser_check import browser, text  # noqa: E402
from rc_harness import PIN, REPO, Rig, wait_for  # noqa: E402

ARTIFACTS = os.environ.get("ARTIFACTS", os.path.join(REPO, ".build-artifacts"))
WIDTH, HEIGHT = 360, 800
TEXT_SIZE = 32


def check(driver, page, problems):
    found = axe_violations(driver, page, TEXT_SIZE) + keyboard(driver, page) + layout(driver, page, TEXT_SIZE)
    for line in found:
        print(f"FAIL: {page}: {line}", flush=True)
    problems += [f"{page}: {line}" for line in found]


def keys(driver, *sequence):
    ActionChains(driver).send_keys(*sequence).perform()


def tab_to(driver, element_id):
    """Presses Tab until the element has the focus."""
    for _ in range(80):
        if driver.switch_to.active_element.get_attribute("id") == element_id:
            return
        keys(driver, Keys.TAB)
    raise AssertionError(f"Tab never reached #{element_id}")


def shot(driver, name):
    os.makedirs(ARTIFACTS, exist_ok=True)
    driver.execute_script("scrollTo(0, 0)")
    path = os.path.join(ARTIFACTS, name)
    driver.save_screenshot(path)
    print(f"ok: screenshot {path}: {os.path.getsize(path)} bytes")


def phone_page(driver, rig, problems):
    driver.get(rig.origin + "/")
    wait_for(lambda: driver.find_element(By.ID, "pin").is_displayed(), what="the PIN form")
    check(driver, "phone page, locked", problems)
    driver.find_element(By.ID, "pin").click()
    keys(driver, PIN, Keys.ENTER)
    wait_for(lambda: driver.find_element(By.ID, "remote").is_displayed(), what="the remote after the PIN and Enter")
    wait_for(lambda: text(driver, "link") == "live", what="the live link")
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, '[data-panel="time"]'), what="the time panel")
    print("ok: logged in with the PIN and Enter")
    check(driver, "phone page, ready", problems)
    tab_to(driver, "start")
    keys(driver, Keys.SPACE)
    wait_for(lambda: "running" in text(driver, "status"), what="running after Space on START")
    tab_to(driver, "stop")
    keys(driver, Keys.ENTER)
    wait_for(lambda: "paused" in text(driver, "status"), what="paused after Enter on STOP")
    print("ok: Space on START ran the clock, Enter on STOP paused it:", text(driver, "status"))
    check(driver, "phone page, paused", problems)
    tab_to(driver, "start")
    keys(driver, Keys.ENTER)
    wait_for(lambda: "running" in text(driver, "status"), what="running after Enter on START")
    shot(driver, "phone-360-200.png")


def editor_page(driver, rig, problems):
    driver.get(rig.origin + "/editor.html")
    wait_for(lambda: driver.find_element(By.ID, "new").is_displayed(), what="the editor")
    tab_to(driver, "new")
    keys(driver, Keys.ENTER)
    wait_for(lambda: driver.switch_to.active_element.get_attribute("id") == "name", what="the form, its name focused")
    keys(driver, "stretch")
    wait_for(lambda: text(driver, "total") == "1:00", what="the preview of stretch")
    tab_to(driver, "save")
    keys(driver, Keys.ENTER)
    wait_for(lambda: text(driver, "saved").startswith("saved stretch"), what="saved after Enter on SAVE")
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, '[data-program="stretch"] [data-action="delete"]'),
             what="stretch in the list")
    print("ok: NEW PROGRAM, a name and SAVE from the keyboard:", text(driver, "saved"))
    check(driver, "editor", problems)
    shot(driver, "editor-360-200.png")


def setup_page(driver, rig, problems):
    driver.get(rig.origin + "/setup.html")
    wait_for(lambda: driver.find_element(By.ID, "form").is_displayed(), what="the setup form")
    tab_to(driver, "day")
    keys(driver, Keys.ARROW_LEFT)
    wait_for(lambda: "day = 14" in text(driver, "page-settings"), what="day 14 saved after the arrow key")
    print("ok: the day brightness slider moved from the keyboard:", text(driver, "page-settings"))
    check(driver, "setup", problems)
    shot(driver, "setup-360-200.png")


def tv_page(driver, rig, problems):
    driver.get(rig.origin + "/display")
    wait_for(lambda: driver.execute_script("return document.body.className") in ("work", "rest", "warning"),
             what="the TV page showing the running round")
    check(driver, "TV page, running", problems)
    shot(driver, "tv-360-200.png")


def main():
    ensure_axe()
    problems = []
    with Rig() as rig:
        driver = browser(WIDTH, HEIGHT, prefs={"webkit.webprefs.default_font_size": TEXT_SIZE})
        try:
            print(f"phone: {WIDTH}x{HEIGHT} CSS px, default text {TEXT_SIZE} px (200%)")
            phone_page(driver, rig, problems)
            editor_page(driver, rig, problems)
            setup_page(driver, rig, problems)
            tv_page(driver, rig, problems)
        finally:
            driver.quit()
        assert rig.gateway.poll() is None, "the gateway kept running"
    if problems:
        print(f"a11y check: {len(problems)} problems")
        sys.exit(1)
    print("a11y check: all passed")


if __name__ == "__main__":
    main()
