#!/usr/bin/env bash
# Journal fuzzing: crash images whose journal still needs recovery, each
# mutated by tools/jfuzz, mounted by the kernel (recovery), repaired by
# e2fsck and mounted again, in one guest (scenario "fuzz").
#
#   qemu/fuzz-harness.sh [--quick|--long] [--seeds A-B] [--doc]
#   qemu/fuzz-harness.sh --selftest
#   qemu/fuzz-harness.sh --report [--quick|--long]
#   qemu/fuzz-harness.sh --repro K:S [--bases FILE]
#
# --quick: 540 images (seeds 1-540), a few minutes; --long: 10200 images.
# Image S mutates base S mod NBASES (9 bases: replace, churn and names
# (rmdir: revoke blocks) workloads with journal_csum_order, with
# nojournal_csum_order and with data=journal, each cut at a mark; 16 MiB,
# 1 KiB blocks, 1 MiB csum v3 journal). --seeds A-B picks
# another seed range. --doc writes docs/results/fuzz-PROFILE.md.
#
# An image fails if the last mount fails or e2fsck -fy exits >= 4 after
# the repair path (e2fsck; the journal discarded when e2fsck refuses it
# for an unknown feature, or when the kernel still refuses the journal
# e2fsck passed: docs/testing.md); a kernel splat or a hang fails the
# whole run (the last "fz K:S" console line names the image). Asserts,
# one line each:
#   PASS/FAIL fuzz:selftest   3 wiped images (after jfuzz) all counted as
#                             failures: the checker can fail
#   PASS/FAIL fuzz:PROFILE    0 failing images, at least the profile's
#                             count, bases with and without CSUM_ORDER and
#                             with revoke blocks
# --selftest runs only the negative control (and 6 ordinary images).
# --repro K:S re-runs image K:S verbosely on the bases of the last run
# (FILE: default the profile's bases.img); also on the host:
#   dd if=BASES of=base.img bs=1M skip=$(((K+1)*16)) count=16
#   build/tools/host/jfuzz --seed S --out mutated.img base.img
# Environment: KERNEL (default build/kunit/arch/x86/boot/bzImage; e.g.
# build/debug/arch/x86/boot/bzImage), FUZZ_OUT (results directory).
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

usage() { sed -n '2,39s/^# \{0,1\}//p' "$0" >&2; exit 2; }
profile=quick seeds='' report=0 repro='' bases_file='' doc=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) profile=quick ;;
	--long) profile=long ;;
	--selftest) profile=selftest ;;
	--report) report=1 ;;
	--doc) doc=1 ;;
	--seeds) [ $# -ge 2 ] || usage; seeds=$2; shift ;;
	--repro) [ $# -ge 2 ] || usage; repro=$2; shift ;;
	--bases) [ $# -ge 2 ] || usage; bases_file=$2; shift ;;
	--help|-h) usage ;;
	*) echo "fuzz-harness.sh: unknown argument '$1'" >&2; usage ;;
	esac
	shift
