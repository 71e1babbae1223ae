#!/usr/bin/env bash
# Crash-consistency matrix: each crashwork workload recorded through
# dm-log-writes in each mount mode, every crash state of the log checked
# by lwreplay + crash-check.sh in the guest (scenario "crash").
#
#   qemu/crash-harness.sh [--quick|--long|--slice] [--report]
#
# --slice is the small part of the matrix that make check runs on the
# debug kernel (KASAN, lockdep; build/debug/, the default KERNEL for it):
# churn on the small journal (renames, truncates, block reuse, log wrap),
# default and nobarrier modes, about 65 states (~3 s per state on that
# kernel under TCG).
#
# --report re-reads the results of the last run of the profile and prints
# the table and verdicts again, without running anything.
#
# Asserts, one PASS/FAIL line each:
#   default, barrier, fast-commit: 0 failing states (the promise jbd2/ext4
#                 make; barrier = nojournal_csum_order, only where the
#                 kernel has it);
#   nobarrier:    >= 1 failing state per workload (the negative control: a
#                 harness that finds nothing without barriers has no teeth);
#   unsafe-data:  >= 1 failing state over all workloads (jbd2's data rule
#                 is load-bearing; only where the kernel has the switch);
#   unsafe-batch: the same for the rule that a batch-flushed commit ends
#                 only when its flush completes (names-t4 on a 4 ms flush);
#   unsafe-flush: the same for the rule that a flush covers only the
#                 writes that completed before it was sent, which lets
#                 an fsync go without a flush of its own (pkgsync);
#   batched:      in that recording's default mode at least one batch
#                 flush covered several transactions (the windows of
#                 unflushed transactions recovery trims were recorded;
#                 the default mode is recorded again, up to 3 times,
#                 until one did).
# unsafe-wrap and (--long) journal_async_commit modes are reported only.
# Prints a table per workload x mode; failing states, each with a host
# command that re-runs it, in build/results/crash-PROFILE/failures.tsv.
# --long also writes the table to docs/results/crash-long.md.
# Environment: CRASH_OPS, CRASH_BUDGET, CRASH_SEED override the profile;
# CRASH_OUT the results directory; KERNEL the guest kernel (scenario.sh).
#
# Cost (this machine, 2 cores, TCG): 0.2-0.35 s per state, plus 3-10 s
# per recording; one guest keeps both cores busy, so boots run one by one.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

profile=quick report=0
for a in "$@"; do
	case $a in
	--quick) profile=quick ;;
	--long) profile=long ;;
	--slice) profile=slice ;;
	--report) report=1 ;;
	*) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2; exit 2 ;;
	esac
done
# Sized by measurement (about 0.18 s per state): quick checks ~3000
# states in about 12 minutes, long ~59000 in about 3 hours. The 4-thread
# append runs half the ops per thread: 4 threads give twice the states.
case $profile in
quick) ops=12 budget=4 ;;
long) ops=100 budget=12 ;;
slice) ops=6 budget=2 ;;
esac
ops=${CRASH_OPS:-$ops} budget=${CRASH_BUDGET:-$budget} seed=${CRASH_SEED:-1}
# Modes (qemu/guest/crash-lib.sh): default = the kernel's defaults
# (checksum-ordered commits with the series), barrier = the full barrier
# on every commit (nojournal_csum_order; refused by a stock kernel),
# nobarrier = the negative control, fast-commit = the defaults on a
# filesystem with ext4 fast commits (append-t4 and fcmix-t4: fsyncs of
# regular files, which fast commits take; a directory fsync is always a
# full commit), unsafe-* = the defaults with one
# ordering rule of jbd2 switched off (test-only, CONFIG_JBD2_DEBUG), and
# for --long the upstream journal_async_commit with data=journal/writeback.
if [ $profile = quick ]; then extra=; else extra=,async-journal,async-writeback; fi
OUT=${CRASH_OUT:-$BUILD/results/crash-$profile}

