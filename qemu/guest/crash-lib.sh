# Helpers shared by the crash and crash-repro scenarios (busybox sh).
# Source after lib.sh:  . /jbd2t/crash-lib.sh
# Disks: vda the filesystem, vdb the dm-log-writes log, vdc the replay
# device (lwreplay keeps it at one crash state at a time). With flush_us=N
# the log records the flush-cost device /dev/fcost0 (qemu/modules/
# flushcost: N us per flush, charged after dm-log-writes has logged the
# flush, so writes that complete meanwhile stay unflushed, as on a disk)
# stacked on vda; the scenario needs "# jbd2t-modules: flushcost".
# shellcheck shell=sh

uptime_s() { cut -d' ' -f1 /proc/uptime; }
# dm ARGS...: dmsetup, its stderr shown only on failure (without SysV IPC
# it warns about udev synchronisation on every call).
dm() { dmsetup "$@" 2> /tmp/dm.err || { cat /tmp/dm.err >&2; return 1; }; }

# crash_setup ARGS...: the workload settings, and what crash-check.sh needs.
crash_setup() {
	OPS=$(arg ops 40 "$@")
	THREADS=$(arg threads 1 "$@")
	SEED=$(arg seed 1 "$@")
	JOURNAL=$(arg journal default "$@")
	FS=$(arg fs ext4 "$@")
	FLUSH_US=$(arg flush_us 0 "$@")
	case $JOURNAL in default|small) ;; *) fail "journal=$JOURNAL: want default or small" ;; esac
	case $FS in ext4|ext3) ;; *) fail "fs=$FS: want ext4 or ext3" ;; esac
	case $FLUSH_US in ''|*[!0-9]*) fail "flush_us=$FLUSH_US: want microseconds" ;; esac
	# Thousands of mounts each log a few lines; on the serial console they
	# cost time. Level 5 still prints warnings, which the host looks for.
	dmesg -n 5
	# The snapshot's exceptions: a file in tmpfs behind a loop device, set
	# up once; crash-check.sh makes a fresh snapshot on it per state.
	truncate -s 64M /tmp/cow.img
	losetup /dev/loop0 /tmp/cow.img || fail "losetup /dev/loop0"
	export CRASH_COW=/dev/loop0 CRASH_ORACLE=/tmp/oracle CRASH_MNT=/mnt/check
	CRASH_SECTORS=$(blockdev --getsz /dev/vdc)
	export CRASH_SECTORS
	mkdir -p /mnt/fs /mnt/check
}

# mode_opts MODE: mount options of a mode. The unsafe-* modes are the
# defaults with one jbd2 ordering rule switched off (mode_switch).
mode_opts() {
	case $1 in
	default|unsafe-data|unsafe-wrap|unsafe-batch|unsafe-flush|fast-commit) echo defaults ;;
	barrier) echo nojournal_csum_order ;;
	nobarrier) echo nobarrier ;;
	async-journal) echo journal_async_commit,data=journal ;;
	async-writeback) echo journal_async_commit,data=writeback ;;
	datajournal) echo data=journal ;;	# fuzz.sh: logged data, revoke blocks
	*) fail "unknown mode '$1'" ;;
	esac
}

# mode_mkfs MODE: mkfs options a mode adds. fast-commit: ext4 fast
# commits, whose full commits keep the full barrier and whose own blocks
# go out with a flush and FUA of their own (ext4_fc_submit_bh()).
mode_mkfs() {
	case $1 in
	fast-commit) echo "-O fast_commit" ;;
	esac
}

# mode_switch MODE 0|1: set the test-only jbd2 parameter of an unsafe-*
# mode (CONFIG_JBD2_DEBUG); returns 1 if this kernel has none.
mode_switch() {
	case $1 in
	unsafe-data) _param=unsafe_ignore_data ;;
	unsafe-wrap) _param=unsafe_ignore_wrap ;;
	unsafe-batch) _param=unsafe_durable_at_submit ;;
	unsafe-flush) _param=unsafe_flush_covers_inflight ;;
	*) return 0 ;;
	esac
	[ -w "/sys/module/jbd2/parameters/$_param" ] || return 1
	echo "$2" > "/sys/module/jbd2/parameters/$_param"
}

