#!/usr/bin/env python3
"""The program editor end to end: a real gateway and `roundclock run --simulate --control
--state-dir` on loopback, its API with Python's http.client, its page in headless Chromium
(Debian's chromium and chromium-driver, Selenium) in a 390x844 phone viewport.

API: the routes need a session, their POSTs a same-site Origin; a bad body is 400 in the
clock's words; check answers the plan, save keeps the program in the clock's state directory
(the gateway writes nothing), the picker lists it, delete removes it.
Page: a program made in the form shows its total from the clock, is saved, selected and
started on the clock; its TOML is shared, imported back into the form, and a bad time shows
the clock's one-line error under the form; a saved program is deleted from the list.

    python3 Gateway/Tests/e2e/editor_check.py
"""
import base64
import json
import os
import sys

from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from browser_check import ARTIFACTS, browser, text  # noqa: E402
from rc_harness import PIN, Rig, wait_for  # noqa: E402

SNIPPET = ('[programs.circuit]\nrounds = 2\nrest = "0:15"\n'
           'intervals = [ {label = "ROW", time = "0:40"}, {label = "WALK", time = "0:10", kind = "rest"} ]\n')


def post(rig, path, body, cookie, origin=True):
    headers = {"Origin": rig.origin} if origin else {}
    status, _, payload, _ = rig.request("POST", path, body, headers=headers, cookie=cookie)
    return status, json.loads(payload)


def api(rig):
    status, _, payload, _ = rig.request("GET", "/api/editor/programs")
    assert status == 401, (status, payload)
    cookie = rig.login()
    status, body = post(rig, "/api/editor/check", {"toml": SNIPPET}, cookie, origin=False)
    assert status == 200, (status, body)
    status, _, payload, _ = rig.request("POST", "/api/editor/save", {"toml": SNIPPET}, cookie=cookie,
                                        headers={"Origin": "http://evil.example"})
    assert status == 403, (status, payload)
    status, body = post(rig, "/api/editor/check", {"toml": SNIPPET}, cookie)
    assert status == 200 and body["program"]["total"] == "1:55", body
    print("ok: check answered the plan:", body["program"]["plan"], body["program"]["total"])
    status, body = post(rig, "/api/editor/check", {"tml": SNIPPET}, cookie)
    assert status == 400 and body["error"] == 'unknown member "tml" for "program-check"', (status, body)
    status, body = post(rig, "/api/editor/save", {"toml": SNIPPET.replace('"0:40"', '"0:4x"')}, cookie)
    assert status == 422 and body["error"].startswith("program: programs.circuit.intervals[1].time: "), (status, body)
    status, _, payload, _ = rig.request("POST", "/api/editor/save", raw=b"x" * 5000, cookie=cookie,
                                        headers={"Origin": rig.origin})
    assert status == 413, (status, payload)
    print("ok: refused: 401 without a session, 403 cross-site, 400 bad body, 422", body["error"][:40] + "…", "413 too big")
    status, body = post(rig, "/api/editor/save", {"toml": SNIPPET}, cookie)
    assert status == 200 and "replaced" not in body, (status, body)
    status, body = post(rig, "/api/editor/save", {"toml": SNIPPET}, cookie)
    assert status == 200 and body["replaced"]["name"] == "circuit" and body["replaced"]["total"] == "1:55", (status, body)
    print("ok: a save over a saved program names it:", body["replaced"]["plan"])
    stored = os.path.join(rig.dir, "clock-state", "programs.toml")
    with open(stored) as file:
        assert file.read() == SNIPPET
    assert not os.path.exists(os.path.join(rig.dir, "gateway-state", "programs.toml"))
    status, _, payload, _ = rig.request("GET", "/api/programs", cookie=cookie)
    assert "circuit" in json.loads(payload)["programs"], payload
    status, _, payload, _ = rig.request("GET", "/api/editor/programs", cookie=cookie)
    saved = [p for p in json.loads(payload)["programs"] if p["source"] == "saved"]
    assert [p["name"] for p in saved] == ["circuit"] and saved[0]["toml"] == SNIPPET, saved
    print("ok: saved in the clock's state directory; the picker lists it")
    status, body = post(rig, "/api/editor/delete", {"program": "circuit"}, cookie)
    assert status == 200, (status, body)
    status, body = post(rig, "/api/editor/delete", {"program": "circuit"}, cookie)
    assert status == 422 and "is not a saved program" in body["error"], (status, body)
    print("ok: deleted:", body["error"])


def alert(driver):
    try:
        return driver.switch_to.alert
    except NoAlertPresentException:
        return None


def shot(driver, path):
    """The whole form and its preview (docs/images/editor.png, copied by scripts/screenshots),
    at the emulated phone's pixel density."""
    os.makedirs(ARTIFACTS, exist_ok=True)
    width, height = driver.execute_script(
        "return [innerWidth, Math.ceil(document.documentElement.scrollHeight)];")
    png = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
    with open(path, "wb") as f:
        f.write(base64.b64decode(png["data"]))
    print(f"ok: screenshot {path}: {width}x{height} CSS px")


