#!/usr/bin/env python3
"""Summarize a kunit.py --json result file.

Prints one "PASS|FAIL kunit <suite>.<case>" line per test case (for
scripts/check.sh to count), then a per-suite table. Exits non-zero when a
case failed or crashed, when no case ran, or when a required suite ran fewer
cases than required (--require jbd2:20).
"""
import argparse
import json
import sys


def leaves(group, prefix):
    """Yield (name, status) of every leaf case below a JSON group."""
    for case in group.get("test_cases", []):
        yield prefix + case["name"], case["status"]
    for sub in group.get("sub_groups", []):
        yield from leaves(sub, prefix + sub["name"] + ".")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", help="JSON file written by kunit.py --json")
    parser.add_argument("--require", action="append", default=[],
                        metavar="SUITE:N",
                        help="fail unless SUITE ran at least N cases")
    args = parser.parse_args()

    try:
        with open(args.results) as f:
            top = json.load(f)
    except (OSError, ValueError) as e:
        print(f"FAIL kunit: no readable results ({e})")
        return 1

    suites = {}
    for suite in top.get("sub_groups", []):
        counts = suites.setdefault(suite["name"], {"PASS": 0, "FAIL": 0, "SKIP": 0})
        for name, status in leaves(suite, suite["name"] + "."):
            key = status if status in ("PASS", "SKIP") else "FAIL"
            counts[key] += 1
            if key != "SKIP":
                print(f"{key} kunit {name}")

    ok = True
    print(f"\n{'suite':<28} {'passed':>7} {'failed':>7} {'skipped':>8}")
    for name, c in suites.items():
        print(f"{name:<28} {c['PASS']:>7} {c['FAIL']:>7} {c['SKIP']:>8}")
        ok &= c["FAIL"] == 0
    total = sum(c["PASS"] + c["FAIL"] for c in suites.values())
    print(f"KUnit test cases run: {total}")
    if total == 0:
        print("FAIL kunit: no test case ran")
        ok = False
    for req in args.require:
        suite, _, n = req.partition(":")
        ran = suites.get(suite, {}).get("PASS", 0)
        if ran < int(n):
            print(f"FAIL kunit: suite {suite} passed {ran} cases, {n} required")
            ok = False
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
