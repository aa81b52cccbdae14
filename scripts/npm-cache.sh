# shellcheck shell=bash
# npm-cache.sh is sourced by scripts/agents.sh and scripts/mcp-inspector.sh:
# it installs one pinned npm package into its own directory of a cache
# outside the clone, once.
#
#   npm_cache_install LABEL DIR PACKAGE VERSION BIN
#
# installs PACKAGE@VERSION into DIR unless DIR/.paneflow-installed says it
# is there, and checks that it provides node_modules/.bin/BIN. LABEL
# prefixes the messages (on stderr). The install goes into a temporary
# directory beside DIR and is renamed into place only when npm succeeded,
# under a lock (flock on DIR.lock), so concurrent callers (parallel test
# packages, other checkouts) neither race nor see half an install. npm
# needs the registry only on the first run. Returns non-zero on failure.
#
# Bash 3.2 compatible.

npm_cache_install() {
	local label=$1 dir=$2 pkg=$3 ver=$4 bin=$5
	[ -f "$dir/.paneflow-installed" ] && return 0
	if ! command -v npm >/dev/null 2>&1; then
		echo "$label: npm is not installed (scripts/deps.sh installs nodejs and npm on Debian/Ubuntu)" >&2
		return 1
	fi
	if ! command -v flock >/dev/null 2>&1; then
		echo "$label: flock is not installed (util-linux)" >&2
		return 1
	fi
	mkdir -p "$(dirname "$dir")"
	(
		flock 9
		[ -f "$dir/.paneflow-installed" ] && exit 0
		tmp=$(mktemp -d "$dir.tmp.XXXXXX")
		echo "$label: installing $pkg@$ver into $dir (first run only)" >&2
		# Progress and funding noise off; a failure prints npm's own log.
		# Install scripts run: Claude Code and Codex pick their native
		# binary in a postinstall step. (The MCP Inspector asks for Node
		# 22; its CLI mode runs on Node 20 too: EBADENGINE is a warning.)
		if ! npm install --prefix "$tmp" --no-audit --no-fund --no-update-notifier \
			--loglevel=error "$pkg@$ver" </dev/null >&2; then
			rm -rf "$tmp"
			echo "$label: npm install $pkg@$ver failed (is the npm registry reachable?)" >&2
			exit 1
		fi
		if [ ! -x "$tmp/node_modules/.bin/$bin" ]; then
			rm -rf "$tmp"
			echo "$label: $pkg@$ver installed no node_modules/.bin/$bin" >&2
			exit 1
		fi
		touch "$tmp/.paneflow-installed"
		rm -rf "$dir"
		mv "$tmp" "$dir"
	) 9>"$dir.lock"
}
