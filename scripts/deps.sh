#!/usr/bin/env bash
# Install the Debian packages the project needs, only those missing.
set -euo pipefail
. "$(dirname "$0")/common.sh"

PKGS=(
	linux-source-6.12 make gcc libc6-dev git xz-utils flex bison bc
	libelf-dev libssl-dev dwarves cpio kmod rsync python3 ccache
	qemu-system-x86 qemu-utils e2fsprogs busybox-static dmsetup
	gnuplot-nox perl python3-ply python3-git
)

missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "$(id -u)" -eq 0 ] || die "missing packages: ${missing[*]} (run as root, or install them)"
log "installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
