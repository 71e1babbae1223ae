#!/bin/sh
# bench: the flush-cost benchmark in one guest (docs/benchmark.md).
#
# The device is null_blk (RAM, with a volatile write cache and native FUA)
# under flushcost (qemu/modules/flushcost), which charges a fixed time for
# every cache flush and FUA write that reaches it. For each device profile,
# mount mode, workload and thread count, fsyncbench runs REPS times and one
# row per run records what it did and what the device saw: fsync calls,
# ops/s, p50/p99, flushes, FUA writes, writes, jbd2 commits.
#
# Args (defaults in brackets):
#   devices=ssd:1,ssd:0,hdd:1,hdd:0   PROFILE:FUA; ssd charges 1 ms per
#                                     flush or FUA write, hdd 8 ms; FUA=0
#                                     makes the block layer emulate FUA
#   modes=default,nobarrier,async-ordered,async-journal  (see mode_opts)
#   runs=append:1,append:4,append:16,append:64,meta:1,fdatasync:1,osync:1
#                                     WORKLOAD[-thinkUS]:THREADS[:SECS];
#                                     -thinkUS: each thread pauses US
#                                     microseconds after each op
#   secs=3 reps=3                     seconds per run (unless the run
#                                     says), runs per cell
#   size=1024 cache=64                null_blk size and cache (MB)
#   trace=0                           1: also count flushes and FUA writes
#                                     with the block_rq_issue tracepoint
#                                     and require the same counts
# The model is checked on every device: flushcost's counters must equal
# the flush count of /sys/block/fcost0/stat (and the tracepoint's, with
# trace=1) once all is quiet.
#
# Rows (results.tsv): device PROFILE FUA FLUSH_US WRITE_CACHE FUA_SYSFS;
# fs PROFILE FUA MODE FEATURES JOURNAL_CSUM; refused PROFILE FUA MODE MSG;
# run PROFILE FUA MODE WORKLOAD THREADS REP OPS SYNCS SECS OPS_PER_SEC
#     P50_US P99_US FLUSHES FUA WRITES COMMITS CHARGED_US ORDERED FULL
#     BATCHES COVERED CPU_BUSY CPU_ALL HOLD_HITS HOLD_MISSES HOLD_SKIPS
#     (commits sent checksum-ordered / with a full barrier; batch flushes
#     and the transactions they made durable, "-" on a kernel without the
#     series; the guest CPU's busy and total time in /proc/stat ticks over
#     the run; batch flushes held after a completion until a commit was
#     written or for nothing, and holds skipped after misses, "-" on a
#     kernel without them);
# model PROFILE FUA FC_FLUSH STAT_FLUSH FC_FUA TRACE_FLUSH TRACE_FUA.
#
# jbd2t-modules: flushcost
# jbd2t-timeout: 3600
. /jbd2t/lib.sh

DEVICES=$(arg devices ssd:1,ssd:0,hdd:1,hdd:0 "$@")
MODES=$(arg modes default,nobarrier,async-ordered,async-journal "$@")
RUNS=$(arg runs append:1,append:4,append:16,append:64,meta:1,fdatasync:1,osync:1 "$@")
SECS=$(arg secs 3 "$@")
REPS=$(arg reps 3 "$@")
SIZE=$(arg size 1024 "$@")
CACHE=$(arg cache 64 "$@")
TRACE=$(arg trace 0 "$@")
DEV=fcost0
MNT=/mnt
T=/sys/kernel/tracing

# mode_opts MODE: the mount options of a mode. A new mode of the series
# is one more line here (and its name in qemu/bench.sh's mode list).
mode_opts() {
	case "$1" in
	default) echo defaults ;;
	nobarrier) echo nobarrier ;;
	# ext4 refuses journal_async_commit with data=ordered: recorded as
	# refused, which is the stock behaviour the table shows.
	async-ordered) echo journal_async_commit ;;
	async-journal) echo journal_async_commit,data=journal ;;
	async-writeback) echo journal_async_commit,data=writeback ;;
	# The series: checksum-ordered commits (its default with
	# metadata_csum), and the old full barrier on the patched kernel.
	csum-order) echo journal_csum_order ;;
	nocsum-order) echo nojournal_csum_order ;;
	# The series without its pacing of written-ahead commits.
	no-batch-wait) echo max_batch_time=0 ;;
	*) fail "unknown mode '$1'" ;;
	esac
}
# flush_us PROFILE: the time charged per flush or FUA write.
flush_us() {
	case "$1" in
	ssd) echo 1000 ;;
	hdd) echo 8000 ;;
	*) fail "unknown device profile '$1'" ;;
	esac
}

