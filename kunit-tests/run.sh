#!/usr/bin/env bash
# Run the jbd2 KUnit suites through kunit.py under QEMU (TCG).
#
# The kernel is configured from fs/jbd2/.kunitconfig plus qemu/guest.config,
# so the same bzImage also serves as the QEMU guest kernel.
#
#   run.sh [--debug] [build|run] [extra kunit.py arguments]
#
# --debug adds qemu/debug.config (KASAN, lockdep, KFENCE, ...) and builds
# in build/debug/; a splat in the KUnit run's console fails it.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

debug=0
if [ "${1:-}" = --debug ]; then
	debug=1
	shift
fi
if [ $debug = 1 ]; then
	KUNIT_BUILD=${KUNIT_BUILD:-$BUILD/debug}
else
	KUNIT_BUILD=${KUNIT_BUILD:-$BUILD/kunit}
fi
mode=${1:-run}
shift || true

kunit_args=(
	--arch=x86_64
	--build_dir="$KUNIT_BUILD"
	--kunitconfig=fs/jbd2
	--kunitconfig="$TOP/qemu/guest.config"
	--jobs="$JOBS"
	--make_options=CC="ccache gcc"
	--make_options=HOSTCC="ccache gcc"
)
[ $debug = 0 ] || kunit_args+=(--kunitconfig="$TOP/qemu/debug.config")

# .git is a file in a worktree (qemu/fcrace-harness.sh builds in some).
[ -e "$TREE/.git" ] || die "no kernel tree: run 'make tree' first"
mkdir -p "$KUNIT_BUILD"
cd "$TREE"

case "$mode" in
build)
	./tools/testing/kunit/kunit.py build "${kunit_args[@]}" "$@"
	;;
run)
	out=$KUNIT_BUILD/kunit-run.log
	rm -f "$KUNIT_BUILD/results.json"
	# kunit.py boots with TCG: no -accel kvm (no working KVM here).
	set +e
	# acpi=noirq: as in qemu/run-guest.sh (ACPI link setup is slow on
	# the debug kernel).
	./tools/testing/kunit/kunit.py run "${kunit_args[@]}" \
		--qemu_args='-accel tcg' --timeout=900 --kernel_args=acpi=noirq \
		--json="$KUNIT_BUILD/results.json" "$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	set -e
	"$TOP/kunit-tests/summarize.py" --require jbd2:20 --require jbd2_recovery:20 "$KUNIT_BUILD/results.json" || rc=1
	if [ $debug = 1 ] && ! report_splats "$out"; then
		echo "FAIL kunit-debug:splats"
		rc=1
	fi
	exit "$rc"
	;;
*)
	die "usage: $0 [--debug] [build|run] [kunit.py arguments]"
	;;
esac
