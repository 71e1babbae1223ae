#!/bin/sh
# fuzz: journal fuzzing. Crash images whose journal still needs recovery
# (crashwork workloads recorded through dm-log-writes, rebuilt at a mark
# by lwreplay, csum v3, with and without journal_csum_order), each mutated
# by jfuzz and judged: does the kernel recover or cleanly refuse it, and
# does e2fsck -fy (after discarding a journal it cannot read) leave a
# filesystem that mounts? A splat or a hang fails the run (run-guest.sh).
#
# Args: seeds=A-B        the images: seed S mutates base S mod NBASES
#       bases=make|reuse make the bases (default), or reuse those on vdd
#       selftest=N       first N sabotaged images (wiped after jfuzz):
#                        each must be found failing (rows: fuzz-selftest.tsv)
#       repro=K:S        only image K:S, verbosely (with bases=reuse)
#       ops=N seed=S     the workloads (crashwork run)
#
# Rows: "base K WORKLOAD MODE RECIPE transactions committed descriptors data
# revokes commits csum csum_order", "selftest N detected", "fuzz images
# seconds"; one row per image in fuzz-images.tsv (qemu/guest/fuzz-lib.sh).
#
# jbd2t-disks: 16M 256M 16M 160M
# jbd2t-timeout: 3600
. /jbd2t/lib.sh
. /jbd2t/crash-lib.sh
. /jbd2t/fuzz-lib.sh

# shellcheck disable=SC2034  # fuzz-lib.sh reads it
FZ_MB=16
SEEDS=$(arg seeds 1-540 "$@")
BASES=$(arg bases make "$@")
SELFTEST=$(arg selftest 0 "$@")
REPRO=$(arg repro '' "$@")
case $SEEDS in *[!0-9-]*|-*|*-|*-*-*|'') fail "seeds=$SEEDS: want A-B" ;; esac
crash_setup journal=small ops=20 "$@"
mkdir -p "$FZ_MNT" "$FZ_TMP"
FZ_ROWS=$RESULTS/fuzz-images.tsv

# The bases: WORKLOAD MODE PERCENT[,PERCENT] (how far into the log).
make_bases() {
	_k=0
	: > "$FZ_TMP/index"
	for spec in "replace default 50,100" "churn default 50,100" \
		"names default 60,100" "replace barrier 100" "names barrier 100" \
		"churn datajournal 100"; do
		# shellcheck disable=SC2086  # three words
		set -- $spec
		if ! crash_record "$1" "$2"; then
			result refused "$1" "$2" "$(crash_refusal)"
			continue
		fi
		for pct in $(echo "$3" | tr , ' '); do
			if fz_save_base "$_k" "$1" "$2" "$pct"; then
				echo "$_k $1 $2" >> "$FZ_TMP/index"
				_k=$((_k + 1))
			else
				result nobase "$1" "$2" "$pct"
			fi
		done
	done
	dd if="$FZ_TMP/index" of=/dev/vdd bs=1M count=1 conv=sync 2>/dev/null ||
		fail "write the base index"
}

[ "$BASES" = reuse ] || make_bases
dd if=/dev/vdd bs=1M count=1 2>/dev/null | tr -d '\000' > "$FZ_TMP/index"
NBASES=$(grep -c . "$FZ_TMP/index" || true)
[ "$NBASES" -ge 1 ] || fail "no base image on /dev/vdd"
while read -r k w m; do
	fz_base_dev "$k" > /dev/null
	echo "$(mode_opts "$m")" > "$FZ_TMP/opts$k"
	info "base $k: $w $m: $(fz_summary "/dev/mapper/fzbase$k")"
done < "$FZ_TMP/index"
opts() { cat "$FZ_TMP/opts$1"; }

if [ -n "$REPRO" ]; then
	k=${REPRO%%:*} s=${REPRO#*:}
	[ -f "$FZ_TMP/opts$k" ] || fail "no base $k (there are $NBASES)"
	FZ_VERBOSE=1 fz_image "$k" "$s" "$(opts "$k")"
	sed 's/^/repro\t/' "$FZ_ROWS" >> "$RESULTS/results.tsv"
	exit 0
fi

# Negative control: a wiped image must be counted as a failure.
if [ "$SELFTEST" -gt 0 ]; then
	FZ_ROWS=$RESULTS/fuzz-selftest.tsv
	i=1
	while [ $i -le "$SELFTEST" ]; do
		k=$((i % NBASES))
		fz_image "$k" "$i" "$(opts "$k")" zero
		i=$((i + 1))
	done
	result selftest "$SELFTEST" "$(awk -F'\t' '$8 ~ /^FAIL/' "$FZ_ROWS" | grep -c . || true)"
	FZ_ROWS=$RESULTS/fuzz-images.tsv
fi

first=${SEEDS%-*} last=${SEEDS#*-}
t0=$(uptime_s)
s=$first
: > "$FZ_ROWS"
while [ "$s" -le "$last" ]; do
	k=$((s % NBASES))
	fz_image "$k" "$s" "$(opts "$k")"
	[ $(( (s - first + 1) % 100 )) != 0 ] ||
		info "$((s - first + 1))/$((last - first + 1)) images"
	s=$((s + 1))
done
result fuzz "$((last - first + 1))" \
	"$(awk -v a="$t0" -v b="$(uptime_s)" 'BEGIN { printf "%.0f", b - a }')"
