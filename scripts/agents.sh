#!/usr/bin/env bash
# agents.sh installs the real agent CLIs that test/agents drives (and the MCP
# and agent-team tests reuse), pinned, from npm, into a cache outside the
# clone, and prints where they are. `make test` and `make bench` run it first.
#
#   scripts/agents.sh [install] [tool...]   install what is missing (all tools by default)
#   scripts/agents.sh bin TOOL              install if missing, then print the binary's absolute path
#   scripts/agents.sh list                  print "tool package version binary-path" per tool
#
# tools: claude, codex, gemini, opencode (the table below). A version bump is
# one line of that table.
#
# The cache is $PANEFLOW_AGENTS_DIR, else $HOME/.cache/paneflow/agents (not
# $XDG_CACHE_HOME, which the test scripts point at a temporary directory); each package gets <package>@<version>/ there
# ("/" in a scoped name becomes "+"). A finished install is marked by a file
# .paneflow-installed; a second run finds it and downloads nothing. An install
# goes into a temporary directory beside its final one and is renamed into
# place only when npm succeeded, under a lock (flock), so concurrent callers
# (parallel test packages, other checkouts) neither race nor see half an
# install. About 700 MB in all; npm needs the registry only on the first run.
set -euo pipefail

# shellcheck source=scripts/npm-cache.sh
. "$(dirname "${BASH_SOURCE[0]}")/npm-cache.sh"

# tool  npm package                  version   binary (under node_modules/.bin)
table='
claude   @anthropic-ai/claude-code   2.1.332   claude
codex    @openai/codex               0.169.0   codex
gemini   @google/gemini-cli          0.61.0    gemini
opencode opencode-ai                 1.18.33   opencode
'

die() {
	echo "agents: $*" >&2
	exit 1
}

cache_dir() {
	if [ -n "${PANEFLOW_AGENTS_DIR:-}" ]; then
		echo "$PANEFLOW_AGENTS_DIR"
	else
		[ -n "${HOME:-}" ] || die "neither PANEFLOW_AGENTS_DIR nor HOME is set"
		echo "$HOME/.cache/paneflow/agents"
	fi
}

# row TOOL prints the table row of TOOL, or fails.
row() {
	local r
	r=$(awk -v t="$1" '$1 == t' <<<"$table")
	[ -n "$r" ] || die "unknown tool '$1' (tools: $(awk 'NF {printf "%s ", $1}' <<<"$table"))"
	echo "$r"
}

# dir_of PACKAGE VERSION prints the install directory.
dir_of() { echo "$(cache_dir)/${1//\//+}@$2"; }

# install TOOL installs one tool unless it is already there.
install() {
	local tool pkg ver bin
	read -r tool pkg ver bin <<<"$(row "$1")"
	npm_cache_install agents "$(dir_of "$pkg" "$ver")" "$pkg" "$ver" "$bin"
}

cmd=${1:-install}
case $cmd in
bin)
	[ $# -eq 2 ] || die "usage: agents.sh bin TOOL"
	install "$2"
	read -r _ pkg ver bin <<<"$(row "$2")"
	echo "$(dir_of "$pkg" "$ver")/node_modules/.bin/$bin"
	;;
list)
	awk 'NF' <<<"$table" | while read -r tool pkg ver bin; do
		echo "$tool $pkg $ver $(dir_of "$pkg" "$ver")/node_modules/.bin/$bin"
	done
	;;
install | *)
	[ "$cmd" = install ] && shift || true
	tools=("$@")
	[ ${#tools[@]} -gt 0 ] || mapfile -t tools < <(awk 'NF {print $1}' <<<"$table")
	for t in "${tools[@]}"; do row "$t" >/dev/null; done
	# In parallel: the downloads dominate, and they are independent.
	pids=()
	for t in "${tools[@]}"; do
		install "$t" &
		pids+=($!)
	done
	rc=0
	for p in "${pids[@]}"; do wait "$p" || rc=1; done
	exit $rc
	;;
esac
