# Helpers of the journal fuzzing scenario (busybox sh). Source after
# lib.sh and crash-lib.sh:  . /jbd2t/fuzz-lib.sh
# Disks: vda, vdb, vdc as crash-lib.sh uses them (recording), vdd the
# base images, FZ_MB MiB each: a text index in the first FZ_MB MiB ("K
# WORKLOAD MODE" per line), base K at MiB (K + 1) * FZ_MB.
# shellcheck shell=sh

FZ_MNT=/mnt/fz
FZ_TMP=/tmp/fz

# fz_base_dev K: a linear device over base K on vdd; its path.
fz_base_dev() {
	_sect=$((FZ_MB * 2048))
	dmload "fzbase$1" "0 $_sect linear /dev/vdd $((($1 + 1) * _sect))" ||
		fail "cannot map base $1 on /dev/vdd"
	echo "/dev/mapper/fzbase$1"
}

# fz_summary DEV: jfuzz's summary of the walked log, "key=value ...".
fz_summary() { jfuzz --dump "$1" 2>/dev/null | sed -n 's/^summary //p'; }
# fz_field SUMMARY KEY
fz_field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# fz_marks: the workload's marks in the log (vdb), "INDEX" per line.
fz_marks() {
	lwreplay info /dev/vdb --entries |
		awk '$1 ~ /^[0-9]+$/ && $5 ~ /MARK/ && $6 ~ /^m[0-9]+$/ { print $1 }'
}

# fz_save_base K WORKLOAD MODE FRACTION: after crash_record, put vdc into
# the crash state at a mark about FRACTION (percent) of the way through
# the log (walking back to earlier marks until the journal holds two
# transactions or more), and store it as base K on vdd. Returns 1 if no
# mark gives such a journal.
fz_save_base() {
	_marks=$(fz_marks)
	_n=$(echo "$_marks" | grep -c .)
	_i=$(( (_n * $4 + 99) / 100 ))
	[ "$_i" -ge 1 ] || _i=1
	dd if=/dev/vdc of="$FZ_TMP/pristine" bs=1M 2>/dev/null || fail "save the pristine base"
	while [ "$_i" -ge 1 ]; do
		_p=$(echo "$_marks" | sed -n "${_i}p")
		dd if="$FZ_TMP/pristine" of=/dev/vdc bs=1M conv=notrunc 2>/dev/null ||
			fail "restore vdc"
		lwreplay apply /dev/vdb /dev/vdc "$_p:all" > /dev/null ||
			fail "lwreplay apply $_p:all"
		_s=$(fz_summary /dev/vdc)
		if [ "$(fz_field "$_s" transactions)" -ge 2 ] 2>/dev/null; then
			dd if=/dev/vdc of=/dev/vdd bs=1M seek=$((($1 + 1) * FZ_MB)) count="$FZ_MB" \
				conv=notrunc 2>/dev/null || fail "store base $1"
			# shellcheck disable=SC2046  # the summary's values, in order
			result base "$1" "$2" "$3" "$_p:all" $(echo "$_s" | tr ' ' '\n' | cut -d= -f2)
			return 0
		fi
		_i=$((_i - 1))
	done
	return 1
}

# fz_msg_class FILE: the kernel's first JBD2/EXT4 line in FILE (what
# `dmesg -c` said), with numbers and device names blanked: the kind of
# refusal.
fz_msg_class() {
	sed 's/^\[[^]]*\] *//' "$1" | grep -E 'JBD2|EXT4-fs|jbd2' |
		grep -v 'mounted filesystem' | head -n 1 |
		sed -e 's/([a-z]*-*[0-9]*)/(DEV)/g' -e 's/dm-[0-9]*-8/DEV/g' \
			-e 's/\([^A-Za-z0-9]\)[0-9][0-9]*/\1N/g' -e 's/\t/ /g' | cut -c1-90
}

