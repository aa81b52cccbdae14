# Paneflow shell integration for fish, run by "fish --init-command" after
# the user's configuration: keeps $PANEFLOW_BIN_DIR first in PATH and
# reports the directory with OSC 7 before each prompt.
function __paneflow_prompt --on-event fish_prompt
	if set -q PANEFLOW_BIN_DIR; and test -n "$PANEFLOW_BIN_DIR"; and test "$PATH[1]" != "$PANEFLOW_BIN_DIR"
		set -l rest
		for p in $PATH
			test "$p" = "$PANEFLOW_BIN_DIR"; or set -a rest $p
		end
		set -gx PATH $PANEFLOW_BIN_DIR $rest
	end
	printf '\e]7;file://%s%s\a' $hostname (string escape --style=url -- $PWD)
end
__paneflow_prompt