def page(rig):
    driver = browser()
    try:
        driver.get(rig.origin + "/")
        driver.find_element(By.ID, "pin").send_keys(PIN)
        driver.find_element(By.ID, "unlock").click()
        wait_for(lambda: driver.find_element(By.ID, "remote").is_displayed(), what="the remote after the PIN")
        driver.find_element(By.ID, "edit-programs").click()
        wait_for(lambda: driver.find_element(By.ID, "new").is_displayed(), what="the editor")
        driver.find_element(By.ID, "new").click()
        driver.find_element(By.ID, "name").send_keys("hiit")
        rounds = driver.find_element(By.ID, "rounds")
        rounds.clear()
        rounds.send_keys("3")
        driver.find_element(By.ID, "prep").send_keys("0:10")
        # The two intervals of a new program: 0:40 work, 0:20 rest; three rounds, 0:10 prep.
        wait_for(lambda: text(driver, "total") == "3:10", what="the preview total 3:10")
        phases = len(driver.find_elements(By.CSS_SELECTOR, "#phases li"))
        assert phases == 7, phases
        print("ok: preview from the clock:", text(driver, "total"), f"({phases} phases)")

        time = driver.find_elements(By.CSS_SELECTOR, '#intervals [data-field="time"]')[0]
        time.clear()
        time.send_keys("0:4x")
        wait_for(lambda: "is not a usable time" in text(driver, "check-error"), what="the clock's error line")
        error = text(driver, "check-error")
        assert error.startswith('program: programs.hiit.intervals[1].time: "0:4x" is not a usable time'), error
        print("ok: a bad time shows the clock's line:", error[:70] + "…")
        time.clear()
        time.send_keys("0:30")
        wait_for(lambda: text(driver, "total") == "2:40" and text(driver, "check-error") == "", what="the total 2:40")
        shot(driver, os.path.join(ARTIFACTS, "editor.png"))

        driver.find_element(By.ID, "save").click()
        wait_for(lambda: text(driver, "saved").startswith("saved hiit"), what="saved on the page")
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, '[data-program="hiit"]'), what="hiit in the list")
        with open(os.path.join(rig.dir, "clock-state", "programs.toml")) as file:
            stored = file.read()
        assert stored.startswith("[programs.hiit]\nprep = \"0:10\"\nrounds = 3\n"), stored
        print("ok: saved on the clock:", stored.splitlines()[0], "…")
        driver.find_element(By.ID, "save").click()
        wait_for(lambda: "Replaced “hiit” (" in text(driver, "saved"), what="the replaced program on the page")
        assert driver.find_element(By.ID, "saved").get_attribute("role") == "status"
        print("ok: saved again:", text(driver, "saved"))

        shared = driver.find_element(By.ID, "toml").get_attribute("value")
        assert shared == stored, (shared, stored)
        driver.find_element(By.ID, "copy").click()
        wait_for(lambda: text(driver, "share-status") in ("copied", "selected: copy it with the phone's menu"), what="copy")
        print("ok: share:", text(driver, "share-status"))
        # As copied from a config file, with its comments.
        imported = ('# from the config of the other ring\n[programs.imported]  # rows and walks\n'
                    'rounds = 2 # two\n# between the rounds\nrest = "0:15"\n'
                    'intervals = [ {label = "ROW", time = "0:40"}, {label = "WALK", time = "0:10", kind = "rest"} ]\n')
        box = driver.find_element(By.ID, "toml")
        box.clear()
        box.send_keys(imported)
        driver.find_element(By.ID, "import").click()
        wait_for(lambda: driver.find_element(By.ID, "name").get_attribute("value") == "imported", what="imported name")
        wait_for(lambda: text(driver, "total") == "1:55", what="the imported program's total")
        labels = [e.get_attribute("value") for e in driver.find_elements(By.CSS_SELECTOR, '#intervals [data-field="label"]')]
        assert labels == ["ROW", "WALK"], labels
        print("ok: imported the snippet, comments and all, into the form:", labels, text(driver, "total"))
        driver.find_element(By.ID, "save").click()
        wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, '[data-program="imported"] [data-action="delete"]'),
                 what="imported in the list")
        driver.find_element(By.CSS_SELECTOR, '[data-program="imported"] [data-action="delete"]').click()
        wait_for(lambda: alert(driver), what="the delete confirmation").accept()
        wait_for(lambda: not driver.find_elements(By.CSS_SELECTOR, '[data-program="imported"]'), what="imported deleted")
        with open(os.path.join(rig.dir, "clock-state", "programs.toml")) as file:
            assert "[programs.imported]" not in file.read()
        print("ok: saved and deleted 'imported' from the list")

        driver.get(rig.origin + "/")
        wait_for(lambda: "hiit" in [o.get_attribute("value") for o in Select(driver.find_element(By.ID, "program")).options],
                 what="hiit in the picker")
        Select(driver.find_element(By.ID, "program")).select_by_value("hiit")
        wait_for(lambda: text(driver, "status").startswith("hiit"), what="hiit selected on the clock")
        driver.find_element(By.ID, "start").click()
        wait_for(lambda: any(f.get("state") == "running" and f.get("program") == "hiit" for f in rig.frame_lines())
                 or "running" in text(driver, "status"), what="hiit running on the clock")
        print("ok: selected and started on the clock:", text(driver, "status"))
    finally:
        driver.quit()


def main():
    with Rig() as rig:
        api(rig)
        page(rig)
        assert rig.gateway.poll() is None, "the gateway kept running"
    print("editor check: all passed")


if __name__ == "__main__":
    main()
