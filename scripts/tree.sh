#!/usr/bin/env bash
# Make and keep the kernel tree: Debian's linux-source-6.12 tarball, a git
# repository with a tagged base commit, and linux-patches/ applied on top.
#
#   tree.sh setup     create the tree, or bring it up to date with the series
#   tree.sh export    write the tree's commits back to linux-patches/
#   tree.sh version   print the source version the series applies to
set -euo pipefail
. "$(dirname "$0")/common.sh"

TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
STAMP_DIR=$TREE/.git/jbd2-flush
BASE_DATE="2000-01-01T00:00:00Z"

git_tree() { git -C "$TREE" "$@"; }

series_hash() { cat "$TOP/linux-patches/series" $(series_patches) | sha256sum | cut -d' ' -f1; }

kernel_version_of() {
	awk '/^VERSION =/{v=$3} /^PATCHLEVEL =/{p=$3} /^SUBLEVEL =/{s=$3}
	     END{printf "%s.%s.%s\n", v, p, s}' "$1/Makefile"
}

make_base() {
	[ -f "$TARBALL" ] || die "$TARBALL not found: install linux-source-6.12"
	log "extracting $TARBALL"
	rm -rf "$TREE.tmp"
	mkdir -p "$TREE.tmp"
	tar -xJf "$TARBALL" -C "$TREE.tmp" --strip-components=1
	local ver pkg
	ver=$(kernel_version_of "$TREE.tmp")
	pkg=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown)
	log "making a git repository of $ver (package $pkg)"
	git -C "$TREE.tmp" init -q -b master
	git -C "$TREE.tmp" config user.name "$PROJECT_IDENT_NAME"
	git -C "$TREE.tmp" config user.email "$PROJECT_IDENT_EMAIL"
	git -C "$TREE.tmp" config core.abbrev 12
	# Debian's tarball ignores every top-level entry (its packaging repo
	# tracks only debian/): drop that rule, or new files in the tree
	# would be invisible to git status and git add.
	sed -i '/^# Debian packaging: ignore everything/,/^!\/debian\/$/d' "$TREE.tmp/.gitignore"
	# Everything in the tarball is source, dotfiles such as .kunitconfig
	# included, which Debian's .gitignore would otherwise leave out.
	git -C "$TREE.tmp" add -A -f
	# Fixed dates: the same tarball gives the same base commit on every
	# machine, so base-commit: lines in linux-patches/ stay stable.
	GIT_AUTHOR_DATE=$BASE_DATE GIT_COMMITTER_DATE=$BASE_DATE \
	git -C "$TREE.tmp" commit -q -m "Linux $ver (Debian linux-source-6.12 $pkg)

Debian's top-level ignore-all rule is dropped from .gitignore."
	git -C "$TREE.tmp" tag "$BASE_TAG"
	mkdir -p "$TREE.tmp/.git/jbd2-flush"
	echo "$ver" > "$TREE.tmp/.git/jbd2-flush/source-version"
	echo "$pkg" > "$TREE.tmp/.git/jbd2-flush/package-version"
	mv "$TREE.tmp" "$TREE"
}

# Apply the series with git am; on failure name the patch and the files
# that did not apply, and leave the tree at the base.
apply_series() {
	local p n=0 total
	total=$(series_patches | wc -l)
	git_tree reset -q --hard "$BASE_TAG"
	for p in $(series_patches); do
		n=$((n + 1))
		if ! git_tree am -q --3way --committer-date-is-author-date "$p" > "$STAMP_DIR/am.log" 2>&1; then
			local files
			files=$(grep -E '^(error|Applying|Patch failed|CONFLICT)' "$STAMP_DIR/am.log" | head -20 || true)
			git_tree am --abort >/dev/null 2>&1 || true
			git_tree reset -q --hard "$BASE_TAG"
			die "patch $n/$total $(basename "$p") does not apply to $(cat "$STAMP_DIR/source-version"):
$files"
		fi
	done
	series_hash > "$STAMP_DIR/series-hash"
	git_tree rev-parse HEAD > "$STAMP_DIR/applied-head"
	log "applied $total patches on $(cat "$STAMP_DIR/source-version")"
}

setup() {
	[ -d "$TREE/.git" ] || make_base
	mkdir -p "$STAMP_DIR"
	local want have head
	want=$(series_hash)
	have=$(cat "$STAMP_DIR/series-hash" 2>/dev/null || true)
	head=$(git_tree rev-parse HEAD)
	if [ "$want" = "$have" ]; then
		return 0
	fi
	# The series changed under the tree. Re-applying resets the tree: refuse
	# if that would throw away commits made there and not exported.
	if [ -n "$have" ] && [ "$head" != "$(cat "$STAMP_DIR/applied-head")" ] &&
	   [ -z "${FORCE:-}" ]; then
		die "linux-patches/ changed and $TREE has commits that were not exported.
Run 'make export' to keep the tree's work, or 'make tree FORCE=1' to drop it."
	fi
	apply_series
}

# Write base..HEAD back to linux-patches/ and keep the cover letter's text.
export_series() {
	[ -d "$TREE/.git" ] || die "no kernel tree at $TREE: run 'make tree' first"
	[ -z "$(git_tree status --porcelain -uno)" ] ||
		die "$TREE has uncommitted changes: commit them first"
	local out old_cover
	out=$(mktemp -d)
	old_cover=$TOP/linux-patches/0000-cover-letter.patch
	git_tree format-patch -q --zero-commit --cover-letter --base="$BASE_TAG" -o "$out" "$BASE_TAG..HEAD"
	if [ -f "$old_cover" ]; then
		"$TOP/scripts/cover-letter.sh" "$old_cover" "$out/0000-cover-letter.patch"
	fi
	rm -f "$TOP"/linux-patches/[0-9][0-9][0-9][0-9]-*.patch
	cp "$out"/*.patch "$TOP/linux-patches/"
	(cd "$out" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-cover-letter') > "$TOP/linux-patches/series"
	rm -rf "$out"
	series_hash > "$STAMP_DIR/series-hash"
	git_tree rev-parse HEAD > "$STAMP_DIR/applied-head"
	log "exported $(wc -l < "$TOP/linux-patches/series") patches to linux-patches/"
}

case "${1:-}" in
setup) setup ;;
export) export_series ;;
version) echo "$(cat "$STAMP_DIR/source-version") (package $(cat "$STAMP_DIR/package-version"))" ;;
*) die "usage: $0 setup|export|version" ;;
esac
