#!/usr/bin/env bash
# The series' four ext4 fast-commit fixes, each shown by a check that
# fails without it (on the same run's kernels):
#   queue  "ext4: make fsync wait for a fast commit that starts after
#          it": an fsync returns 0 while its inode still waits on a
#          fast-commit queue (FCRACE), and crash states lose in-place
#          overwrites an fsync acknowledged; so do they when an fsync
#          takes a running fast commit that flushed before its data
#          completed (qemu/fcrace-late-flush-point.diff also counts a
#          flush point when a fast commit ends);
#   inel   "ext4: track changes made while an older transaction is
#          fc-ineligible": an fsync returns 0 with a change that fast
#          commits did not track (FCINEL);
#   scan   "ext4: don't fail the mount on a fast commit that a crash cut
#          short": crash states whose first fast commit lacks its tail
#          do not mount;
#   tail   "ext4: wait for a fast commit's blocks before writing its
#          tail": crash states lose files an fsync acknowledged.
#
#   qemu/fcrace-harness.sh [--rounds N]
#
# Builds six kernels from the tree's HEAD, each with
# qemu/fcrace-detector.diff (test-only checks in ext4_sync_file() that
# report FCRACE and FCINEL): "fixed", the series; "no-queue-fix",
# "no-inel-fix", "no-scan-fix" and "no-tail-wait", the series without one
# of the four patches (no-queue-fix also without the two later patches
# that edit its lines); "late-flush-point", the series with that
# mutation. Workloads of scenario fcrace (a fast_commit ext4):
# "append", ROUNDS x 4 threads x 20 appends, each followed by an fsync of
# the thread's own file; "fcmix", ROUNDS/5 x 3 threads creating, writing
# and fsyncing new files while a fourth sets an xattr and fsyncs the
# directory (crashwork fcmix), on a 4 ms flush. The last two patches, and
# the data half of the first, are shown by scenario crash (fcmix, or
# owsync: 4 threads overwriting their own files in place and fsyncing
# them; 6 operations per thread, fast-commit mode, 4 ms flush), recorded
# again up to 4 times until the missing fix shows; the crash harness
# asserts the fixed kernel's fcmix result, this one its owsync result.
#
# Asserts, one PASS/FAIL line each:
#   fcrace:fixed:append, fcrace:fixed:fcmix   no report of either kind;
#   fcrace:no-queue-fix:append   at least one FCRACE report (about 1
#                    fsync in 800 here: the detector has teeth);
#   fcrace:fixed:crash-owsync    no crash state fails;
#   fcrace:no-queue-fix:crash-owsync   at least one crash state lost an
#                    acknowledged overwrite;
#   fcrace:late-flush-point:crash-owsync   the same;
#   fcrace:no-inel-fix:fcmix     at least one FCINEL report (about 1 in 3);
#   fcrace:no-scan-fix:crash-fcmix   at least one crash state fails to
#                    mount;
#   fcrace:no-tail-wait:crash-fcmix  at least one crash state lost a file.
# Rows give the fast commits taken; patch 15 adds some to append (an
# fsync that comes while a fast commit runs waits for the next one, unless
# the running one reached its flush point after it came).
# Cost: one full build that shares the main kernel's configuration
# (ccache) and five incremental ones in the same directory, about 30 s
# of guest time per 100 rounds and 1-4 crash recordings of
# about 50 s per crash check. Results: build/results/fcrace/.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

rounds=150
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) rounds=${2:?}; shift ;;
	--help) sed -n '2,56s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) sed -n '2,56s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
	shift
done
case $rounds in ''|*[!0-9]*|0) die "--rounds: want a positive number" ;; esac
OUT=$BUILD/results/fcrace
patch_file() { # SUBJECT-SLUG-GLOB: the series' patch of that subject
	# shellcheck disable=SC2086  # the glob is the point
	ls "$TOP"/linux-patches/[0-9]*-$1.patch 2>/dev/null | head -n 1 || true
}
QUEUE_FIX=$(patch_file "ext4-make-fsync-wait-for-a-fast-commit-*")
INEL_FIX=$(patch_file "ext4-track-changes-made-while-an-older-transaction-*")
SCAN_FIX=$(patch_file "ext4-don-t-fail-the-mount-on-a-fast-commit-*")
TAIL_FIX=$(patch_file "ext4-wait-for-a-fast-commit-s-blocks-*")
# Tests QUEUE_FIX's code in SCAN_FIX's KUnit file: reverted with either.
RESTART_TESTS=$(patch_file "ext4-test-when-fsync-may-stop-waiting-*")
# Change lines QUEUE_FIX added, on failure paths only (a failed flush of
# an external journal's device, an aborted journal): the crash runs here
# have neither, so they are reverted with it.
FC_FLUSH_ABORT=$(patch_file "ext4-abort-when-a-fast-commit-s-flush-*")
FC_ABORT_EIO=$(patch_file "ext4-don-t-report-success-for-a-fast-commit-the-*")
[ -n "$QUEUE_FIX" ] && [ -n "$INEL_FIX" ] && [ -n "$SCAN_FIX" ] && [ -n "$TAIL_FIX" ] &&
	[ -n "$RESTART_TESTS" ] ||
	die "no ext4 fast-commit fixes in linux-patches/"
