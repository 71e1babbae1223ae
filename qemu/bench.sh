#!/usr/bin/env bash
# Flush-cost benchmark (docs/benchmark.md): the "bench" guest scenario on
# each kernel, side by side; a markdown table per device and workload, and
# a plot of ops/s against threads, under docs/results/.
#
#   qemu/bench.sh [--short|--long]   stock and patched kernels, every mode,
#                                    each cell 3 times; writes
#                                    docs/results/bench-PROFILE.{md,tsv,png}
#   qemu/bench.sh --ordering         the commit-ordering figure: metadata-
#                                    only and data fsync workloads, stock
#                                    and patched default/nobarrier, the
#                                    patched full barrier and unpaced
#                                    write-ahead (~12 min)
#   qemu/bench.sh --ordering-fast    the same on a guest CPU four times
#                                    faster (-icount shift=0), where the
#                                    device, not the CPU, bounds the
#                                    16- and 64-thread cells (~20 min)
#   qemu/bench.sh --hold             the flush hold after a completion:
#                                    create in a closed loop and with
#                                    threads that pause between ops
#                                    (fsyncbench --think-us), stock and
#                                    patched with and without the hold,
#                                    fast guest CPU (~8 min)
#   qemu/bench.sh --unpack           package installs (fsyncbench unpack:
#                                    16 new files an op, writeback
#                                    started, each fsynced, renamed):
#                                    stock and patched default/nobarrier,
#                                    1 and 4 threads (~2 min)
#   qemu/bench.sh --smoke            patched kernel only, one short pass;
#                                    PASS/FAIL lines on the counts only
#                                    (no timing): for scripts/check.sh
#   qemu/bench.sh --report [--short|--long|--ordering|--ordering-fast|--hold|--unpack]
#                                    only rewrite the docs from the last
#                                    run's build/results/bench-PROFILE/
#   qemu/bench.sh --compare A.tsv B.tsv
#                                    flushes per fsync of two runs (cells
#                                    files): PASS if every cell is within 5%
#
# Environment: BENCH_KERNELS (names, default "stock patched"; --smoke:
# "patched"; "base" is the bzImage BENCH_BASE_KERNEL, an earlier point of
# the series, measured in the patched kernel's modes), BENCH_DEVICES, BENCH_RUNS, BENCH_SECS, BENCH_REPS (override
# the profile), BENCH_OUT (docs/results by default; the smoke run writes
# only to build/results), BENCH_ICOUNT (default 2, --ordering-fast and
# --hold 0: QEMU's instruction-counted clock, 2^N ns per guest instruction, one
# vCPU, so times and counts do not follow the host's load; off: the
# host's real time, two vCPUs; see docs/results/bench-stability.md).
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

usage() { awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2; exit 2; }

# Kernels: NAME -> bzImage, and the mount modes measured on it. A mode
# the series adds is a name here (patched) and a line in the scenario's
# mode_opts (qemu/scenarios/bench.sh).
kernel_image() {
	case $1 in
	stock) echo "$BUILD/stock/kunit/arch/x86/boot/bzImage" ;;
	patched) echo "$BUILD/kunit/arch/x86/boot/bzImage" ;;
	# An earlier point of the series, to measure what later patches add.
	base) echo "${BENCH_BASE_KERNEL:?base: set BENCH_BASE_KERNEL to a bzImage}" ;;
	*) die "unknown kernel '$1' (stock, patched, base)" ;;
	esac
}
kernel_modes() {
	case ${1/#base/patched}:$profile in
	stock:ordering*|stock:hold|stock:unpack) echo default,nobarrier ;;
	stock:*) echo default,nobarrier,async-ordered,async-journal ;;
	# default is journal_csum_order here; nocsum-order is today's commit;
	# no-batch-wait writes ahead of a flush without pacing (max_batch_time=0).
	patched:ordering*) echo default,no-batch-wait,nocsum-order,nobarrier ;;
	patched:hold) echo default,no-batch-wait ;;
	patched:unpack) echo default,nobarrier ;;
	patched:*) echo default,nocsum-order,nobarrier,async-ordered,async-journal ;;
	esac
}
# The reference cells of the ratio columns: this kernel's default and
# nobarrier modes (the first kernel of the run if it is not there).
REF_KERNEL=stock

