"""What a11y_check.py asks of each page, in the page as it stands: axe-core's serious and
critical violations, the keyboard (Tab order, Enter and Space, a visible focus ring, a name
for each control), and the layout on a narrow screen with large text (nothing cut off or
off-screen, text that follows the text-size setting, targets of at least 48x48 CSS px).
Each function returns the problems it found as lines; an empty list is a pass.

axe-core comes from `axe-selenium-python` (PyPI), which ships axe.min.js. `ensure_axe()`
installs the pinned version once into a venv under $ROUNDCLOCK_A11Y_CACHE (default
/var/cache/roundclock-a11y) and runs the check again in that venv; later runs need no network.
"""
import os
import subprocess
import sys

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

# 3.0.0 ships axe-core 4.10.2; it declares Python 3.12, but its one module runs on Debian 12's
# 3.11 (2.1.6, the last release that declares 3.11, ships axe-core 3.1 of 2018). Its other
# requirements are Selenium, installed already (scripts/setup.sh --gateway), and pytest, which
# only its own tests use.
AXE_PACKAGE = "axe-selenium-python==3.0.0"
AXE_CORE = "4.10.2"
CACHE = os.environ.get("ROUNDCLOCK_A11Y_CACHE", "/var/cache/roundclock-a11y")
VENV = os.path.join(CACHE, "venv")
MIN_TARGET = 48

# The page's own helpers, defined once per call: a readable name for an element, whether it
# is shown, and the controls a keyboard reaches, in document order.
HELPERS = """
const describe = (el) => {
  if (el.id) return '#' + el.id;
  const text = (el.getAttribute('aria-label') || el.textContent || el.value || '').trim().slice(0, 24);
  return el.tagName.toLowerCase() + (el.className ? '.' + String(el.className).split(' ').join('.') : '') +
    (text ? ' "' + text + '"' : '');
};
const shown = (el) => el.checkVisibility({visibilityProperty: true}) && el.getClientRects().length > 0;
const controls = () => [...document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]')]
  .filter((el) => !el.disabled && el.tabIndex >= 0 && shown(el));
"""


def ensure_axe():
    """Runs this process again in the cached venv that has the pinned axe-selenium-python,
    made (with the system's packages, so Selenium is there) on the first run."""
    python = os.path.join(VENV, "bin", "python")
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    probe = [python, "-c", "import axe_selenium_python, selenium"]
    if not (os.path.exists(python) and subprocess.run(probe, capture_output=True).returncode == 0):
        print(f"installing {AXE_PACKAGE} into {VENV} (once)", flush=True)
        os.makedirs(CACHE, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", "--clear", "--system-site-packages", VENV], check=True)
        subprocess.run([os.path.join(VENV, "bin", "pip"), "install", "--quiet", "--no-deps", "--ignore-requires-python",
                        AXE_PACKAGE], check=True)
    os.execv(python, [python] + sys.argv)


def axe_violations(driver, page, text_size):
    """axe-core's serious and critical violations as lines (id, impact, each target), at the
    text size the browser was started with and at the default 16 px (a colour's contrast
    needs more for small text than for large); prints the lesser ones, which do not fail."""
    from axe_selenium_python import Axe
    axe = Axe(driver)
    axe.inject()
    version = driver.execute_script("return axe.version")
    assert version == AXE_CORE, f"axe-core {version}, expected {AXE_CORE}"
    problems, notes, rules = [], [], 0
    for size in (text_size, 16):
        set_text_size(driver, size)
        results = axe.run()
        rules = max(rules, len(results["passes"]))
        for violation in results["violations"]:
            targets = ", ".join(" ".join(node["target"]) for node in violation["nodes"])
            line = f"axe {violation['id']} ({violation['impact']}): {targets}"
            serious = violation["impact"] in ("serious", "critical")
            found = problems if serious else notes
            if line not in found:
                found.append(line)
    set_text_size(driver, text_size)
    for line in notes:
        print(f"note: {page}: {line}")
    print(f"ok: {page}: axe-core {version} at {text_size} px and 16 px text: {rules} rules passed, "
          f"{len(problems)} serious or critical violations")
    return problems


def set_text_size(driver, size):
    """The browser's default font size (the preference the text-size setting writes), at once,
    the page laid out anew."""
    driver.execute_cdp_cmd("Page.setFontSizes", {"fontSizes": {"standard": size}})
    next_frame(driver)


def _luminance(rgb):
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b):
    """WCAG's contrast ratio of two sRGB colours given as (r, g, b)."""
    la, lb = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


FOCUS_STYLE = HELPERS + """
const el = document.activeElement;
const s = getComputedStyle(el);
let back = el.parentElement, colour = 'rgba(0, 0, 0, 0)';
while (back && (colour = getComputedStyle(back).backgroundColor).endsWith(', 0)')) back = back.parentElement;
const rgb = (text) => (text.match(/[0-9.]+/g) || ['0', '0', '0']).slice(0, 3).map(Number);
return {name: describe(el), visible: el.matches(':focus-visible'), style: s.outlineStyle,
        width: parseFloat(s.outlineWidth), colour: rgb(s.outlineColor), behind: rgb(colour), shadow: s.boxShadow};
"""