[ -d "$TREE/.git" ] || die "no kernel tree: run 'make tree' first"

# The six kernels share one worktree (build/fcrace/linux) and one build
# directory (build/fcrace/kunit, laid out like the main tree's, so that
# ccache serves every unchanged file), and are built one after the
# other, each right before its checks: the tree goes back to HEAD and
# make recompiles only what the variant's patches and the detector touch.
# Six separate builds took about two minutes each.
FC_TREE=$BUILD/fcrace/linux
FC_BUILD=$BUILD/fcrace/kunit
FC_KERNEL=$FC_BUILD/arch/x86/boot/bzImage
built=''

# build_variant NAME [PATCH-TO-REVERT | +DIFF-TO-APPLY...]: HEAD of the
# tree, with the patches reverted and the diffs applied in the order
# given, plus the detector; the kernel the checks after it boot.
build_variant() {
	local name=$1 p
	shift
	if [ ! -d "$FC_TREE" ]; then
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$FC_TREE" HEAD
	fi
	git -C "$FC_TREE" checkout -q --force --detach "$(git -C "$TREE" rev-parse HEAD)"
	for p in "$@"; do
		case $p in
		+*) git -C "$FC_TREE" apply "${p#+}" ||
			die "$name: $(basename "${p#+}") does not apply" ;;
		*) git -C "$FC_TREE" apply -R "$p" ||
			die "$name: cannot revert $(basename "$p")" ;;
		esac
	done
	git -C "$FC_TREE" apply "$TOP/qemu/fcrace-detector.diff" ||
		die "$name: the detector does not apply"
	log "building the $name kernel"
	TREE=$FC_TREE KUNIT_BUILD=$FC_BUILD "$TOP/kunit-tests/run.sh" build \
		> "$OUT/build-$name.log" 2>&1 || die "$name: build failed, see $OUT/build-$name.log"
	built=$name
}

# assert_built NAME: NAME's checks boot $FC_KERNEL, which must be NAME's.
assert_built() {
	[ "$built" = "$1" ] || die "internal: checks of $1 on the ${built:-unbuilt} kernel"
}

# run_variant NAME WORKLOAD ROUNDS FLUSH_US: the scenario on that kernel;
# prints its result row.
run_variant() {
	local res=$OUT/$1-$2
	assert_built "$1"
	mkdir -p "$res"
	RESULTS=$res KERNEL=$FC_KERNEL \
		"$TOP/qemu/scenario.sh" fcrace workload="$2" rounds="$3" threads=4 \
		ops=20 flush_us="$4" > "$res/scenario.log" 2>&1 || true
	awk -F'\t' '$1 == "fcrace"' "$res/results.tsv" 2>/dev/null
}

rm -rf "$OUT"
mkdir -p "$OUT"

