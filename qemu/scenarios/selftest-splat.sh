#!/bin/sh
# selftest-splat: loads qemu/modules/splat with kind=KIND (kasan, lockdep,
# sleep), which makes the debug kernel's checker of that kind report, then
# exits 0. qemu/selftest.sh --debug runs it to prove that the debug kernel
# has the checker and that the runner fails a run on its report.
#
# Args: kind=KIND
#
# jbd2t-modules: splat
# jbd2t-timeout: 180
. /jbd2t/lib.sh

load_module splat "kind=$(arg kind kasan "$@")"