done
[ -z "$seeds" ] || [[ $seeds =~ ^[0-9]+-[0-9]+$ ]] || { echo "fuzz-harness.sh: --seeds wants A-B" >&2; exit 2; }
[ -z "$repro" ] || [[ $repro =~ ^[0-9]+:[0-9]+$ ]] || { echo "fuzz-harness.sh: --repro wants K:S" >&2; exit 2; }
case $profile in
quick) min=500 range=1-540 ;;
long) min=10000 range=1-10200 ;;
selftest) min=6 range=1-6 ;;
esac
range=${seeds:-$range}
[ -z "$seeds" ] || min=$(( ${seeds#*-} - ${seeds%-*} + 1 ))
SELFTEST=3
KERNEL=${KERNEL:-$BUILD/kunit/arch/x86/boot/bzImage}
OUT=${FUZZ_OUT:-$BUILD/results/fuzz-$profile}
initrd=$BUILD/initramfs/initramfs.cpio.gz
NBASES_DISK=160M   # vdd: 9 bases of 16 MiB and the index

# boot ARGS BASES-FILE RESULTS TIMEOUT: one guest running the scenario.
boot() {
	local disks=$3/disks
	mkdir -p "$disks"
	rm -f "$disks"/vd[abc].img
	"$TOP/qemu/run-guest.sh" --kernel "$KERNEL" --initrd "$initrd" \
		--scenario fuzz --args "$1" --results "$3" --timeout "$4" --mem 512 \
		--disk "$disks/vda.img:16M" --disk "$disks/vdb.img:256M" \
		--disk "$disks/vdc.img:16M" --disk "$2:$NBASES_DISK"
}

prepare() {
	[ -f "$KERNEL" ] || die "no kernel at $KERNEL"
	make -s -C "$TOP/tools" -j"$JOBS" guest host > /dev/null
	"$TOP/qemu/mkinitramfs.sh" "$initrd"
}

if [ -n "$repro" ]; then
	bases_file=${bases_file:-$BUILD/results/fuzz-quick/bases.img}
	[ -f "$bases_file" ] || die "no bases at $bases_file: run --quick first, or give --bases"
	prepare
	res=$BUILD/results/fuzz-repro
	rm -rf "$res"
	mkdir -p "$res"
	cp --sparse=always "$bases_file" "$res/bases.img"
	rc=0
	boot "bases=reuse repro=$repro" "$res/bases.img" "$res" 900 > "$res/run.log" 2>&1 || rc=$?
	sed -n '/^jbd2t: base /,$p' "$res/output.log" 2>/dev/null || true
	if [ $rc != 0 ]; then
		cat "$res/run.log"
		echo "REPRODUCED $repro: the guest failed (splat/hang?): see $res/console.log"
		exit 1
	fi
	row=$(awk -F'\t' '$1 == "repro"' "$res/results.tsv" | cut -f2-)
	echo "row: $row"
	case $(echo "$row" | cut -f8) in
	FAIL*) echo "REPRODUCED $repro: $(echo "$row" | cut -f8)"; exit 1 ;;
	*) echo "not reproduced: $repro is $(echo "$row" | cut -f4) and repaired"; exit 0 ;;
	esac
fi

if [ $report = 0 ]; then
	prepare
	rm -rf "$OUT"
	mkdir -p "$OUT"
	images=$(( ${range#*-} - ${range%-*} + 1 ))
	log "fuzz $profile: seeds $range ($images images) + $SELFTEST selftest images, kernel $KERNEL"
	tail -n 0 -F ---disable-inotify -s 2 "$OUT/guest/console.log" 2>/dev/null |
		grep --line-buffered -aE 'jbd2t: [0-9]+/[0-9]+ images|RESULT (base|nobase|refused|selftest|fuzz)|fz FAILURE' |
		sed -u 's/\r$//; s/^/    /' &
	tailpid=$!
	start=$(date +%s)
	rc=0
	boot "seeds=$range selftest=$SELFTEST" "$OUT/bases.img" "$OUT/guest" \
		$((900 + images * 4)) > "$OUT/run.log" 2>&1 || rc=$?
	echo $(( $(date +%s) - start )) > "$OUT/wall"
	echo "$rc" > "$OUT/boot-rc"
	kill "$tailpid" 2>/dev/null || true
	wait "$tailpid" 2>/dev/null || true
	rm -rf "$OUT/guest/disks"
fi
[ -d "$OUT" ] || die "no results in $OUT: run without --report first"
G=$OUT/guest
rows=$G/fuzz-images.tsv
[ -f "$rows" ] || : > "$rows"
wall=$(cat "$OUT/wall" 2>/dev/null || echo '?')
boot_rc=$(cat "$OUT/boot-rc" 2>/dev/null || echo '?')

# The tables (markdown): totals, per class, refusal messages, bases.
table() {
	echo "| images | recovered | refused cleanly | fsck journal discard needed | discard after e2fsck passed (e2fsck gap) | unmutable | failures |"
	echo "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk -F'\t' '{ n++ } $4 == "recovered" { r++ } $4 == "refused" && $8 == "ok" { c++ }
		$6 == 1 { d++ } $6 >= 2 { g++ } $4 == "unmutable" { u++ } $8 ~ /^FAIL/ { f++ }
		END { printf "| %d | %d | %d | %d | %d | %d | %d |\n", n, r, c, d, g, u, f }' "$rows"
	echo
	echo "| class | images | recovered | refused | discard | e2fsck gap | failures |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk -F'\t' '$4 != "unmutable" { n[$3]++; r[$3] += $4 == "recovered"; x[$3] += $4 == "refused"
		d[$3] += $6 == 1; g[$3] += $6 >= 2; f[$3] += $8 ~ /^FAIL/ }
		END { for (c in n) printf "| %s | %d | %d | %d | %d | %d | %d |\n", c, n[c], r[c], x[c], d[c], g[c], f[c] }' "$rows" | sort
	echo
	echo "| refusals | kernel message (first JBD2/EXT4 line, numbers as N) |"
	echo "| ---: | --- |"
	awk -F'\t' '$4 == "refused" { m[$9]++ } END { for (k in m) printf "| %d | %s |\n", m[k], k }' "$rows" |
		sort -t'|' -k2,2nr | sed 's/ *$//'
	echo
	echo "| base | workload | mode | crash state | transactions | descriptors | data | revokes | commits | CSUM_ORDER |"
	echo "| ---: | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
	awk -F'\t' '$1 == "base" { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $3, $4, $5, $6, $8, $9, $10, $11, $13 }' "$G/results.tsv" 2>/dev/null
}
echo
table | tee "$OUT/table.md"
echo "wall time: ${wall}s (boot, 9 recordings, $SELFTEST selftest images, $(grep -c . "$rows") images)"

status=0
{
	repro_cmd="qemu/fuzz-harness.sh --repro"
	[ "$KERNEL" = "$BUILD/kunit/arch/x86/boot/bzImage" ] || repro_cmd="KERNEL=$KERNEL $repro_cmd"
	awk -F'\t' -v cmd="$repro_cmd" -v b="$OUT/bases.img" '$8 ~ /^FAIL/ {
		printf "FAILURE %s:%s %s (%s; e2fsck exit %s, discard %s, last mount %s: %s): %s\n    %s %s:%s --bases %s\n",
			$1, $2, $8, $4, $5, $6, $7, $11, $10, cmd, $1, $2, b }' "$rows"
} > "$OUT/failures.txt"
cat "$OUT/failures.txt"
# Not failures, but worth a look: the kernel refused a journal that
# e2fsck -fy had let through, or e2fsck replayed a journal whose super
# block it had cut back to V1 (the journal was discarded after all).
awk -F'\t' '$6 == 2 { printf "e2fsck gap %s:%s: kernel after e2fsck: %s: %s\n", $1, $2, $11, $10 }
	$6 == 3 { printf "e2fsck gap %s:%s: e2fsck replayed the log as V1: %s\n", $1, $2, $10 }' \
	"$rows" | tee "$OUT/e2fsck-gaps.txt"

verdicts() {
	local st detected n fails bases nocsum csumo revokes
	st=$(awk -F'\t' '$1 == "selftest" { print $2, $3 }' "$G/results.tsv" 2>/dev/null)
	if [ -z "$st" ]; then
		echo "FAIL fuzz:selftest (no result: the run died before it)"; status=1
	else
		read -r n detected <<< "$st"
		if [ "$detected" = "$n" ] && [ "$n" -gt 0 ]; then
			echo "PASS fuzz:selftest (negative control: $detected of $n wiped images counted as failures)"
		else
			echo "FAIL fuzz:selftest ($detected of $n wiped images detected: the checker has no teeth)"; status=1
		fi
	fi
	n=$(awk -F'\t' '$4 != "unmutable"' "$rows" | grep -c . || true)
	fails=$(awk -F'\t' '$8 ~ /^FAIL/' "$rows" | grep -c . || true)
	bases=$(awk -F'\t' '$1 == "base"' "$G/results.tsv" 2>/dev/null | grep -c . || true)
	csumo=$(awk -F'\t' '$1 == "base" && $13 == 1' "$G/results.tsv" 2>/dev/null | grep -c . || true)
	nocsum=$(awk -F'\t' '$1 == "base" && $13 == 0' "$G/results.tsv" 2>/dev/null | grep -c . || true)
	revokes=$(awk -F'\t' '$1 == "base" && $10 > 0' "$G/results.tsv" 2>/dev/null | grep -c . || true)
	local why=()
	[ "$boot_rc" = 0 ] || why+=("the guest failed (exit $boot_rc): $(grep -a -m1 -E "$SPLAT_RE|FAILED fuzz" "$OUT/run.log" "$G/console.log" 2>/dev/null | head -n 1)")
	if [ "$boot_rc" != 0 ]; then
		local last
		last=$(grep -a '^fz [0-9]*:[0-9]* ' "$G/console.log" 2>/dev/null | tail -n 1 | cut -d' ' -f2)
		[ -z "$last" ] || why+=("last image started: $last, reproduce: qemu/fuzz-harness.sh --repro $last --bases $OUT/bases.img")
	fi
	[ "$fails" = 0 ] || why+=("$fails failing images (see $OUT/failures.txt)")
	[ "$n" -ge "$min" ] || why+=("only $n mutated images, want $min")
	if [ $profile != selftest ]; then
		[ "$bases" -ge 4 ] || why+=("only $bases base images")
		[ "$csumo" -ge 1 ] && [ "$nocsum" -ge 1 ] || why+=("bases: $csumo with CSUM_ORDER, $nocsum without; want both")
		[ "$revokes" -ge 1 ] || why+=("no base holds a revoke block")
	fi
	local name=fuzz:$profile
	[ $profile != selftest ] || name=fuzz:selftest-images
	if [ ${#why[@]} = 0 ]; then
		echo "PASS $name ($n images on $bases bases, 0 failures)"
	else
		local IFS=';'
		echo "FAIL $name (${why[*]})"; status=1
	fi
}
verdicts | tee "$OUT/verdicts.txt"
status=$(grep -q '^FAIL' "$OUT/verdicts.txt" && echo 1 || echo 0)

if [ $doc = 1 ]; then
	md=$TOP/docs/results/fuzz-$profile.md
	mkdir -p "$(dirname "$md")"
	{
		echo "# Journal fuzzing (--$profile)"
		echo
		echo "\`qemu/fuzz-harness.sh --$profile\`: seeds $range, kernel \`${KERNEL#"$TOP"/}\`"
		echo "(Linux $("$TOP/scripts/tree.sh" version 2>/dev/null | tail -n 1 || echo "?"), the series applied), measured $(date -u +%Y-%m-%d), wall time ${wall}s"
		echo "on 2 cores under TCG (one guest: boot, 9 recordings, $SELFTEST selftest images, the images)."
		echo
		cat "$OUT/table.md"
		echo
		echo '```'
		cat "$OUT/failures.txt" "$OUT/e2fsck-gaps.txt" "$OUT/verdicts.txt"
		echo '```'
	} > "$md"
	log "written to $md"
fi
exit "$status"