status=0
# check KERNEL WORKLOAD ROUNDS FLUSH_US WANT: run it; WANT is "none", or
# the kind of report (FCRACE, FCINEL) that must be seen.
check() {
	local row name="fcrace:$1:$2"
	row=$(run_variant "$1" "$2" "$3" "$4")
	if [ -z "$row" ]; then
		echo "FAIL $name (no result; see $OUT/$1-$2/scenario.log)"; status=1; return
	fi
	read -r _ _ r _ _ _ fsyncs race inel fc <<< "$row"
	echo "| $1 | $2 | $r | $fsyncs | $race | $inel | $fc |" >> "$OUT/table.md"
	case $5:$race:$inel in
	none:0:0) echo "PASS $name (no report in $fsyncs fsyncs; $fc fast commits)" ;;
	none:*) echo "FAIL $name ($race FCRACE and $inel FCINEL reports in $fsyncs fsyncs)"; status=1 ;;
	FCRACE:0:*) echo "FAIL $name (0 FCRACE reports in $fsyncs fsyncs: the detector has no teeth)"; status=1 ;;
	FCINEL:*:0) echo "FAIL $name (0 FCINEL reports in $fsyncs fsyncs: the detector has no teeth)"; status=1 ;;
	FCRACE:*) echo "PASS $name (negative control: $race FCRACE reports in $fsyncs fsyncs; $fc fast commits)" ;;
	FCINEL:*) echo "PASS $name (negative control: $inel FCINEL reports in $fsyncs fsyncs; $fc fast commits)" ;;
	esac
}
# check_crash KERNEL WORKLOAD COLUMN WHAT: scenario crash of WORKLOAD on
# that kernel. COLUMN 0: one recording, in which no crash state may fail.
# Otherwise a negative control for a fix whose failure only some
# interleavings of the threads produce: recorded again (at most 4
# recordings) until COLUMN of the crash row (7 mount-failed, 9 lost) is
# not 0.
check_crash() {
	local res row try name="fcrace:$1:crash-$2"
	local -a f
	assert_built "$1"
	for try in 1 2 3 4; do
		res=$OUT/$1-crash-$2-$try
		mkdir -p "$res"
		RESULTS=$res KERNEL=$FC_KERNEL \
			"$TOP/qemu/scenario.sh" crash workload="$2" threads=4 ops=6 \
			mode=fast-commit flush_us=4000 budget=4 > "$res/scenario.log" 2>&1 || true
		row=$(awk -F'\t' '$1 == "crash"' "$res/results.tsv" 2>/dev/null)
		if [ -z "$row" ]; then
			echo "FAIL $name (no result; see $res/scenario.log)"; status=1; return
		fi
		# crash W MODE T J states mount-failed fsck lost seconds rate
		read -r -a f <<< "$row"
		echo "| $1 | crash $2 (try $try) | ${f[5]} | ${f[6]} | ${f[7]} | ${f[8]} |" >> "$OUT/crash-table.md"
		if [ "$3" = 0 ]; then
			if [ "${f[6]}" = 0 ] && [ "${f[7]}" = 0 ] && [ "${f[8]}" = 0 ]; then
				echo "PASS $name (none of ${f[5]} crash states failed)"
			else
				echo "FAIL $name (of ${f[5]} crash states, ${f[6]} failed to mount, ${f[7]} failed fsck, ${f[8]} $4; see $res)"
				status=1
			fi
			return
		fi
		if [ "${f[$3 - 1]}" -gt 0 ]; then
			echo "PASS $name (negative control: ${f[$3 - 1]} of ${f[5]} crash states $4, recording $try)"
			return
		fi
	done
	echo "FAIL $name (no crash state $4 in 4 recordings: the check has no teeth)"; status=1
}
printf '| kernel | recording | states | mount-failed | fsck | lost |\n| --- | --- | ---: | ---: | ---: | ---: |\n' > "$OUT/crash-table.md"
printf '| kernel | workload | rounds | fsyncs | FCRACE | FCINEL | fast commits |\n| --- | --- | ---: | ---: | ---: | ---: | ---: |\n' > "$OUT/table.md"
fcmix_rounds=$(( (rounds + 4) / 5 ))
build_variant fixed
check fixed append "$rounds" 0 none
check fixed fcmix "$fcmix_rounds" 4000 none
check_crash fixed owsync 0 "lost acknowledged data"
# shellcheck disable=SC2086  # absent (empty) on an older series
build_variant no-queue-fix $FC_ABORT_EIO $FC_FLUSH_ABORT "$RESTART_TESTS" "$QUEUE_FIX"
check no-queue-fix append "$rounds" 0 FCRACE
check_crash no-queue-fix owsync 9 "lost an acknowledged overwrite"
build_variant late-flush-point "+$TOP/qemu/fcrace-late-flush-point.diff"
check_crash late-flush-point owsync 9 "lost an acknowledged overwrite"
build_variant no-inel-fix "$INEL_FIX"
check no-inel-fix fcmix "$fcmix_rounds" 4000 FCINEL
build_variant no-scan-fix "$RESTART_TESTS" "$SCAN_FIX"
check_crash no-scan-fix fcmix 7 "failed to mount"
build_variant no-tail-wait "$TAIL_FIX"
check_crash no-tail-wait fcmix 9 "lost an acknowledged file"
cat "$OUT/table.md" "$OUT/crash-table.md"
exit $status
