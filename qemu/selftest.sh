#!/usr/bin/env bash
# Self-test of the guest runner: each way a run can go wrong must be
# reported as a failure. Prints "PASS runner:..." / "FAIL runner:..." lines.
#   - bad arguments exit 2 without booting;
#   - a hung guest is killed at its timeout and the run fails;
#   - a kernel warning on the console fails a run whose scenario passed;
#   - a broken expectation fails barrier-defaults (swap=1 mounts every
#     mode with the opposite barrier setting).
# With --debug (the debug kernel, build/debug/, or KERNEL): each checker
# of qemu/debug.config that the reliability steps rely on (KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP) reports a deliberate bug (qemu/modules/splat), and
# the runner fails the run and prints the report.
set -uo pipefail
. "$(dirname "$0")/../scripts/common.sh"
Q=$TOP/qemu
OUT=$BUILD/results/selftest
mkdir -p "$OUT"
failed=0
debug=0
case "${1:-}" in
--debug) debug=1 ;;
'') ;;
*) sed -n '2,15s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac

# expect NAME WANT-RC PATTERN CMD...: CMD must exit WANT-RC and print PATTERN.
expect() {
	local name=$1 want=$2 pattern=$3 log=$OUT/$1.log rc=0
	shift 3
	"$@" > "$log" 2>&1 || rc=$?
	if [ "$rc" -eq "$want" ] && grep -qE -- "$pattern" "$log"; then
		echo "PASS runner:$name"
	else
		echo "FAIL runner:$name (exit $rc, want $want and /$pattern/; log $log)"
		tail -n 20 "$log"
		failed=1
	fi
}
# check NAME WHY CMD...: CMD must succeed.
check() {
	local name=$1 why=$2
	shift 2
	if "$@" 2>/dev/null; then echo "PASS runner:$name"; else echo "FAIL runner:$name ($why)"; failed=1; fi
}

if [ $debug = 1 ]; then
	export KERNEL=${KERNEL:-$DEBUG_KERNEL}
	for spec in "kasan:BUG: KASAN: slab-use-after-free" \
		"lockdep:WARNING: possible circular locking dependency" \
		"sleep:BUG: sleeping function called from invalid context"; do
		kind=${spec%%:*}
		RESULTS=$OUT/splat-$kind expect "debug-$kind" 1 \
			"kernel problem: .*${spec#*:}" "$Q/scenario.sh" selftest-splat "kind=$kind"
		check "debug-$kind-printed" "the report's stack is not in the output" \
			grep -q "splat_init" "$OUT/debug-$kind.log"
	done
	exit $failed
fi

expect bad-args 2 "unknown argument" "$Q/run-guest.sh" --bogus
expect missing-kernel 2 "no kernel image" "$Q/run-guest.sh" --kernel /nonexistent \
	--initrd /nonexistent --scenario x
RESULTS=$OUT/hang TIMEOUT=60 expect timeout 1 "FAILED selftest-hang: timeout" \
	"$Q/scenario.sh" selftest-hang
check timeout-hit-scenario "the guest never reached the scenario" \
	grep -q "@@JBD2T BEGIN selftest-hang" "$OUT/hang/console.log"
RESULTS=$OUT/warn expect kernel-warning 1 "kernel problem: .*WARNING: jbd2t runner self-test" \
	"$Q/scenario.sh" selftest-warn
RESULTS=$OUT/swap expect wrong-expectation 1 "FAILED barrier-defaults: scenario failed: END rc=1" \
	"$Q/scenario.sh" barrier-defaults swap=1 fsyncs=5
check wrong-expectation-caught "not the expected assertion" \
	grep -q "ext4 -o defaults: flushes for 5 fsyncs: expected >= 5, got 0" "$OUT/swap/failures"
exit $failed
