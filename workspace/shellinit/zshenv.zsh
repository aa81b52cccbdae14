# Paneflow shell integration for zsh: Paneflow starts zsh with ZDOTDIR set
# to this file's directory. It puts the user's ZDOTDIR back (saved in
# PANEFLOW_USER_ZDOTDIR, unset when the user had none), reads the user's
# .zshenv, so every later startup file is the user's own, and in an
# interactive shell adds a precmd hook that keeps $PANEFLOW_BIN_DIR first
# in PATH (after /etc/zprofile's path_helper and the user's files) and
# reports the directory with OSC 7
# and pops every kitty keyboard mode a program may have left on (CSI < 16 u).
if [[ -n ${PANEFLOW_USER_ZDOTDIR+x} ]]; then
	ZDOTDIR=$PANEFLOW_USER_ZDOTDIR
	unset PANEFLOW_USER_ZDOTDIR
else
	unset ZDOTDIR
fi
if [[ -r ${ZDOTDIR:-$HOME}/.zshenv ]]; then
	builtin source -- "${ZDOTDIR:-$HOME}/.zshenv"
fi

if [[ -o interactive ]]; then
	__paneflow_precmd() {
		emulate -L zsh
		local d=${PANEFLOW_BIN_DIR-} c out= i
		if [[ -n $d && $path[1] != $d ]]; then
			path=("$d" "${(@)path:#$d}")
		fi
		local LC_ALL=C
		for ((i = 1; i <= $#PWD; i++)); do
			c=$PWD[i]
			if [[ $c == [A-Za-z0-9/._~-] ]]; then
				out+=$c
			else
				printf -v c '%%%02X' "'$c"
				out+=$c
			fi
		done
		printf '\033]7;file://%s%s\007\033[<16u' "${HOST-}" "$out"
	}
	autoload -Uz add-zsh-hook
	add-zsh-hook precmd __paneflow_precmd
fi