# Profiles: devices (PROFILE:FUA), runs (WORKLOAD:THREADS[:SECONDS]),
# default seconds per run, runs per cell; the smoke profile also cross-checks the device's
# counters with the block tracepoint.
profile=short
report_only=0
if [ "${1:-}" = --report ]; then report_only=1; shift; fi
case ${1:-} in
--short|'') ;;
--long) profile=long ;;
--ordering) profile=ordering ;;
--ordering-fast) profile=ordering-fast ;;
--hold) profile=hold ;;
--unpack) profile=unpack ;;
--smoke) profile=smoke ;;
--compare) [ $# -eq 3 ] || usage; profile=compare ;;
*) usage ;;
esac
DEVICES=ssd:1,ssd:0,hdd:1,hdd:0
TRACE=0
PLOT=append
case $profile in
# 1-thread counts are exact in any run; 16 threads batch by timing and
# need more fsyncs for a stable count.
short) RUNS=append:1:1,append:16:3 SECS=1 REPS=3 ;;
long) RUNS=append:1:2,append:4,append:16,append:64,meta:1:2,meta:16,fdatasync:1:2,fdatasync:16
	RUNS+=,osync:1:2,osync:16,create:1:2,create:16 SECS=3 REPS=3 ;;
# create: metadata-only fsync (every commit may be checksum-ordered); the
# others carry data, whose commits keep the full barrier.
ordering|ordering-fast) DEVICES=hdd:0,ssd:0,ssd:1 PLOT=create SECS=2 REPS=3
	RUNS=create:1,create:4,create:16,create:64,meta:1,append:1,fdatasync:1,osync:1 ;;
# Holds pay in a closed loop (every woken thread's commit is written
# within a flush time) and miss when threads pause between fsyncs: 3 ms
# is about a 1 ms flush cycle and a half, 20 ms two and a half 8 ms ones.
hold) DEVICES=hdd:0,ssd:0 PLOT=create SECS=2 REPS=3
	RUNS=create:2,create:16,create-think3000:2,create-think20000:2,create-think5000:16 ;;
# Each op fsyncs 16 files whose blocks one commit allocated: with the
# series the fsyncs after the first share one flush (ext4_fsync_flush()).
unpack) DEVICES=hdd:0,ssd:0 PLOT=unpack SECS=2 REPS=3 RUNS=unpack:1,unpack:4 ;;
smoke) DEVICES=ssd:1,ssd:0 RUNS=append:1,append:16 SECS=1 REPS=1 TRACE=1
	SMOKE_MODES=default,nobarrier ;;
esac
DEVICES=${BENCH_DEVICES:-$DEVICES}
ndev=$(tr , '\n' <<< "$DEVICES" | wc -l)
RUNS=${BENCH_RUNS:-${RUNS:-}}
SECS=${BENCH_SECS:-${SECS:-1}}
# The counted clock by default: with the host's real time, how many
# fsyncs share a commit follows the host's load (bench-stability.md).
# ordering-fast: 1 ns per instruction, so the guest's CPU is four times
# faster and the 8 ms flush, not the CPU, limits the many-thread cells.
ICOUNT=2
case $profile in ordering-fast|hold) ICOUNT=0 ;; esac
ICOUNT=${BENCH_ICOUNT:-$ICOUNT}
[ "$ICOUNT" != off ] || ICOUNT=
REPS=${BENCH_REPS:-${REPS:-1}}
if [ $profile = smoke ]; then KERNELS=${BENCH_KERNELS:-patched}; else KERNELS=${BENCH_KERNELS:-stock patched}; fi
OUT=$BUILD/results/bench-$profile
DOCS=${BENCH_OUT:-$TOP/docs/results}

