#!/usr/bin/env python3
"""The simulator in a real terminal, photographed: `roundclock simulate --program boxing
--virtual --until 9:25` (round 3 of 12, 1:45 left) runs in xterm on an Xvfb display, and
ImageMagick's `import` takes the window. The same command runs in tmux, whose
`capture-pane -e` gives the text and colour of every character cell; the picture must show
a lit segment (the simulator's red) in exactly the cells where tmux has a lit character, and
nowhere else. The picture, cropped to the command line, the three panels and the state line,
is kept at $ARTIFACTS/simulator.png (default <repo>/.build-artifacts); scripts/screenshots
copies it to docs/images/.

Needs Xvfb, xterm, tmux, ImageMagick and fonts-dejavu-core (scripts/setup.sh --test).
Binary: $ROUNDCLOCK (default <repo>/.build/debug/roundclock).

    python3 Tests/screenshots/simulator_screenshot.py
"""
import os
import re
import select
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
CLOCK = os.environ.get("ROUNDCLOCK", os.path.join(REPO, ".build", "debug", "roundclock"))
ARTIFACTS = os.environ.get("ARTIFACTS", os.path.join(REPO, ".build-artifacts"))

ARGUMENTS = ["simulate", "--program", "boxing", "--virtual", "--until", "9:25"]
COLUMNS, ROWS = 64, 28           # room for the summary lines that follow the panels
FONT, FONT_SIZE, BORDER = "DejaVu Sans Mono", 15, 14
LIT = 196                        # the lit segments' 256-colour index (Sources/Simulation/Mark.swift)
BACKGROUND, FOREGROUND = "#000000", "#d0d0d0"


def wait_for(predicate, timeout=30.0, step=0.05, what="condition"):
    """Polls `predicate` until it returns a truthy value; a deadline, never a fixed sleep."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def wrapper(directory, status_name):
    """A shell line that shows the command as typed at a prompt, runs it, and records the
    terminal's window id ($WINDOWID, set by xterm) and the exit status in `directory`."""
    shown = "$ roundclock " + " ".join(ARGUMENTS)
    return (f"echo \"${{WINDOWID:-}}\" > {shlex.quote(os.path.join(directory, 'window'))}; "
            f"printf '%s\\n' {shlex.quote(shown)}; "
            f"{shlex.quote(CLOCK)} {' '.join(shlex.quote(a) for a in ARGUMENTS)}; "
            f"echo $? > {shlex.quote(os.path.join(directory, status_name))}")


def read_status(path):
    try:
        with open(path) as f:
            text = f.read().strip()
        return text or None
    except FileNotFoundError:
        return None


# -- the truth: tmux's cells ------------------------------------------------------------------
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def parse_capture(text):
    """`capture-pane -p -e` output -> rows of (character, foreground index or None)."""
    rows = []
    for line in text.split("\n")[:ROWS]:
        cells, fg, at = [], None, 0
        for match in list(SGR.finditer(line)) + [None]:
            end = match.start() if match else len(line)
            cells.extend((ch, fg) for ch in line[at:end])
            if not match:
                break
            at = match.end()
            params = [int(p) if p else 0 for p in match.group(1).split(";")]
            i = 0
            while i < len(params):
                p = params[i]
                if p in (0, 39):
                    fg = None
                elif p == 38 and i + 2 < len(params) and params[i + 1] == 5:
                    fg = params[i + 2]
                    i += 2
                elif 30 <= p <= 37 or 90 <= p <= 97:
                    fg = p
                i += 1
        rows.append(cells)
    return rows


def terminal_cells(directory):
    """Runs the command in a detached tmux pane of the xterm's size; returns its cells."""
    socket = os.path.join(directory, "tmux.sock")
    tmux = ["tmux", "-u", "-S", socket]
    env = dict(os.environ, LANG="C.UTF-8", LC_ALL="C.UTF-8")
    for name in ("TMUX", "NO_COLOR"):    # NO_COLOR: the simulator would draw without colour
        env.pop(name, None)
    subprocess.run(tmux + ["-f", "/dev/null", "new-session", "-d", "-x", str(COLUMNS), "-y", str(ROWS),
                           "sh", "-c", wrapper(directory, "tmux-status") + "; sleep 600"],
                   check=True, env=env, stdin=subprocess.DEVNULL)
    try:
        wait_for(lambda: read_status(os.path.join(directory, "tmux-status")), timeout=60, what="the run in tmux")
        capture = subprocess.run(tmux + ["capture-pane", "-p", "-e", "-t", "0"], check=True, capture_output=True,
                                 env=env, text=True).stdout
    finally:
        subprocess.run(tmux + ["kill-server"], env=env, stdin=subprocess.DEVNULL, capture_output=True)
    status = read_status(os.path.join(directory, "tmux-status"))
    assert status == "0", f"roundclock exited {status} in tmux:\n{capture}"
    return parse_capture(capture)


