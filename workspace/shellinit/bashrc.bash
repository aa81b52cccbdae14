# Paneflow shell integration for bash, run as "bash --rcfile <this> -i".
# It does what bash would have done at startup (the login files when
# PANEFLOW_BASH_LOGIN=1, else the interactive ones), then keeps
# $PANEFLOW_BIN_DIR first in PATH and reports the directory with OSC 7
# and pops every kitty keyboard mode a program may have left on (CSI < 16 u)
# before each prompt.
if [ "${PANEFLOW_BASH_LOGIN-}" = 1 ]; then
	unset PANEFLOW_BASH_LOGIN
	if [ -r /etc/profile ]; then . /etc/profile; fi
	for __paneflow_f in "$HOME/.bash_profile" "$HOME/.bash_login" "$HOME/.profile"; do
		if [ -r "$__paneflow_f" ]; then
			. "$__paneflow_f"
			break
		fi
	done
	unset __paneflow_f
else
	unset PANEFLOW_BASH_LOGIN
	if [ -r /etc/bash.bashrc ]; then . /etc/bash.bashrc; fi
	if [ -r "$HOME/.bashrc" ]; then . "$HOME/.bashrc"; fi
fi

# __paneflow_path moves $PANEFLOW_BIN_DIR to the front of PATH.
__paneflow_path() {
	local d=${PANEFLOW_BIN_DIR-} p
	[ -n "$d" ] || return 0
	case $PATH in "$d" | "$d:"*) return 0 ;; esac
	p=":$PATH:"
	while [[ $p == *":$d:"* ]]; do p=${p//":$d:"/:}; done
	p=${p#:}
	p=${p%:}
	PATH=$d${p:+:$p}
}

# __paneflow_prompt runs before each prompt; it keeps the exit status.
__paneflow_prompt() {
	local s=$? LC_ALL=C c out= i
	__paneflow_path
	for ((i = 0; i < ${#PWD}; i++)); do
		c=${PWD:i:1}
		case $c in
		[A-Za-z0-9/._~-]) out+=$c ;;
		*) printf -v c '%%%02X' "'$c"; out+=$c ;;
		esac
	done
	printf '\033]7;file://%s%s\007\033[<16u' "${HOSTNAME-}" "$out"
	return $s
}

__paneflow_path
if [[ "$(declare -p PROMPT_COMMAND 2>/dev/null)" == "declare -a"* ]]; then
	case " ${PROMPT_COMMAND[*]} " in
	*" __paneflow_prompt "*) ;;
	*) PROMPT_COMMAND+=(__paneflow_prompt) ;;
	esac
else
	case ${PROMPT_COMMAND-} in
	*__paneflow_prompt*) ;;
	"") PROMPT_COMMAND=__paneflow_prompt ;;
	*) PROMPT_COMMAND=$PROMPT_COMMAND$'\n'__paneflow_prompt ;;
	esac
fi