# ---- aggregation ------------------------------------------------------
# cells RESULTS.TSV: one row per cell (kernel profile fua mode workload
# threads) over its runs: n, ops/s median/min/max, p50 and p99 median (us),
# flushes per fsync over all runs (their sums) with the runs' min/max,
# then, also over all runs, FUA writes per fsync, commits per flush,
# commits per fsync, writes per fsync, the fsync calls, the share of
# commits sent checksum-ordered, the share made durable by a batch flush
# and the transactions per batch flush ("-" on a stock kernel), the
# guest CPU's busy share ("-" for rows recorded without it), and the
# flush holds that ended with a commit written, with none, and the
# skipped ones, each per batch flush ("-" without them).
cells() {
	awk -F'\t' -v OFS='\t' '
	# median of the values in v[1..n] (sorted in place)
	function median(v, n,   i, j, t) {
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
		return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
	}
	function stat(name, key,   v, i, n) {
		n = cnt[key]
		for (i = 1; i <= n; i++) v[i] = val[name, key, i]
		med = median(v, n); lo = v[1]; hi = v[n]
	}
	function put(name, key, x) { val[name, key, cnt[key]] = x }
	$2 == "run" {
		key = $1 OFS $3 OFS $4 OFS $5 OFS $6 OFS $7
		if (!(key in cnt)) order[++nkeys] = key
		cnt[key]++
		syncs = $10; fl = $15; fu = $16; wr = $17; cm = $18
		put("ops", key, $12); put("p50", key, $13); put("p99", key, $14)
		put("fpf", key, syncs ? fl / syncs : 0)
		total[key] += syncs; tfl[key] += fl; tfu[key] += fu; twr[key] += wr; tcm[key] += cm
		if ($20 != "" && $20 != "-") { hasord[key] = 1; tord[key] += $20; tfull[key] += $21 }
		if ($22 != "" && $22 != "-") { hasbat[key] = 1; tbat[key] += $22; tcov[key] += $23 }
		if ($25 != "" && $25 != "-") { hascpu[key] = 1; tbusy[key] += $24; tall[key] += $25 }
		if ($26 != "" && $26 != "-") { hashold[key] = 1; thit[key] += $26; tmiss[key] += $27; tskip[key] += $28 }
	}
	END {
		for (k = 1; k <= nkeys; k++) {
			key = order[k]
			line = key OFS cnt[key]
			stat("ops", key); line = line OFS sprintf("%.1f\t%.1f\t%.1f", med, lo, hi)
			stat("p50", key); line = line OFS sprintf("%.0f", med)
			stat("p99", key); line = line OFS sprintf("%.0f", med)
			t = total[key]
			stat("fpf", key); line = line OFS sprintf("%.3f\t%.3f\t%.3f", t ? tfl[key] / t : 0, lo, hi)
			line = line OFS sprintf("%.3f", t ? tfu[key] / t : 0)
			line = line OFS (tfl[key] ? sprintf("%.3f", tcm[key] / tfl[key]) : "-")
			line = line OFS sprintf("%.3f\t%.2f", t ? tcm[key] / t : 0, t ? twr[key] / t : 0)
			o = tord[key] + tfull[key]
			line = line OFS t OFS (hasord[key] && o ? sprintf("%.3f", tord[key] / o) : "-")
			# batch flushes: the share of commits one made durable, and
			# how many transactions each covered
			print line, (hasbat[key] && tcm[key] ? sprintf("%.3f", tcov[key] / tcm[key]) : "-"),
				(hasbat[key] && tbat[key] ? sprintf("%.2f", tcov[key] / tbat[key]) : "-"),
				(hascpu[key] && tall[key] ? sprintf("%.3f", tbusy[key] / tall[key]) : "-"),
				(hashold[key] && tbat[key] ? sprintf("%.2f/%.2f/%.2f", thit[key] / tbat[key],
					tmiss[key] / tbat[key], tskip[key] / tbat[key]) : "-")
		}
	}' "$1"
}
CELLS_HEADER="kernel	profile	fua	mode	workload	threads	n	ops_s	ops_s_min	ops_s_max	p50_us	p99_us	flush_per_fsync	flush_per_fsync_min	flush_per_fsync_max	fua_per_fsync	commits_per_flush	commits_per_fsync	writes_per_fsync	fsyncs	ordered_share	batched_share	txns_per_batch	cpu_busy	holds_per_batch"