# -- the picture: Xvfb, xterm, import -----------------------------------------------------------
class Display:
    """Xvfb on a free display number (-displayfd), and xterm on it running the command."""

    def __init__(self, directory):
        self.directory = directory
        read_end, write_end = os.pipe()
        self.xvfb = subprocess.Popen(["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1280x1024x24",
                                      "-nolisten", "tcp"],
                                     pass_fds=(write_end,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=open(os.path.join(directory, "xvfb.log"), "wb"))
        os.close(write_end)
        self.xterm = None
        # Xvfb writes "N\n" once it accepts connections. The pipe stays open while it runs: a
        # write to a closed pipe is fatal to Xvfb.
        self.displayfd = read_end
        number, deadline = b"", time.monotonic() + 30
        while not number.endswith(b"\n") and time.monotonic() < deadline:
            ready, _, _ = select.select([read_end], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(read_end, 64) if ready else b""
            if not chunk:
                break
            number += chunk
        number = number.decode().strip()
        if not number.isdigit():
            self.close()
            raise AssertionError(f"Xvfb gave no display number: {self.log('xvfb.log')}")
        self.display = ":" + number
        self.env = dict(os.environ, DISPLAY=self.display, LANG="C.UTF-8", LC_ALL="C.UTF-8")
        self.env.pop("NO_COLOR", None)

    def log(self, name):
        with open(os.path.join(self.directory, name), errors="replace") as f:
            return f.read()

    def start_xterm(self):
        # No window manager: the window sits at 0,0 without decorations; -hold keeps it open
        # after the command ends; +sb: no scroll bar; -b: the inner margin, in pixels.
        self.xterm = subprocess.Popen(
            ["xterm", "-geometry", f"{COLUMNS}x{ROWS}+0+0", "-fa", FONT, "-fs", str(FONT_SIZE), "-u8",
             "-bg", BACKGROUND, "-fg", FOREGROUND, "+sb", "-b", str(BORDER), "-hold", "-T", "roundclock simulate",
             "-e", "sh", "-c", wrapper(self.directory, "xterm-status")],
            env=self.env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(os.path.join(self.directory, "xterm.log"), "wb"))
        window = wait_for(lambda: read_status(os.path.join(self.directory, "window"))
                          or (self.xterm.poll() is not None and "exited"), what="the xterm window")
        assert window != "exited", f"xterm exited: {self.log('xterm.log')}"
        self.window = window
        status = wait_for(lambda: read_status(os.path.join(self.directory, "xterm-status")), timeout=60,
                          what="the run in xterm")
        assert status == "0", f"roundclock exited {status} in xterm"

    def shoot(self, path):
        subprocess.run(["import", "-window", self.window, path], check=True, env=self.env,
                       stdin=subprocess.DEVNULL, capture_output=True)
        return path

    def close(self):
        for process in (self.xterm, self.xvfb):
            if process and process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        if self.displayfd is not None:
            os.close(self.displayfd)
            self.displayfd = None


def pixels(path):
    """(width, height, RGB bytes) of a picture, through ImageMagick."""
    size = subprocess.run(["identify", "-format", "%w %h", path], check=True, capture_output=True, text=True).stdout
    width, height = map(int, size.split())
    data = subprocess.run(["convert", path, "-depth", "8", "rgb:-"], check=True, capture_output=True).stdout
    assert len(data) == width * height * 3, (len(data), width, height)
    return width, height, data


def is_red(data, i):
    return data[i] > 180 and data[i + 1] < 90 and data[i + 2] < 90


def lit_cells(width, height, data, cell_w, cell_h):
    """The character cells that hold the segment red, and the red pixel count."""
    counts = {}
    for y in range(BORDER, height - BORDER):
        base = y * width * 3
        for x in range(BORDER, width - BORDER):
            if is_red(data, base + 3 * x):
                key = ((y - BORDER) // cell_h, (x - BORDER) // cell_w)
                counts[key] = counts.get(key, 0) + 1
    # antialiasing may bleed a faint pixel or two into a neighbour: a lit cell has more
    return {cell for cell, n in counts.items() if n >= 4}, sum(counts.values())


def cell_size(width, height):
    """xterm's window is COLUMNS x ROWS character cells inside a BORDER on each side."""
    assert (width - 2 * BORDER) % COLUMNS == 0 and (height - 2 * BORDER) % ROWS == 0, (width, height)
    return (width - 2 * BORDER) // COLUMNS, (height - 2 * BORDER) // ROWS


def main():
    os.makedirs(ARTIFACTS, exist_ok=True)
    directory = tempfile.mkdtemp(prefix="rc-shot-")
    display = None
    try:
        cells = terminal_cells(directory)
        expected = {(r, c) for r, row in enumerate(cells) for c, (ch, fg) in enumerate(row) if fg == LIT and ch != " "}
        texts = ["".join(ch for ch, _ in row).rstrip() for row in cells]
        state_row = next(i for i, t in enumerate(texts) if t.startswith("state: "))
        assert texts[0].startswith("$ roundclock simulate"), texts[0]
        assert state_row <= 20 and "[phase]" in "\n".join(texts[:state_row]), texts
        assert len(expected) >= 40, f"tmux shows {len(expected)} lit cells: the simulator drew no colour?\n" + "\n".join(texts)
        print(f"ok: tmux: {len(expected)} lit cells; state line: {texts[state_row]!r}")

        display = Display(directory)
        display.start_xterm()
        full = os.path.join(directory, "full.png")
        found = {}

        def matches():
            width, height, data = pixels(display.shoot(full))
            cell_w, cell_h = cell_size(width, height)
            lit, red = lit_cells(width, height, data, cell_w, cell_h)
            found.update(lit=lit, red=red, cell_w=cell_w, cell_h=cell_h, size=(width, height))
            return lit == expected
        try:
            wait_for(matches, timeout=30, step=0.2, what="the xterm picture to show tmux's lit cells")
        except AssertionError:
            lit = found.get("lit", set())
            raise AssertionError(f"picture vs tmux: {len(lit - expected)} cells lit only in the picture "
                                 f"{sorted(lit - expected)[:10]}, {len(expected - lit)} only in tmux "
                                 f"{sorted(expected - lit)[:10]}")
        width, height = found["size"]
        cell_w, cell_h = found["cell_w"], found["cell_h"]
        assert cell_w >= 8 and cell_h >= 16, f"characters too small to read: {cell_w}x{cell_h} px"
        assert found["red"] > 2000, f"only {found['red']} lit pixels"
        print(f"ok: xterm {width}x{height} px ({cell_w}x{cell_h} px a character): the same {len(expected)} "
              f"lit cells as tmux, {found['red']} segment-red pixels")

        # The picture for the docs: the command line, the panels and the state line, with the
        # terminal's own margin kept below them too (the summary lines that follow are cut).
        used = max(len(t) for t in texts[:state_row + 1])
        crop_w, crop_h = 2 * BORDER + used * cell_w, 2 * BORDER + (state_row + 1) * cell_h
        shot = os.path.join(ARTIFACTS, "simulator.png")
        subprocess.run(["convert", full, "-crop", f"{crop_w}x{crop_h - BORDER}+0+0", "+repage",
                        "-background", BACKGROUND, "-extent", f"{crop_w}x{crop_h}", "-strip", shot], check=True)
        w, h, data = pixels(shot)
        assert (w, h) == (crop_w, crop_h), (w, h)
        kept, _ = lit_cells(w, h, data, cell_w, cell_h)
        assert kept == {(r, c) for r, c in expected if r <= state_row}, "the crop lost lit cells"
        print(f"ok: screenshot {shot} {w}x{h} px, {os.path.getsize(shot)} bytes")
    finally:
        if display:
            display.close()
        shutil.rmtree(directory, ignore_errors=True)
    print("simulator screenshot: all passed")


if __name__ == "__main__":
    try:
        main()
    except AssertionError as error:
        print(f"FAIL: {error}", file=sys.stderr)
        sys.exit(1)
