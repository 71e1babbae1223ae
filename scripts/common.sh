# Shared helpers for the project's host-side scripts. Source it; do not run it.
# shellcheck shell=bash

TOP=${TOP:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
BUILD=${BUILD:-$TOP/build}
TREE=${TREE:-$BUILD/linux}
BASE_TAG=${BASE_TAG:-base}
JOBS=${JOBS:-2}
# The debug test kernel (qemu/debug.config, kunit-tests/run.sh --debug).
DEBUG_KERNEL=${DEBUG_KERNEL:-$BUILD/debug/arch/x86/boot/bzImage}
# The ccache directory lives outside the clone so that a fresh clone on the
# same machine (CI) still builds warm.
export CCACHE_DIR=${CCACHE_DIR:-/var/cache/jbd2-flush/ccache}
# Paths below the clone are hashed relative to it, and the working directory
# is not hashed: a clone in another folder hits the same cache entries.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$TOP}
export CCACHE_NOHASHDIR=1
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export CCACHE_COMPILERCHECK=content
PROJECT_IDENT_NAME="jbd2-flush project"
PROJECT_IDENT_EMAIL="jbd2-flush@example.org"

log()  { printf '==> %s\n' "$*" >&2; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die()  { printf 'error: %s\n' "$*" >&2; exit 1; }

# The source version recorded when the tree was made, e.g. 6.12.118.
tree_version() { cat "$TREE/.jbd2-flush/source-version" 2>/dev/null; }

# Patches in series order, one path per line.
series_patches() {
	local p
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -f "$TOP/linux-patches/$p" ] || die "linux-patches/series names $p, which does not exist"
		printf '%s\n' "$TOP/linux-patches/$p"
	done < "$TOP/linux-patches/series"
}

# make in the kernel tree, through ccache.
kmake() {
	make -C "$TREE" -j"$JOBS" CC="ccache gcc" HOSTCC="ccache gcc" "$@"
}

# Console lines that mean the kernel found a bug in itself: oops, BUG (KASAN,
# KFENCE, sleeping in atomic context), WARNING (lockdep, WARN_ON), panic,
# list corruption, a hung task (debug kernel), or any stack dump.
SPLAT_RE='Oops|BUG:|WARNING:|Kernel panic|Call Trace|list_(add|del) corruption|INFO: task .* blocked for more than'

# report_splats LOG: if LOG holds a splat, print it (its first line and the
# 40 lines after) to stderr and return 1.
report_splats() {
	local first
	first=$(grep -n -a -m 1 -E "$SPLAT_RE" "$1" | cut -d: -f1)
	[ -n "$first" ] || return 0
	{
		echo "---- kernel splat in $1 (line $first) ----"
		sed -n "${first},$((first + 40))p" "$1"
		echo "----"
	} >&2
	return 1
}
