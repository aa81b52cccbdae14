#!/usr/bin/env bash
# check.sh validates the Linux packages packaging/package.sh built, with the
# tools each ecosystem judges packages by, then installs the .deb for real
# and runs it. `packaging/package.sh linux check` calls it.
#
#   packaging/linux/check.sh DIST PKG_VERSION VERSION
#
# Installing needs root (apt-get, as in CI); as another user it goes
# through passwordless sudo, and fails saying so without one. It refuses to
# run when a paneflow package is already installed, which it would replace.
set -euo pipefail

dist=$1 pkgver=$2 version=$3
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

deb=$dist/paneflow_${pkgver}-1_amd64.deb
rpmf=$(ls "$dist"/paneflow-*.x86_64.rpm)
tarball=$dist/paneflow-$pkgver-linux-amd64.tar.xz

die() {
	echo "package check: $*" >&2
	exit 1
}
step_start=0
header() {
	step_start=$SECONDS
	printf '\n==> %s\n' "$*"
}
footer() {
	printf -- '--- ok (%ds)\n' $((SECONDS - step_start))
}
as_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi
}

for f in "$deb" "$rpmf" "$tarball"; do
	[ -f "$f" ] || die "$f is missing: run packaging/package.sh linux first"
done

work=$(mktemp -d /tmp/paneflow-pkg.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT

header "lintian $(basename "$deb")"
# --fail-on error: warnings and the rest are printed, errors fail.
lintian --fail-on error --display-level '>=warning' --no-tag-display-limit "$deb" | tee "$work/lintian.txt"
# Every program has its manual page, and lintian finds nothing wrong in them.
! grep -E 'no-manual-page|manpage-|groff-message' "$work/lintian.txt" || die "lintian finds the manual pages missing or wrong"
footer

header "desktop-file-validate, appstreamcli validate --pedantic (the installed copies)"
dpkg-deb -x "$deb" "$work/deb"
desktop-file-validate "$work/deb/usr/share/applications/io.paneflow.app.desktop"
# --no-net: the screenshot URLs are not fetched (no network here).
appstreamcli validate --pedantic --no-net --explain "$work/deb/usr/share/metainfo/io.paneflow.app.metainfo.xml"
# The metainfo's releases are the changelog's versions, in the same order.
meta=$(sed -n 's/.*<release version="\([^"]*\)".*/\1/p' "$work/deb/usr/share/metainfo/io.paneflow.app.metainfo.xml")
chlog=$(sed -n 's/^- semver: *//p' "$root/packaging/changelog.yml")
[ "$meta" = "$chlog" ] || die "metainfo releases (${meta//$'\n'/ }) differ from packaging/changelog.yml (${chlog//$'\n'/ })"
# Each screenshot the metainfo names is a file committed in packaging/.
sed -n 's|.*<image>\(.*\)</image>.*|\1|p' "$work/deb/usr/share/metainfo/io.paneflow.app.metainfo.xml" >"$work/shots"
[ -s "$work/shots" ] || die "the metainfo names no screenshot"
while read -r url; do
	f=$root/${url#https://raw.githubusercontent.com/paneflow-go/paneflow/main/}
	grep -q 'PNG image data' < <(file "$f") || die "the metainfo's screenshot $url is not a PNG committed at $f"
done <"$work/shots"
for s in 48 128 256 512; do
	f=$work/deb/usr/share/icons/hicolor/${s}x$s/apps/io.paneflow.app.png
	grep -q "PNG image data, $s x $s," < <(file "$f") || die "$f is not a ${s}x$s PNG: $(file -b "$f")"
done
footer

header "manual pages and copyright: current with the packaged programs"
# A page per program, and paneflow.1 documents every verb the packaged
# paneflow's help lists (the pages are generated from that help at build
# time; this checks the generator kept up).
for b in "$work"/deb/usr/bin/*; do
	n=$(basename "$b")
	m=$work/deb/usr/share/man/man1/$n.1.gz
	[ -f "$m" ] || die "$n has no manual page $m"
	man_out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$m" 2>&1 >/dev/null) ||
		die "man cannot render $m"
	[ -z "$man_out" ] || die "man warns about $m: $man_out"
done
verbs=$("$work/deb/usr/bin/paneflow" help | awk '/^Verbs:/ { v = 1; next } v && NF == 0 { exit } v { print $1 }')
[ -n "$verbs" ] || die "paneflow help lists no verbs"
for v in $verbs; do
	grep -qx ".SS $v" < <(zcat "$work/deb/usr/share/man/man1/paneflow.1.gz" | sed 's/\\-/-/g') ||
		die "paneflow.1 does not document the verb $v"
done
# The copyright file names every Go module each program links, at the
# version it links (go version -m reads the build information).
for b in "$work"/deb/usr/bin/*; do
	while read -r mod ver; do
		grep -qx "Comment: Go module $mod $ver, compiled into the programs .*" "$work/deb/usr/share/doc/paneflow/copyright" ||
			die "the copyright file lacks $mod $ver, which $(basename "$b") links"
	done < <(go version -m "$b" | awk '$1 == "dep" { if (m != "") print m; m = $2 " " $3 }
		$1 == "=>" { m = $2 " " $3 } END { if (m != "") print m }')
done
echo "$(find "$work"/deb/usr/share/man/man1 -type f | wc -l) manual pages; $(grep -c '^Comment: Go module' "$work/deb/usr/share/doc/paneflow/copyright") module licence stanzas"
footer

header "rpm -qip $(basename "$rpmf")"
rpm -qip "$rpmf"
echo "requires:"
rpm -qp --requires "$rpmf" | sed 's/^/    /'
# The .rpm holds the same files as the .deb (less the lintian overrides).
(cd "$work/deb" && find . -type f | sed 's/^\.//' | grep -v '^/usr/share/lintian/' |
	grep -v '^/usr/share/doc/paneflow/changelog.Debian.gz$' | sort) >"$work/deb.files"
rpm -qlp "$rpmf" | grep -v '^/usr/share/doc/paneflow/changelog' | while read -r f; do
	[ -d "$work/deb$f" ] || echo "$f"
done | sort >"$work/rpm.files"
diff -u "$work/deb.files" "$work/rpm.files" || die "the .rpm and the .deb hold different files"
grep -q . < <(rpm -qp --changelog "$rpmf") || die "the .rpm has no changelog"
footer

header "tar.xz: install.sh --prefix, then --uninstall"
mkdir "$work/tar" "$work/prefix"
tar -C "$work/tar" -xJf "$tarball"
"$work/tar/paneflow-$pkgver-linux-amd64/install.sh" --prefix "$work/prefix"
out=$("$work/prefix/bin/paneflow" version)
[[ $out == *"$version"* ]] || die "the tarball's paneflow version printed '$out', want $version"
grep -qx "Exec=$work/prefix/bin/paneflow-gui" "$work/prefix/share/applications/io.paneflow.app.desktop" ||
	die "install.sh did not point the .desktop Exec line at $work/prefix/bin/paneflow-gui"
"$work/tar/paneflow-$pkgver-linux-amd64/install.sh" --prefix "$work/prefix" --uninstall
left=$(find "$work/prefix" -type f)
[ -z "$left" ] || die "install.sh --uninstall left files behind:
$left"
footer

header "apt-get install ./$(basename "$deb"); paneflow version, serve, ls; the desktop app under Xvfb"
if [ "$(id -u)" -ne 0 ] && ! sudo -n true 2>/dev/null; then
	die "installing the .deb needs root or passwordless sudo (CI runs as root)"
fi
if grep -q '^.i' < <(dpkg-query -W -f='${db:Status-Abbrev}' paneflow 2>/dev/null); then
	die "a paneflow package is already installed here; remove it first (apt-get purge paneflow)"
fi
cp "$deb" "$work/paneflow.deb"
chmod 0644 "$work/paneflow.deb"
as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
	--no-install-recommends -o Dpkg::Use-Pty=0 "$work/paneflow.deb" </dev/null
installed=true
purge() {
	as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 purge -y -qq \
		-o Dpkg::Use-Pty=0 paneflow </dev/null
}
trap 'cleanup; if $installed; then purge; fi' EXIT

[ "$(command -v paneflow)" = /usr/bin/paneflow ] || die "paneflow is not /usr/bin/paneflow after installing"
out=$(paneflow version)
[[ $out == *"$version"* ]] || die "paneflow version printed '$out', want $version"
echo "paneflow version: $out"

# An isolated user: HOME and XDG under $work, the socket given explicitly.
h=$work/home
mkdir -p "$h/run" && chmod 700 "$h/run"
env_user=(env -i PATH=/usr/bin:/bin HOME="$h" LANG=C.UTF-8 SHELL=/bin/sh
	XDG_CONFIG_HOME="$h/config" XDG_STATE_HOME="$h/state" XDG_RUNTIME_DIR="$h/run"
	XDG_CACHE_HOME="$h/cache" XDG_DATA_HOME="$h/data" PANEFLOW_SOCKET_PATH="$h/run/pf.sock"
	DBUS_SESSION_BUS_ADDRESS="unix:path=$h/no-bus")

# waitfor CMD... runs CMD until it succeeds, at most 600 tries 0.1 s apart
# (a deadline against a hang, not a timing assertion).
waitfor() {
	local i
	for ((i = 0; i < 600; i++)); do
		"$@" >/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# The client hands `serve` over to /usr/bin/paneflow-server.
(cd "$h" && exec "${env_user[@]}" paneflow serve --size 80x24 >"$work/serve.log" 2>&1) &
pids+=($!)
serve_pid=$!
waitfor "${env_user[@]}" paneflow ls 2>/dev/null || die "paneflow serve did not answer; its log:
$(cat "$work/serve.log")"
ls_out=$("${env_user[@]}" paneflow ls)
echo "paneflow ls: $ls_out"
[[ $ls_out == *'"surfaces"'* || $ls_out == \[* ]] || die "paneflow ls printed no pane list: $ls_out"
kill -TERM "$serve_pid"
wait "$serve_pid" || die "paneflow serve exited non-zero after SIGTERM; its log:
$(cat "$work/serve.log")"
pids=()

# The desktop app from the installed .desktop entry's Exec line (field
# codes such as %U dropped), on its own Xvfb.
exec_line=$(sed -n 's/^Exec=//p' /usr/share/applications/io.paneflow.app.desktop | head -n1)
read -r -a exec_argv <<<"${exec_line//%[a-zA-Z]/}"
exec 3>"$work/display"
Xvfb -displayfd 3 -screen 0 1024x700x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
pids+=($!)
exec 3>&-
waitfor test -s "$work/display" 2>/dev/null || die "Xvfb reported no display: $(cat "$work/xvfb.log")"
display=:$(head -n1 "$work/display")
(cd "$h" && exec "${env_user[@]}" DISPLAY="$display" FYNE_SCALE=1 "${exec_argv[@]}" >"$work/gui.log" 2>&1) &
gui_pid=$!
pids=("$gui_pid" "${pids[@]}")
# gui_ready succeeds once the app logged its window, and fails the check at
# once if the app exited instead.
gui_ready() {
	grep -q '^paneflow: window ready' "$work/gui.log" && return 0
	kill -0 "$gui_pid" 2>/dev/null || die "the desktop app ($exec_line) exited before showing its window; its log:
$(cat "$work/gui.log")"
	return 1
}
waitfor gui_ready || die "the desktop app ($exec_line) did not show its window; its log:
$(cat "$work/gui.log")"
# The window started the user's server (detached, its output in the state
# directory's server.log) and attached to it.
grep -q '^paneflow: started the server (pid [0-9]*)' "$work/gui.log" || die "the desktop app did not start its server; its log:
$(cat "$work/gui.log")"
server_log=$h/state/paneflow/server.log
# Installed side by side, the server (the app's own binary) finds the
# launch shim next to itself.
if grep -q 'no paneflow-shim next to' "$work/gui.log" "$server_log"; then
	die "the installed desktop app's server did not find paneflow-shim beside it:
$(cat "$work/gui.log" "$server_log")"
fi
win=$(DISPLAY=$display xdotool search --onlyvisible --name '^Paneflow')
[ -n "$win" ] || die "xdotool found no window named Paneflow"
echo "window $win: $(DISPLAY=$display xdotool getwindowname "$win" | head -n1) ($(DISPLAY=$display xdotool getwindowgeometry "$win" | sed -n 's/ *Geometry: //p'))"
kill -TERM "$gui_pid"
wait "$gui_pid" || true
# Closing the window detached: the server goes on until kill-server.
"${env_user[@]}" paneflow ls >/dev/null || die "the server ended with the window; its log:
$(cat "$server_log")"
"${env_user[@]}" paneflow kill-server || die "paneflow kill-server failed; the server's log:
$(cat "$server_log")"
if "${env_user[@]}" paneflow ls >/dev/null 2>&1; then
	die "the server still answers after paneflow kill-server"
fi
footer

header "apt-get purge paneflow leaves nothing behind"
(cd "$work/deb" && find . -type f -o -type l | sed 's/^\.//') >"$work/deb.paths"
purge
installed=false
if grep -q '^.[^n]' < <(dpkg-query -W -f='${db:Status-Abbrev}' paneflow 2>/dev/null); then
	die "dpkg still knows paneflow after purge"
fi
while read -r f; do
	[ ! -e "$f" ] || die "$f is still there after apt-get purge"
done <"$work/deb.paths"
left=$(find /usr /etc /var/lib/dpkg/info -xdev \( -name '*paneflow*' -o -name 'io.paneflow.app*' \) 2>/dev/null || true)
[ -z "$left" ] || die "apt-get purge left these behind:
$left"
footer
