#!/bin/sh
# crash-repro: re-run one failing crash state that the crash scenario
# found, verbosely. Records the workload again with the same settings,
# rebuilds the state RECIPE from the new log (lwreplay apply) and runs the
# checker on it, printing what mount, crashwork check and e2fsck said.
#
# Args: as crash (one workload=, one mode=), plus recipe=POINT:RULE and
# layout= (the digest of the original log's layout up to POINT, from
# crash-failures.tsv). fsck_first=1 also shows what e2fsck -fy makes of
# the state before any kernel recovered it (on a throw-away snapshot).
# logdump=1 prints the log's entries up to POINT and what debugfs logdump
# reads in the state's journal (fast commit area included).
#
# Exact only if the new log has the original's layout up to POINT (same
# writes, flushes and marks in the same order), which the layout digest
# tells: the order in which concurrent writes complete, the kernel's
# timing (commit thread, writeback) and, with threads > 1, the
# interleaving of the threads can change it. Otherwise the recipe names a
# nearby state and the result is best-effort.
#
# jbd2t-disks: 48M 512M 48M
# jbd2t-modules: flushcost
# jbd2t-timeout: 600
. /jbd2t/lib.sh
. /jbd2t/crash-lib.sh

W=$(arg workload append "$@")
M=$(arg mode default "$@")
RECIPE=$(arg recipe '' "$@")
WANT=$(arg layout '' "$@")
[ -n "$RECIPE" ] || fail "recipe= is required"
crash_setup "$@"

crash_record "$W" "$M" || fail "mode $M refused: $(crash_refusal)"
point=${RECIPE%%:*}
sum=$(crash_layout | awk -v p="$point" '$1 == p { print $2 }')
if [ -n "$sum" ] && [ "$sum" = "$WANT" ]; then
	exact=exact
	info "log layout up to entry $point matches the original ($sum): exact reproducer"
else
	exact=best-effort
	info "BEST-EFFORT: log layout up to entry $point is '$sum', was '$WANT'; the recipe may name another state"
fi
# shellcheck disable=SC2046
result log "$W" "$M" "$THREADS" "$JOURNAL" $(crash_log_counts)

rc=0
lwreplay apply /dev/vdb /dev/vdc "$RECIPE" || rc=$?
[ $rc = 0 ] || fail "lwreplay apply $RECIPE: exit $rc (recipe does not fit the new log?)"
# What lwreplay run would have told the checker: the last mark at or
# before the crash point.
LWR_MARK=$(lwreplay info /dev/vdb --entries |
	awk -v p="$point" '$1 ~ /^[0-9]+$/ && $1 <= p && $5 ~ /MARK/ { m = $6 } END { print m }')
export LWR_DEV=/dev/vdc LWR_RECIPE="$RECIPE" LWR_POINT="$point" LWR_MARK CRASH_VERBOSE=1
info "state $RECIPE, last mark '$LWR_MARK'"
if [ "$(arg fsck_first 0 "$@")" = 1 ]; then
	dumpe2fs -h /dev/vdc 2>/dev/null | grep -E '^(Journal features|Filesystem features)' |
		sed 's/^/    /'
	dmload fsckfirst "0 $CRASH_SECTORS snapshot /dev/vdc $CRASH_COW N 8" ||
		fail "cannot snapshot /dev/vdc"
	rc=0
	e2fsck -fy /dev/mapper/fsckfirst > /tmp/fsck-first 2>&1 || rc=$?
	info "e2fsck -fy before any kernel recovery: exit $rc"
	sed -e 's/^/    /' -e 's/WARNING:/Warning:/g' /tmp/fsck-first | head -n 30
	result fsck-first "$W" "$M" "$RECIPE" "$rc"
	dm remove fsckfirst
fi
if [ "$(arg logdump 0 "$@")" = 1 ]; then
	info "log entries up to $point"
	lwreplay info /dev/vdb --entries | awk -v p="$point" '$1 !~ /^[0-9]+$/ || $1 <= p' |
		sed 's/^/    /'
	info "debugfs logdump of the state"
	debugfs -c -R "logdump" /dev/vdc 2>&1 | sed 's/^/    /'
fi
rc=0
/jbd2t/crash-check.sh || rc=$?
case $rc in
0) class=consistent ;; 1) class=mount-failed ;; 2) class=fsck-corrupt ;;
3) class=data-lost ;; *) fail "crash-check.sh exit $rc" ;;
esac
result repro "$W" "$M" "$RECIPE" "$class" "$exact"
if [ $rc = 0 ]; then info "NOT REPRODUCED ($exact): $RECIPE is consistent"; else info "REPRODUCED ($exact): $RECIPE is $class"; fi
