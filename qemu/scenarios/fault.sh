#!/bin/sh
# fault: the device fails under a running fsync workload. Does fsync say
# so (never 0 for an operation that was not made durable), does the
# journal abort and the filesystem stop writing, and after a remount or a
# power cut that drops the volatile cache, is every operation that fsync
# acknowledged before the fault still there?
#
# The device: ext4 on flushcost (qemu/modules/flushcost, no charges) on
# dm-log-writes on vda (log on vdb, vdc a copy of the fresh filesystem).
# crashwork runs a workload and records what each sync acknowledged;
# right after mark N it arms the fault through flushcost's knobs, so the
# fault starts at the same point of every run. The workload stops at its
# first failing call. What fails in flushcost never reaches the log.
#
# Cases (the knobs written at mark N):
#   flush-all    fail_flush=-1: every cache flush fails from then on
#   write-all    fail_write=-1: every write fails (FUA writes included)
#   drop         drop_write=1: writes and flushes acknowledged, not done
#   flush-once   fail_flush=1: one flush fails, then the device recovers
#   batch-once   flush-once under BATCH_THREADS threads of names, default
#                mode only, with flushes and FUA writes charged
#                BATCH_FLUSH_US each, armed after the marks of BATCH_AFTER
#                (the threads in their stride): the failing flush is a
#                batch flush, and every thread whose transaction it
#                covered must get EIO; threads whose transactions were
#                already durable may still be acknowledged after mark N,
#                so the checks hold the files to every acknowledged
#                operation. Until a failed flush has covered several
#                transactions (about one run in two: the threads tend
#                to share a transaction), the points of BATCH_AFTER are
#                run again, at most BATCH_RETRY more runs.
#   fsdev-flush  fail_flush=-1 with an external journal (on vdd, which
#                never fails): only the file system device's flushes
#                fail, in the modes of ext_modes. Metadata alone is safe
#                in the journal, so names may go on being acknowledged
#                and the journal need not abort before the unmount; with
#                data (append, owsync) some fsync after the fault returns
#                EIO. Either way a commit or a checkpoint that needed
#                the flush must not act as if it happened: the checks
#                hold the files to every acknowledged operation (ext_threads
#                threads, so some may be acknowledged after the fault),
#                and the power cut keeps the journal device as it was at
#                the unmount (copied to vde) while it drops every file
#                system write after the last good flush. Some flush must
#                have failed.
#   none         nothing (the nobarrier negative control)
#   fsdev-none   nothing, with the journal external as in fsdev-flush
#                (its nobarrier negative control)
# Each trial is then checked twice ("cut"):
#   remount      unmount, clear the fault, mount again (journal recovery)
#   powercut     the state a power cut leaves after the first unmount:
#                lwreplay rebuilds it on vdc from the log, keeping only
#                what was flushed or written with FUA (every write after
#                the last good flush is lost), and it is mounted there
# crashwork check holds the files to the promises made up to mark N (to
# every acknowledged one for batch-once and fsdev-flush).
# (null_blk's power toggle is no power cut here: a write to a page that
# was ever flushed goes straight to its backing store.)
#
# Args: cases=flush-all,write-all,drop,flush-once modes=default,barrier
#   workloads=names,append,replace after=2,5 cuts=remount,powercut
#   ops=8 (per run and thread, more than every N) control=1 (add the
#   negative control: nobarrier, no fault, power cut, which must lose
#   data; and with the journal external too if fsdev-flush is run)
#   batch_threads=8 batch_flush_us=8000 batch_after=12,24,36 batch_retry=6
#   ext_modes=default,barrier,fast-commit ext_threads=4 (fsdev-flush's
#   threads; with several, an fsync may return for a commit another
#   thread ran) ext_workloads=names,append,owsync ext_after=AFTER
#   (fsdev-flush's workloads and fault points)
#
# Row per trial (results.tsv): trial CASE MODE WORKLOAD N CUT RC MARKS
#   ACKED_AFTER SYNC_ERR ABORTED RDONLY ORDERED FULL FLUSH_FAILED
#   WRITE_FAILED DROPPED FLUSHES MOUNT LOST EXPOSED FSCK LIE_LOST VERDICT
# RC crashwork run's exit (5: an fsync failed); SYNC_ERR the failing call
# and errno, "-" if none; ACKED_AFTER ops acknowledged after the fault;
# ABORTED 1 if jbd2 aborted the journal, RDONLY 1 if ext4 stopped writes
# (a new file is refused and it said "Remounting filesystem read-only");
# ORDERED/FULL the mount's commits checksum-ordered / with a full barrier
# before the unmount; FLUSHES the flushes that reached the device by then;
# LOST/EXPOSED crashwork check's counts; FSCK e2fsck
# -fn's exit after the recovery mount ("orphans": clean after the
# preen of a dropped orphan list, fsck_fs); LIE_LOST what the check finds when
# told every acknowledged op was owed (drop only: the deliberate lie of
# the device must show as loss, or the checker has no teeth); VERDICT ok,
# control, or FAIL:<reasons>. A refused mount gives "refused MODE MSG".
# batch-once adds "batch CASE MODE WORKLOAD N COVERED": the transactions
# the failed batch flush covered (jbd2_batch_flush_* tracepoints), 0 if
# no batch flush failed.
#
# jbd2t-disks: 48M 256M 48M 16M 16M
# jbd2t-modules: flushcost
# jbd2t-timeout: 1800
. /jbd2t/lib.sh
. /jbd2t/crash-lib.sh

