#!/usr/bin/env bash
# Boot the test kernel in QEMU (TCG), run one guest scenario, judge the run.
set -euo pipefail
. "$(dirname "$0")/../scripts/common.sh"

usage() {
	cat <<'USAGE'
usage: run-guest.sh --kernel BZIMAGE --initrd CPIO --scenario NAME
                    [--args "ARGS"] [--disk FILE[:SIZE]]... [--timeout SECONDS]
                    [--results DIR] [--mem MB]

Disks are attached in order as /dev/vda, /dev/vdb, ...; a missing FILE is
created sparse with SIZE (e.g. 256M, 1G). A results disk is attached last.
The run fails (exit 1) on timeout, a kernel splat (oops/BUG/WARNING/panic,
KASAN, lockdep, hung task: SPLAT_RE in scripts/common.sh), a
missing END marker, or a scenario rc != 0. Bad arguments exit 2.
Results dir (default $BUILD/results/NAME): console.log, and what the guest
left in /results (results.tsv, output.log, dmesg.txt).
VERBOSE=1 also shows the console while the guest runs; KERNEL_APPEND adds
kernel command-line arguments (e.g. initcall_debug); ICOUNT=SHIFT runs the
guest on a virtual clock that advances 2^SHIFT ns per instruction and skips
idle time (QEMU -icount shift=SHIFT,sleep=off), on one vCPU: guest time then
no longer depends on the host's load (qemu/bench.sh uses it). SMP=N sets
the vCPUs (default 2, or 1 with ICOUNT).
USAGE
}
bad() { printf 'run-guest.sh: %s (see --help)\n' "$*" >&2; exit 2; }

kernel='' initrd='' scenario='' args='' timeout=600 results='' mem=512
disks=()
while [ $# -gt 0 ]; do
	case "$1" in
	--help|-h) usage; exit 0 ;;
	--kernel|--initrd|--scenario|--args|--disk|--timeout|--results|--mem)
		[ $# -ge 2 ] || bad "$1 needs a value"
		case "$1" in
		--kernel) kernel=$2 ;; --initrd) initrd=$2 ;; --scenario) scenario=$2 ;;
		--args) args=$2 ;; --disk) disks+=("$2") ;; --timeout) timeout=$2 ;;
		--results) results=$2 ;; --mem) mem=$2 ;;
		esac
		shift 2 ;;
	*) bad "unknown argument '$1'" ;;
	esac