# crash_record WORKLOAD MODE: fresh fs on vda, its copy (the base image)
# on vdc, then the workload on vda through dm-log-writes, logged to vdb.
# Returns 1 if the kernel refused the mode's mount options
# (crash_refusal says why).
crash_record() {
	_opts=$(mode_opts "$2")
	_mkfs=
	[ "$JOURNAL" = default ] || _mkfs="-b 1024 -J size=1"   # the smallest journal mke2fs takes
	_mkfs="$_mkfs $(mode_mkfs "$2")"
	# shellcheck disable=SC2086
	"mkfs.$FS" -q -F -E lazy_itable_init=0,lazy_journal_init=0,nodiscard $_mkfs /dev/vda ||
		fail "mkfs.$FS failed"
	dd if=/dev/vda of=/dev/vdc bs=1M 2>/dev/null || fail "copy vda to vdc"
	# A zeroed super block: no entries of an older log can be mistaken
	# for this one's.
	dd if=/dev/zero of=/dev/vdb bs=1M count=1 2>/dev/null || fail "zero vdb"
	crash_stack_up
	dmesg_mark "crash-mount-$1-$2"
	if ! mode_switch "$2" 1; then
		echo "this kernel has no test-only jbd2 switch for $2" > /tmp/mount.err
		_CRASH_MOUNT_MARK=none
		crash_stack_down
		return 1
	fi
	if ! mount -t "$FS" -o "$_opts" /dev/mapper/lw /mnt/fs 2> /tmp/mount.err; then
		_CRASH_MOUNT_MARK="crash-mount-$1-$2"
		mode_switch "$2" 0
		crash_stack_down
		return 1
	fi
	info "recording $1 in mode $2: $(mount_opts /mnt/fs)"
	rm -f "$CRASH_ORACLE"
	crashwork run "$1" --dir /mnt/fs --oracle "$CRASH_ORACLE" --mark-target lw \
		--ops "$OPS" --threads "$THREADS" --seed "$SEED" ||
		fail "crashwork run $1 failed"
	[ "$2" != fast-commit ] || crash_assert_fast_commits
	crash_batches > /tmp/batches
	umount /mnt/fs
	mode_switch "$2" 0
	crash_stack_down
}

# crash_stack_up: dm-log-writes "lw" logging to vdb what reaches vda, or
# with flush_us the flush-cost device on vda. crash_stack_down undoes it.
crash_stack_up() {
	_lower=/dev/vda
	if [ "$FLUSH_US" -gt 0 ]; then
		load_module flushcost lower=/dev/vda flush_us="$FLUSH_US" \
			fua_us="$FLUSH_US" fua=1
		_lower=/dev/fcost0
	fi
	dm create lw --table "0 $(blockdev --getsz $_lower) log-writes $_lower /dev/vdb" ||
		fail "dmsetup create lw"
}
crash_stack_down() {
	dm remove lw || fail "dmsetup remove lw"
	[ "$FLUSH_US" = 0 ] || rmmod flushcost || fail "rmmod flushcost"
}

# crash_batches: "BATCHES COVERED", the batch flushes of the recording's
# journal and the transactions they covered (jbd2_batches of dm-N, lw
# being the only dm device mounted), or "- -" on a kernel without them.
crash_batches() {
	_jdir=$(cd /proc/fs/jbd2 && echo dm-*-8)
	jbd2_batches "${_jdir%-8}"
}

# crash_assert_fast_commits: the recording on /mnt/fs (dm "lw") took fast
# commits; a fast-commit mode without any (a workload that only fsyncs
# directories, say) would test nothing of them.
crash_assert_fast_commits() {
	# /proc/fs/ext4 names it by its kernel name (dm-N); the only dm
	# device mounted is lw.
	_fc=$(cat /proc/fs/ext4/dm-*/fc_info 2>/dev/null | sed -n 's/^\([0-9]*\) commits$/\1/p')
	info "fast commits: ${_fc:-none}"
	[ "${_fc:-0}" -gt 0 ] || fail "mode fast-commit: no fast commit in /proc/fs/ext4/dm-*/fc_info"
}

# crash_refusal: the kernel's words about the refused mount, one line.
crash_refusal() {
	_msg=$(dmesg_since "$_CRASH_MOUNT_MARK" | sed 's/^\[[^]]*\] *//' | tr '\n' ' ')
	echo "${_msg:-$(cat /tmp/mount.err)}"
}

# crash_log_counts: entries, flushes, FUA writes and marks in the log,
# then the journal's batch flushes and the transactions they covered.
crash_log_counts() {
	lwreplay info /dev/vdb | awk -v batches="$(cat /tmp/batches)" '
	$1 == "entries:" { e = $2 } $1 == "flushes:" { f = $2 }
	$1 == "writes:" { u = $4; sub(/\)/, "", u) } $1 == "marks:" { m = $2 }
	END { print e, f, u, m, batches }'
}

# crash_layout: "INDEX HASH" per log entry, HASH a digest of the layout
# (block, length, flags, mark) of entries 0..INDEX, not of their data,
# which holds timestamps. A re-recording whose layout hashes the same up
# to a crash point gives the same crash state for the same recipe there.
# (A plain 31-bit rolling hash in awk: one pass, no md5sum per state.)
crash_layout() {
	lwreplay info /dev/vdb --entries | awk '
	BEGIN { for (i = 32; i < 127; i++) ord[sprintf("%c", i)] = i }
	go {
		line = $3 " " $4 " " $5 " " $6 ";"
		for (i = 1; i <= length(line); i++)
			h = (h * 31 + ord[substr(line, i, 1)]) % 2147483647
		printf "%s %08x\n", $1, h
	}
	$1 == "index" { go = 1 }'
}