CASES=$(arg cases flush-all,write-all,drop,flush-once "$@")
MODES=$(arg modes default,barrier "$@")
WORKLOADS=$(arg workloads names,append,replace "$@")
AFTER=$(arg after 2,5 "$@")
OPS=$(arg ops 8 "$@")
BATCH_THREADS=$(arg batch_threads 8 "$@")
BATCH_FLUSH_US=$(arg batch_flush_us 8000 "$@")
BATCH_AFTER=$(arg batch_after 12,24,36 "$@")
BATCH_RETRY=$(arg batch_retry 6 "$@")
CONTROL=$(arg control 1 "$@")
EXT_MODES=$(arg ext_modes default,barrier,fast-commit "$@")
EXT_THREADS=$(arg ext_threads 4 "$@")
EXT_WORKLOADS=$(arg ext_workloads names,append,owsync "$@")
EXT_AFTER=$(arg ext_after "$AFTER" "$@")
DEV=fcost0
MNT=/mnt/fs
P=/sys/module/flushcost/parameters
ORACLE=/tmp/oracle
# The most transactions a failed batch flush covered in a batch-once run.
batch_most=0

mkdir -p $MNT
dmesg -n 5

# knobs CASE: the crashwork --arm arguments of a case.
knobs() {
	case $1 in
	flush-all|fsdev-flush) echo "--arm $P/fail_flush=-1" ;;
	write-all) echo "--arm $P/fail_write=-1" ;;
	drop) echo "--arm $P/drop_write=1" ;;
	flush-once|batch-once) echo "--arm $P/fail_flush=1" ;;
	none|fsdev-none) echo "--arm $P/fail_flush=0" ;;
	*) fail "unknown case '$1'" ;;
	esac
}
knobs_clear() {
	echo 0 > $P/fail_flush
	echo 0 > $P/fail_write
	echo 0 > $P/drop_write
}
kmsg_has() { dmesg_since "$MARK" | grep -q "$1"; }

# The batch flush tracepoints, for batch-once.
BATCH_EVENTS="jbd2_batch_flush_submit jbd2_batch_flush_complete"
# batch_trace_failed: how many transactions the first failed batch flush
# covered (its submission names them), 0 if none failed.
batch_trace_failed() {
	# shellcheck disable=SC2086  # the event names are words
	jbd2_trace_off $BATCH_EVENTS
	awk '
	function field(name,   i) {
		for (i = 1; i < NF; i++) if ($i == name) return $(i + 1)
	}
	/jbd2_batch_flush_submit:/ { split(field("transactions"), r, "-"); first = r[1]; last = r[2] }
	/jbd2_batch_flush_complete:/ && field("error") != 0 { n = last - first + 1; exit }
	END { print n + 0 }' $TRACEFS/trace
}

# point_of LIST I: the I-th (from 0, cycling) of the comma list LIST.
point_of() {
	echo "$1" | tr , '\n' | awk -v i="$2" '{ p[NR] = $0 } END { print p[i % NR + 1] }'
}

# external CASE: 0 if CASE puts the journal on its own device (vdd).
external() {
	case $1 in fsdev-*) return 0 ;; esac
	return 1
}

# journal_of CASE: the name jbd2 gives the journal (/proc/fs/jbd2, the
# abort message).
journal_of() {
	if external "$1"; then echo vdd; else echo $DEV-8; fi
}

