#!/usr/bin/env bash
# Fault injection at commit time: the device fails under a running fsync
# workload (scenario "fault", qemu/scenarios/fault.sh), in both commit
# modes: checksum-ordered (the default) and the full barrier
# (nojournal_csum_order).
#
#   qemu/fault-harness.sh [--quick|--long] [--report] [--docs]
#
# --quick (make check, a few minutes under TCG): every fault case x both
# modes x workloads names (metadata only: checksum-ordered commits) and
# append (data: full barrier) x the fault armed after 2 and 5 acknowledged
# operations x remount and power cut. --long adds the replace workload,
# more fault points and longer runs. --report prints the last run's table
# and verdicts again; --docs also writes them to docs/results/fault-PROFILE.md.
#
# Asserts, one PASS/FAIL line per fault case and mode ("fault:CASE:MODE"):
#   flush-all, write-all, flush-once: the first fsync after the fault
#     returns EIO, nothing is acknowledged after it, the journal aborts,
#     ext4 refuses writes; after the remount or the power cut, every
#     operation acknowledged before the fault is there (crashwork check),
#     nothing foreign is exposed, e2fsck -fn is clean (or only shows
#     the inodes of an orphan list that the abort's error flag made
#     ext4 drop, and e2fsck -fp repairs them: docs/testing.md);
#   drop: the same for what was acknowledged before the fault, and the
#     device's lie is seen: checked against every acknowledged operation,
#     some are lost (fault:drop-lie:MODE, the checker's teeth);
#   batch-once (default mode, names with 8 threads on an 8 ms flush): one
#     batch flush fails; some fsync returns EIO, the journal aborts, ext4
#     refuses writes, and every operation acknowledged at all (before or
#     after the fault: a transaction already durable may be acknowledged
#     late) is there after the remount and the power cut;
#     fault:batch-once:several: at least one of those failed flushes
#     covered several transactions (else no batch was tested);
#   fsdev-flush (modes default, barrier, fast-commit; the journal on a
#     device of its own that never fails): every flush of the file
#     system device fails. Every acknowledged operation is there after
#     the remount and after a power cut that keeps the journal device as
#     it was; with data (append), the first fsync after the fault
#     returns EIO and nothing is acknowledged after it;
#   fault:control-nobarrier: nobarrier and a power cut, no fault: the
#     checker must find lost operations or corruption (negative control);
#     fault:control-nobarrier-external: the same with the external
#     journal of fsdev-flush.
# A kernel splat or a hang fails the guest run, hence every case
# (fault:boot). Environment: KERNEL (e.g. the debug kernel
# build/debug/arch/x86/boot/bzImage), FAULT_OUT (results directory).
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

profile=quick report=0 docs=0
for a in "$@"; do
	case $a in
	--quick) profile=quick ;;
	--long) profile=long ;;
	--report) report=1 ;;
	--docs) docs=1 ;;
	--help) sed -n '2,48s/^# \{0,1\}//p' "$0"; exit 0 ;;
	*) sed -n '2,48s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
	esac
done
cases=flush-all,write-all,drop,flush-once,batch-once,fsdev-flush
modes=default,barrier
ext_modes=default,barrier,fast-commit
case $profile in
quick) args="workloads=names,append after=2,5 ext_after=3 ops=8" ;;
long) args="workloads=names,append,replace after=1,2,5,11 ops=16" ;;
esac
OUT=${FAULT_OUT:-$BUILD/results/fault-$profile}

if [ $report = 0 ]; then
	rm -rf "$OUT"
	mkdir -p "$OUT"
	start=$(date +%s)
	# shellcheck disable=SC2086  # the scenario's args are words
	RESULTS=$OUT/guest "$TOP/qemu/scenario.sh" fault cases=$cases modes=$modes \
		ext_modes=$ext_modes control=1 $args > "$OUT/scenario.log" 2>&1 ||
		echo failed > "$OUT/boot-failed"
	echo $(( $(date +%s) - start )) > "$OUT/wall"