# ---- report -----------------------------------------------------------
# table CELLS.TSV PROFILE FUA WORKLOAD REF: the markdown table of one
# device and workload, rows by threads, then kernel and mode (run order).
table() {
	awk -F'\t' -v P="$2" -v F="$3" -v W="$4" -v REF="$5" '
	function ms(us) { return sprintf("%.1f", us / 1000) }
	function ratio(a, b) { return b > 0 ? sprintf("%.2f", a / b) : "-" }
	function pct(x) { return x == "-" || x == "" ? "-" : sprintf("%.0f%%", 100 * x) }
	function span(m, lo, hi, fmt) {
		return lo == hi ? sprintf(fmt, m) : sprintf(fmt " (" fmt "-" fmt ")", m, lo, hi)
	}
	NR > 1 && $2 == P && $3 == F && $5 == W {
		n++; row[n] = $0; th[n] = $6
		if ($1 == REF && $4 == "default") refd[$6] = $8
		if ($1 == REF && $4 == "nobarrier") refn[$6] = $8
	}
	END {
		if (!n) exit
		print "| threads | kernel | mode | ops/s median (min-max) | / " REF " default | / " REF " nobarrier | flushes/fsync | FUA/fsync | commits/flush | commits/fsync | csum-ordered commits | batched commits (txns/batch flush) | guest CPU busy | flush holds hit/missed/skipped | p50 ms | p99 ms |"
		print "| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
		# stable sort by threads, keeping run order within a thread count
		for (i = 1; i <= n; i++) idx[i] = i
		for (i = 2; i <= n; i++)
			for (j = i; j > 1 && th[idx[j - 1]] + 0 > th[idx[j]] + 0; j--) { t = idx[j]; idx[j] = idx[j - 1]; idx[j - 1] = t }
		for (i = 1; i <= n; i++) {
			split(row[idx[i]], c, "\t")
			printf "| %s | %s | %s | %s | %s | %s | %s | %.2f | %s | %.2f | %s | %s | %s | %s | %s | %s |\n",
				c[6], c[1], c[4], span(c[8], c[9], c[10], "%.0f"),
				ratio(c[8], refd[c[6]]), ratio(c[8], refn[c[6]]),
				span(c[13], c[14], c[15], "%.2f"), c[16], c[17], c[18],
				pct(c[21]), (c[22] == "-" || c[22] == "" ? "-" : pct(c[22]) " (" c[23] ")"),
				pct(c[24]), (c[25] == "" ? "-" : c[25]), ms(c[11]), ms(c[12])
		}
	}' "$1"
}

# mode_index MODE: a stable colour number for a mode.
mode_index() {
	local i=1 m
	for m in default nobarrier async-ordered async-journal async-writeback \
		csum-order nocsum-order no-batch-wait; do
		[ "$m" != "$1" ] || { echo $i; return; }
		i=$((i + 1))
	done
	echo $i
}

# plot CELLS.TSV PNG TITLE: ops/s against threads for the $PLOT workload,
# one panel per device, one line per kernel:mode (error bars: min-max).
plot() {
	local cells=$1 png=$2 title=$3 tmp series=() s d di si us rows
	tmp=$(mktemp -d)
	mapfile -t series < <(awk -F'\t' -v W="$PLOT" 'NR > 1 && $5 == W && !seen[$1 ":" $4]++ { print $1 ":" $4 }' "$cells")
	rows=$(( (ndev + 1) / 2 ))
	{
		echo "set terminal pngcairo size 1200,$((450 * rows)) noenhanced font ',10'"
		echo "set output '$png'"
		echo "set multiplot layout $rows,2 title '$title'"
		echo "set logscale x 2; set xlabel 'threads'; set ylabel 'ops/s'"
		# Headroom above the highest line: the key sits there, over no data.
		echo "set key top left Left reverse samplen 2 maxrows 4; set grid; set yrange [0:*]; set offsets graph 0.05, graph 0.05, graph 0.35, 0"
		di=0
		for d in ${DEVICES//,/ }; do
			case ${d%:*} in ssd) us=1 ;; *) us=8 ;; esac
			printf "set title '%s: %s ms per flush, %s FUA'\n" "${d%:*}" "$us" \
				"$([ "${d#*:}" = 1 ] && echo native || echo emulated)"
			printf "plot"
			si=0
			for s in "${series[@]}"; do
				awk -F'\t' -v K="${s%%:*}" -v M="${s#*:}" -v P="${d%:*}" -v F="${d#*:}" \
					-v W="$PLOT" 'NR > 1 && $1 == K && $4 == M && $2 == P && $3 == F && $5 == W {
					print $6, $8, $9, $10 }' "$cells" > "$tmp/$di-$si.dat"
				[ $si -eq 0 ] || printf ","
				# Same colour per mode, dashes for every kernel but the reference.
				printf " '%s' using 1:2:3:4 with yerrorlines lc %d dt %d title '%s'" "$tmp/$di-$si.dat" \
					"$(mode_index "${s#*:}")" "$([ "${s%%:*}" = "$REF_KERNEL" ] && echo 1 || echo 2)" "$s"
				si=$((si + 1))
			done
			echo
			di=$((di + 1))
		done
		echo "unset multiplot"
	} > "$tmp/plot.gp"
	gnuplot "$tmp/plot.gp" || die "gnuplot failed (script: $tmp/plot.gp)"
	rm -rf "$tmp"
}

