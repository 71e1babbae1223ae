#!/usr/bin/env bash
# The series' lint gate:
#   lint.sh checkpatch   checkpatch.pl --strict on every patch
#   lint.sh bisect       each commit builds fs/jbd2 and fs/ext4 on its own
#                        and adds no W=1 warning there compared with the base
#   lint.sh selftest     the gate fails on a patch with a style error and on
#                        a patch that does not build
#   lint.sh kunit [N]    each commit (from patch N, default 1) passes the
#                        KUnit suites it has (the test kernel's config,
#                        booted under QEMU); ~1.5 min per commit warm
# Each check prints "PASS|FAIL <name>" lines for scripts/check.sh to count.
set -euo pipefail
. "$(dirname "$0")/common.sh"

EXCEPTIONS=$TOP/linux-patches/checkpatch-exceptions
BISECT_SRC=$BUILD/bisect-src
BISECT_OBJ=$BUILD/bisect
LINT_OUT=$BUILD/lint
FIXTURES=$TOP/scripts/lint-fixtures
mkdir -p "$LINT_OUT"

pass() { printf 'PASS %s\n' "$*"; }
fail() { printf 'FAIL %s\n' "$*"; }

# checkpatch findings of one patch that are not in the exception list.
# An exception line is "<patch file name> <TYPE>  # why".
checkpatch_findings() {
	local patch=$1 name
	name=$(basename "$patch")
	# Debian's python3 first: checkpatch's spdxcheck.py needs python3-ply.
	(cd "$TREE" && PATH=/usr/bin:$PATH ./scripts/checkpatch.pl --strict --show-types --no-summary \
		--terse "$patch" || true) |
	{ grep -E '(ERROR|WARNING|CHECK):[A-Z0-9_]+:' || true; } |
	while IFS= read -r line; do
		type=$(sed -E 's/.*(ERROR|WARNING|CHECK):([A-Z0-9_]+):.*/\2/' <<< "$line")
		is_exception "$name" "$type" || printf '%s\n' "$line"
	done
}

# Is the finding TYPE in patch NAME listed in the exception file?
is_exception() {
	local name=$1 type=$2 glob etype
	[ -f "$EXCEPTIONS" ] || return 1
	while read -r glob etype _; do
		case "$glob" in ''|'#'*) continue ;; esac
		# shellcheck disable=SC2053
		[[ $name == $glob && $type == "$etype" ]] && return 0
	done < "$EXCEPTIONS"
	return 1
}

run_checkpatch() {
	local patch findings
	for patch in $(series_patches); do
		findings=$(checkpatch_findings "$patch")
		if [ -z "$findings" ]; then
			pass "checkpatch $(basename "$patch")"
		else
			fail "checkpatch $(basename "$patch")"
			printf '%s\n' "$findings" | sed 's/^/    /' >&2
		fi
	done
}

# A worktree of the kernel tree for building old commits, so the main tree
# and its build directories are left alone.
bisect_worktree() {
	if [ ! -d "$BISECT_SRC" ]; then
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$BISECT_SRC" "$BASE_TAG"
	fi
}

# Same options as the KUnit/guest kernel, so the objects are the ones tested.
bisect_config() {
	mkdir -p "$BISECT_OBJ"
	cat "$TREE/fs/jbd2/.kunitconfig" "$TOP/qemu/guest.config" \
	    > "$BISECT_OBJ/.config"
	printf 'CONFIG_SERIAL_8250=y\nCONFIG_SERIAL_8250_CONSOLE=y\n' >> "$BISECT_OBJ/.config"
	make -C "$BISECT_SRC" -s O="$BISECT_OBJ" ARCH=x86_64 CC="ccache gcc" \
		HOSTCC="ccache gcc" olddefconfig >/dev/null 2>&1
}

# Build fs/jbd2 and fs/ext4 at commit $1 with W=1; keep the warnings,
# without line numbers, in $2. Objects are removed first so every file is
# compiled (ccache replays the warnings of unchanged files).
build_at() {
	local commit=$1 warnings=$2 log=$LINT_OUT/build-$1.log
	# The worktree is ours alone: drop whatever an interrupted run left.
	git -C "$BISECT_SRC" checkout -q --force --detach "$commit"
	rm -rf "$BISECT_OBJ/fs/jbd2" "$BISECT_OBJ/fs/ext4"
	if ! make -C "$BISECT_SRC" -j"$JOBS" O="$BISECT_OBJ" ARCH=x86_64 W=1 \
		CC="ccache gcc" HOSTCC="ccache gcc" fs/jbd2/ fs/ext4/ > "$log" 2>&1; then
		grep -E 'error|Error' "$log" | head -20 >&2
		return 1
	fi
	{ grep -E ': warning: ' "$log" || true; } |
		sed -E "s#^.*/((fs|include)/[^:]+):[0-9]+:[0-9]+: #\1: #" |
		sort -u > "$warnings"
}

