# Helpers for guest scenarios (busybox sh). Source it first:
#   . /jbd2t/lib.sh
# A scenario writes what it measured with `result`, stops at the first
# broken expectation with `fail` (or an assert_*), and exits 0 otherwise.
# shellcheck shell=sh
set -eu
RESULTS=${RESULTS:-/results}
TAB=$(printf '\t')
# libdevmapper must not wait for udev: there is none in the guest.
export DM_DISABLE_UDEV=1

# result FIELD...: one tab-separated row, on the console and in results.tsv.
result() {
	_line=$(printf "%s$TAB" "$@")
	_line=${_line%"$TAB"}
	echo "@@JBD2T RESULT $_line"
	echo "$_line" >> "$RESULTS/results.tsv"
}
# fail MESSAGE: the scenario fails here (rc 1).
fail() {
	echo "FAIL: $*" >&2
	echo "$*" >> "$RESULTS/failures"
	exit 1
}
info() { echo "jbd2t: $*"; }
assert_eq() { [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"; }   # WHAT WANT GOT
assert_ge() { [ "$3" -ge "$2" ] || fail "$1: expected >= $2, got $3"; }  # WHAT MIN GOT

# Per-device counters from /sys/block/DEV/stat (Documentation/block/stat.rst):
# field 5 = write requests completed, field 16 = flush requests completed.
_blk_stat() {
	_v=$(awk -v f="$2" '{ print $f }' "/sys/block/$1/stat")
	[ -n "$_v" ] || fail "/sys/block/$1/stat has no field $2"
	echo "$_v"
}
flush_count() { _blk_stat "$1" 16; }
write_count() { _blk_stat "$1" 5; }
# write_cache DEV: "write back" or "write through". Flushes only reach a
# device whose cache is volatile ("write back"); otherwise the block layer
# drops them, and a flush count of 0 would prove nothing.
write_cache() { cat "/sys/block/$1/queue/write_cache"; }
# fua DEV: 1 if the device takes FUA writes; if 0, the block layer turns a
# FUA write into write + flush (so a jbd2 commit block costs two flushes).
fua() { cat "/sys/block/$1/queue/fua"; }
# fs_features DEV: the "Filesystem features" line of the superblock.
fs_features() { dumpe2fs -h "$1" 2>/dev/null | sed -n 's/^Filesystem features: *//p'; }

# mount_opts MNT: the option string /proc/mounts shows for MNT (last mount).
mount_opts() { awk -v m="$1" '$2 == m { o = $4 } END { print o }' /proc/mounts; }
# mount_has_opt MNT OPT: true if OPT (exact, e.g. nobarrier) is among them.
mount_has_opt() { mount_opts "$1" | tr , '\n' | grep -qx -- "$2"; }
# mount_fstype MNT: the type /proc/mounts shows for MNT.
mount_fstype() { awk -v m="$1" '$2 == m { t = $3 } END { print t }' /proc/mounts; }

# mkfs_dev FSTYPE DEV [MKFS_ARG...]: a fresh filesystem. Inode tables and
# journal are zeroed now, not lazily after mount: the ext4lazyinit thread
# writes and flushes in the background and would pollute I/O counts.
mkfs_dev() {
	_fs=$1 _dev=$2
	shift 2
	"mkfs.$_fs" -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$@" "$_dev" ||
		fail "mkfs.$_fs $_dev failed"
}

# fsync_file FILE: fsync(2) on FILE (busybox `sync FILE`; a bare `sync`
# would sync every filesystem and the block devices, which flushes).
fsync_file() { [ -n "${1:-}" ] && sync "$1"; }

# checksum FILE
checksum() { md5sum "$1" | cut -d' ' -f1; }

# Kernel log since a mark: dmesg_mark NAME; ...; dmesg_since NAME
dmesg_mark() { echo "jbd2t-mark: $1" > /dev/kmsg; }
dmesg_since() { dmesg | sed -n "/jbd2t-mark: $1\$/,\$p" | sed 1d; }

# load_module NAME [PARAM=VALUE...]: insmod a test-only module from
# qemu/modules/, built for the running kernel by scenario.sh when the
# scenario's header says "# jbd2t-modules: NAME ...".
load_module() {
	_ko=/lib/modules/$(uname -r)/$1.ko
	[ -f "$_ko" ] || fail "no $1.ko for kernel $(uname -r): missing from the jbd2t-modules header?"
	shift
	insmod "$_ko" "$@" || fail "insmod $_ko $* failed"
}
# module_param MODULE NAME: a module parameter's value from sysfs.
module_param() { cat "/sys/module/$1/parameters/$2"; }

# nullb_create NAME SIZE_MB [ATTR=VALUE...]: a null_blk device /dev/NAME
# made through configfs (null_blk is built in; its nullb0 stays unused),
# e.g. nullb_create ram 1024 memory_backed=1 cache_size=64 fua=1.
nullb_create() {
	_d=/sys/kernel/config/nullb/$1
	mkdir "$_d" || fail "cannot create null_blk device $1 (configfs mounted?)"
	echo "$2" > "$_d/size"
	shift 2
	for _a in "$@"; do
		echo "${_a#*=}" > "$_d/${_a%%=*}" || fail "null_blk $_d: cannot set $_a"
	done
	echo 1 > "$_d/power"
	[ -b "/dev/${_d##*/}" ] || fail "null_blk device /dev/${_d##*/} did not appear"
}
# nullb_remove NAME: power the device off and free its memory.
nullb_remove() {
	echo 0 > "/sys/kernel/config/nullb/$1/power"
	rmdir "/sys/kernel/config/nullb/$1"
}

# flushcost_up SIZE_MB CACHE_MB FLUSH_US FUA: the flush-cost device
# /dev/fcost0 (qemu/modules/flushcost) over a RAM-backed null_blk with a
# volatile cache, charging FLUSH_US per flush and FUA write; FUA=0 makes
# the block layer emulate FUA. flushcost_down removes both.
flushcost_up() {
	nullb_create fcbase "$1" memory_backed=1 cache_size="$2" fua=1 blocksize=4096
	load_module flushcost lower=/dev/fcbase flush_us="$3" fua_us="$3" fua="$4"
}
flushcost_down() {
	rmmod flushcost || fail "rmmod flushcost"
	nullb_remove fcbase
}

# jbd2_trace_on EVENT...: record these jbd2 tracepoints from now on, in
# an emptied buffer (8 MiB a CPU); jbd2_trace_off EVENT... stops and fails
# the scenario if the buffer overran. The events are in $TRACEFS/trace.
TRACEFS=/sys/kernel/tracing
jbd2_trace_on() {
	echo 0 > $TRACEFS/tracing_on
	echo 8192 > $TRACEFS/buffer_size_kb
	echo > $TRACEFS/trace
	for _e in "$@"; do echo 1 > "$TRACEFS/events/jbd2/$_e/enable"; done
	echo 1 > $TRACEFS/tracing_on
}
jbd2_trace_off() {
	echo 0 > $TRACEFS/tracing_on
	for _e in "$@"; do echo 0 > "$TRACEFS/events/jbd2/$_e/enable"; done
	trace_assert_complete "the recorded jbd2 events are incomplete"
}
# trace_assert_complete WHY: fail with WHY if the trace buffer overran,
# that is if it holds fewer events than were written to it (its header:
# "entries-in-buffer/entries-written: KEPT/WRITTEN   #P:CPUS").
trace_assert_complete() {
	_te=$(sed -n 's|^# entries-in-buffer/entries-written: \([0-9]*\)/\([0-9]*\) .*|\1 \2|p' \
		$TRACEFS/trace | head -n 1)
	[ -n "$_te" ] || fail "no entries line in $TRACEFS/trace"
	[ "${_te% *}" = "${_te#* }" ] || fail "trace buffer overran (${_te% *} of ${_te#* } events kept): $1"
}

# jbd2_commits DEV: transactions committed so far by the journal of the
# ext4 mounted from DEV (internal journal: /proc/fs/jbd2/DEV-8/info).
jbd2_commits() {
	_v=$(awk 'NR == 1 { print $1 }' "/proc/fs/jbd2/$1-8/info" 2>/dev/null)
	[ -n "$_v" ] || fail "no jbd2 statistics for $1 in /proc/fs/jbd2"
	echo "$_v"
}

# jbd2_orderings DEV [JOURNAL]: "ORDERED FULL", the commits sent
# checksum-ordered and with a full barrier so far (the series' info line),
# or "- -" on a kernel without it. JOURNAL names an external journal's
# device (its /proc/fs/jbd2 entry); else the journal is DEV's inode 8.
jbd2_orderings() {
	_v=$(sed -n 's/^\([0-9]*\) commits checksum-ordered, \([0-9]*\) with a full barrier$/\1 \2/p' \
		"/proc/fs/jbd2/${2:-$1-8}/info" 2>/dev/null)
	echo "${_v:-- -}"
}

# jbd2_batches DEV: "FLUSHES COVERED", the batch flushes the journal sent
# and the written transactions they made durable (the series' info line),
# or "- -" on a kernel without it.
jbd2_batches() {
	_v=$(sed -n 's/^\([0-9]*\) batch flushes covering \([0-9]*\) transactions$/\1 \2/p' \
		"/proc/fs/jbd2/$1-8/info" 2>/dev/null)
	echo "${_v:-- -}"
}

# jbd2_holds DEV: "HITS MISSES SKIPS", the batch flushes held after a
# completion that ended with a commit written and with none, and the
# holds skipped after misses (the series' info line), or "- - -" on a
# kernel without it.
jbd2_holds() {
	_v=$(sed -n 's/^\([0-9]*\) batch flush holds ended by a commit, \([0-9]*\) with none, \([0-9]*\) skipped$/\1 \2 \3/p' \
		"/proc/fs/jbd2/$1-8/info" 2>/dev/null)
	echo "${_v:-- - -}"
}

# counts_diff "A1 A2..." "B1 B2...": "B1-A1 B2-A2...", the counts of a
# run from two readings; "-" for a count the kernel does not have.
counts_diff() {
	echo "$1|$2" | awk -F'|' '{
		n = split($1, a, " "); split($2, b, " ")
		for (i = 1; i <= n; i++)
			printf "%s%s", (i > 1 ? " " : ""), (a[i] == "-" || b[i] == "-" ? "-" : b[i] - a[i])
		print ""
	}'
}

# block_event_filter DEV: the filter that keeps a block tracepoint's
# events of DEV only (its dev field is the kernel's MAJOR << 20 | MINOR).
block_event_filter() {
	_mm=$(cat "/sys/block/$1/dev")
	echo "dev == $(( (${_mm%:*} << 20) | ${_mm#*:} ))"
}

# arg KEY DEFAULT ARGS...: value of KEY=VALUE among the scenario's args.
arg() {
	_k=$1 _v=$2
	shift 2
	for _a in "$@"; do
		case "$_a" in "$_k"=*) _v=${_a#*=} ;; esac
	done
	echo "$_v"
}
