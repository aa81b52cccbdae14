#!/usr/bin/env bash
# deps.sh installs the system packages Paneflow's build and tests need, and only
# the ones that are missing. `make run`, `make test`, `make fuzz` and `make bench` run it first.
#
#   scripts/deps.sh [group...]      groups: base, gui (both by default), package, bench
#
# On Debian and Ubuntu it checks each package with dpkg-query and, if any are
# missing, runs `apt-get update` once and installs just those, non-interactively,
# as root or through passwordless sudo (`sudo -n`); it never prompts. It also
# generates the en_US.UTF-8 locale the tests run under. When nothing is missing
# it prints nothing and takes a fraction of a second.
#
# Elsewhere (macOS, other Linux distributions) it installs nothing: it checks
# that the needed commands exist and says which are missing.
#
# Go itself is not an apt package here (Debian's is too old): install Go 1.26
# or newer from https://go.dev/dl/ into /usr/local/go.
set -euo pipefail

# base: the headless build and its tests.
#   make, ca-certificates  the build itself; Go module downloads over HTTPS
#   git                    version stamping; worktree tests use the real git
#   gcc, libc6-dev         cgo, which `go test -race` needs
#   locales                the en_US.UTF-8 locale the tests set (generated below)
#   tmux, vim, less, procps (top)
#                          programs the terminal fidelity tests run in both a
#                          Paneflow terminal and a tmux pane
#   zsh, fish              shells whose integration (shim first in PATH, OSC 7)
#                          is tested in real panes, like bash's
#   openssh-server, openssh-client
#                          `paneflow --host` (test/remote, BenchmarkRemoteLs): a real
#                          sshd on loopback, started by the test with its own keys
#                          and config (the package's own service is not used), and
#                          the real ssh client
#   chromium               the headless browser test/web drives (over the
#                          DevTools protocol, with chromedp) against
#                          `paneflow serve --web` (it skips without one, so
#                          systems without apt are not asked for it)
#   zbar-tools             zbarimg, which decodes the QR code `paneflow web pair`
#                          draws in a real pane back into the link (test/web)
base=(make ca-certificates git gcc libc6-dev locales tmux vim less procps zsh fish
	openssh-server openssh-client chromium zbar-tools)

# gui: the Fyne desktop window (cgo with GL and X11 headers: `make run`,
# bin/paneflow-gui) and its end-to-end tests under a virtual display (Xvfb,
# xdotool to type and click, ImageMagick's import for screenshots; test/gui),
# and a CJK fallback font so wide characters render as glyphs, not boxes
# (fonts-droid-fallback; app/render's CJK golden skips without one).
gui=(gcc pkg-config libgl1-mesa-dev libx11-dev libxcursor-dev libxrandr-dev
	libxinerama-dev libxi-dev libxxf86vm-dev libgl1-mesa-dri xvfb xauth xdotool
	imagemagick fonts-droid-fallback)

# package: building the installable bundles and validating them
# (packaging/package.sh; `make test` installs it in its "package" step):
# librsvg2-bin renders the icon, dpkg-dev's dpkg-shlibdeps computes the
# .deb's library dependencies, lintian, desktop-file-utils, appstream and
# rpm judge the packages, xz-utils packs the tarball, icnsutils makes the
# macOS .icns, gcc-mingw-w64-x86-64 cross-builds the Windows desktop app
# (its windres the version resource), nsis the Windows installer and
# osslsigncode signs it when a certificate is given; shellcheck is what
# actionlint checks the workflows' run: scripts with.
# wine and wine64 (64-bit only, no i386 multiarch) run the installers'
# smoke test (packaging/windows/wine-check.sh); wixl builds the MSI and
# msitools' msiinfo reads it back.
package=(librsvg2-bin dpkg-dev binutils file lintian desktop-file-utils appstream rpm
	xz-utils icnsutils gcc-mingw-w64-x86-64 nsis osslsigncode openssl shellcheck)
package+=(wine wine64 wixl msitools)

# bench: the terminals `make bench` measures the desktop app against
# (test/gui BenchmarkKeyEcho: key echo, throughput and memory under one
# Xvfb). Not needed by `make test`.
bench=(alacritty kitty)

default_groups=(base gui)

# commands_of maps a group to the commands that show it is present, for
# systems without apt.
commands_of() {
	case $1 in
	base) echo make git gcc tmux vim less top zsh fish ssh ssh-keygen ;;
	# macOS builds the window with Xcode's compiler and has no use for the
	# X11 test tools (test/gui runs on Linux only).
	gui) if [ "$(uname -s)" = Darwin ]; then echo cc; else echo gcc pkg-config Xvfb xdotool import; fi ;;
	package) echo rsvg-convert png2icns makensis wine ;;
	bench) echo alacritty kitty ;;
	esac
}