# One guest boot per group of recordings that share the fs layout and
# thread count: NAME ARGS (the scenario's; budget= and seed= added).
# specs: the recordings that get a verdict, "WORKLOAD THREADS JOURNAL".
if [ $profile = slice ]; then
	KERNEL=${KERNEL:-$DEBUG_KERNEL}
	export KERNEL
	groups=(
		"crash-churn workload=churn journal=small ops=$ops mode=default,nobarrier"
	)
	specs=("churn 1 small")
else
	groups=(
		"crash-single workload=append,replace,dbsync ops=$ops mode=default,barrier,nobarrier,unsafe-data$extra"
		"crash-churn workload=churn journal=small ops=$ops mode=default,barrier,nobarrier,unsafe-data,unsafe-wrap$extra"
		"crash-append-t4 workload=append threads=4 ops=$(( (ops + 1) / 2 )) mode=default,fast-commit,nobarrier$extra"
		"crash-names-t4 workload=names threads=4 ops=$(( (ops + 1) / 2 )) mode=default,unsafe-batch,nobarrier flush_us=4000 batch_retry=3"
	)
	# fcmix: new files fsynced with fast commits while xattr changes and
	# directory fsyncs make transactions ineligible (the series' four
	# ext4 patches; qemu/fcrace-harness.sh shows each one load-bearing).
	groups+=("crash-fcmix-t4 workload=fcmix threads=4 ops=$(( (ops + 1) / 2 )) mode=fast-commit,nobarrier flush_us=4000")
	# pkgsync: fdatasyncs that a flush sent by an earlier one covers
	# send none of their own (ext4_fsync_flush()).
	groups+=("crash-pkgsync workload=pkgsync ops=$ops mode=default,nobarrier,unsafe-flush")
	specs=("append 1 default" "replace 1 default" "dbsync 1 default"
		"churn 1 small" "append 4 default" "names 4 default"
		"pkgsync 1 default")
fi

# run_group NAME ARGS: one guest boot; its rows land in $OUT/NAME/.
run_group() {
	local name=$1 res=$OUT/$1 tailpid
	shift
	log "group $name: $* budget=$budget seed=$seed"
	mkdir -p "$res"
	: > "$res/console.log"
	# Progress: the guest's per-recording rows and lwreplay's counters.
	# (Polling: run-guest.sh replaces console.log, which inotify-based
	# tail -F loses.)
	tail -n 0 -F ---disable-inotify -s 2 "$res/console.log" 2>/dev/null |
		grep --line-buffered -E '@@JBD2T RESULT (crash|refused)|^lwreplay: [0-9]+/[0-9]+ states' |
		sed -u 's/\r$//; s/^/    /' &
	tailpid=$!
	# shellcheck disable=SC2086  # the group's args are words
	RESULTS=$res TIMEOUT=$((3600 + ops * budget * 40)) \
		"$TOP/qemu/scenario.sh" crash "$@" budget=$budget seed=$seed \
		> "$res/scenario.log" 2>&1 || echo "$name" >> "$OUT/boot-failed"
	kill "$tailpid" 2>/dev/null || true
	wait "$tailpid" 2>/dev/null || true
}

if [ $report = 0 ]; then
	rm -rf "$OUT"
	mkdir -p "$OUT"
	"$TOP/qemu/mkinitramfs.sh" "$BUILD/initramfs/initramfs.cpio.gz"
	start=$(date +%s)
	for g in "${groups[@]}"; do
		# shellcheck disable=SC2086  # the group's args are words
		run_group ${g}
	done
	echo $(( $(date +%s) - start )) > "$OUT/wall"
fi
[ -d "$OUT" ] || die "no results in $OUT: run without --report first"

# Gather the groups' rows. A run that hit a kernel warning still left its
# results: use them.
: > "$OUT/results.tsv"
: > "$OUT/failures.tsv"
for g in "${groups[@]}"; do
	name=${g%% *}
	res=$OUT/$name
	[ ! -f "$res/results.tsv" ] || sed "s/^/${name#crash-}\t/" "$res/results.tsv" >> "$OUT/results.tsv"
	[ ! -f "$res/crash-failures.tsv" ] || cat "$res/crash-failures.tsv" >> "$OUT/failures.tsv"