# stack_up CASE MODE: a fresh ext4 on vda (its journal on vdd if the case
# wants it external), its copy on vdc (the power cut's base image), then
# vda behind dm-log-writes (log on vdb) behind flushcost.
stack_up() {
	if external "$1"; then
		mkfs.ext4 -q -F -O journal_dev -b 4096 /dev/vdd ||
			fail "mkfs.ext4 -O journal_dev /dev/vdd failed"
		# shellcheck disable=SC2046  # the mode's mkfs words
		mkfs_dev ext4 /dev/vda -b 4096 -J device=/dev/vdd $(mode_mkfs "$2")
	else
		# shellcheck disable=SC2046  # the mode's mkfs words
		mkfs_dev ext4 /dev/vda $(mode_mkfs "$2")
	fi
	dd if=/dev/vda of=/dev/vdc bs=1M 2> /dev/null || fail "copy vda to vdc"
	dd if=/dev/zero of=/dev/vdb bs=1M count=1 2> /dev/null || fail "zero vdb"
	dm create lw --table "0 $(blockdev --getsz /dev/vda) log-writes /dev/vda /dev/vdb" ||
		fail "dmsetup create lw"
	load_module flushcost lower=/dev/mapper/lw flush_us=0 fua_us=0 fua=1
}
stack_down() {
	rmmod flushcost || fail "rmmod flushcost"
	dm remove lw || fail "dmsetup remove lw"
}

# fsck_orphan_leak LOG: every complaint of e2fsck -fn in LOG is one a
# dropped orphan list leaves behind. After an abort the filesystem is
# marked with errors, and then neither ext4's mount nor e2fsck trusts its
# orphan list: they clear it unread. An inode that a committed rmdir or
# unlink put on the list, and whose release never committed, keeps its
# mode and its bitmap bits with no links. So allowed are: "Deleted inode
# N has zero dtime", bitmap bits set for nothing ("-" differences) and
# the counts that follow. A bit missing from a bitmap ("+": something in
# use that the allocator may hand out again) or any other complaint is
# corruption.
fsck_orphan_leak() {
	awk '
	/^e2fsck [0-9]/ || /^Pass [1-5]/ || /^Fix\? no$/ || /^$/ { next }
	/still has errors/ || /files \(.*non-contiguous\)/ { next }
	/^Deleted inode [0-9]+ has zero dtime\.  Fix\? no$/ { leaked++; next }
	/^(Block|Inode) bitmap differences: / && !/\+/ { next }
	/^(Free blocks|Free inodes|Directories) count wrong/ { next }
	{ other++ }
	END { exit !(leaked > 0 && other == 0) }' "$1"
}

# fsck_fs DEV CHECKMARK [JOURNAL]: e2fsck -fn DEV into $fsck: 0 if
# clean, "orphans" if the mount since CHECKMARK cleared the orphan list
# of a filesystem with errors, all complaints are that list's leaked
# inodes, and the repair a boot-time fsck makes without asking (-p)
# leaves DEV clean; else e2fsck's exit code. JOURNAL: the external
# journal's device.
fsck_fs() {
	_mark=$2
	set -- ${3:+-j "$3"} "$1"
	fsck=0
	e2fsck -fn "$@" > /tmp/fsck.log 2>&1 || fsck=$?
	[ "$fsck" != 0 ] || return 0
	sed -e 's/^/    /' -e 's/WARNING:/Warning:/g' /tmp/fsck.log
	dmesg_since "$_mark" | grep -q "Errors on filesystem, clearing orphan list" || return 0
	fsck_orphan_leak /tmp/fsck.log || return 0
	e2fsck -fp "$@" > /tmp/preen.log 2>&1 || [ $? = 1 ] || return 0
	e2fsck -fn "$@" > /tmp/fsck.log 2>&1 || return 0
	info "$_mark: e2fsck -fp released the inodes of a dropped orphan list"
	fsck=orphans
}

# check_fs DEV N DROP [JOURNAL]: mount DEV (journal recovery; JOURNAL:
# the external journal's device), hold it to the promises made up to
# mark N, e2fsck (fsck_fs). Sets mnt lost exposed fsck, and lie (DROP=1:
# the loss found when every acknowledged op is owed).
check_fs() {
	mnt=ok lost=- exposed=- fsck=- lie=-
	checkmark="$MARK-check-${1##*/}"
	dmesg_mark "$checkmark"
	if ! mount -t ext4 -o "noatime${4:+,journal_path=$4}" "$1" $MNT 2> /tmp/mount.err; then
		mnt=failed
		dmesg | tail -n 5
		return 0
	fi
	crashwork check --dir $MNT --oracle $ORACLE --upto "$(printf m%06d "$2")" \
		> /tmp/check.out 2>&1 || true
	cat /tmp/check.out
	lost=$(sed -n 's/.*: \([0-9]*\) lost, \([0-9]*\) exposed$/\1/p' /tmp/check.out)
	exposed=$(sed -n 's/.*: \([0-9]*\) lost, \([0-9]*\) exposed$/\2/p' /tmp/check.out)
	[ -n "$lost" ] || fail "$MARK: crashwork check said nothing: $(cat /tmp/check.out)"
	if [ "$3" = 1 ]; then
		crashwork check --dir $MNT --oracle $ORACLE > /tmp/lie.out 2>&1 || true
		lie=$(sed -n 's/.*: \([0-9]*\) lost, .*/\1/p' /tmp/lie.out)
	fi
	umount $MNT || fail "$MARK: umount after the check failed"
	fsck_fs "$1" "$checkmark" "${4:-}"
}

