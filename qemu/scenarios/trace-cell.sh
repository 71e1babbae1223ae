#!/bin/sh
# trace-cell: one benchmark cell under ftrace, for reading where its time
# goes (a diagnostic: it asserts nothing about performance).
#
# The bench device (null_blk under flushcost), a fresh ext4 mounted with
# OPTS, then one fsyncbench run with the jbd2 commit and batch events,
# the scheduler's switches and wakeups, and the device's flush requests
# recorded; the trace is left in /results/trace.txt.gz.
#
# Args: flush_us=1000 fua=0 opts=defaults workload=create threads=64 secs=1
#       think_us=0 buffer_kb=32768  (the bench's ssd profile is
#       flush_us=1000, hdd 8000)
#
# jbd2t-modules: flushcost
# jbd2t-timeout: 900
. /jbd2t/lib.sh

FLUSH_US=$(arg flush_us 1000 "$@")
FUA=$(arg fua 0 "$@")
OPTS=$(arg opts defaults "$@")
WORKLOAD=$(arg workload create "$@")
THREADS=$(arg threads 64 "$@")
SECS=$(arg secs 1 "$@")
THINK=$(arg think_us 0 "$@")
BUFFER_KB=$(arg buffer_kb 32768 "$@")
DEV=fcost0
MNT=/mnt
JBD2_EVENTS="jbd2_start_commit jbd2_commit_locking jbd2_commit_flushing
	jbd2_commit_logging jbd2_end_commit jbd2_commit_order jbd2_batch_start
	jbd2_batch_flush_submit jbd2_batch_flush_complete"

# events VALUE: enable (1) or disable (0) every recorded event; the
# batch events exist on the patched kernel only.
events() {
	for _e in $JBD2_EVENTS; do
		[ ! -d "$TRACEFS/events/jbd2/$_e" ] || echo "$1" > "$TRACEFS/events/jbd2/$_e/enable"
	done
	for _e in sched/sched_switch sched/sched_wakeup block/block_rq_issue block/block_rq_complete; do
		echo "$1" > "$TRACEFS/events/$_e/enable"
	done
}

flushcost_up 512 64 "$FLUSH_US" "$FUA"
mkfs_dev ext4 /dev/$DEV
mkdir -p $MNT
mount -t ext4 -o "$OPTS" /dev/$DEV $MNT
info "flush ${FLUSH_US} us, fua=$FUA: $(mount_opts $MNT)"
mkdir $MNT/d
fsyncbench --workload "$WORKLOAD" --threads "$THREADS" --dir $MNT/d --duration "$SECS" \
	--prepare-only > /dev/null || fail "fsyncbench --prepare-only failed"
sync -f $MNT/d

echo 0 > $TRACEFS/tracing_on
echo "$BUFFER_KB" > $TRACEFS/buffer_size_kb
echo > $TRACEFS/trace
for _e in block_rq_issue block_rq_complete; do
	block_event_filter $DEV > "$TRACEFS/events/block/$_e/filter"
done
events 1
echo 1 > $TRACEFS/tracing_on
line=$(fsyncbench --workload "$WORKLOAD" --threads "$THREADS" --dir $MNT/d \
	--duration "$SECS" --think-us "$THINK" --tag trace) || fail "fsyncbench failed: $line"
echo 0 > $TRACEFS/tracing_on
events 0
trace_assert_complete "use a larger buffer_kb or fewer secs"
gzip -c $TRACEFS/trace > "$RESULTS/trace.txt.gz"
result trace "$FLUSH_US" "$FUA" "$OPTS" "$line"
cat /proc/fs/jbd2/$DEV-8/info
umount $MNT
flushcost_down