done
wall=$(cat "$OUT/wall" 2>/dev/null || echo '?')
boot_failed=()
[ ! -f "$OUT/boot-failed" ] || mapfile -t boot_failed < "$OUT/boot-failed"


# The table: one row per recording (results.tsv: GROUP crash W MODE T J
# states mount fsck lost secs rate, after GROUP log W MODE T J entries
# flushes fua marks batches covered; or GROUP refused W MODE T J message).
# "batched": batch flushes/the transactions they covered.
table() {
	awk -F'\t' '
	function label(w, t, j) { return w (t > 1 ? " threads=" t : "") (j != "default" ? " journal=" j : "") }
	BEGIN { printf "| %-24s | %-15s | %7s | %7s | %7s | %12s | %5s | %5s | %8s | %8s |\n", "workload", "mode", "flushes", "batched", "states", "mount-failed", "fsck", "lost", "seconds", "states/s"
		print "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" }
	$2 == "log" { flushes = $8; batched = ($11 > 0 ? $11 "/" $12 : "-") }
	$2 == "crash" { printf "| %-24s | %-15s | %7d | %7s | %7d | %12d | %5d | %5d | %8.1f | %8.2f |\n", label($3, $5, $6), $4, flushes, batched, $7, $8, $9, $10, $11, $12
		n += $7; s += $11 }
	$2 == "refused" { printf "| %-24s | %-15s | refused: %s |\n", label($3, $5, $6), $4, $7 }
	END { printf "\n%d states checked in %.0f s of replay (%.3f s/state)\n", n, s, n ? s / n : 0 }
	' "$OUT/results.tsv"
}
echo
table | tee "$OUT/table.md"
echo "wall time: ${wall}s for the $profile matrix (boots, recordings, replays)"

# verdict WORKLOAD MODE THREADS JOURNAL: the PASS/FAIL line of a recording.
status=0
verdict() {
	local row fails name
	row=$(awk -F'\t' -v w="$1" -v m="$2" -v t="$3" -v j="$4" \
		'$2 == "crash" && $3 == w && $4 == m && $5 == t && $6 == j' "$OUT/results.tsv")
	name="crash:$1$([ "$3" = 1 ] || echo "-t$3")$([ "$4" = default ] || echo "-$4"):$2"
	if [ -z "$row" ]; then
		echo "FAIL $name (no result: refused or the run died)"; status=1; return
	fi
	fails=$(echo "$row" | awk -F'\t' '{ print $8 + $9 + $10 }')
	case $2:$fails in
	default:0|barrier:0|fast-commit:0)
		echo "PASS $name (0 of $(echo "$row" | cut -f7) states failed)" ;;
	default:*|barrier:*|fast-commit:*)
		echo "FAIL $name ($fails failing states; see $OUT/failures.tsv)"; status=1 ;;
	*:0)
		echo "FAIL $name (negative control found nothing: the harness has no teeth)"; status=1 ;;
	*)
		echo "PASS $name (negative control: $fails failing states)" ;;
	esac
}

# verdict_any MODE: a negative control that must fail in at least one
# workload (a rule that only some workloads exercise).
verdict_any() {
	local fails states
	read -r states fails < <(awk -F'\t' -v m="$1" '$2 == "crash" && $4 == m {
		n += $7; f += $8 + $9 + $10 } END { print n + 0, f + 0 }' "$OUT/results.tsv")
	if [ "$states" -eq 0 ]; then
		echo "FAIL crash:any:$1 (no result: refused or the run died)"; status=1
	elif [ "$fails" -ge 1 ]; then
		echo "PASS crash:any:$1 (negative control: $fails of $states states failed)"
	else
		echo "FAIL crash:any:$1 (0 of $states states failed: the rule is not seen)"; status=1
	fi
}