# fz_fsck DEV: e2fsck -fy; its exit code. Output in $FZ_TMP/fsck.
fz_fsck() {
	_rc=0
	e2fsck -fy "$1" > "$FZ_TMP/fsck" 2>&1 || _rc=$?
	echo "$_rc"
}

# fz_discard_journal DEV: the way to repair a filesystem whose journal
# cannot be used: e2fsck refuses to touch it (a CSUM_ORDER log the kernel
# did not recover, or another unknown journal feature), or the kernel
# refuses a journal e2fsck let through. Drop the journal, check, make a
# new one. On e2fsprogs 1.47.0 neither `tune2fs -f -f -O ^has_journal`
# (it first tries to recover the journal and stops at the unknown
# feature) nor clearing has_journal alone (e2fsck still reads the journal
# inode's super block) does it; debugfs can, also when the journal's
# replay wrecked the primary super block (from the first backup, -n: the
# backup's bitmap checksums are stale). Echoes e2fsck -fy's exit.
fz_discard_journal() {
	_req='feature -needs_recovery -has_journal
ssv journal_inum 0
clri <8>'
	echo "$_req" | debugfs -w -n -f - "$1" > "$FZ_TMP/discard" 2>&1
	if grep -q 'while trying to open' "$FZ_TMP/discard"; then
		echo "$_req" | debugfs -w -n -s 8193 -b 1024 -f - "$1" >> "$FZ_TMP/discard" 2>&1
	fi
	_rc=$(fz_fsck "$1")
	tune2fs -O has_journal "$1" >> "$FZ_TMP/discard" 2>&1 || _rc=8
	echo "$_rc"
}

# fz_mount DEV OPTS: mount and unmount; 1 if the mount failed. What the
# kernel said in $FZ_TMP/dmesg.
fz_mount() {
	dmesg -c > /dev/null
	if mount -t ext4 -o "errors=continue,$2" "$1" "$FZ_MNT" 2> "$FZ_TMP/mount"; then
		umount "$FZ_MNT" || fail "cannot unmount $FZ_MNT"
		dmesg -c > "$FZ_TMP/dmesg"
		return 0
	fi
	dmesg -c > "$FZ_TMP/dmesg"
	return 1
}

