#!/usr/bin/env bash
# vttest.sh installs vttest, Thomas Dickey's VT100/VT220/VT420/xterm test
# program, pinned to one Debian build, into a cache outside the clone, for
# test/conform (the conformance suite `make test` runs against Paneflow and
# `make bench` against Paneflow and tmux).
#
#   scripts/vttest.sh [install]   install if missing
#   scripts/vttest.sh bin         install if missing, then print the binary's path
#
# The package is fetched with `apt-get download` (no root needed; when apt
# does not know the pinned version it runs `apt-get update` as root or
# through passwordless sudo, else says what to run), its SHA-256 checked,
# and unpacked with dpkg-deb -x into $PANEFLOW_TOOLS_DIR, else
# $HOME/.cache/paneflow/tools (not $XDG_CACHE_HOME, which the test scripts
# point at a temporary directory), as vttest-<version>/. A finished install
# is marked by .paneflow-installed, so a second run downloads nothing; the
# install happens in a temporary directory renamed into place under a lock
# (flock), so concurrent callers never see half of one.
#
# The Debian build is the only supported source: its SHA-256 is pinned for
# amd64 (Debian 12's vttest 2.7+20221229-1). On another architecture or
# distribution the script says so and fails.
set -euo pipefail

# shellcheck source=scripts/tools-dir.sh
. "$(dirname "${BASH_SOURCE[0]}")/tools-dir.sh"

version=2.7+20221229-1
declare -A sha256=(
	[amd64]=3518ab484b9d222f52e007612603a14910f2be99bad6d602695261915647dc77
)

die() {
	echo "vttest: $*" >&2
	exit 1
}

cache=$(tools_dir vttest) || exit 1
dir="$cache/vttest-$version"
binary="$dir/usr/bin/vttest"

as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo -n "$@"
	else
		return 1
	fi
}

install() {
	[ -f "$dir/.paneflow-installed" ] && return 0
	if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1; then
		die "needs apt-get and dpkg-deb (Debian or Ubuntu): the pinned vttest is Debian's build"
	fi
	local arch want
	arch=$(dpkg --print-architecture)
	want=${sha256[$arch]:-}
	[ -n "$want" ] || die "no pinned SHA-256 for architecture $arch (pinned: ${!sha256[*]})"
	mkdir -p "$cache"
	exec 9>"$dir.lock"
	flock 9
	[ -f "$dir/.paneflow-installed" ] && return 0
	local tmp
	tmp=$(mktemp -d "$cache/.vttest.XXXXXX")
	# shellcheck disable=SC2064 # expand now: tmp is local
	trap "rm -rf '$tmp'" EXIT
	echo "vttest: downloading vttest $version ($arch) with apt-get download" >&2
	sandbox=()
	[ "$(id -u)" -ne 0 ] || sandbox=(-o APT::Sandbox::User=root)
	if ! (cd "$tmp" && apt-get download -q "${sandbox[@]}" "vttest=$version" >&2); then
		echo "vttest: apt does not know vttest $version; updating its package lists" >&2
		as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 update -qq </dev/null ||
			die "apt-get download vttest=$version failed and apt-get update needs root; run as root: apt-get update"
		(cd "$tmp" && apt-get download -q "${sandbox[@]}" "vttest=$version" >&2) ||
			die "apt-get download vttest=$version failed (is Debian 12's main archive in the sources?)"
	fi
	local deb got
	deb=$(ls "$tmp"/vttest_*.deb)
	got=$(sha256sum "$deb" | cut -d' ' -f1)
	[ "$got" = "$want" ] || die "$deb has SHA-256 $got, want $want"
	mkdir "$tmp/root"
	dpkg-deb -x "$deb" "$tmp/root"
	[ -x "$tmp/root/usr/bin/vttest" ] || die "the package holds no usr/bin/vttest"
	touch "$tmp/root/.paneflow-installed"
	rm -rf "$dir"
	mv "$tmp/root" "$dir"
	echo "vttest: installed $binary" >&2
}

case ${1:-install} in
install) install ;;
bin)
	install
	echo "$binary"
	;;
*) die "usage: vttest.sh [install|bin]" ;;
esac