# verdict_batched WORKLOAD THREADS: the default-mode recording had a batch
# flush that covered several transactions, so its crash states include
# windows of unflushed transactions.
verdict_batched() {
	local b c name="crash:$1-t$2:batched"
	read -r b c < <(awk -F'\t' -v w="$1" -v t="$2" '$2 == "log" && $3 == w &&
		$4 == "default" && $5 == t { print $11 + 0, $12 + 0 }' "$OUT/results.tsv")
	if [ -z "${b:-}" ]; then
		echo "FAIL $name (no result: refused or the run died)"; status=1
	elif [ "$c" -gt "$b" ]; then
		echo "PASS $name ($b batch flushes covered $c transactions)"
	else
		echo "FAIL $name ($b batch flushes covered $c transactions: no window recorded)"; status=1
	fi
}

# barrier_supported: the kernel knows nojournal_csum_order (the series).
barrier_supported() {
	awk -F'\t' '$2 == "crash" && $4 == "barrier"' "$OUT/results.tsv" | grep -q .
}
# has_mode WORKLOAD MODE THREADS: the matrix recorded that pair.
has_mode() {
	awk -F'\t' -v w="$1" -v m="$2" -v t="$3" '$3 == w && $4 == m && $5 == t' "$OUT/results.tsv" | grep -q .
}
echo
for spec in "${specs[@]}"; do
	read -r w t j <<< "$spec"
	verdict "$w" default "$t" "$j"
	[ "$t" != 1 ] || ! barrier_supported || ! has_mode "$w" barrier "$t" ||
		verdict "$w" barrier "$t" "$j"
	! has_mode "$w" fast-commit "$t" || verdict "$w" fast-commit "$t" "$j"
	verdict "$w" nobarrier "$t" "$j"
done > "$OUT/verdicts.txt"
# The data rule of jbd2_commit_preflush_reason() must be load-bearing
# (only where the kernel has the switch). The wrap rule is reported, not
# asserted: see docs/design.md.
if awk -F'\t' '$2 == "crash" && $4 == "unsafe-data"' "$OUT/results.tsv" | grep -q .; then
	verdict_any unsafe-data >> "$OUT/verdicts.txt"
fi
# Flush batching (the series' patch 14 switch): the states it records
# must include unflushed windows, and ending commits at submit must lose
# something.
if awk -F'\t' '$2 == "crash" && $4 == "unsafe-batch"' "$OUT/results.tsv" | grep -q .; then
	verdict_batched names 4 >> "$OUT/verdicts.txt"
	verdict_any unsafe-batch >> "$OUT/verdicts.txt"
fi
# Flushes shared by fsyncs (the switch of the series' counted flushes).
if awk -F'\t' '$2 == "crash" && $4 == "unsafe-flush"' "$OUT/results.tsv" | grep -q .; then
	verdict_any unsafe-flush >> "$OUT/verdicts.txt"
fi
if [ $profile != slice ]; then
	verdict fcmix fast-commit 4 default
	verdict fcmix nobarrier 4 default
fi >> "$OUT/verdicts.txt"
for name in ${boot_failed[@]+"${boot_failed[@]}"}; do
	echo "FAIL crash:boot-$name (see $OUT/$name/scenario.log)"; status=1
done >> "$OUT/verdicts.txt"
cat "$OUT/verdicts.txt"

# What each recording found, one example per failure class (the first
# failing state and its reproducer).
echo
awk -F'\t' '!seen[$1 FS $2 FS $3 FS $4 FS $5]++ {
	printf "example %s %s%s: %s %s\n    %s\n", $1, $2, ($3 > 1 ? " threads=" $3 : ""), $5, $6, $7 }
	END { print "failing states: " NR " in '"$OUT/failures.tsv"'" }' "$OUT/failures.tsv" |
	tee "$OUT/examples.txt"

if [ $profile = long ]; then
	md=$TOP/docs/results/crash-long.md
	mkdir -p "$(dirname "$md")"
	{
		echo "# Crash-consistency matrix (--long)"
		echo
		echo "\`qemu/crash-harness.sh --long\`: ops=$ops per workload ($(( (ops + 1) / 2 )) per thread with 4 threads),"
		echo "budget=$budget states per crash point, seed=$seed;"
		echo "kernel $(tree_version 2>/dev/null || echo '?'), measured $(date -u +%Y-%m-%d), wall time ${wall}s."
		echo
		cat "$OUT/table.md"
		echo
		echo '```'
		cat "$OUT/verdicts.txt" "$OUT/examples.txt"
		echo '```'
	} > "$md"
	log "table written to $md"
fi
exit $status