def keyboard(driver, page):
    """Tab from the top reaches every control once, in document order, each below or right of
    the one before; each shows a focus ring (an outline of 2 px or more at 3:1 against what
    is behind it, or the browser's own) and has an accessible name; Enter activates buttons
    and links, Space buttons and checkboxes, arrows change a select or a slider, keys type into
    a field.
    The page's own handlers never see these keys' effects (a capturing listener stops them),
    so the page's state is unchanged."""
    problems = []
    expected = driver.execute_script(HELPERS + "return controls();")
    names = driver.execute_script(HELPERS + "return controls().map(describe);")
    driver.execute_script("document.body.tabIndex = -1; document.body.focus(); document.body.removeAttribute('tabindex');"
                          "scrollTo(0, 0);")
    reached, rings = [], []
    for _ in expected:
        ActionChains(driver).send_keys(Keys.TAB).perform()
        reached.append(driver.switch_to.active_element)
        rings.append(driver.execute_script(FOCUS_STYLE))
    if reached != expected:
        got = [r["name"] for r in rings]
        problems.append(f"Tab order {got}, expected the document's {names}")
    boxes = driver.execute_script("return arguments[0].map((el) => { const r = el.getBoundingClientRect();"
                                  " return [r.top + scrollY, r.bottom + scrollY, r.left]; });", expected)
    for (top0, bottom0, left0), (top1, bottom1, left1), name0, name1 in zip(boxes, boxes[1:], names, names[1:]):
        same_row = top1 < bottom0 and top0 < bottom1
        if (same_row and left1 < left0) or (not same_row and top1 < top0):
            problems.append(f"Tab goes from {name0} up or back to {name1}")
    for ring in rings:
        if not ring["visible"]:
            problems.append(f"{ring['name']}: focused by Tab but not :focus-visible")
        elif ring["style"] == "none" and ring["shadow"] == "none":
            problems.append(f"{ring['name']}: no focus ring (outline none)")
        elif ring["style"] not in ("none", "auto") and (ring["width"] < 2 or contrast(ring["colour"], ring["behind"]) < 3):
            problems.append(f"{ring['name']}: focus ring {ring['width']} px at "
                            f"{contrast(ring['colour'], ring['behind']):.1f}:1, needs 2 px at 3:1")
    for element, name in zip(expected, names):
        accessible = (element.accessible_name or "").strip()
        if not accessible:
            problems.append(f"{name} ({element.aria_role}): no accessible name")
    problems += _activation(driver, expected, names)
    summary = ", ".join(f"{(e.accessible_name or '').strip()!r} {e.aria_role}" for e in expected)
    print(f"ok: {page}: Tab reaches {len(expected)} controls: {summary}")
    return problems


CAPTURE = """
window.a11yActs = [];
window.a11yStop = (e) => { window.a11yActs.push(e.type); e.stopImmediatePropagation(); e.preventDefault(); };
for (const type of ['click', 'change', 'input', 'submit']) window.addEventListener(type, window.a11yStop, true);
"""
RELEASE = "for (const type of ['click', 'change', 'input', 'submit']) window.removeEventListener(type, window.a11yStop, true);"


def _activation(driver, elements, names):
    problems = []
    driver.execute_script(CAPTURE)
    try:
        for element, name in zip(elements, names):
            tag, kind = driver.execute_script("return [arguments[0].tagName, arguments[0].type || '']", element)
            if tag == "BUTTON" or (tag == "INPUT" and kind in ("button", "submit")):
                tries = [(Keys.ENTER, "click"), (Keys.SPACE, "click")]
            elif tag == "A":
                tries = [(Keys.ENTER, "click")]
            elif tag == "INPUT" and kind == "checkbox":
                tries = [(Keys.SPACE, "click")]
            elif tag == "SELECT":
                tries = [(Keys.ARROW_DOWN if driver.execute_script("return arguments[0].selectedIndex < arguments[0].length - 1",
                                                                   element) else Keys.ARROW_UP, "change")]
            elif tag == "INPUT" and kind == "range":
                tries = [(Keys.ARROW_RIGHT if driver.execute_script("return Number(arguments[0].value) < Number(arguments[0].max)",
                                                                    element) else Keys.ARROW_LEFT, "input")]
            elif tag in ("INPUT", "TEXTAREA"):
                tries = [("7", "input")]
            else:
                continue
            before = driver.execute_script("return [arguments[0].value, arguments[0].selectedIndex]", element)
            for key, event in tries:
                driver.execute_script("arguments[0].focus(); window.a11yActs = [];", element)
                ActionChains(driver).send_keys(key).perform()
                acts = driver.execute_script("return window.a11yActs")
                if event not in acts:
                    problems.append(f"{name}: {key_name(key)} gave {acts or 'nothing'}, not a {event}")
            driver.execute_script("arguments[0].value = arguments[1][0];"
                                  "if (arguments[0].tagName === 'SELECT') arguments[0].selectedIndex = arguments[1][1];",
                                  element, before)
    finally:
        driver.execute_script(RELEASE)
        driver.execute_script("document.activeElement.blur()")
    return problems


