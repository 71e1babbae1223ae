#!/usr/bin/env bash
# Crash-consistency matrix: each crashwork workload recorded through
# dm-log-writes in each mount mode, every crash state of the log checked
# by lwreplay + crash-check.sh in the guest (scenario "crash").
#
#   qemu/crash-harness.sh [--quick|--long]
#
# Asserts, one PASS/FAIL line each:
#   default mode: 0 failing states (the promise jbd2/ext4 make);
#   nobarrier:    >= 1 failing state (the negative control: a harness that
#                 finds nothing without barriers has no teeth).
# async-journal / async-writeback (journal_async_commit) are reported only.
# Prints a table per workload x mode; failing states, each with a host
# command that re-runs it, in build/results/crash-PROFILE/failures.tsv.
# --long also writes the table to docs/results/crash-long.md.
# Environment: CRASH_OPS, CRASH_BUDGET, CRASH_SEED override the profile.
#
# Cost (this machine, 2 cores, TCG): about 0.18 s per state, plus 3-10 s
# per recording; one guest keeps both cores busy, so boots run one by one.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

profile=quick
case ${1:-} in
--quick|'') ;;
--long) profile=long ;;
*) sed -n '2,20s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
# Sized by measurement (about 0.18 s per state): quick checks ~3000
# states in about 12 minutes, long ~59000 in about 3 hours. The 4-thread
# append runs half the ops per thread: 4 threads give twice the states.
if [ $profile = quick ]; then ops=12 budget=4; else ops=100 budget=12; fi
ops=${CRASH_OPS:-$ops} budget=${CRASH_BUDGET:-$budget} seed=${CRASH_SEED:-1}
modes=default,nobarrier,async-journal,async-writeback
OUT=$BUILD/results/crash-$profile
rm -rf "$OUT"
mkdir -p "$OUT"

# One guest boot per group of recordings that share the fs layout and
# thread count: NAME ARGS (the scenario's; mode=, budget=, seed= added).
groups=(
	"crash-single workload=append,replace,dbsync ops=$ops"
	"crash-churn workload=churn journal=small ops=$ops"
	"crash-append-t4 workload=append threads=4 ops=$(( (ops + 1) / 2 ))"
)

"$TOP/qemu/mkinitramfs.sh" "$BUILD/initramfs/initramfs.cpio.gz"
start=$(date +%s)
boot_failed=()
for g in "${groups[@]}"; do
	name=${g%% *}
	res=$OUT/$name
	log "group $name: ${g#* } mode=$modes budget=$budget seed=$seed"
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
		"$TOP/qemu/scenario.sh" crash ${g#* } mode=$modes budget=$budget seed=$seed \
		> "$res/scenario.log" 2>&1 || boot_failed+=("$name")
	kill "$tailpid" 2>/dev/null || true
	wait "$tailpid" 2>/dev/null || true
	# A run that hit a kernel warning still left its results: use them.
	[ -f "$res/results.tsv" ] && sed "s/^/${name#crash-}\t/" "$res/results.tsv" >> "$OUT/results.tsv"
	[ -f "$res/crash-failures.tsv" ] && cat "$res/crash-failures.tsv" >> "$OUT/failures.tsv"
done
touch "$OUT/results.tsv" "$OUT/failures.tsv"
wall=$(( $(date +%s) - start ))

# The table: one row per recording (results.tsv: GROUP crash W MODE T J
# states mount fsck lost secs rate, after GROUP log W MODE T J entries
# flushes fua marks; or GROUP refused W MODE T J message).
table() {
	awk -F'\t' '
	function label(w, t, j) { return w (t > 1 ? " threads=" t : "") (j != "default" ? " journal=" j : "") }
	BEGIN { printf "| %-24s | %-15s | %7s | %7s | %12s | %5s | %5s | %8s | %8s |\n", "workload", "mode", "flushes", "states", "mount-failed", "fsck", "lost", "seconds", "states/s"
		print "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |" }
	$2 == "log" { flushes = $8 }
	$2 == "crash" { printf "| %-24s | %-15s | %7d | %7d | %12d | %5d | %5d | %8.1f | %8.2f |\n", label($3, $5, $6), $4, flushes, $7, $8, $9, $10, $11, $12
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
	if [ "$2" = default ] && [ "$fails" -eq 0 ]; then
		echo "PASS $name (0 of $(echo "$row" | cut -f7) states failed)"
	elif [ "$2" = nobarrier ] && [ "$fails" -ge 1 ]; then
		echo "PASS $name (negative control: $fails failing states)"
	elif [ "$2" = default ]; then
		echo "FAIL $name ($fails failing states; see $OUT/failures.tsv)"; status=1
	else
		echo "FAIL $name (negative control found nothing: the harness has no teeth)"; status=1
	fi
}
echo
for spec in "append 1 default" "replace 1 default" "dbsync 1 default" \
	"churn 1 small" "append 4 default"; do
	read -r w t j <<< "$spec"
	verdict "$w" default "$t" "$j"
	verdict "$w" nobarrier "$t" "$j"
done > "$OUT/verdicts.txt"
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