fi
[ -d "$OUT" ] || die "no results in $OUT: run without --report first"
tsv=$OUT/guest/results.tsv
[ -f "$tsv" ] || touch "$tsv"

# The table: one row per case x mode x workload, over fault points and
# cuts (results.tsv: trial CASE MODE W N CUT RC MARKS ACKED SYNC_ERR
# ABORTED RDONLY ORDERED FULL FFAIL WFAIL DROPPED FLUSHES MOUNT LOST
# EXPOSED FSCK LIE VERDICT). Per run (the remount row): fsync EIO,
# acknowledged after the fault, aborted, writes refused, the commits by
# ordering; per check (remount and power cut): lost, lie caught, failures.
table() {
	awk -F'\t' '
	BEGIN {
		printf "| %-10s | %-9s | %-8s | %4s | %9s | %11s | %7s | %7s | %13s | %6s | %5s | %10s | %8s |\n", "case", "mode", "workload", "runs", "fsync EIO", "acked after", "aborted", "refused", "csum-ord/full", "checks", "lost", "lie caught", "failures"
		print "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	}
	$1 == "trial" {
		k = $2 "\t" $3 "\t" $4
		if (!(k in n)) order[++nk] = k
		if ($6 == "remount") {
			runs[k]++
			eio[k] += ($7 == 5 && $10 ~ /Input\/output/)
			acked[k] += $9; ab[k] += $11; ro[k] += $12
			ord[k] += $13; full[k] += $14
		}
		n[k]++
		if ($20 ~ /^[0-9]+$/) lost[k] += $20
		broken[k] += ($6 == "powercut" && ($20 != 0 || $21 != 0 || $22 != 0 || $19 != "ok"))
		cuts[k] += ($6 == "powercut")
		if ($23 ~ /^[0-9]+$/) { lie[k] += ($23 > 0); lien[k]++ }
		bad[k] += ($24 ~ /^FAIL/)
	}
	$1 == "refused" { printf "| %-10s | %-9s | refused: %s |\n", "-", $2, $3 }
	END {
		for (i = 1; i <= nk; i++) {
			k = order[i]; split(k, f, "\t")
			printf "| %-10s | %-9s | %-8s | %4d | %9d | %11d | %7d | %7d | %13s | %6d | %5d | %10s | %8s |\n", f[1], f[2], f[3], runs[k], eio[k], acked[k], ab[k], ro[k], ord[k] "/" full[k], n[k], lost[k], (lien[k] ? lie[k] " of " lien[k] : "-"), (f[1] ~ /none$/ ? broken[k] " of " cuts[k] " cuts broke" : bad[k])
		}
	}' "$tsv"
}
wall=$(cat "$OUT/wall" 2>/dev/null || echo '?')
echo
table | tee "$OUT/table.md"
echo
echo "wall time: ${wall}s for the $profile profile ($(awk -F'\t' '$1 == "trial" && $6 == "remount"' "$tsv" | wc -l) runs, each checked after a remount and a power cut)"

status=0
# verdict CASE MODE: every trial of the case in that mode is "ok".
verdict() {
	local n bad
	read -r n bad < <(awk -F'\t' -v c="$1" -v m="$2" '$1 == "trial" && $2 == c && $3 == m {
		n++; b += ($24 != "ok") } END { print n + 0, b + 0 }' "$tsv")
	if [ "$n" = 0 ]; then
		echo "FAIL fault:$1:$2 (no checks: refused or the run died)"; status=1
	elif [ "$bad" = 0 ]; then
		echo "PASS fault:$1:$2 ($n checks)"
	else
		echo "FAIL fault:$1:$2 ($bad of $n checks failed:" \
			"$(awk -F'\t' -v c="$1" -v m="$2" '$1 == "trial" && $2 == c && $3 == m && $24 != "ok" {
				printf "%s %s N=%s %s: %s; ", $4, $3, $5, $6, $24 }' "$tsv"))"
		status=1
	fi
}
# lie MODE: in the drop trials, checking every acknowledged op finds loss.
lie() {
	local n seen
	read -r n seen < <(awk -F'\t' -v m="$1" '$1 == "trial" && $2 == "drop" && $3 == m {
		n++; s += ($23 > 0) } END { print n + 0, s + 0 }' "$tsv")
	if [ "$n" -gt 0 ] && [ "$seen" = "$n" ]; then
		echo "PASS fault:drop-lie:$1 (negative control: loss seen in $seen of $n checks)"
	else
		echo "FAIL fault:drop-lie:$1 (loss seen in $seen of $n checks: the checker has no teeth)"; status=1
	fi
}
# batch_several: a failed batch flush covered several transactions.
batch_several() {
	local n max
	read -r n max < <(awk -F'\t' '$1 == "batch" { n++; if ($6 > m) m = $6 }
		END { print n + 0, m + 0 }' "$tsv")
	if [ "$max" -ge 2 ]; then
		echo "PASS fault:batch-once:several (the failed flushes of $n runs covered up to $max transactions)"
	else
		echo "FAIL fault:batch-once:several (no failed flush in $n runs covered several transactions)"; status=1
	fi
}
# control CASE NAME: the nobarrier control of CASE (none, fsdev-none):
# a power cut must break something acknowledged.
control() {
	local n broken
	read -r n broken < <(awk -F'\t' -v c="$1" '$1 == "trial" && $2 == c && $6 == "powercut" {
		n++; b += ($20 != 0 || $21 != 0 || $22 != 0 || $19 != "ok") } END { print n + 0, b + 0 }' "$tsv")
	if [ "$n" -gt 0 ] && [ "$broken" -ge 1 ]; then
		echo "PASS fault:$2 (negative control: $broken of $n power cuts broke acknowledged data)"
	else
		echo "FAIL fault:$2 ($broken of $n power cuts broke anything: the checker has no teeth)"; status=1
	fi
}
{
	for c in ${cases//,/ }; do
		cm=$modes
		[ "$c" != fsdev-flush ] || cm=$ext_modes
		for m in ${cm//,/ }; do
			# A batch flush needs checksum-ordered commits.
			[ "$c" != batch-once ] || [ "$m" = default ] || continue
			verdict "$c" "$m"
		done
	done
	[[ ",$cases," != *,batch-once,* ]] || batch_several
	for m in ${modes//,/ }; do lie "$m"; done
	control none control-nobarrier
	[[ ",$cases," != *,fsdev-flush,* ]] || control fsdev-none control-nobarrier-external
	if [ -f "$OUT/boot-failed" ]; then
		echo "FAIL fault:boot (the guest run failed: hang, splat or scenario error; see $OUT/scenario.log)"
		status=1
	fi
} > "$OUT/verdicts.txt"
cat "$OUT/verdicts.txt"

if [ $docs = 1 ]; then
	md=$TOP/docs/results/fault-$profile.md
	mkdir -p "$(dirname "$md")"
	{
		echo "# Fault injection at commit time (--$profile)"
		echo
		echo "\`qemu/fault-harness.sh --$profile\`: scenario args \`cases=$cases modes=$modes ext_modes=$ext_modes $args\`;"
		echo "kernel ${KERNEL:-build/kunit/arch/x86/boot/bzImage} ($(sed -n 's/.*modules for \([^:]*\):.*/\1/p' "$OUT/scenario.log" | head -n 1)),"
		echo "measured $(date -u +%Y-%m-%d), wall time ${wall}s. Columns: docs/testing.md, \"Fault injection\"."
		echo
		cat "$OUT/table.md"
		echo
		echo '```'
		cat "$OUT/verdicts.txt"
		echo '```'
	} > "$md"
	log "written to $md"
fi
exit $status
