#!/usr/bin/env bash
# mcp-inspector.sh installs the MCP Inspector CLI (@modelcontextprotocol/inspector,
# pinned), from npm, into a cache outside the clone, for test/mcp's
# TestInspector: an independent MCP client that lists and calls the bridge's
# tools and reads its resources. `make test` runs it (through that test).
#
#   scripts/mcp-inspector.sh [install]   install if missing
#   scripts/mcp-inspector.sh bin         install if missing, then print the binary's path
#
# The cache is $PANEFLOW_TOOLS_DIR, else $HOME/.cache/paneflow/tools (not
# $XDG_CACHE_HOME, which the test scripts point at a temporary directory),
# with the package in <package>@<version>/ ("/" becomes "+"). A finished
# install is marked by .paneflow-installed, so a second run downloads
# nothing; the install happens in a temporary directory renamed into place
# under a lock (flock), so concurrent callers never see half of one.
set -euo pipefail

pkg=@modelcontextprotocol/inspector
ver=2.12.0
bin=mcp-inspector

die() {
	echo "mcp-inspector: $*" >&2
	exit 1
}

if [ -n "${PANEFLOW_TOOLS_DIR:-}" ]; then
	cache=$PANEFLOW_TOOLS_DIR
else
	[ -n "${HOME:-}" ] || die "neither PANEFLOW_TOOLS_DIR nor HOME is set"
	cache=$HOME/.cache/paneflow/tools
fi
dir="$cache/${pkg//\//+}@$ver"

install() {
	[ -f "$dir/.paneflow-installed" ] && return 0
	command -v npm >/dev/null 2>&1 || die "npm is not installed (apt-get install nodejs npm)"
	command -v flock >/dev/null 2>&1 || die "flock is not installed (util-linux)"
	mkdir -p "$cache"
	(
		flock 9
		[ -f "$dir/.paneflow-installed" ] && exit 0
		tmp=$(mktemp -d "$dir.tmp.XXXXXX")
		echo "mcp-inspector: installing $pkg@$ver into $dir (first run only)" >&2
		# The package asks for Node 22; its CLI mode runs on Node 20 too
		# (EBADENGINE is only a warning).
		if ! npm install --prefix "$tmp" --no-audit --no-fund --no-update-notifier \
			--loglevel=error "$pkg@$ver" </dev/null >&2; then
			rm -rf "$tmp"
			die "npm install $pkg@$ver failed (is the npm registry reachable?)"
		fi
		[ -x "$tmp/node_modules/.bin/$bin" ] || { rm -rf "$tmp"; die "$pkg@$ver installed no node_modules/.bin/$bin"; }
		touch "$tmp/.paneflow-installed"
		rm -rf "$dir"
		mv "$tmp" "$dir"
	) 9>"$dir.lock"
}

case ${1:-install} in
install) install ;;
bin)
	install
	echo "$dir/node_modules/.bin/$bin"
	;;
*) die "usage: mcp-inspector.sh [install|bin]" ;;
esac
