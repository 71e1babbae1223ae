#!/bin/sh
# selftest-hang: never finishes. qemu/selftest.sh runs it with a short
# timeout to prove that the runner kills a hung guest and fails the run.
#
# jbd2t-timeout: 60
. /jbd2t/lib.sh
info "selftest-hang: sleeping forever"
while :; do sleep 3600; done
