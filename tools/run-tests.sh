#!/bin/bash
# Run test programs given as VARIANT:PATH.  Each prints "PASS <name>" or
# "FAIL <name>" per case; a program that dies without saying so counts as
# one failure.  Ends with a count; exits 1 if anything failed.
set -u
# Test programs put their files under TMPDIR: one fresh tree per run.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/tools-test.XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
pass=0
fail=0
for spec in "$@"; do
	variant=${spec%%:*}
	prog=${spec#*:}
	log=$(mktemp)
	TOOLS_BIN="$OUT/$variant" TEST_VARIANT="$variant" "$prog" | tee "$log"
	rc=${PIPESTATUS[0]}
	p=$(grep -c '^PASS ' "$log")
	f=$(grep -c '^FAIL ' "$log")
	rm -f "$log"
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $variant/$(basename "$prog") (exit $rc, no result)"
		f=1
	fi
	pass=$((pass + p))
	fail=$((fail + f))
done
echo "tools tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
