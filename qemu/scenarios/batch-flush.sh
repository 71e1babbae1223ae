#!/bin/sh
# batch-flush: one cache flush makes several transactions durable, and the
# journal's own accounts of it agree (docs/design.md, "Flush batching").
#
# On a device whose flushes are slow (null_blk under flushcost, 8 ms per
# flush), THREADS threads create and fsync files. The jbd2 batch
# tracepoints are recorded and checked against /proc/fs/jbd2/<dev>/info:
# every batch flush completes and covers the transactions after the
# previous one (or after those committed with a full barrier, as where the
# log wraps), begins with a transaction that started a batch, and the
# counts match the info file. With checksum-ordered commits at least one
# flush must cover two transactions or more (the batching this tests);
# with nojournal_csum_order (every commit flushes for itself) there must
# be no batch flush at all: the same checks, failing the other way.
#
# The journal is small (JOURNAL_MB) so that the checksum-ordered run wraps
# it several times, and in both modes the log tail must keep up with the
# commits: no task may have waited for log space (a jbd2_checkpoint
# event). Commits written ahead of their flush hand the tail they found to
# the one that follows the flush; without that the tail moved only when
# tasks ran out of log.
#
# The flush holds of the info file: every hold ends in a batch flush, and
# in this closed loop (every thread fsyncs again at once) the threads a
# flush woke get their commit written within the hold, so holds must end
# with a commit written; without batch flushes there is no hold at all.
#
# Args: threads=16 secs=2 flush_us=8000 journal_mb=4
#
# jbd2t-modules: flushcost
# jbd2t-timeout: 900
. /jbd2t/lib.sh

THREADS=$(arg threads 16 "$@")
SECS=$(arg secs 2 "$@")
FLUSH_US=$(arg flush_us 8000 "$@")
JOURNAL_MB=$(arg journal_mb 4 "$@")
DEV=fcost0
MNT=/mnt
EVENTS="jbd2_batch_start jbd2_batch_flush_submit jbd2_batch_flush_complete
	jbd2_commit_order jbd2_checkpoint jbd2_update_log_tail"

# check_trace: "SUBMITS COVERED MAX_BATCH BAD CHECKPOINTS TAIL_MOVES" from
# the recorded events; BAD counts rule violations, each printed as a "bad:"
# line on stderr.
check_trace() {
	awk '
	function bad(msg) { nbad++; print "bad: " msg " (line " NR ")" > "/dev/stderr" }
	function field(name,   i) {
		for (i = 1; i < NF; i++) if ($i == name) return $(i + 1)
		return ""
	}
	# Durable by its own flush: no batch flush covers it.
	/jbd2_commit_order:/ && /barrier:/ { synced[field("transaction") + 0] = 1 }
	/jbd2_batch_start:/ { started[field("transaction") + 0] = 1 }
	/jbd2_batch_flush_submit:/ {
		split(field("transactions"), r, "-"); first = r[1] + 0; last = r[2] + 0
		if (inflight) bad("submit while a flush is in flight")
		if (last < first) bad("submit of an empty range " first "-" last)
		if (nsub) for (t = prev + 1; t < first; t++)
			if (!(t in synced)) { bad("submit " first "-" last " after " prev); break }
		# Its batch_start may come later: the flush goes out when the
		# last log write completes, kjournald2 traces once it runs.
		firsts[first] = NR
		inflight = 1; want = last; prev = last; nsub++
		cov += last - first + 1
		if (last - first + 1 > max) max = last - first + 1
	}
	/jbd2_batch_flush_complete:/ {
		if (!inflight) bad("completion without a flush in flight")
		if (field("to") + 0 != want) bad("completion up to " field("to") ", submitted up to " want)
		if (field("error") != "0") bad("flush error " field("error"))
		inflight = 0
	}
	/jbd2_checkpoint:/ { nckpt++ }
	/jbd2_update_log_tail:/ { ntail++ }
	END {
		if (inflight) bad("a flush never completed")
		for (t in firsts) if (!(t in started)) {
			NR = firsts[t]; bad("a flush covers " t "-, no batch began with " t)
		}
		print nsub + 0, cov + 0, max + 0, nbad + 0, nckpt + 0, ntail + 0
	}' $TRACEFS/trace
}

# run MODE: THREADS x create+fsync for SECS on a fresh filesystem; checks
# the trace against /proc and returns the largest batch in $max.
run() {
	mkfs_dev ext4 /dev/$DEV -J size="$JOURNAL_MB"
	mount -t ext4 -o "$1" /dev/$DEV $MNT
	info "$1: $(mount_opts $MNT)"
	mkdir $MNT/d
	fsyncbench --workload create --threads "$THREADS" --dir $MNT/d --duration "$SECS" \
		--prepare-only > /dev/null || fail "fsyncbench --prepare-only failed"
	sync -f $MNT/d
	b0=$(jbd2_batches $DEV)
	h0=$(jbd2_holds $DEV)
	# shellcheck disable=SC2086  # the event names are words
	jbd2_trace_on $EVENTS
	line=$(fsyncbench --workload create --threads "$THREADS" --dir $MNT/d \
		--duration "$SECS" --tag "$1") || fail "fsyncbench failed: $line"
	# Quiet: the last flush in flight completes within a few flush times.
	sleep 1
	# shellcheck disable=SC2086
	jbd2_trace_off $EVENTS
	read -r flushes covered <<-EOF
	$(counts_diff "$b0" "$(jbd2_batches $DEV)")
	EOF
	read -r hold_hits hold_misses hold_skips <<-EOF
	$(counts_diff "$h0" "$(jbd2_holds $DEV)")
	EOF
	umount $MNT
	e2fsck -fn /dev/$DEV > /tmp/fsck.log 2>&1 || { cat /tmp/fsck.log; fail "$1: e2fsck -fn"; }
	# shellcheck disable=SC2046  # six numbers
	set -- "$1" $(check_trace)
	# The events, for reading a violation: results/trace-MODE.txt.gz.
	[ "$5" = 0 ] || gzip -c $TRACEFS/trace > "$RESULTS/trace-$1.txt.gz"
	max=$4
	result batch "$1" "$THREADS" "$line" "$flushes" "$covered" "$2" "$3" "$4" \
		"$6" "$7"
	info "$1: log tail moved $7 times, $6 waits for log space"
	info "$1: flush holds: $hold_hits ended by a commit, $hold_misses with none, $hold_skips skipped"
	assert_ge "$1: batch flushes, against the holds they ended" \
		$((hold_hits + hold_misses)) "$flushes"
	tail_moves=$7
	assert_eq "$1: trace rule violations" 0 "$5"
	assert_eq "$1: tasks that waited for log space" 0 "$6"
	assert_eq "$1: batch flushes, trace vs /proc" "$flushes" "$2"
	assert_eq "$1: transactions covered, trace vs /proc" "$covered" "$3"
}

flushcost_up 512 64 "$FLUSH_US" 0
assert_eq "$DEV write cache" "write back" "$(write_cache $DEV)"
mkdir -p $MNT

run journal_csum_order
assert_ge "journal_csum_order: transactions in the largest batch flush" 2 "$max"
assert_ge "journal_csum_order: log tail moves (the journal wraps)" 2 "$tail_moves"
assert_ge "journal_csum_order: flush holds ended by a commit" 1 "$hold_hits"
run nojournal_csum_order
assert_eq "nojournal_csum_order: largest batch flush" 0 "$max"
assert_eq "nojournal_csum_order: flush holds" 0 "$((hold_hits + hold_misses + hold_skips))"

flushcost_down