done
case ${ICOUNT:-} in
''|[0-9]|10) ;;
*) bad "ICOUNT must be a shift from 0 to 10, not '$ICOUNT'" ;;
esac
case ${SMP:-} in
''|[1-8]) ;;
*) bad "SMP must be a vCPU count from 1 to 8, not '$SMP'" ;;
esac
[ -n "$kernel" ] || bad "--kernel is required"
[ -n "$initrd" ] || bad "--initrd is required"
[ -n "$scenario" ] || bad "--scenario is required"
[ -f "$kernel" ] || bad "no kernel image at $kernel"
[ -f "$initrd" ] || bad "no initramfs at $initrd"
[[ $scenario =~ ^[A-Za-z0-9._-]+$ ]] || bad "bad scenario name '$scenario'"
[[ $args != *[\"$'\n']* ]] || bad "--args must not contain double quotes or newlines"
[[ $timeout =~ ^[1-9][0-9]*$ ]] || bad "--timeout must be a number of seconds"
[[ $mem =~ ^[1-9][0-9]*$ ]] || bad "--mem must be a number of MB"
results=${results:-$BUILD/results/$scenario}

# cache=unsafe: QEMU ignores the guest's flushes on the host side (fast,
# and nothing here must survive a host crash), but the guest still sees a
# volatile write cache and sends every flush, which is what we count.
add_drive() { # FILE SERIAL
	qdisks+=(-drive "file=$1,format=raw,if=none,id=d$n,cache=unsafe"
		-device "virtio-blk-pci,drive=d$n,serial=$2")
	n=$((n + 1))
}
qdisks=() n=0
for spec in "${disks[@]}"; do
	file=$spec size=
	if [[ $spec =~ ^(.+):([0-9]+[KMGT]?)$ ]]; then file=${BASH_REMATCH[1]} size=${BASH_REMATCH[2]}; fi
	if [ ! -e "$file" ]; then
		[ -n "$size" ] || bad "disk $file does not exist and has no :SIZE"
		mkdir -p "$(dirname "$file")"
		truncate -s "$size" "$file"
	fi
	[[ $file != *,* ]] || bad "disk path must not contain a comma: $file"
	add_drive "$(realpath "$file")" "disk$n"
done
mkdir -p "$results"
results=$(realpath "$results")
rm -f "$results"/{console.log,results.tsv,output.log,dmesg.txt,failures}
resdisk=$results/results-disk.img
rm -f "$resdisk"
truncate -s 64M "$resdisk"   # fresh and zeroed: tar finds its end
add_drive "$resdisk" jbd2t-results

# acpi=noirq: PCI interrupts from the PIR table instead of ACPI's link
# objects, whose AML takes ~25 s per virtio device on the debug kernel
# (KASAN + lockdep under TCG); no effect on what the scenarios measure.
append="console=ttyS0 kunit.enable=0 oops=panic panic=-1 printk.devkmsg=on acpi=noirq${KERNEL_APPEND:+ $KERNEL_APPEND}"
append+=" jbd2t.scenario=$scenario"
[ -z "$args" ] || append+=" jbd2t.args=\"$args\""

log="$results/console.log"
: > "$log"
tailpid=''
if [ "${VERBOSE:-0}" = 1 ]; then tail -n +1 -f "$log" & tailpid=$!; fi
log "booting $scenario (timeout ${timeout}s, console: $log)"
start=$(date +%s)
qrc=0
# A virtual clock tied to the instruction count: the guest's clock follows
# the work it has done. QEMU then runs every vCPU in turn on one host
# thread, so a second vCPU adds no speed, only a way to stall: the idle
# vCPU's timers stopped firing (an RCU stall report naming it, a 3 s run
# lasting 23 s; docs/results/bench-stability.md). One vCPU unless SMP
# says otherwise.
icount=()
smp=${SMP:-2}
if [ -n "${ICOUNT:-}" ]; then
	icount=(-icount "shift=$ICOUNT,sleep=off")
	smp=${SMP:-1}
fi
timeout --kill-after=10 "$timeout" qemu-system-x86_64 -accel tcg "${icount[@]}" -m "$mem" -smp "$smp" \
	-nographic -nodefaults -no-reboot -monitor none -serial "file:$log" \
	-kernel "$kernel" -initrd "$initrd" -append "$append" "${qdisks[@]}" \
	</dev/null || qrc=$?
secs=$(( $(date +%s) - start ))
[ -z "$tailpid" ] || kill "$tailpid" 2>/dev/null || true
sed -i 's/\r$//' "$log"

reasons=()
case $qrc in
0) ;;
124|137) reasons+=("timeout: guest still running after ${timeout}s, killed") ;;
*) reasons+=("qemu exited with status $qrc") ;;
esac
oops=$(grep -a -m 1 -E "$SPLAT_RE" "$log" || true)
if [ -n "$oops" ]; then
	reasons+=("kernel problem: $oops")
	report_splats "$log" || true
fi
grep -q "@@JBD2T BEGIN $scenario" "$log" || reasons+=("no BEGIN marker: init did not start the scenario")
end=$(grep -a -o '@@JBD2T END rc=[0-9]*' "$log" | tail -n 1 || true)
if [ -z "$end" ]; then
	reasons+=("no END marker: the guest died or hung before reporting")
else
	# The guest wrote the results tar before END: take it even on failure.
	if tar -xf "$resdisk" -C "$results"; then rm -f "$resdisk"; else reasons+=("results disk unreadable"); fi
	[ "${end#*rc=}" = 0 ] || reasons+=("scenario failed: ${end#@@JBD2T }")
fi

if [ -f "$results/results.tsv" ]; then
	sed 's/^/RESULT\t/' "$results/results.tsv"
fi
if [ ${#reasons[@]} -gt 0 ]; then
	echo "---- last 40 console lines ($log) ----" >&2
	tail -n 40 "$log" >&2
	echo "----" >&2
	for r in "${reasons[@]}"; do echo "FAILED $scenario: $r" >&2; done
	exit 1
fi
log "$scenario passed in ${secs}s"
