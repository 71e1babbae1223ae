#!/bin/sh
# crash: record a crashwork workload through dm-log-writes, then have
# lwreplay rebuild every crash state of the log (volatile write cache
# model) and judge each with /jbd2t/crash-check.sh: does the kernel's
# journal recovery mount it, is it clean for e2fsck, did every fsync keep
# its promise?
#
# Args: workload=W[,W...] mode=M[,M...]  one recording per pair
#   modes: default, barrier, nobarrier, fast-commit, unsafe-data,
#   unsafe-wrap, unsafe-batch (qemu/guest/crash-lib.sh), async-journal
#   (journal_async_commit,data=journal), async-writeback
#   (journal_async_commit,data=writeback)
#   ops=N threads=T seed=S        the workload (crashwork run)
#   budget=B maxstates=M          states per crash point; 0 = all states
#   journal=default|small         small: 1 KiB blocks, 1 MiB journal
#   fs=ext4
#   flush_us=N                    N us per cache flush (the flush-cost
#                                 device under the log; 0 = none)
#   batch_retry=N                 record the default mode again, at most
#                                 N times, while no batch flush covered
#                                 several transactions (threads that move
#                                 in step often give none; 0 = never)
#   logdump=1                     print the log's entries and, for every
#                                 failing state, debugfs logdump of its
#                                 journal (fast commit area included)
#
# Rows: "log W MODE T JOURNAL entries flushes fua marks batches covered"
# (batch flushes of the journal and the transactions they covered) and
# "crash W MODE T JOURNAL states mount-failed fsck lost seconds states/s";
# a refused mount gives "refused W MODE T JOURNAL kernel-message".
# Every failing state goes to /results/crash-failures.tsv, with the host
# command that re-runs it (scenario crash-repro).
#
# jbd2t-disks: 48M 512M 48M
# jbd2t-modules: flushcost
# jbd2t-timeout: 3600
. /jbd2t/lib.sh
. /jbd2t/crash-lib.sh

WORKLOADS=$(arg workload append "$@")
MODES=$(arg mode default "$@")
BUDGET=$(arg budget 8 "$@")
MAXSTATES=$(arg maxstates 0 "$@")
BATCH_RETRY=$(arg batch_retry 0 "$@")
LOGDUMP=$(arg logdump 0 "$@")
[ "$LOGDUMP" = 0 ] || export CRASH_LOGDUMP=1
crash_setup "$@"

# One recording and its replay. Refusals and failures are results; only a
# broken harness (a tool exits with an unexpected code) fails the run.
crash_one() { # WORKLOAD MODE
	w=$1 m=$2
	id="$w $m $THREADS $JOURNAL"
	tries=0
	while :; do
		if ! crash_record "$w" "$m"; then
			# shellcheck disable=SC2086  # $id is four fields
			result refused $id "$(crash_refusal)"
			return 0
		fi
		counts=$(crash_log_counts)
		[ "$m" = default ] && [ $tries -lt "$BATCH_RETRY" ] && unbatched "$counts" || break
		tries=$((tries + 1))
		info "$id: no batch flush covered several transactions, recording again ($tries of $BATCH_RETRY)"
	done
	# shellcheck disable=SC2086  # four fields, then the counts' six
	result log $id $counts
	[ "$LOGDUMP" = 0 ] || lwreplay info /dev/vdb --entries | sed 's/^/    /'
	t0=$(uptime_s)
	rc=0
	# shellcheck disable=SC2046  # --max-states only when asked for
	lwreplay run /dev/vdb /dev/vdc --budget "$BUDGET" --seed "$SEED" \
		$([ "$MAXSTATES" = 0 ] || echo --max-states "$MAXSTATES") \
		--progress -- /jbd2t/crash-check.sh > /tmp/replay.out || rc=$?
	grep -v "^FAILURE " /tmp/replay.out	# failures: in crash-failures.tsv
	[ $rc -le 1 ] || fail "$id: lwreplay run exit $rc"
	secs=$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.1f", b - a }')
	states=$(sed -n 's/^states checked: \([0-9]*\) .*/\1/p' /tmp/replay.out)
	# shellcheck disable=SC2086  # $id is four fields
	result crash $id "$states" "$(replay_count mount-failed)" \
		"$(replay_count fsck-corrupt)" "$(replay_count data-lost)" "$secs" \
		"$(awk -v n="$states" -v s="$secs" 'BEGIN { printf "%.2f", (s > 0 ? n / s : 0) }')"
	# One reproducer per failing state; layout= pins the log up to its point.
	crash_layout > /tmp/layout
	grep '^FAILURE ' /tmp/replay.out | awk -v pre="$w	$m	$THREADS	$JOURNAL" \
		-v cmd="qemu/scenario.sh crash-repro workload=$w mode=$m ops=$OPS threads=$THREADS seed=$SEED journal=$JOURNAL fs=$FS flush_us=$FLUSH_US" '
	NR == FNR { sum[$1] = $2; next }
	{ split($3, r, ":"); print pre "\t" $2 "\t" $3 "\t" cmd " recipe=" $3 " layout=" sum[r[1]] }
	' /tmp/layout - >> "$RESULTS/crash-failures.tsv"
}
# unbatched COUNTS: no batch flush of the recording covered several
# transactions (COUNTS from crash_log_counts: ... BATCHES COVERED).
unbatched() { echo "$1" | awk '{ exit !($6 <= $5) }'; }
replay_count() { awk -v k="$1" '$1 == k { print $2 }' /tmp/replay.out; }

for w in $(echo "$WORKLOADS" | tr , ' '); do
	for m in $(echo "$MODES" | tr , ' '); do
		crash_one "$w" "$m"
	done
done