# kv KEY LINE: the value of KEY=... in fsyncbench's output line.
kv() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# cpu_ticks: "busy all", the guest CPU's time in /proc/stat ticks so far
# (busy: everything but idle and iowait). A cell whose CPU was busy all
# along was bounded by the CPU, not by the flushes.
cpu_ticks() {
	awk '$1 == "cpu" {
		for (i = 2; i <= NF; i++) all += $i
		print all - $5 - $6, all
	}' /proc/stat
}

# counters: "flushes fua writes commits charged_us" of the device now.
counters() {
	echo "$(module_param flushcost nr_flush) $(module_param flushcost nr_fua)" \
		"$(write_count $DEV) $(jbd2_commits $DEV) $(module_param flushcost charged_us)"
}

trace_start() {
	[ "$TRACE" = 1 ] || return 0
	echo 0 > $T/tracing_on
	echo 8192 > $T/buffer_size_kb
	echo > $T/trace
	block_event_filter $DEV > $T/events/block/block_rq_issue/filter
	echo 1 > $T/events/block/block_rq_issue/enable
	echo 1 > $T/tracing_on
}
# trace_counts: "flushes fua" issued to the device since trace_start,
# from the rwbs field (FF: a flush request; W...F: a FUA write).
trace_counts() {
	echo 0 > $T/tracing_on
	echo 0 > $T/events/block/block_rq_issue/enable
	trace_assert_complete "flush and FUA counts incomplete"
	awk '/block_rq_issue:/ {
		for (i = 1; i <= NF; i++) if ($i == "block_rq_issue:") break
		r = $(i + 2)
		if (r ~ /^FF/) f++
		else if (r ~ /^WF/) u++
	} END { print f + 0, u + 0 }' $T/trace
}

