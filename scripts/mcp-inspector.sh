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

# shellcheck source=scripts/npm-cache.sh
. "$(dirname "${BASH_SOURCE[0]}")/npm-cache.sh"
# shellcheck source=scripts/tools-dir.sh
. "$(dirname "${BASH_SOURCE[0]}")/tools-dir.sh"

pkg=@modelcontextprotocol/inspector
ver=2.12.0
bin=mcp-inspector

die() {
	echo "mcp-inspector: $*" >&2
	exit 1
}

cache=$(tools_dir mcp-inspector) || exit 1
dir="$cache/${pkg//\//+}@$ver"

install() { npm_cache_install mcp-inspector "$dir" "$pkg" "$ver" "$bin"; }

case ${1:-install} in
install) install ;;
bin)
	install
	echo "$dir/node_modules/.bin/$bin"
	;;
*) die "usage: mcp-inspector.sh [install|bin]" ;;
esac
