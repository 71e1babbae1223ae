#!/bin/sh
# abort-fsync: an fsync that comes after a commit aborted must not return
# 0 for a change that commit held. jbd2 ends an aborted commit's
# transaction (j_commit_sequence moves past it, so its waiters wake), and
# a caller that then finds nothing in flight must not take "ended" for
# "committed" (patches 27 and 29).
#
# Per mode: a directory and a file in it made durable; the next cache
# flush set to fail (flushcost fail_flush=1, the device then recovers); an
# empty file created in that directory, so its inode and directory entry
# sit in the running transaction; the periodic commit (commit=1) aborts
# the journal on the failed flush. Nothing starts a handle after that,
# so ext4 has not noticed the abort (no "Detected aborted journal", no
# shutdown): the fsyncs below reach jbd2. Then
#   fsync(dir)   ext4_force_commit(): nothing left to commit
#   fsync(file)  ext4_fc_commit() / jbd2_complete_transaction(): the
#                file's tid no longer in flight
# must both fail with EIO. The file's own cache flush, which ext4 sends
# when the commit promised none, goes to the recovered device and
# succeeds: it cannot hide a 0.
#
# Args: modes=default,barrier,fast-commit
#
# jbd2t-modules: flushcost
# jbd2t-timeout: 300
. /jbd2t/lib.sh
. /jbd2t/crash-lib.sh

MODES=$(arg modes default,barrier,fast-commit "$@")
DEV=/dev/fcost0
MNT=/mnt
P=/sys/module/flushcost/parameters
bad=0

# wait_for_abort MARK: until jbd2 reports the abort (at most 20 s).
wait_for_abort() {
	_i=0
	while ! dmesg_since "$1" | grep -q "Aborting journal on device"; do
		_i=$((_i + 1))
		[ $_i -le 20 ] || return 1
		sleep 1
	done
}

# fsync_result PATH: "ok" if fsync(2) returned 0, "EIO" if it failed
# with EIO, else busybox sync's message (an open that failed, another
# errno), which fails the scenario below.
fsync_result() {
	if _err=$(sync "$1" 2>&1); then
		echo ok
	elif echo "$_err" | grep -q "Input/output error"; then
		echo EIO
	else
		echo "$_err" | tr '\t\n' '  '
	fi
}

# check MODE WHAT RESULT: a late fsync must fail with EIO.
check() {
	case $3 in
	EIO) info "$1: fsync($2) failed with EIO, as it must" ;;
	ok)	info "$1: fsync($2) returned 0 after the commit holding it aborted"
		bad=$((bad + 1)) ;;
	*) fail "$1: fsync($2) failed, but not with EIO: $3" ;;
	esac
}

run_mode() {
	m=$1
	flushcost_up 64 16 0 1
	# shellcheck disable=SC2046  # the mode's mkfs words
	mkfs_dev ext4 $DEV -b 4096 $(mode_mkfs "$m")
	mount -t ext4 -o "$(mode_opts "$m"),commit=1" $DEV $MNT ||
		fail "$m: mount failed"
	mkdir $MNT/d
	echo kept > $MNT/d/kept
	fsync_file $MNT/d/kept
	fsync_file $MNT/d

	dmesg_mark "abort-$m"
	echo 1 > $P/fail_flush
	: > $MNT/d/new
	wait_for_abort "abort-$m" || fail "$m: no journal abort within 20 s"
	# jbd2 reports the abort before the aborted commit has ended its
	# transaction; until then an fsync would wait for the commit and
	# get EIO from that, not from the path under test.
	sleep 1
	# The window under test: jbd2 aborted, ext4 not yet shut down.
	! dmesg_since "abort-$m" |
		grep -qE "Detected aborted journal|EXT4-fs error|shut down|Remounting" ||
		fail "$m: ext4 noticed the abort before the fsyncs"
	dir=$(fsync_result $MNT/d)
	file=$(fsync_result $MNT/d/new)
	result late-fsync "$m" "$dir" "$file" \
		"$(module_param flushcost nr_flush_failed)"
	assert_eq "$m: failed flushes" 1 "$(module_param flushcost nr_flush_failed)"
	check "$m" dir "$dir"
	check "$m" file "$file"

	umount $MNT || fail "$m: umount failed"
	flushcost_down
}

for m in $(echo "$MODES" | tr , ' '); do
	run_mode "$m"
done
[ $bad -eq 0 ] || fail "$bad late fsyncs returned 0"