run_bisect() {
	local base commit subject
	bisect_worktree
	bisect_config
	base=$(git -C "$TREE" rev-parse "$BASE_TAG")
	build_at "$base" "$LINT_OUT/warnings-base" ||
		die "the base tree does not build fs/jbd2 and fs/ext4"
	for commit in $(git -C "$TREE" rev-list --reverse "$BASE_TAG..HEAD"); do
		subject=$(git -C "$TREE" log -1 --format=%s "$commit")
		if ! build_at "$commit" "$LINT_OUT/warnings-$commit"; then
			fail "build $subject"
			continue
		fi
		pass "build $subject"
		if comm -13 "$LINT_OUT/warnings-base" "$LINT_OUT/warnings-$commit" |
		   grep . > "$LINT_OUT/new-warnings-$commit"; then
			fail "W=1 no new warnings: $subject"
			sed 's/^/    /' "$LINT_OUT/new-warnings-$commit" >&2
		else
			pass "W=1 no new warnings: $subject"
		fi
	done
	git -C "$BISECT_SRC" checkout -q --force --detach "$base"
}

# The gate must be able to fail: a patch with style errors must be flagged
# by checkpatch, and a patch that breaks the build must fail the build step.
run_selftest() {
	local findings head
	findings=$(checkpatch_findings "$FIXTURES/bad-style.patch")
	if [ -n "$findings" ]; then
		pass "lint selftest: checkpatch flags bad-style.patch"
	else
		fail "lint selftest: checkpatch flags bad-style.patch"
	fi
	bisect_worktree
	[ -f "$BISECT_OBJ/.config" ] || bisect_config
	head=$(git -C "$TREE" rev-parse HEAD)
	git -C "$BISECT_SRC" checkout -q --force --detach "$head"
	if git -C "$BISECT_SRC" apply "$FIXTURES/build-break.patch" &&
	   ! build_at_worktree; then
		pass "lint selftest: build step fails on build-break.patch"
	else
		fail "lint selftest: build step fails on build-break.patch"
	fi
	git -C "$BISECT_SRC" checkout -q -- .
}

# Build the worktree as it is (with local changes), fs/jbd2 only.
build_at_worktree() {
	make -C "$BISECT_SRC" -j"$JOBS" O="$BISECT_OBJ" ARCH=x86_64 \
		CC="ccache gcc" HOSTCC="ccache gcc" fs/jbd2/ > "$LINT_OUT/selftest.log" 2>&1
}

# Per-commit KUnit: a worktree at build/per-patch/linux built in
# build/per-patch/kunit, the layout of the main tree (build/linux and
# build/kunit), so ccache serves every file a commit does not touch.
PER_PATCH=$BUILD/per-patch

run_kunit_per_commit() {
	local commit subject n=0 log rc from=${1:-1}
	if [ ! -d "$PER_PATCH/linux" ]; then
		git -C "$TREE" worktree prune
		git -C "$TREE" worktree add -q --detach "$PER_PATCH/linux" "$BASE_TAG"
	fi
	mkdir -p "$PER_PATCH/kunit"
	for commit in $(git -C "$TREE" rev-list --reverse "$BASE_TAG..HEAD"); do
		n=$((n + 1))
		[ "$n" -ge "$from" ] || continue
		subject=$(git -C "$TREE" log -1 --format=%s "$commit")
		log=$LINT_OUT/kunit-$n.log
		git -C "$PER_PATCH/linux" checkout -q --force --detach "$commit"
		rm -f "$PER_PATCH/kunit/results.json"
		rc=0
		(cd "$PER_PATCH/linux" && ./tools/testing/kunit/kunit.py run --arch=x86_64 \
			--build_dir="$PER_PATCH/kunit" --kunitconfig=fs/jbd2 \
			--kunitconfig="$TOP/qemu/guest.config" --jobs="$JOBS" \
			--make_options=CC="ccache gcc" --make_options=HOSTCC="ccache gcc" \
			--qemu_args='-accel tcg' --kernel_args=acpi=noirq --timeout=900 \
			--json="$PER_PATCH/kunit/results.json") > "$log" 2>&1 || rc=$?
		if [ $rc -eq 0 ] && "$TOP/kunit-tests/summarize.py" \
			"$PER_PATCH/kunit/results.json" > "$log.summary" 2>&1; then
			pass "kunit at patch $n: $subject ($(grep -c '^PASS' "$log.summary") cases)"
		else
			fail "kunit at patch $n: $subject (see $log)"
		fi
	done
}

case "${1:-}" in
checkpatch) run_checkpatch ;;
bisect) run_bisect ;;
selftest) run_selftest ;;
kunit) run_kunit_per_commit "${2:-1}" ;;
*) die "usage: $0 checkpatch|bisect|selftest|kunit" ;;
esac
