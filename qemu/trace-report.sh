#!/usr/bin/env bash
# trace-report.sh TRACE[.gz]: where the time of a traced benchmark cell
# went (the trace-cell guest scenario writes TRACE). One vCPU assumed.
#
#   qemu/scenario.sh trace-cell threads=64     (ICOUNT=0 for the fast CPU)
#   qemu/trace-report.sh build/results/trace-cell/trace.txt.gz
#
# Prints, over the traced window: the CPU's idle share, split by what the
# device was doing meanwhile (a flush in flight, other requests only,
# nothing); the device's flush-busy share; kjournald2's and the flush
# completions' wait for the CPU once woken (wakeup to running); commits
# (start to durable, and how long the locked transaction waited for its
# open handles) and batch flushes (transactions per flush, time from
# one completion to the next submission).
set -euo pipefail

if [ $# -ne 1 ] || [ "$1" = --help ]; then sed -n '2,13s/^# \{0,1\}//p' "$0" >&2; exit 2; fi
[ -r "$1" ] || { echo "trace-report.sh: cannot read $1" >&2; exit 2; }

case $1 in *.gz) reader=(zcat -- "$1") ;; *) reader=(cat -- "$1") ;; esac
"${reader[@]}" | awk '
function field(name,   i) {
	for (i = 1; i < NF; i++) if ($i == name) return $(i + 1)
	return ""
}
function kv(key,   i) {
	for (i = 1; i <= NF; i++) if (index($i, key "=") == 1) return substr($i, length(key) + 2)
	return ""
}
# Account the time since the last event to the state the CPU and the
# device were in.
function advance(t,   d) {
	if (last == "") { first = t; last = t; return }
	d = t - last
	if (idle) {
		if (flushes > 0) idle_flush += d
		else if (reqs > 0) idle_io += d
		else idle_none += d
		idle_all += d
	}
	if (flushes > 0) flush_busy += d
	last = t
}
/^#/ { next }
{
	for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+\.[0-9]+:$/) break
	if (i > NF) next
	t = substr($i, 1, length($i) - 1) + 0
	ev = $(i + 1); sub(/:$/, "", ev)
	advance(t)
}
ev == "sched_switch" {
	idle = (kv("next_pid") == "0")
	nc = kv("next_comm")
	if (nc ~ /^jbd2\// && kjw != "") { kj_wait += t - kjw; kj_n++; kjw = "" }
	if (nc ~ /^kworker/ && (kv("next_pid") in kw_wake)) {
		kw_wait += t - kw_wake[kv("next_pid")]; kw_n++; delete kw_wake[kv("next_pid")]
	}
}
ev == "sched_wakeup" {
	c = kv("comm")
	if (c ~ /^jbd2\//) kjw = t
	else if (c ~ /^kworker/) kw_wake[kv("pid")] = t
}
ev == "block_rq_issue" {
	rwbs = $(i + 3)
	if (rwbs ~ /^FF/) flushes++
	else reqs++
}
ev == "block_rq_complete" {
	rwbs = $(i + 3)
	if (rwbs ~ /^FF/) { if (flushes > 0) flushes-- }
	else { if (reqs > 0) reqs--; lastwrite = t }
}
ev == "jbd2_start_commit" {
	cstart[field("transaction")] = t; commits_started++
	if (lastcomplete != "" && !startedafter) { c2s += t - lastcomplete; nc2s++; startedafter = 1 }
}
ev == "jbd2_commit_locking" { clock[field("transaction")] = t }
ev == "jbd2_commit_flushing" {
	x = field("transaction")
	if (x in clock) { drain += t - clock[x]; ndrain++ }
}
ev == "jbd2_end_commit" {
	x = field("transaction")
	if (x in cstart) { cdur += t - cstart[x]; cn++ }
}
ev == "jbd2_batch_flush_submit" {
	split(field("transactions"), r, "-")
	bsub++; bcov += r[2] - r[1] + 1
	if (lastcomplete != "") { gap += t - lastcomplete; ngap++ }
	if (lastwrite != "") { w2s += t - lastwrite; nw2s++ }
}
ev == "jbd2_batch_flush_complete" { lastcomplete = t; startedafter = 0 }
END {
	span = last - first
	if (span <= 0) { print "trace-report.sh: no timed events" > "/dev/stderr"; exit 1 }
	printf "window %.3f s\n", span
	printf "CPU idle %.1f%%: flush in flight %.1f%%, other requests only %.1f%%, device idle %.1f%%\n",
		100 * idle_all / span, 100 * idle_flush / span, 100 * idle_io / span, 100 * idle_none / span
	printf "device flushing %.1f%% of the time\n", 100 * flush_busy / span
	printf "kjournald2 woken to running: %d times, mean %.0f us\n", kj_n, kj_n ? 1e6 * kj_wait / kj_n : 0
	printf "kworkers woken to running: %d times, mean %.0f us\n", kw_n, kw_n ? 1e6 * kw_wait / kw_n : 0
	printf "commits: %d started, start to durable (end_commit) mean %.0f us\n", commits_started, cn ? 1e6 * cdur / cn : 0
	printf "commits: locked until the last handle stopped (locking to flushing) mean %.0f us\n",
		ndrain ? 1e6 * drain / ndrain : 0
	if (bsub)
		printf "batch flushes: %d, %.2f transactions each; completion to next submission mean %.0f us\n",
			bsub, bcov / bsub, ngap ? 1e6 * gap / ngap : 0
	if (nc2s)
		printf "  batch flush completion to the next commit start: mean %.0f us\n", 1e6 * c2s / nc2s
	if (nw2s)
		printf "  last write completed to batch flush submission: mean %.0f us\n", 1e6 * w2s / nw2s
}'
