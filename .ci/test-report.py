#!/usr/bin/env python3
"""Reads the logs of swift test runs (XCTest's and Swift Testing's lines) for .ci/run.

  test-report.py skips NAME LOG      every skipped test of the run NAME; exit 1 if one is not
                                     on .ci/expected-skips (lines "NAME TEST  reason")
  test-report.py slowest N NAME=LOG...   the N slowest tests over the runs, slowest first
  test-report.py summary NAME=FILE...    each run's closing lines (a VM stage: its counts)
  test-report.py total NAME=FILE...      one line: "ci: N passed, M failed" over them all
"""
import os
import re
import sys

XCTEST_CASE = re.compile(r"Test Case '(?:-\[)?([^' \]]+(?: [^'\]]+)?)\]?' (passed|failed|skipped) \((\d+\.\d+) seconds\)")
TESTING_CASE = re.compile(r"Test (.+?) (passed|failed) after (\d+\.\d+) seconds")
TESTING_SKIP = re.compile(r"Test (.+?) skipped(?:: (.*))?\.?$")
XCTEST_CLOSING = re.compile(r"Executed \d+ tests?, with .*")
TESTING_CLOSING = re.compile(r"Test run with \d+ tests?.*")
EXPECTED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected-skips")


def lines(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return [re.sub(r"\x1b\[[0-9;]*m", "", line.rstrip("\n")) for line in f]
    except FileNotFoundError:
        return []


def durations(path):
    """(seconds, test) of every test case that ended; Swift Testing's suites left out."""
    out = []
    for line in lines(path):
        m = XCTEST_CASE.search(line)
        if m and m.group(2) != "skipped":
            out.append((float(m.group(3)), m.group(1)))
            continue
        m = TESTING_CASE.search(line)
        if m and " Suite " not in line[: m.start() + 1] and not m.group(1).startswith("run with "):
            out.append((float(m.group(3)), m.group(1)))
    return out


def skipped(path):
    out = []
    for line in lines(path):
        m = XCTEST_CASE.search(line)
        if m and m.group(2) == "skipped":
            out.append(m.group(1))
            continue
        m = TESTING_SKIP.search(line)
        if m and "Suite " not in line[: m.start()]:
            out.append(m.group(1).strip())
    return out


def expected_skips(run):
    allowed = {}
    for line in lines(EXPECTED):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = re.split(r"\s{2,}", line.strip(), maxsplit=2)
        if len(parts) == 3 and parts[0] == run:
            allowed[parts[1]] = parts[2]
    return allowed


def main(argv):
    if len(argv) >= 3 and argv[0] == "skips":
        run, log = argv[1], argv[2]
        allowed = expected_skips(run)
        bad = 0
        for test in skipped(log):
            if test in allowed:
                print(f"expected skip ({run}): {test}: {allowed[test]}")
            else:
                print(f"UNEXPECTED SKIP ({run}): {test}: add it to .ci/expected-skips with a reason, or make it run")
                bad += 1
        return 1 if bad else 0
    if len(argv) >= 2 and argv[0] == "slowest":
        count = int(argv[1])
        rows = []
        for pair in argv[2:]:
            run, _, log = pair.partition("=")
            rows += [(seconds, run, test) for seconds, test in durations(log)]
        rows.sort(reverse=True)
        for seconds, run, test in rows[:count]:
            print(f"  {seconds:8.2f} s  {run:8} {test}")
        if not rows:
            print("  (no test durations found)")
        return 0
    if len(argv) >= 1 and argv[0] in ("summary", "total"):
        quiet = argv[0] == "total"
        passed = failed = 0
        for pair in argv[1:]:
            run, _, path = pair.partition("=")
            text = lines(path)
            xctest = [l for l in text if XCTEST_CLOSING.search(l)]
            testing = [l for l in text if TESTING_CLOSING.search(l)]
            checks = [l for l in text if re.match(r"^(system-vm: )?\d+ passed, \d+ failed", l)]
            for l in (xctest[-1:] + testing[-1:] + checks[-1:]) or ["(no closing line)"]:
                if not quiet: print(f"  {run:10} {l.strip()}")
            if xctest:
                m = re.search(r"Executed (\d+) tests?, with (\d+) failures?", xctest[-1])
                passed += int(m.group(1)) - int(m.group(2)); failed += int(m.group(2))
            if testing:
                m = re.search(r"Test run with (\d+) tests?", testing[-1])
                if " passed after " in testing[-1]: passed += int(m.group(1))
                else: failed += 1
            if checks:
                m = re.search(r"(\d+) passed, (\d+) failed(?:, (\d+) missing)?", checks[-1])
                passed += int(m.group(1)); failed += int(m.group(2)) + int(m.group(3) or 0)
        if quiet: print(f"ci: {passed} passed, {failed} failed")
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