# measure PROFILE FUA MODE WORKLOAD THREADS REP SECS: one fsyncbench run
# in a fresh directory; its files are created and synced before counting.
# WORKLOAD may end in -thinkUS (fsyncbench --think-us US).
seq=0
measure() {
	seq=$((seq + 1))
	_dir=$MNT/r$seq
	_secs=$7
	_work=${4%-think*} _think=0
	case $4 in *-think*) _think=${4##*-think} ;; esac
	set -- "$1" "$2" "$3" "$4" "$5" "$6"
	mkdir "$_dir"
	fsyncbench --workload "$_work" --threads "$5" --dir "$_dir" --duration "$_secs" \
		--prepare-only > /dev/null || fail "fsyncbench --prepare-only failed"
	sync -f "$_dir"
	_ord0=$(jbd2_orderings $DEV)
	_bat0=$(jbd2_batches $DEV)
	_hold0=$(jbd2_holds $DEV)
	_cpu0=$(cpu_ticks)
	# shellcheck disable=SC2046  # five numbers
	set -- "$@" $(counters)
	[ $# -eq 11 ] || fail "cannot read the device counters"
	_line=$(fsyncbench --workload "$_work" --threads "$5" --dir "$_dir" --duration "$_secs" \
		--think-us "$_think" --tag "$1:$2:$3") || fail "fsyncbench failed: $_line"
	# shellcheck disable=SC2046
	set -- "$@" $(counters)
	[ $# -eq 16 ] || fail "cannot read the device counters"
	_ord=$(counts_diff "$_ord0" "$(jbd2_orderings $DEV)")
	_bat=$(counts_diff "$_bat0" "$(jbd2_batches $DEV)")
	_cpu=$(counts_diff "$_cpu0" "$(cpu_ticks)")
	_hold=$(counts_diff "$_hold0" "$(jbd2_holds $DEV)")
	# ${7}..${11} before the run, ${12}..${16} after
	# shellcheck disable=SC2086  # $_ord, $_bat, $_cpu, $_hold: several words
	result run "$1" "$2" "$3" "$4" "$5" "$6" "$(kv ops "$_line")" "$(kv syncs "$_line")" \
		"$(kv secs "$_line")" "$(kv ops_per_sec "$_line")" "$(kv p50_us "$_line")" \
		"$(kv p99_us "$_line")" $((${12} - ${7})) $((${13} - ${8})) $((${14} - ${9})) \
		$((${15} - ${10})) $((${16} - ${11})) $_ord $_bat $_cpu $_hold
	rm -rf "$_dir"
}

# device PROFILE FUA: null_blk + flushcost, every mode on it, then the
# model's own check.
device() {
	_us=$(flush_us "$1")
	flushcost_up "$SIZE" "$CACHE" "$_us" "$2"
	result device "$1" "$2" "$_us" "$(write_cache $DEV)" "$(fua $DEV)"
	assert_eq "$DEV write cache" "write back" "$(write_cache $DEV)"
	assert_eq "$DEV native FUA" "$2" "$(fua $DEV)"
	trace_start
	for _mode in $(echo "$MODES" | tr , ' '); do
		mkfs_dev ext4 /dev/$DEV
		dmesg_mark "mount-$1-$2-$_mode"
		if ! mount -t ext4 -o "$(mode_opts "$_mode")" /dev/$DEV $MNT 2>/tmp/mount.err; then
			_msg=$(dmesg_since "mount-$1-$2-$_mode" | grep -m 1 EXT4-fs | sed 's/^\[[^]]*\] *//')
			result refused "$1" "$2" "$_mode" "${_msg:-$(cat /tmp/mount.err)}"
			continue
		fi
		result fs "$1" "$2" "$_mode" "$(fs_features /dev/$DEV | tr ' ' ,)" \
			"$(dumpe2fs -h /dev/$DEV 2>/dev/null | sed -n 's/^Journal checksum type: *//p')"
		info "$1 fua=$2 $_mode: $(mount_opts $MNT)"
		for _run in $(echo "$RUNS" | tr , ' '); do
			# WORKLOAD[-thinkUS]:THREADS[:SECS]
			_w=${_run%%:*} _t=${_run#*:} _s=$SECS
			case $_t in *:*) _s=${_t#*:} _t=${_t%%:*} ;; esac
			_rep=1
			while [ $_rep -le "$REPS" ]; do
				measure "$1" "$2" "$_mode" "$_w" "$_t" $_rep "$_s"
				_rep=$((_rep + 1))
			done
		done
		umount $MNT
		e2fsck -fn /dev/$DEV > /tmp/fsck.log 2>&1 || { cat /tmp/fsck.log; fail "e2fsck -fn after $1 fua=$2 $_mode"; }
	done
	# Quiet now: every flush the block layer completed reached flushcost
	# and was charged, and (trace=1) every FUA write it issued too.
	_fc=$(module_param flushcost nr_flush)
	_st=$(flush_count $DEV)
	_fua=$(module_param flushcost nr_fua)
	_tr="- -"
	[ "$TRACE" = 1 ] && _tr=$(trace_counts)
	# shellcheck disable=SC2086  # two numbers, or "- -"
	result model "$1" "$2" "$_fc" "$_st" "$_fua" $_tr
	assert_eq "flushcost flushes vs /sys/block/$DEV/stat" "$_st" "$_fc"
	if [ "$TRACE" = 1 ]; then
		assert_eq "flushcost flushes vs block_rq_issue" "${_tr% *}" "$_fc"
		assert_eq "flushcost FUA writes vs block_rq_issue" "${_tr#* }" "$_fua"
	fi
	[ "$2" = 1 ] || assert_eq "FUA writes with emulated FUA" 0 "$_fua"
	flushcost_down
}

mkdir -p $MNT
for _d in $(echo "$DEVICES" | tr , ' '); do
	device "${_d%:*}" "${_d#*:}"
done
