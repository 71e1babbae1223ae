#!/usr/bin/env bash
# Build the stock kernel: the same tarball and the same options as the test
# kernel, without the series. Harnesses run it side by side with the
# patched kernel. Prints the bzImage path.
#
# The worktree and build directory sit at build/stock/{linux,kunit}, so the
# relative source path the compiler sees ("../linux") is the one of the
# patched build: ccache hits for every file the series does not touch.
set -euo pipefail
. "$(dirname "$0")/common.sh"

STOCK=$BUILD/stock
[ -d "$TREE/.git" ] || die "no kernel tree: run 'make tree' first"
if [ ! -d "$STOCK/linux" ]; then
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$STOCK/linux" "$BASE_TAG"
fi
git -C "$STOCK/linux" checkout -q --force --detach "$BASE_TAG"
# The series' .kunitconfig does not exist at the base: use the patched
# tree's, minus the options only the series defines.
grep -v JBD2_KUNIT_TEST "$TREE/fs/jbd2/.kunitconfig" > "$STOCK/stock.kunitconfig"
mkdir -p "$STOCK/kunit"
(cd "$STOCK/linux" && ./tools/testing/kunit/kunit.py build --arch=x86_64 \
	--build_dir="$STOCK/kunit" \
	--kunitconfig="$STOCK/stock.kunitconfig" \
	--kunitconfig="$TOP/qemu/guest.config" \
	--jobs="$JOBS" --make_options=CC="ccache gcc" \
	--make_options=HOSTCC="ccache gcc" >&2)
echo "$STOCK/kunit/arch/x86/boot/bzImage"
