#!/usr/bin/env bash
# Run the jbd2 KUnit suites through kunit.py under QEMU (TCG).
#
# The kernel is configured from fs/jbd2/.kunitconfig plus qemu/guest.config,
# so the same bzImage also serves as the QEMU guest kernel.
#
#   run.sh [build|run] [extra kunit.py arguments]
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

KUNIT_BUILD=${KUNIT_BUILD:-$BUILD/kunit}
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

[ -d "$TREE/.git" ] || die "no kernel tree: run 'make tree' first"
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
	./tools/testing/kunit/kunit.py run "${kunit_args[@]}" \
		--qemu_args='-accel tcg' --timeout=900 \
		--json="$KUNIT_BUILD/results.json" "$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	set -e
	"$TOP/kunit-tests/summarize.py" --require jbd2:20 --require jbd2_recovery:20 "$KUNIT_BUILD/results.json" || rc=1
	exit "$rc"
	;;
*)
	die "usage: $0 [build|run] [kunit.py arguments]"
	;;
esac