# verdict CASE WORKLOAD: ok, control or FAIL:reasons, from the trial's
# variables.
verdict() {
	why=
	case $1:$2 in
	none:*|fsdev-none:*) echo control; return ;;
	drop:*)
		[ "$rc" = 0 ] || why="$why,run-exit-$rc"
		[ "$lie" != - ] && [ "$lie" -gt 0 ] || why="$why,lie-not-seen" ;;
	fsdev-flush:names)
		[ "$rc" = 0 ] || [ "$rc" = 5 ] || why="$why,run-exit-$rc"
		[ "${cnt%% *}" -gt 0 ] || why="$why,no-flush-failed" ;;
	*)
		[ "$rc" = 5 ] || why="$why,no-fsync-error"
		# With threads, the first sync to fail may meet the shutdown
		# another thread's abort caused (EROFS): some sync must say EIO.
		case $err:$sync_eio in
		*:Input/output_error:*|*:Read-only_file_system:1) ;;
		*) why="$why,not-EIO" ;;
		esac
		# With threads (batch-once, fsdev-flush with ext_threads > 1),
		# acknowledged after mark N is allowed (a transaction already
		# durable); their checks cover every acknowledged op.
		[ "$acked" = 0 ] || [ "$threads" -gt 1 ] || why="$why,acked-after-fault"
		# fsdev-flush: the journal device works, metadata is safe.
		external "$1" || [ "$aborted" = 1 ] || why="$why,not-aborted"
		external "$1" || [ "$rdonly" = 1 ] || why="$why,still-writable" ;;
	esac
	[ "$mnt" = ok ] || why="$why,mount-failed"
	[ "$lost" = 0 ] || why="$why,lost"
	[ "$exposed" = 0 ] || why="$why,exposed"
	case $fsck in 0|orphans) ;; *) why="$why,fsck-$fsck" ;; esac
	echo "${why:+FAIL:${why#,}}" | sed 's/^$/ok/'
}