def key_name(key):
    return {Keys.ENTER: "Enter", Keys.SPACE: "Space", Keys.ARROW_DOWN: "ArrowDown", Keys.ARROW_UP: "ArrowUp"}.get(key, repr(key))


LAYOUT = HELPERS + """
const width = document.documentElement.clientWidth, height = innerHeight, problems = [];
const scrolls = getComputedStyle(document.documentElement).overflowY !== 'hidden' &&
                getComputedStyle(document.body).overflowY !== 'hidden';
if (document.documentElement.scrollWidth > width)
  problems.push(`the page is ${document.documentElement.scrollWidth} px wide on a ${width} px screen`);
for (const el of document.body.querySelectorAll('*')) {
  if (!shown(el)) continue;
  const r = el.getBoundingClientRect(), s = getComputedStyle(el), name = describe(el);
  if (r.right > width + 0.5 || r.left < -0.5) problems.push(`${name} is off-screen: ${r.left}..${r.right} of ${width} px`);
  if (!scrolls && (r.bottom > height + 0.5 || r.top < -0.5))
    problems.push(`${name} is off-screen: ${r.top}..${r.bottom} of ${height} px (the page does not scroll)`);
  const text = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
  const field = ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName);
  if (text && !field && s.display !== 'inline' && el.scrollWidth > el.clientWidth + 1)
    problems.push(`${name}: its text is ${el.scrollWidth} px wide in a ${el.clientWidth} px box`);
  const clips = (o) => o === 'hidden' || o === 'clip';
  if (!field && clips(s.overflowX) && el.scrollWidth > el.clientWidth + 1)
    problems.push(`${name} cuts off ${el.scrollWidth - el.clientWidth} px of its content on the right`);
  if (!field && clips(s.overflowY) && el.scrollHeight > el.clientHeight + 1)
    problems.push(`${name} cuts off ${el.scrollHeight - el.clientHeight} px of its content below`);
  if (!field && ['auto', 'scroll'].includes(s.overflowX) && el.scrollWidth > el.clientWidth + 1)
    problems.push(`${name} scrolls sideways (${el.scrollWidth} px in ${el.clientWidth})`);
  if (el.tagName === 'SELECT' && el.selectedIndex >= 0) {
    const probe = document.createElement('span');
    probe.style.cssText = `font: ${s.font}; letter-spacing: ${s.letterSpacing}; white-space: pre; position: absolute;`;
    probe.textContent = el.options[el.selectedIndex].text;
    document.body.appendChild(probe);
    const room = el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight) - parseFloat(s.fontSize);
    if (probe.getBoundingClientRect().width > room)
      problems.push(`${name} cuts its choice "${probe.textContent}": ${probe.getBoundingClientRect().width} px in ${room}`);
    probe.remove();
  }
}
const targets = [...document.querySelectorAll('a[href], button, input, select, textarea, [role=button]')].filter(shown);
for (const el of targets) {
  const r = el.getBoundingClientRect();
  if (r.width < arguments[0] - 0.5 || r.height < arguments[0] - 0.5)
    problems.push(`${describe(el)} is a ${r.width.toFixed(0)}x${r.height.toFixed(0)} px target`);
}
return [problems, targets.length];
"""

SIZES = """
const texts = [...document.body.querySelectorAll('*')].filter((el) => el.checkVisibility() &&
  [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim()));
if (!arguments[0]) { window.a11ySizes = new Map(texts.map((el) => [el, parseFloat(getComputedStyle(el).fontSize)])); return []; }
const describe = (el) => el.id ? '#' + el.id : el.tagName.toLowerCase() + ' "' + el.textContent.trim().slice(0, 24) + '"';
return texts.filter((el) => window.a11ySizes.has(el)).map((el) => [describe(el), window.a11ySizes.get(el),
  parseFloat(getComputedStyle(el).fontSize)]);
"""


def next_frame(driver):
    driver.execute_script("return new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def layout(driver, page, text_size):
    """At the text size the browser was started with: nothing wider than the screen, clipped
    or off-screen, and every target at least 48x48. Then the text against the default size
    (Page.setFontSizes, the same preference): each text twice as large, or display text of
    48 px or more that may be capped to fit the screen but never shrinks."""
    problems, targets = driver.execute_script(LAYOUT, MIN_TARGET)
    set_text_size(driver, 16)
    driver.execute_script(SIZES, False)
    set_text_size(driver, text_size)
    factor = text_size / 16
    for name, small, large in driver.execute_script(SIZES, True):
        if large < factor * small - 0.5 and not (large >= 48 and large >= small):
            problems.append(f"{name}: text {small:g} px at 16 px, {large:g} px at {text_size} px")
    print(f"ok: {page}: layout at {text_size} px text: {targets} targets measured")
    return problems