# worst_cells CELLS.TSV REF: for each other kernel, the lowest ratio of
# its default mount's ops/s to REF's default over the cells both ran,
# and the cells more than 5% under REF (issue 6's bound: no cell worse
# than stock by more than 5%). Prints nothing without a second kernel.
worst_cells() {
	awk -F'\t' -v R="$2" '
	NR > 1 && $4 == "default" {
		key = $2 " fua=" $3 ", " $5 " " $6 ($6 == 1 ? " thread" : " threads")
		if ($1 == R) { ref[key] = $8; next }
		if (!($1 in seen)) { seen[$1] = 1; order[++nk] = $1 }
		n++; kern[n] = $1; cell[n] = key; ops[n] = $8
	}
	END {
		for (i = 1; i <= n; i++) {
			k = kern[i]
			if (!(cell[i] in ref) || ref[cell[i]] <= 0) continue
			r = ops[i] / ref[cell[i]]
			if (!(k in low) || r < low[k]) { low[k] = r; at[k] = cell[i] }
			if (r < 0.95)
				under[k] = under[k] (under[k] == "" ? "" : "; ") sprintf("%s (%.2f)", cell[i], r)
		}
		for (j = 1; j <= nk; j++) {
			k = order[j]
			if (!(k in low)) continue
			printf "\nLowest ratio of %s default to %s default over the run'"'"'s cells: %.2f (%s); cells under 0.95: %s.\n",
				k, R, low[k], at[k], under[k] == "" ? "none" : under[k]
		}
	}' "$1"
}