# trial CASE MODE WORKLOAD N: one run, two rows (remount, powercut).
trial() {
	c=$1 m=$2 w=$3 n=$4
	MARK="fault-$c-$m-$w-$n"
	info "trial $MARK"
	jname=$(journal_of "$c")
	journal='' cut_journal=''
	if external "$c"; then
		journal=/dev/vdd cut_journal=/dev/vde
	fi
	stack_up "$c" "$m"
	dmesg_mark "$MARK"
	if ! mount -t ext4 -o "$(mode_opts "$m")${journal:+,journal_path=$journal}" \
			/dev/$DEV $MNT 2> /tmp/mount.err; then
		result refused "$m" "$(dmesg_since "$MARK" | grep -m 1 EXT4-fs | sed 's/^\[[^]]*\] *//')"
		stack_down
		return 0
	fi
	rm -f $ORACLE
	threads=1
	! external "$c" || threads=$EXT_THREADS
	if [ "$c" = batch-once ]; then
		threads=$BATCH_THREADS
		echo "$BATCH_FLUSH_US" > $P/flush_us
		echo "$BATCH_FLUSH_US" > $P/fua_us
		# shellcheck disable=SC2086  # the event names are words
		jbd2_trace_on $BATCH_EVENTS
	fi
	rc=0
	# shellcheck disable=SC2046  # the --arm words
	crashwork run "$w" --dir $MNT --oracle $ORACLE --ops "$OPS" \
		--threads "$threads" --arm-after "$n" $(knobs "$c") \
		> /tmp/cw.out 2> /tmp/cw.err || rc=$?
	cat /tmp/cw.out /tmp/cw.err
	summary=$(grep '^crashwork: ' /tmp/cw.out | tail -n 1)
	marks=$(echo "$summary" | sed -n 's/^crashwork: [a-z]*: \([0-9]*\) marks.*/\1/p')
	case $rc in 0|5) ;; *) fail "$MARK: crashwork run exit $rc: $(cat /tmp/cw.err)" ;; esac
	acked=$((marks - n))
	# The promises the checks hold the files to: up to mark N, or every
	# acknowledged one where others may legitimately follow the fault.
	upto=$n
	! external "$c" || upto=$marks
	if [ "$c" = batch-once ]; then
		upto=$marks
		covered=$(batch_trace_failed)
		[ "$covered" -le "$batch_most" ] || batch_most=$covered
		result batch "$c" "$m" "$w" "$n" "$covered"
	fi
	err=$(echo "$summary" | sed -n 's/.*, failed: \([a-z]*\): \(.*\)$/\1:\2/p' | tr ' ' _)
	sync_eio=0
	! grep -Eq '^crashwork: f(data)?sync .*: Input/output error$' /tmp/cw.err || sync_eio=1
	# The fault reaches the journal at the latest with the next commit.
	sync -f $MNT 2> /dev/null || true
	# Once ext4 has seen the abort it must refuse a new file.
	rdonly=0
	if ! touch $MNT/probe 2> /dev/null && kmsg_has "Remounting filesystem read-only"; then
		rdonly=1
	fi
	aborted=0
	! kmsg_has "Aborting journal on device $jname" || aborted=1
	ord=$(jbd2_orderings $DEV "$jname")
	cnt="$(module_param flushcost nr_flush_failed) $(module_param flushcost nr_write_failed) $(module_param flushcost nr_dropped) $(module_param flushcost nr_flush)"
	umount $MNT || fail "$MARK: umount failed"
	# The power cut comes here: after the first unmount. An external
	# journal's device loses nothing: it keeps what it held then.
	dm message lw 0 mark powercut || fail "cannot mark the log"
	if [ -n "$journal" ]; then
		dd if=$journal of=$cut_journal bs=1M 2> /dev/null ||
			fail "$MARK: copy $journal to $cut_journal"
	fi
	knobs_clear
	echo 0 > $P/flush_us
	echo 0 > $P/fua_us
	drop=0
	[ "$c" != drop ] || drop=1
	for cut in remount powercut; do
		if [ $cut = remount ]; then
			check_fs /dev/$DEV "$upto" $drop "$journal"
			stack_down
		else
			point=$(lwreplay info /dev/vdb | awk '$2 == "powercut" { print $1 }')
			[ -n "$point" ] || fail "$MARK: no powercut mark in the log"
			lwreplay apply /dev/vdb /dev/vdc "$point:none" > /dev/null ||
				fail "$MARK: lwreplay apply $point:none failed"
			check_fs /dev/vdc "$upto" $drop "$cut_journal"
		fi
		# shellcheck disable=SC2086  # $ord and $cnt are several fields
		result trial "$c" "$m" "$w" "$n" "$cut" "$rc" "$marks" "$acked" "${err:--}" \
			"$aborted" "$rdonly" $ord $cnt "$mnt" "$lost" "$exposed" "$fsck" "$lie" \
			"$(verdict "$c" "$w")"
	done
}

for c in $(echo "$CASES" | tr , ' '); do
	modes=$MODES workloads=$WORKLOADS
	! external "$c" || modes=$EXT_MODES workloads=$EXT_WORKLOADS
	for m in $(echo "$modes" | tr , ' '); do
		for w in $(echo "$workloads" | tr , ' '); do
			# A batch flush: checksum-ordered commits of names only.
			[ "$c" != batch-once ] || [ "$m:$w" = default:names ] || continue
			after=$AFTER
			[ "$c" != batch-once ] || after=$BATCH_AFTER
			! external "$c" || after=$EXT_AFTER
			for n in $(echo "$after" | tr , ' '); do
				trial "$c" "$m" "$w" "$n"
			done
			[ "$c" = batch-once ] || continue
			# More runs until a failed flush covered several.
			retry=0
			while [ "$batch_most" -lt 2 ] && [ $retry -lt "$BATCH_RETRY" ]; do
				trial "$c" "$m" "$w" "$(point_of "$after" $retry)"
				retry=$((retry + 1))
			done
		done
	done
done
# The negative control: without barriers, a power cut loses what fsync
# acknowledged; a checker that sees nothing here would prove nothing.
if [ "$CONTROL" = 1 ]; then
	for w in $(echo "$WORKLOADS" | tr , ' '); do
		trial none nobarrier "$w" "$OPS"
		[ "${CASES#*fsdev-flush}" = "$CASES" ] ||
			trial fsdev-none nobarrier "$w" "$OPS"
	done
fi
