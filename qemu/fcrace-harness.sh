#!/usr/bin/env bash
# The fast-commit fsync race that patch 15 of the series fixes ("ext4:
# don't let fsync skip a fast commit its inode still waits for"), shown
# directly rather than by the rare crash state it leaves.
#
#   qemu/fcrace-harness.sh [--rounds N]
#
# Builds two kernels from the tree's HEAD, each with qemu/fcrace-detector.diff
# (a test-only check in ext4_sync_file() that reports an fsync returning 0
# while its inode still waits on a fast-commit queue): "fixed", the series,
# and "unfixed", the series without that patch. Each boots scenario fcrace:
# ROUNDS x 4 threads x 20 appends, each followed by an fsync of the
# thread's own file, on a fast_commit ext4.
#
# Asserts, one PASS/FAIL line each:
#   fcrace:fixed     no report;
#   fcrace:unfixed   at least one report (the detector and the workload
#                    have teeth: about 1 fsync in 800 on this machine).
# Both rows give the fast commits taken: the fix must not add any.
# Cost: two builds that share the main kernel's configuration (ccache), and
# about 30 s of guest time per 100 rounds. Results: build/results/fcrace/.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

rounds=150
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift ;;
	--help) sed -n '2,23s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) sed -n '2,23s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
	shift
done
case $rounds in ''|*[!0-9]*|0) die "--rounds: want a positive number" ;; esac
OUT=$BUILD/results/fcrace
FIX=$(ls "$TOP"/linux-patches/[0-9]*-ext4-don-t-let-fsync-skip-a-fast-commit-*.patch 2>/dev/null | head -n 1 || true)
[ -n "$FIX" ] || die "no ext4 fast-commit fix in linux-patches/"
[ -d "$TREE/.git" ] || die "no kernel tree: run 'make tree' first"

# build_variant NAME [PATCH-TO-REVERT]: HEAD of the tree plus the detector
# in build/fcrace/NAME/linux, built in build/fcrace/NAME/kunit (the main
# tree's layout, so that ccache serves every unchanged file).
build_variant() {
	local dir=$BUILD/fcrace/$1
	if [ ! -d "$dir/linux" ]; then
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$dir/linux" HEAD
	fi
	git -C "$dir/linux" checkout -q --force --detach "$(git -C "$TREE" rev-parse HEAD)"
	[ -z "${2:-}" ] || git -C "$dir/linux" apply -R "$2" ||
		die "$1: cannot revert $(basename "$2")"
	git -C "$dir/linux" apply "$TOP/qemu/fcrace-detector.diff" ||
		die "$1: the detector does not apply"
	log "building the $1 kernel"
	TREE=$dir/linux KUNIT_BUILD=$dir/kunit "$TOP/kunit-tests/run.sh" build \
		> "$OUT/build-$1.log" 2>&1 || die "$1: build failed, see $OUT/build-$1.log"
}

# run_variant NAME: the scenario on that kernel; prints its result row.
run_variant() {
	local res=$OUT/$1
	mkdir -p "$res"
	RESULTS=$res KERNEL=$BUILD/fcrace/$1/kunit/arch/x86/boot/bzImage \
		"$TOP/qemu/scenario.sh" fcrace rounds="$rounds" threads=4 ops=20 \
		flush_us=0 > "$res/scenario.log" 2>&1 || true
	awk -F'\t' '$1 == "fcrace"' "$res/results.tsv" 2>/dev/null
}

rm -rf "$OUT"
mkdir -p "$OUT"
build_variant fixed
build_variant unfixed "$FIX"

status=0
printf '| kernel | rounds | fsyncs | reports | fast commits |\n| --- | ---: | ---: | ---: | ---: |\n' > "$OUT/table.md"
for v in fixed unfixed; do
	row=$(run_variant $v)
	if [ -z "$row" ]; then
		echo "FAIL fcrace:$v (no result; see $OUT/$v/scenario.log)"; status=1; continue
	fi
	read -r _ r _ _ _ fsyncs reports fc <<< "$row"
	echo "| $v | $r | $fsyncs | $reports | $fc |" >> "$OUT/table.md"
	case $v:$reports in
	fixed:0) echo "PASS fcrace:fixed (0 of $fsyncs fsyncs returned with changes queued; $fc fast commits)" ;;
	fixed:*) echo "FAIL fcrace:fixed ($reports of $fsyncs fsyncs returned with changes queued)"; status=1 ;;
	unfixed:0) echo "FAIL fcrace:unfixed (0 reports in $fsyncs fsyncs: the detector has no teeth)"; status=1 ;;
	*) echo "PASS fcrace:unfixed (negative control: $reports of $fsyncs fsyncs; $fc fast commits)" ;;
	esac
done
cat "$OUT/table.md"
exit $status
