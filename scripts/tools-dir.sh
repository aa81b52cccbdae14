# shellcheck shell=bash
# tools-dir.sh is sourced by the scripts that install a pinned test tool
# into a cache outside the clone (scripts/mcp-inspector.sh, scripts/vttest.sh).
#
#   tools_dir LABEL
#
# prints that cache: $PANEFLOW_TOOLS_DIR, else $HOME/.cache/paneflow/tools
# (not $XDG_CACHE_HOME, which the test scripts point at a temporary
# directory). It fails, saying so on stderr after LABEL, when neither is set.
#
# Bash 3.2 compatible.

tools_dir() {
	if [ -n "${PANEFLOW_TOOLS_DIR:-}" ]; then
		echo "$PANEFLOW_TOOLS_DIR"
	elif [ -n "${HOME:-}" ]; then
		echo "$HOME/.cache/paneflow/tools"
	else
		echo "$1: neither PANEFLOW_TOOLS_DIR nor HOME is set" >&2
		return 1
	fi
}
