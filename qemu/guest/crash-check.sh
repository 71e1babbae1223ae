#!/bin/sh
# crash-check.sh: lwreplay's checker for one crash state (busybox sh).
#
# lwreplay holds $LWR_DEV at the crash state and undoes it after we exit,
# so we must not write to it: a throw-away snapshot takes the writes of
# journal recovery (and is thrown away when the next state loads its own).
#
# Exit (lwreplay's classes): 0 consistent, 1 mount (journal recovery)
# failed, 2 e2fsck -fn found corruption, 3 a synced promise was broken or
# data no write put there is exposed; 10 the checker itself is broken
# (lwreplay aborts the run).
#
# Environment, set once per run by crash.sh:
#   CRASH_ORACLE   crashwork's oracle file (on tmpfs)
#   CRASH_COW      block device for the snapshot's exceptions (reused:
#                  a transient snapshot keeps its index in memory, so
#                  what an older snapshot left there does not matter)
#   CRASH_SECTORS  size of $LWR_DEV in 512-byte sectors
#   CRASH_MNT      mount point
#   CRASH_VERBOSE  1: print what every step said, also when all is well
#   CRASH_LOGDUMP  1: a failing state also prints debugfs logdump of its
#                  journal as the crash left it
# shellcheck shell=sh
SNAP=crashsnap
DEV=/dev/mapper/$SNAP
TMP=/tmp/crash-check
V=${CRASH_VERBOSE:-0}
MAX_REPORT=4
[ "$V" != 1 ] || MAX_REPORT=100

oops() { echo "crash-check: $*" >&2; exit 10; }
[ -f "$CRASH_ORACLE" ] || oops "no oracle '$CRASH_ORACLE'"
mkdir -p "$TMP" "$CRASH_MNT"
# A fresh transient snapshot per state; dmload replaces the device in a
# few ms (two dmsetup calls would cost 0.3 s here).
dmload "$SNAP" "0 $CRASH_SECTORS snapshot $LWR_DEV $CRASH_COW N 8" ||
	oops "cannot load a snapshot of $LWR_DEV"
# dm-log-writes ends every log with this mark of its own: all promises due.
upto="--upto=$LWR_MARK"
[ "$LWR_MARK" != dm-log-writes-end ] || upto=

# say WHAT FILE: a failure (or, verbose, every step) with its output.
# e2fsck's "WARNING: Filesystem still has errors" is toned down: the host
# reads "WARNING:" on the console as a kernel warning and fails the run.
say() {
	echo "crash-check $LWR_RECIPE (mark '${LWR_MARK}'): $1"
	sed -e 's/^/    /' -e 's/WARNING:/Warning:/g' "$2"
}

# Mounting is the kernel's own journal recovery. noatime: reading every
# file for the check should not dirty inodes (recovery is the same).
rc=0
if ! mount -t ext4 -o noatime "$DEV" "$CRASH_MNT" 2> "$TMP/mount"; then
	dmesg | tail -n 4 >> "$TMP/mount"
	say "mount failed" "$TMP/mount"
	exit 1
fi
[ "$V" != 1 ] || { dmesg | tail -n 3 > "$TMP/mount"; say "mounted" "$TMP/mount"; }

cw=0
# shellcheck disable=SC2086  # $upto is one word or none
crashwork check --dir "$CRASH_MNT" --oracle "$CRASH_ORACLE" $upto \
	--max-report $MAX_REPORT > "$TMP/check" 2>&1 || cw=$?
# A mark the oracle does not know is our bug, not the state's.
[ $cw != 3 ] || ! grep -q "no mark" "$TMP/check" || oops "$(cat "$TMP/check")"
case $cw in
0) [ "$V" != 1 ] || say "crashwork check ok" "$TMP/check" ;;
1) say "synced data lost (crashwork check exit 1)" "$TMP/check"; rc=3 ;;
4) say "foreign data exposed (crashwork check exit 4)" "$TMP/check"; rc=3 ;;
# The oracle was readable above, so a mounted fs that cannot be read
# back (EIO, EUCLEAN) is the state's fault, not ours.
3) say "files unreadable (crashwork check exit 3)" "$TMP/check"; rc=3 ;;
*) say "crashwork check exit $cw" "$TMP/check"; umount "$CRASH_MNT"; exit 10 ;;
esac
umount "$CRASH_MNT" || oops "cannot unmount $CRASH_MNT"

if ! e2fsck -fn "$DEV" > "$TMP/fsck" 2>&1; then
	say "e2fsck -fn found problems" "$TMP/fsck"
	rc=2	# one class per state: corruption first, it explains lost data
else
	[ "$V" != 1 ] || say "e2fsck -fn clean" "$TMP/fsck"
fi
if [ $rc != 0 ] && [ "${CRASH_LOGDUMP:-0}" = 1 ]; then
	debugfs -c -R logdump "$LWR_DEV" > "$TMP/logdump" 2>&1
	say "journal as the crash left it" "$TMP/logdump"
fi
exit $rc
