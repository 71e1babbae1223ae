#!/bin/sh
# selftest-warn: logs a line that looks like a kernel warning, then exits 0.
# qemu/selftest.sh runs it to prove that the runner fails a run whose
# console shows a kernel problem, whatever the scenario's own verdict.
#
# jbd2t-timeout: 120
. /jbd2t/lib.sh
echo "WARNING: jbd2t runner self-test, not a real warning" > /dev/kmsg