die() {
	echo "deps: $*" >&2
	exit 1
}

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=("${default_groups[@]}")
for g in "${groups[@]}"; do
	case $g in
	base | gui | package | bench) ;;
	*) die "unknown group '$g' (groups: base, gui, package, bench)" ;;
	esac
done

if ! command -v go >/dev/null 2>&1 && [ ! -x /usr/local/go/bin/go ]; then
	die "Go is not installed (not in PATH, not in /usr/local/go/bin): install Go 1.26 or newer from https://go.dev/dl/"
fi

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
	absent=()
	for g in "${groups[@]}"; do
		for c in $(commands_of "$g"); do
			command -v "$c" >/dev/null 2>&1 || absent+=("$c")
		done
	done
	if [ ${#absent[@]} -gt 0 ]; then
		die "automatic installation supports Debian and Ubuntu (apt) only; please install these commands: ${absent[*]}"
	fi
	exit 0
fi

wanted=()
for g in "${groups[@]}"; do
	declare -n list="$g"
	wanted+=("${list[@]}")
	unset -n list
done

# missing prints the packages among its arguments that are not fully installed.
missing() {
	local -A state=()
	local name status
	# One dpkg-query for all packages; it exits 1 and complains about packages it
	# has never seen, which are exactly the missing ones, so both are ignored.
	while read -r name status; do
		state[$name]=$status
	done < <(dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "$@" 2>/dev/null || true)
	# The status is two letters, "ii" or "hi" (held) once installed; a third
	# letter flags a broken package, which counts as missing.
	local p
	for p in "$@"; do
		[[ ${state[$p]:-} == [ih]i ]] || echo "$p"
	done
}

# as_root runs a command as root: directly when we are root, else through
# passwordless sudo. It never prompts for a password.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo -n "$@"
	fi
}

# need_root fails with instructions unless as_root can work: $1 says what
# needs root, $2 is the command to run as root by hand instead.
need_root() {
	[ "$(id -u)" -eq 0 ] && return 0
	command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null && return 0
	die "$1 needs root, and this user has no passwordless sudo. Run this as root once:
    $2"
}

mapfile -t todo < <(missing "${wanted[@]}" | awk '!seen[$0]++')
if [ ${#todo[@]} -gt 0 ]; then
	need_root "installing ${todo[*]}" \
		"apt-get update && apt-get install -y --no-install-recommends ${todo[*]}"
	echo "deps: installing ${todo[*]}"
	# A fresh VM may be running unattended-upgrades: wait for its dpkg lock
	# rather than fail.
	apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300)
	as_root "${apt[@]}" update -qq </dev/null
	as_root "${apt[@]}" install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 \
		"${todo[@]}" </dev/null
	mapfile -t still < <(missing "${todo[@]}")
	[ ${#still[@]} -eq 0 ] || die "apt-get did not install: ${still[*]}"
fi

# node and npm: scripts/agents.sh installs the real agent CLIs that test/agents
# drives with them. Installed from Debian only when npm is missing, so a Node.js
# from elsewhere (NodeSource, nvm) is kept as it is.
if ! command -v npm >/dev/null 2>&1; then
	need_root "installing nodejs and npm" "apt-get update && apt-get install -y --no-install-recommends nodejs npm"
	echo "deps: installing nodejs npm"
	apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300)
	as_root "${apt[@]}" update -qq </dev/null
	as_root "${apt[@]}" install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 nodejs npm </dev/null
	command -v npm >/dev/null 2>&1 || die "apt-get did not install npm"
fi

has_locale() { locale -a 2>/dev/null | grep -qiE '^en_US\.utf-?8$'; }

if ! has_locale; then
	need_root "generating the en_US.UTF-8 locale" "localedef -i en_US -c -f UTF-8 en_US.UTF-8"
	echo "deps: generating the en_US.UTF-8 locale"
	# List it in /etc/locale.gen so later locale-gen runs (e.g. on upgrades of
	# the locales package) keep it, then build just this one locale.
	if [ -f /etc/locale.gen ] && grep -qE '^# *en_US\.UTF-8 UTF-8' /etc/locale.gen; then
		as_root sed -i -E 's/^# *(en_US\.UTF-8 UTF-8)/\1/' /etc/locale.gen
	elif ! grep -qE '^en_US\.UTF-8 UTF-8' /etc/locale.gen 2>/dev/null; then
		echo 'en_US.UTF-8 UTF-8' | as_root tee -a /etc/locale.gen >/dev/null
	fi
	alias_file=()
	[ -f /usr/share/locale/locale.alias ] && alias_file=(-A /usr/share/locale/locale.alias)
	# localedef exits 1 on mere warnings (as locale-gen tolerates); the check
	# below is what decides.
	as_root localedef -i en_US -c -f UTF-8 "${alias_file[@]}" en_US.UTF-8 || true
	has_locale || die "en_US.UTF-8 is still missing from \`locale -a\` after localedef"
fi