# fz_image K SEED OPTS [SABOTAGE]: one mutated image of base K, judged.
# Row in $FZ_ROWS:
#   K SEED CLASS OUTCOME FSCK DISCARD FINAL VERDICT MESSAGE LINE FINAL-MESSAGE
# OUTCOME recovered (the first mount worked) or refused, MESSAGE the class
# of the kernel's refusal; FSCK e2fsck -fy's exit (the last one, after the
# discard path); DISCARD 0, 1 (e2fsck refused the journal: unknown
# feature), 2 (e2fsck passed it, the kernel still refused it: an
# e2fsprogs gap) or 3 (e2fsck cleared the journal super block's V2 fields,
# checksum features included, and replayed a v3 log as if it had none,
# wrecking the filesystem: an e2fsprogs gap; the kernel had refused the
# journal); FINAL the last mount (ok/failed) and FINAL-MESSAGE what
# the kernel said when it failed; VERDICT ok or FAIL-<why>. SABOTAGE "zero" wipes the image
# after jfuzz: the selftest's unmountable filesystem.
fz_image() {
	_k=$1 _seed=$2 _opts=$3
	_dev=/dev/mapper/fzsnap
	dmload fzsnap "0 $((FZ_MB * 2048)) snapshot /dev/mapper/fzbase$_k $CRASH_COW N 8" ||
		fail "cannot snapshot base $_k"
	_rc=0
	_line=$(jfuzz --seed "$_seed" --in-place "$_dev" 2> "$FZ_TMP/jfuzz") || _rc=$?
	case $_rc in
	0) ;;
	1) printf '%s\t%s\t-\tunmutable\t-\t-\t-\tok\t-\t%s\n' "$_k" "$_seed" \
		"$(head -n 1 "$FZ_TMP/jfuzz")" >> "$FZ_ROWS"; return 0 ;;
	*) fail "jfuzz --seed $_seed on base $_k: exit $_rc: $(cat "$FZ_TMP/jfuzz")" ;;
	esac
	_class=$(echo "$_line" | sed -n 's/.* class=\([a-z]*\) .*/\1/p')
	[ "${4:-}" != zero ] ||
		dd if=/dev/zero of="$_dev" bs=1M count="$FZ_MB" 2>/dev/null
	# The line before the mount: if the guest dies here, the host names it.
	echo "fz $_k:$_seed $_line"
	_msg=- _fmsg=- _outcome=recovered _discard=0 _final=ok
	if ! fz_mount "$_dev" "$_opts"; then
		_outcome=refused
		_msg=$(fz_msg_class "$FZ_TMP/dmesg")
		[ -n "$_msg" ] || _msg="no kernel message: $(head -n 1 "$FZ_TMP/mount")"
	fi
	[ "${FZ_VERBOSE:-0}" != 1 ] || {
		info "first mount: $_outcome ${_msg}"
		sed 's/^/    /' "$FZ_TMP/mount" "$FZ_TMP/dmesg"
	}
	_fsck=$(fz_fsck "$_dev")
	if [ "$_fsck" -ge 4 ] &&
	   grep -qiE 'unknown [a-z-]* ?feature flag|unsupported feature' "$FZ_TMP/fsck"; then
		_discard=1
		[ "${FZ_VERBOSE:-0}" != 1 ] || sed -e 's/^/    /' -e 's/WARNING:/Warning:/g' "$FZ_TMP/fsck"
		_fsck=$(fz_discard_journal "$_dev")
	elif [ "$_fsck" -ge 4 ] && [ "$_outcome" = refused ] &&
	     grep -q 'invalid V2 journal superblock fields' "$FZ_TMP/fsck"; then
		_discard=3
		[ "${FZ_VERBOSE:-0}" != 1 ] || sed -e 's/^/    /' -e 's/WARNING:/Warning:/g' "$FZ_TMP/fsck"
		_fsck=$(fz_discard_journal "$_dev")
	fi
	if ! fz_mount "$_dev" "$_opts"; then
		_final=failed
		_fmsg=$(fz_msg_class "$FZ_TMP/dmesg")
		[ -n "$_fmsg" ] || _fmsg="no kernel message: $(head -n 1 "$FZ_TMP/mount")"
		# e2fsck passed a journal the kernel refuses: discard it too.
		if [ "$_discard" = 0 ] && [ "$_fsck" -lt 4 ] &&
		   echo "$_fmsg" | grep -q '^JBD2'; then
			_discard=2
			_fsck=$(fz_discard_journal "$_dev")
			! fz_mount "$_dev" "$_opts" || _final=ok
		fi
	fi
	_verdict=ok
	[ "$_fsck" -lt 4 ] || _verdict=FAIL-fsck
	[ "$_final" = ok ] || _verdict=FAIL-mount
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$_k" "$_seed" "$_class" \
		"$_outcome" "$_fsck" "$_discard" "$_final" "$_verdict" "$_msg" \
		"$_line" "$_fmsg" >> "$FZ_ROWS"
	if [ "${FZ_VERBOSE:-0}" = 1 ]; then
		info "e2fsck -fy: exit $_fsck (journal discarded: $_discard)"
		sed -e 's/^/    /' -e 's/WARNING:/Warning:/g' "$FZ_TMP/fsck"
		[ "$_discard" = 0 ] || sed 's/^/    /' "$FZ_TMP/discard"
		info "final mount: $_final ($_fmsg); verdict $_verdict"
	fi
	if [ "$_verdict" != ok ]; then
		echo "fz FAILURE $_k:$_seed $_verdict (e2fsck -fy exit $_fsck, final mount $_final)"
		sed -e 's/^/    /' -e 's/WARNING:/Warning:/g' "$FZ_TMP/fsck" | tail -n 8
	fi
	return 0
}
