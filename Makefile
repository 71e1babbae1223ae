# jbd2-flush: every entry point. See README.md.
#
#   make            the main job: patched kernel, KUnit, barrier scenarios
#   make check      the test command (ends with "N passed, N failed")
SHELL := /bin/bash
TOP := $(CURDIR)
S := scripts

.PHONY: all run check deps tree export kernel kunit guest-barriers lint \
	scenario tools tools-test stock-kernel crash crash-long fcrace bench \
	bench-long debug-kernel reliability fuzz-long kunit-per-patch clean distclean help

all: run

help:
	@sed -n 's/^#   //p' $(firstword $(MAKEFILE_LIST))
	@echo "other targets: deps tree export kernel kunit guest-barriers lint scenario S_NAME=<name> tools tools-test stock-kernel crash crash-long fcrace bench bench-long debug-kernel reliability fuzz-long kunit-per-patch clean distclean"

deps:
	@$(S)/deps.sh

tree: deps
	@$(S)/tree.sh setup

# Write the kernel tree's commits back to linux-patches/ (the source of truth).
export:
	@$(S)/tree.sh export

kernel: tree tools
	@kunit-tests/run.sh build

# Host and static guest builds of tools/, and their unit tests.
tools: deps
	@$(MAKE) -s -C tools -j2 host guest

tools-test: deps
	@$(MAKE) -s -C tools -j2 test

# Crash-consistency matrix (dm-log-writes + lwreplay + crashwork in QEMU):
# crash = the quick profile of make check, crash-long writes docs/results/.
crash: kernel
	@qemu/crash-harness.sh --quick

crash-long: kernel
	@qemu/crash-harness.sh --long

# The ext4 fast-commit fsync race of patch 15, with and without the fix,
# on kernels built with a test-only detector (qemu/fcrace-harness.sh).
fcrace: kernel
	@qemu/fcrace-harness.sh

# Flush-cost benchmark, stock and patched kernels side by side
# (docs/benchmark.md): bench = the short profile (~6 min), bench-long the
# docs' one. Both write docs/results/bench-<profile>.{md,tsv,png}.
bench: kernel stock-kernel tools
	@qemu/bench.sh --short

bench-long: kernel stock-kernel tools
	@qemu/bench.sh --long

# The debug test kernel (qemu/debug.config: KASAN, lockdep, KFENCE, ...)
# and the reliability steps of make check that run on it: jbd2 KUnit,
# malformed options, journal fuzzing (540 images; make check runs 270),
# faults at commit time, a slice of the crash matrix. Any splat fails them.
debug-kernel: tree
	@kunit-tests/run.sh --debug build

reliability: debug-kernel tools
	@kunit-tests/run.sh --debug run
	@KERNEL=$(TOP)/build/debug/arch/x86/boot/bzImage qemu/scenario.sh bad-options
	@KERNEL=$(TOP)/build/debug/arch/x86/boot/bzImage qemu/fuzz-harness.sh --quick
	@KERNEL=$(TOP)/build/debug/arch/x86/boot/bzImage qemu/fault-harness.sh --quick
	@qemu/crash-harness.sh --slice

# Journal fuzzing torture: 10,200 mutated images on the debug kernel
# (~2.3 s an image there: 6-7 hours; 2.5-3 hours with
# KERNEL=build/kunit/arch/x86/boot/bzImage, the plain kernel).
fuzz-long: debug-kernel tools
	@KERNEL=$${KERNEL:-$(TOP)/build/debug/arch/x86/boot/bzImage} qemu/fuzz-harness.sh --long

# The same kernel without the series, for side-by-side runs.
stock-kernel: tree
	@$(S)/stock-kernel.sh

kunit: tree
	@kunit-tests/run.sh run

guest-barriers: kernel
	@qemu/scenario.sh barrier-defaults

scenario: kernel
	@[ -n "$(S_NAME)" ] || { echo "usage: make scenario S_NAME=<name>"; exit 2; }
	@qemu/scenario.sh $(S_NAME)

# Every commit of the series passes KUnit on its own (~1.5 min a commit).
kunit-per-patch: tree
	@$(S)/lint.sh kunit

lint: tree
	@$(S)/lint.sh checkpatch
	@$(S)/lint.sh bisect
	@$(S)/lint.sh selftest

run: tree tools
	@kunit-tests/run.sh run
	@qemu/scenario.sh barrier-defaults

check: tree
	@$(S)/check.sh

# Build products only; the kernel tree (and any unexported commits) stays.
clean:
	rm -rf build/kunit build/bisect build/lint build/check build/results build/disks build/initramfs build/modules

distclean:
	@git -C build/linux worktree prune 2>/dev/null || true
	rm -rf build