# report CELLS.TSV MD PNG: the markdown page.
report() {
	local cells=$1 md=$2 png=$3 d w ref=$REF_KERNEL icount_shift
	awk -F'\t' -v R="$ref" 'NR > 1 && $1 == R { f = 1 } END { exit !f }' "$cells" ||
		ref=$(awk -F'\t' 'NR == 2 { print $1 }' "$cells")
	{
		echo "# Flush-cost benchmark, $profile profile"
		echo
		echo "Written by \`qemu/bench.sh --$profile\` ($(date -u +%Y-%m-%d)); how to read it:"
		echo "[docs/benchmark.md](../benchmark.md). Each cell ran $REPS times (runs"
		echo "\`$RUNS\`: workload:threads[:seconds], default ${SECS} s). ops/s and"
		echo "latencies are medians of the runs (min-max); counts per fsync are over all"
		icount_shift=$(cat "$OUT/icount" 2>/dev/null || true)
		if [ -n "$icount_shift" ]; then
			echo "runs (min-max of the runs). Times are the guest's: QEMU TCG with"
			echo "\`-icount shift=$icount_shift,sleep=off\` and one vCPU, a virtual clock that"
			echo "advances $((1 << icount_shift)) ns per guest instruction and skips idle time, so"
			echo "times and counts measure the guest's work and the model's flush cost,"
			echo "not the host's load (how stable: [bench-stability.md](bench-stability.md))."
		else
			echo "runs (min-max of the runs). Times come from QEMU TCG (two vCPUs) on a"
			echo "shared 2-core machine in real time (BENCH_ICOUNT=off) and are noisy, and"
			echo "so are the multi-thread counts ([bench-stability.md](bench-stability.md))."
		fi
		echo
		for k in $KERNELS; do
			echo "- $k: \`$(cat "$OUT/$k.release")\`"
		done
		[ ! -s "$OUT/config-diff" ] || {
			echo "- kernel options that differ between the kernels (besides the series' own):"
			# shellcheck disable=SC2016  # literal backquotes
			sed 's/^\(.*\): \(.*\)$/  - \1: `\2`/' "$OUT/config-diff"
		}
		echo "- wall time: $(cat "$OUT/wall")s for the run; host load average (1, 5, 15 min) before and"
		echo "  after each kernel's guest (the guest itself adds about 2):"
		awk 'FNR == NR { b[$1] = $2 " " $3 " " $4; next }
			{ printf "  - %s: %s -> %s %s %s\n", $1, b[$1], $2, $3, $4 }' \
			"$OUT/load-before" "$OUT/load-after" 2>/dev/null || true
		echo
		echo "![ops/s against threads, $PLOT]($(basename "$png"))"
		echo
		sed -n 's/^\([^\t]*\)\tmodel\t/\1\t/p' "$OUT/results.tsv" | awk -F'\t' '
			{ printf "Model check, %s %s fua=%s: flushcost charged %s flushes and %s FUA writes; /sys/block stat: %s flushes%s.\n",
				$1, $2, $3, $4, $6, $5, ($7 == "-" ? "" : "; block_rq_issue: " $7 " flushes, " $8 " FUA writes") }'
		sed -n 's/^\([^\t]*\)\trefused\t/\1\t/p' "$OUT/results.tsv" | awk -F'\t' '!seen[$1 $4]++ {
			printf "\nRefused mount, %s %s: %s\n", $1, $4, $5 }'
		worst_cells "$cells" "$ref"
		for d in ${DEVICES//,/ }; do
			local name=${d%:*} fua=${d#*:}
			echo
			echo "## $name, $(case $name in ssd) echo 1 ;; hdd) echo 8 ;; esac) ms per flush or FUA write, $([ "$fua" = 1 ] && echo "native FUA" || echo "FUA emulated (write + flush)")"
			# Workloads in run order.
			for w in $(awk -F'\t' -v P="$name" -v F="$fua" 'NR > 1 && $2 == P && $3 == F && !seen[$5]++ { print $5 }' "$cells"); do
				echo
				echo "### $w"
				echo
				table "$cells" "$name" "$fua" "$w" "$ref"
			done
		done
	} > "$md"
}

# ---- compare ----------------------------------------------------------
compare() {
	local a=$1 b=$2
	awk -F'\t' -v A="$a" -v B="$b" '
	FNR == 1 { next }
	{ key = $1 " " $2 " fua=" $3 " " $4 " " $5 ":" $6 }
	FILENAME == A { fa[key] = $13; order[++n] = key; next }
	{ fb[key] = $13 }
	END {
		bad = 0
		printf "%-44s %10s %10s %8s\n", "cell", "run 1", "run 2", "diff"
		for (i = 1; i <= n; i++) {
			k = order[i]
			if (!(k in fb)) { printf "%-44s %10.3f %10s\n", k, fa[k], "missing"; bad++; continue }
			d = (fa[k] == fb[k]) ? 0 : (fa[k] + fb[k] > 0 ? 200 * (fa[k] - fb[k]) / (fa[k] + fb[k]) : 0)
			if (d < 0) d = -d
			printf "%-44s %10.3f %10.3f %7.1f%%%s\n", k, fa[k], fb[k], d, (d > 5 ? "  <-- more than 5%" : "")
			if (d > 5) bad++
		}
		printf "\n%d cells, %d differ by more than 5%% in flushes per fsync\n", n, bad
		exit bad > 0
	}' "$a" "$b"
}

if [ $profile = compare ]; then
	if compare "$2" "$3"; then echo "PASS bench:stability"; else echo "FAIL bench:stability"; exit 1; fi
	exit 0
fi

# ---- run --------------------------------------------------------------
if [ $report_only = 1 ]; then
	if [ $profile = smoke ] || [ ! -f "$OUT/results.tsv" ]; then die "no $OUT/results.tsv to report"; fi
	{ echo "$CELLS_HEADER"; cells "$OUT/results.tsv"; } > "$OUT/cells.tsv"
	mkdir -p "$DOCS"
	cp "$OUT/cells.tsv" "$DOCS/bench-$profile.tsv"
	plot "$OUT/cells.tsv" "$DOCS/bench-$profile.png" "$PLOT, $profile profile: ops/s (median, min-max) against threads"
	report "$OUT/cells.tsv" "$DOCS/bench-$profile.md" "$DOCS/bench-$profile.png"
	log "wrote $DOCS/bench-$profile.md, .tsv, .png"
	exit 0
fi
# progress CONSOLE: print the guest's new result rows every few seconds
# (polling: run-guest.sh recreates the console log).
progress() {
	local seen=0 lines
	while sleep 5; do
		[ -f "$1" ] || continue
		lines=$(grep -a -E '@@JBD2T RESULT (run|refused|model)' "$1" | tail -n +$((seen + 1)) | tr -d '\r') || true
		[ -n "$lines" ] || continue
		seen=$((seen + $(wc -l <<< "$lines")))
		sed 's/^@@JBD2T RESULT /    /' <<< "$lines"
	done
}
rm -rf "$OUT"
mkdir -p "$OUT"
"$TOP/qemu/mkinitramfs.sh" "$BUILD/initramfs/initramfs.cpio.gz"
make -s -C "$TOP/tools" guest
start=$(date +%s)
printf %s "$ICOUNT" > "$OUT/icount"
failed=()
for k in $KERNELS; do
	img=$(kernel_image "$k")
	[ -f "$img" ] || die "no $k kernel at $img (make kernel / make stock-kernel)"
	kb=$(cd "$(dirname "$img")/../../.." && pwd)
	cp "$kb/include/config/kernel.release" "$OUT/$k.release"
	cp "$kb/.config" "$OUT/$k.config"
	modes=${SMOKE_MODES:-$(kernel_modes "$k")}
	nmodes=$(tr , '\n' <<< "$modes" | wc -l)
	# Generous: TCG on a shared machine can be several times slower.
	timeout=$(tr , '\n' <<< "$RUNS" | awk -F: -v d="$ndev" -v m="$nmodes" -v n="$REPS" -v s="$SECS" \
		'{ t += ($3 == "" ? s : $3) + 4 } END { printf "%d", 600 + 3 * d * m * (30 + n * t) }')
	log "$k kernel ($(cat "$OUT/$k.release")): devices $DEVICES, modes $modes, runs $RUNS, ${SECS}s x $REPS"
	progress "$OUT/$k/console.log" &
	progpid=$!
	echo "$k $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load-before"
	ICOUNT=$ICOUNT KERNEL=$img RESULTS=$OUT/$k MEM=1024 TIMEOUT=$timeout \
		"$TOP/qemu/scenario.sh" bench devices="$DEVICES" modes="$modes" runs="$RUNS" \
		secs="$SECS" reps="$REPS" trace="$TRACE" > "$OUT/$k.log" 2>&1 || failed+=("$k")
	echo "$k $(cut -d' ' -f1-3 /proc/loadavg)" >> "$OUT/load-after"
	kill "$progpid" 2>/dev/null || true
	wait "$progpid" 2>/dev/null || true
	[ -f "$OUT/$k/results.tsv" ] && sed "s/^/$k\t/" "$OUT/$k/results.tsv" >> "$OUT/results.tsv"
done
touch "$OUT/results.tsv"
echo $(( $(date +%s) - start )) > "$OUT/wall"
# Options that differ between the kernels, other than the series' own
# and the version strings.
read -ra ks <<< "$KERNELS"
if [ ${#ks[@]} -ge 2 ]; then
	opts() { grep -vE 'JBD2_KUNIT|^CONFIG_(CC_VERSION|LOCALVERSION|BUILD_SALT)|^#' "$OUT/$1.config" | sort; }
	diff <(opts "${ks[0]}") <(opts "${ks[1]}") |
		sed -n "s/^< /${ks[0]}: /p; s/^> /${ks[1]}: /p" > "$OUT/config-diff" || true
fi
{ echo "$CELLS_HEADER"; cells "$OUT/results.tsv"; } > "$OUT/cells.tsv"

for k in ${failed[@]+"${failed[@]}"}; do
	echo "FAIL bench:$k (the guest run failed: $OUT/$k.log, $OUT/$k/console.log)"
done

if [ $profile = smoke ]; then
	# Sanity of the counts only; no timing is asserted.
	status=0
	check() { # NAME OK MESSAGE
		if [ "$2" = 1 ]; then echo "PASS bench:$1 ($3)"; else echo "FAIL bench:$1 ($3)"; status=1; fi
	}
	runs=$OUT/results.tsv
	row() { awk -F'\t' -v OFS='\t' "\$2 == \"run\" && $1" "$runs"; }
	for k in $KERNELS; do
		ok=1; [ -n "$(row "\$1 == \"$k\"")" ] || ok=0
		check "$k-ran" $ok "$(row "\$1 == \"$k\"" | wc -l) runs recorded"
		bad=$(row "\$1 == \"$k\" && (\$9 == 0 || \$10 == 0 || \$17 == 0 || \$18 == 0)" | wc -l)
		ok=1; [ "$bad" -eq 0 ] || ok=0
		check "$k-counts-nonzero" $ok "$bad runs with 0 ops, fsyncs, writes or commits"
		n=$(row "\$1 == \"$k\" && \$5 == \"nobarrier\"" | awk -F'\t' '{ s += $10; f += $15; u += $16 } END { print s + 0, f + 0, u + 0 }')
		read -r s f u <<< "$n"
		ok=1; [ "$s" -gt 0 ] && [ "$f" -eq 0 ] && [ "$u" -eq 0 ] || ok=0
		check "$k-nobarrier-no-flush" $ok "nobarrier: $f flushes, $u FUA writes for $s fsyncs"
		for fua in 0 1; do
			n=$(row "\$1 == \"$k\" && \$5 == \"default\" && \$6 == \"append\" && \$7 == 1 && \$4 == $fua" |
				awk -F'\t' '{ s += $10; f += $15; u += $16 } END { print s + 0, f + 0, u + 0 }')
			read -r s f u <<< "$n"
			# Every fsync flushes; emulated FUA leaves no FUA write.
			ok=1; [ "$s" -gt 0 ] && [ "$f" -ge "$s" ] || ok=0
			[ "$fua" = 1 ] || [ "$u" -eq 0 ] || ok=0
			check "$k-default-flush-per-fsync-fua$fua" $ok \
				"default, 1-thread append, fua=$fua: $f flushes, $u FUA writes for $s fsyncs"
		done
		# The CPU column: ticks in order, and a 1-thread append busier
		# without barriers (CPU-bound) than with them (waiting on flushes).
		n=$(row "\$1 == \"$k\" && \$6 == \"append\" && \$7 == 1" | awk -F'\t' '
			$25 == "" || $25 <= 0 || $24 < 0 || $24 > $25 { bad++ }
			$5 == "nobarrier" { nb += $24; na += $25 }
			$5 == "default" { db += $24; da += $25 }
			END { printf "%d %d %d\n", bad + 0, na ? 100 * nb / na : 0, da ? 100 * db / da : 0 }')
		read -r bad nbusy dbusy <<< "$n"
		ok=1; [ "$bad" -eq 0 ] && [ "$nbusy" -gt "$dbusy" ] || ok=0
		check "$k-cpu-busy" $ok \
			"1-thread append, guest CPU busy: nobarrier $nbusy%, default $dbusy%; $bad runs without CPU ticks"
		ok=1; [ -f "$OUT/$k/results.tsv" ] && grep -q "^model" "$OUT/$k/results.tsv" || ok=0
		for f in ${failed[@]+"${failed[@]}"}; do [ "$f" != "$k" ] || ok=0; done
		check "$k-model" $ok "flushcost counters equal /sys/block stat and block_rq_issue (guest asserts)"
	done
	awk -F'\t' 'NR > 1 { printf "    %s %s fua=%s %-13s %s:%s  %8.1f ops/s  flushes/fsync %.2f  FUA/fsync %.2f  commits/fsync %.2f\n",
		$1, $2, $3, $4, $5, $6, $8, $13, $16, $18 }' "$OUT/cells.tsv"
	echo "bench smoke: $(cat "$OUT/wall")s"
	exit $status
fi

mkdir -p "$DOCS"
cp "$OUT/cells.tsv" "$DOCS/bench-$profile.tsv"
plot "$OUT/cells.tsv" "$DOCS/bench-$profile.png" "$PLOT, $profile profile: ops/s (median, min-max) against threads"
report "$OUT/cells.tsv" "$DOCS/bench-$profile.md" "$DOCS/bench-$profile.png"
log "wrote $DOCS/bench-$profile.md, .tsv, .png ($(cat "$OUT/wall")s)"
[ ${#failed[@]} -eq 0 ]
